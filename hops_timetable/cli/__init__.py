"""The tools: the ``hops-timetable`` console script (``python -m hops_timetable.cli``), one module per command.

The pure commands never import Airflow. Work is bounded so that any accepted input answers within a second.
Exit status: 0 on success (also when stdout is closed early, as by ``| head``); 2 for bad input, one line on stderr
naming the argument; 3 when ``audit`` or ``parity`` finds differences; 4 when ``parity`` is inconclusive; 1 when
Airflow cannot be read, or for a bug (one line says so, ``--debug`` shows the traceback). With ``--json`` the error
is also printed on stdout as ``{"error": ..., "status": ...}``.
"""

from hops_timetable.cli.app import main
from hops_timetable.cli.errors import BadInput
from hops_timetable.cli.options import MAX_COMPARE, MAX_COUNT, parse_time
from hops_timetable.cli.simulate import MAX_SIMULATED_FIRES

__all__ = ["MAX_COMPARE", "MAX_COUNT", "MAX_SIMULATED_FIRES", "BadInput", "main", "parse_time"]
