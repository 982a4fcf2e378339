"""The tools: the ``hops-timetable`` console script (``python -m hops_timetable.cli``), one module per command.

Commands: ``next``, ``explain``, ``preview``, ``simulate``, ``compare``, ``import``, ``audit`` and ``parity``; each
takes ``--json``.
``next``, ``explain``, ``simulate``, ``import`` and ``preview`` without ``--dag-file`` never import Airflow, so they
start in a fraction of a second; ``compare`` and ``preview --dag-file`` import it when they run.

Times on the command line are ISO-8601 (naive means UTC, a trailing ``Z`` is UTC on every Python) or ``now``;
output times are ``2026-01-01T10:00:00Z``. Every argument is checked by :mod:`hops_timetable.core.validation`, as
``hops_schedule`` checks it. Work is bounded so that any accepted input answers within a second: ``-n`` and
``--limit`` at most :data:`MAX_COUNT`, ``compare -n`` at most :data:`MAX_COMPARE`, a simulated timeline at most
:data:`MAX_SIMULATED_FIRES` fires of its cron.

Exit status: 0 on success (also when stdout is closed early, as by ``| head``); 2 for bad input, reported as one
line on stderr naming the argument; 3 when ``audit`` finds windows that should have run and did not, or ``parity``
finds differences; 4 when ``parity`` is inconclusive; 1 for anything else, which is a bug: one line says so and that
``--debug`` shows the traceback. With ``--json`` the error is also printed on stdout as
``{"error": ..., "status": ...}``.
"""

from hops_timetable.cli.app import main
from hops_timetable.cli.errors import BadInput
from hops_timetable.cli.options import MAX_COMPARE, MAX_COUNT, parse_time
from hops_timetable.cli.simulate import MAX_SIMULATED_FIRES

__all__ = ["MAX_COMPARE", "MAX_COUNT", "MAX_SIMULATED_FIRES", "BadInput", "main", "parse_time"]
