"""Coverage of a DAG's data windows: which HOPS windows have been processed, which are missing, and why.

Every cron fire from the DAG's start to *now* gets one :class:`~hops_timetable.core.decision.Decision` (the table
in docs/audit-and-ui.md). Fires dropped by design form ``dropped``; the other expected windows no processed window
covers form ``gaps``; two processed windows meeting form ``overlaps`` and ``duplicates``. Pure: no Airflow import.
"""

from __future__ import annotations

from hops_timetable.core.coverage.blocks import Blocks, RunBlock, split_blocks
from hops_timetable.core.coverage.detail import Coverage, coverage, page_of_fires, timeline_begin
from hops_timetable.core.coverage.fires import FireCoverage, Span
from hops_timetable.core.coverage.history import History, Stretch, history, now_key
from hops_timetable.core.coverage.runs import (
    DONE_STATES,
    IN_FLIGHT_STATES,
    RunRecord,
    RunWindow,
    run_window,
    upcoming_windows,
)

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
