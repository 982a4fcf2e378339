"""Schedule Apache Airflow 3 DAGs exactly as the Hopsworks job scheduler schedules jobs.

The root imports no Airflow, so that the core and the CLI's pure commands start fast: adapters load on first access.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hops_timetable._lazy import lazy_getattr

__version__ = "0.1.0"

if TYPE_CHECKING:
    from hops_timetable.core.cron import CronSyntaxError, QuartzCron
    from hops_timetable.core.validation import ArgumentError, HopsTimetableError
    from hops_timetable.core.window import HopsWindow
    from hops_timetable.schedule import hops_schedule
    from hops_timetable.timetable import HopsworksTimetable

_LAZY = {
    "QuartzCron": "hops_timetable.core.cron",
    "CronSyntaxError": "hops_timetable.core.cron",
    "ArgumentError": "hops_timetable.core.validation",
    "HopsTimetableError": "hops_timetable.core.validation",
    "HopsWindow": "hops_timetable.core.window",
    "HopsworksTimetable": "hops_timetable.timetable",
    "hops_schedule": "hops_timetable.schedule",
}

__all__ = [
    "ArgumentError",
    "CronSyntaxError",
    "HopsTimetableError",
    "HopsWindow",
    "HopsworksTimetable",
    "QuartzCron",
    "hops_schedule",
]


__getattr__ = lazy_getattr(__name__, _LAZY, globals())
