"""Schedule Apache Airflow 3 DAGs exactly as the Hopsworks job scheduler schedules jobs.

The root imports no Airflow, so that the core and the CLI's pure commands start fast: adapters load on first access.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

if TYPE_CHECKING:  # the lazy names below, re-exported for type checkers
    from hops_timetable.core.cron import CronSyntaxError as CronSyntaxError
    from hops_timetable.core.cron import QuartzCron as QuartzCron
    from hops_timetable.core.validation import ArgumentError as ArgumentError
    from hops_timetable.core.validation import HopsTimetableError as HopsTimetableError
    from hops_timetable.core.window import HopsWindow as HopsWindow
    from hops_timetable.schedule import hops_schedule as hops_schedule
    from hops_timetable.timetable import HopsworksTimetable as HopsworksTimetable


def _lazy_getattr(namespace: dict[str, Any], where: Mapping[str, tuple[str, ...]]) -> Callable[[str], Any]:
    """A ``__getattr__`` (PEP 562) for the module of *namespace* (its ``globals()``): each name of ``where[module]``
    is that module's, imported on first access and cached in *namespace*."""
    modules = {name: module for module, names in where.items() for name in names}

    def __getattr__(name: str) -> Any:
        if name not in modules:
            raise AttributeError(f"module {namespace['__name__']!r} has no attribute {name!r}")
        value = namespace[name] = getattr(importlib.import_module(modules[name]), name)
        return value

    return __getattr__


_LAZY = {
    "hops_timetable.core.cron": ("QuartzCron", "CronSyntaxError"),
    "hops_timetable.core.validation": ("ArgumentError", "HopsTimetableError"),
    "hops_timetable.core.window": ("HopsWindow",),
    "hops_timetable.timetable": ("HopsworksTimetable",),
    "hops_timetable.schedule": ("hops_schedule",),
}
__all__ = sorted(name for names in _LAZY.values() for name in names)
__getattr__ = _lazy_getattr(globals(), _LAZY)
