"""Operators that make a task see what a Hopsworks-scheduled job sees; loaded on first access, like the root."""

from __future__ import annotations

from typing import TYPE_CHECKING

from hops_timetable import _lazy_getattr

if TYPE_CHECKING:  # the lazy names below, re-exported for type checkers
    from hops_timetable.core.conf_window import HopsWindowError as HopsWindowError
    from hops_timetable.core.conf_window import parse_conf_window as parse_conf_window
    from hops_timetable.core.conf_window import resolve_hops_env as resolve_hops_env
    from hops_timetable.operators.bash import HopsBashOperator as HopsBashOperator
    from hops_timetable.operators.python import HopsPythonOperator as HopsPythonOperator
    from hops_timetable.operators.python import hops_task as hops_task
    from hops_timetable.operators.runtime import hops_env as hops_env
    from hops_timetable.operators.runtime import inject_hops_env as inject_hops_env
    from hops_timetable.operators.runtime import restore_hops_env as restore_hops_env

_LAZY = {
    "hops_timetable.operators.bash": ("HopsBashOperator",),
    "hops_timetable.operators.python": ("HopsPythonOperator", "hops_task"),
    "hops_timetable.operators.runtime": ("hops_env", "inject_hops_env", "restore_hops_env"),
    "hops_timetable.core.conf_window": ("HopsWindowError", "parse_conf_window", "resolve_hops_env"),
}
__all__ = sorted(name for names in _LAZY.values() for name in names)
__getattr__ = _lazy_getattr(globals(), _LAZY)
