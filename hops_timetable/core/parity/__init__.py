"""Parity between what Hopsworks executed and what Airflow runs: one module per step.

``exports`` and ``ledger`` read Hopsworks' exports, ``replay`` makes a schedule's plan of a range, ``meaning`` reads
``-start_time``, ``compare`` classifies each fire, ``sides`` puts them together (:func:`parity`). Pure: no Airflow.
"""

from __future__ import annotations

from hops_timetable.core.parity.compare import CLASSES, Report, Row, SideRun, compare
from hops_timetable.core.parity.exports import (
    Execution,
    ExecutionsExport,
    ScheduleVersion,
    load_executions,
    load_schedule_versions,
)
from hops_timetable.core.parity.ledger import LedgerRow, load_ledger
from hops_timetable.core.parity.meaning import MEANINGS, Reading, detect_meaning
from hops_timetable.core.parity.replay import Plan, replay
from hops_timetable.core.parity.sides import Outcome, parity

__all__ = [
    "CLASSES",
    "MEANINGS",
    "Execution",
    "ExecutionsExport",
    "LedgerRow",
    "Outcome",
    "Plan",
    "Reading",
    "Report",
    "Row",
    "ScheduleVersion",
    "SideRun",
    "compare",
    "detect_meaning",
    "load_executions",
    "load_ledger",
    "load_schedule_versions",
    "parity",
    "replay",
]
