"""Operators that make a task see what a Hopsworks-scheduled job sees; loaded on first access, like the root."""

from __future__ import annotations

from typing import TYPE_CHECKING

from hops_timetable import _lazy_getattr

if TYPE_CHECKING:
    from hops_timetable.core.conf_window import HopsWindowError, parse_conf_window, resolve_hops_env
    from hops_timetable.operators.bash import HopsBashOperator
    from hops_timetable.operators.python import HopsPythonOperator, hops_task
    from hops_timetable.operators.runtime import hops_env, inject_hops_env, restore_hops_env

__all__ = [
    "HopsBashOperator",
    "HopsPythonOperator",
    "HopsWindowError",
    "hops_env",
    "hops_task",
    "inject_hops_env",
    "parse_conf_window",
    "resolve_hops_env",
    "restore_hops_env",
]


__getattr__ = _lazy_getattr(
    globals(),
    {
        "hops_timetable.operators.bash": ("HopsBashOperator",),
        "hops_timetable.operators.python": ("HopsPythonOperator", "hops_task"),
        "hops_timetable.operators.runtime": ("hops_env", "inject_hops_env", "restore_hops_env"),
        "hops_timetable.core.conf_window": ("HopsWindowError", "parse_conf_window", "resolve_hops_env"),
    },
)
