"""The tools: the ``hops-timetable`` console script (``python -m hops_timetable.cli``), one module per command.

The pure commands never import Airflow; any accepted input answers within a second. Exit status (docs/cli.md): 0
success, 2 bad input, 3 differences found by ``audit`` or ``parity``, 4 ``parity`` inconclusive, 1 Airflow unreadable
or a bug.
"""

from hops_timetable.cli.app import main
from hops_timetable.cli.errors import BadInput
from hops_timetable.cli.options import MAX_COMPARE, MAX_COUNT, parse_time
from hops_timetable.cli.simulate import MAX_SIMULATED_FIRES

__all__ = ["MAX_COMPARE", "MAX_COUNT", "MAX_SIMULATED_FIRES", "BadInput", "main", "parse_time"]
