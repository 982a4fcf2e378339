"""Schedule Apache Airflow 3 DAGs exactly as the Hopsworks job scheduler schedules jobs.

The package root stays free of Airflow imports so that ``hops_timetable.cron`` and the CLI's pure
commands start fast; the Airflow adapters are loaded on first attribute access.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

if TYPE_CHECKING:
    from hops_timetable.cron import CronSyntaxError, QuartzCron
    from hops_timetable.schedule import hops_schedule
    from hops_timetable.timetable import HopsworksTimetable
    from hops_timetable.window import HopsWindow

_LAZY = {
    "QuartzCron": "hops_timetable.cron",
    "CronSyntaxError": "hops_timetable.cron",
    "HopsWindow": "hops_timetable.window",
    "HopsworksTimetable": "hops_timetable.timetable",
    "hops_schedule": "hops_timetable.schedule",
}

__all__ = ["CronSyntaxError", "HopsWindow", "HopsworksTimetable", "QuartzCron", "hops_schedule"]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'hops_timetable' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
