"""Coverage of a DAG's data windows: which HOPS windows have been processed, which are missing, and why.

Given a DAG's schedule and its runs as Airflow recorded them, every cron fire from the DAG's start to *now* gets one
:class:`~hops_timetable.core.decision.Decision`, the policy's and the outage simulator's vocabulary:

* ``created``: the fire has a scheduled or backfill run; its state says whether it ran, runs or failed.
* ``dropped beyond max_catchup_runs`` / ``dropped: catchup=False``: no run, and the run created after the gap is
  exactly the one the catch-up policy picks at the moment Airflow queued it, so the bound dropped this fire.
* ``skipped before skip_to_date``: never meant to run.
* ``due: no run yet``: after the newest run, and the scheduler would still create it if it looked now.
* ``missed: ...``: no run and the bound does not explain it (the DAG was paused, Airflow down past the bound
  "now", or the run was deleted).

Windows of fires dropped *by design* (:data:`~hops_timetable.core.decision.BY_DESIGN`) form ``dropped``, not gaps.
The *expected* windows are those of the other fires up to now, the *processed* ones those of runs (their window as
:mod:`~.runs` reads it) that succeeded or are in flight. ``gaps``: the parts of the expected windows no processed
window covers, with the reasons of the fires there; ``overlaps``: parts two processed windows cover; ``duplicates``:
identical windows of two runs. Pure: no Airflow import.
"""

from __future__ import annotations

from hops_timetable.core.coverage.blocks import Blocks, RunBlock, split_blocks
from hops_timetable.core.coverage.detail import Coverage, coverage, page_of_fires, timeline_begin
from hops_timetable.core.coverage.fires import FireCoverage
from hops_timetable.core.coverage.history import History, Stretch, history, now_key
from hops_timetable.core.coverage.runs import (
    DONE_STATES,
    IN_FLIGHT_STATES,
    RunRecord,
    RunWindow,
    run_window,
    upcoming_windows,
)
from hops_timetable.core.coverage.spans import Span

__all__ = [
    "DONE_STATES",
    "IN_FLIGHT_STATES",
    "Blocks",
    "Coverage",
    "FireCoverage",
    "History",
    "RunBlock",
    "RunRecord",
    "RunWindow",
    "Span",
    "Stretch",
    "coverage",
    "history",
    "now_key",
    "page_of_fires",
    "run_window",
    "split_blocks",
    "timeline_begin",
    "upcoming_windows",
]
