"""The HOPS offset a scheduled run was made with, carried in its run id.

A run's window is fixed by what the run was made for: its interval and the ``start_time_offset_seconds`` in force
when the scheduler made it. Airflow stores the interval with the run, but the offset lives only in the DAG file,
which a task reads when it runs: a run cleared after an offset edit, or made before the edit and started after it,
would process a different window than the one it was made for (leaving a gap or an overlap). The run id is the one
thing of a run that the timetable sets, that nothing changes afterwards (clear, a backfill's reprocessing, a
restart) and that reaches the task, so the id of a scheduled run made with an offset is Airflow's own id followed
by that offset: ``scheduled__2026-01-01T10:00:00+00:00__hops_offset_3600s``. A run made with no offset (or 0) keeps
exactly Airflow's id (``scheduled__2026-01-01T10:00:00+00:00``), which dashboards, scripts and test suites expect;
a scheduled run's id without the marker therefore means offset 0. Pure: no Airflow import.
"""

from __future__ import annotations

import re
from typing import Final

__all__ = ["MARKER", "mark_offset", "marked_offset"]

MARKER: Final = "__hops_offset_"
"""What separates Airflow's run id from the offset the run was made with."""

# Digits only, as written by mark_offset; an id edited by hand into anything else is not read as marked.
_MARKED = re.compile(r"__hops_offset_(0|[1-9][0-9]{0,9})s\Z", re.ASCII)


def mark_offset(run_id: str, offset_seconds: int | None) -> str:
    """*run_id* with the offset the run is made with; *run_id* itself when there is none (``None`` or 0)."""
    return f"{run_id}{MARKER}{offset_seconds}s" if offset_seconds else run_id


def marked_offset(run_id: object) -> int | None:
    """The offset :func:`mark_offset` wrote into *run_id*; ``None`` for an id without one (a run made with no
    offset, by another timetable, by hand, or by a release before the offset was carried)."""
    if not isinstance(run_id, str):
        return None
    match = _MARKED.search(run_id)
    return None if match is None else int(match.group(1))
