"""Where a task's ``HOPS_*`` values come from, and the one log line that says so before the job runs.

Pure: no Airflow import. The precedence itself is :func:`~hops_timetable.core.conf_window.resolve_hops_env`;
this module only names which of its three sources supplied the values it returned.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hops_timetable.core.conf_window import CONF_KEY, SCHEDULED_RUN_TYPES
from hops_timetable.core.window import HOPS_ENV_KEYS

__all__ = ["log_window", "window_source"]


def window_source(
    *,
    run_type: object,
    has_interval: bool,
    conf: Mapping[str, Any] | None,
    explicit: Mapping[str, str] | None,
) -> str | None:
    """``"conf"``, ``"operator env"``, ``"scheduler"``, ``"scheduler and operator env"`` or ``None`` (no window).

    Call it only after :func:`~.window_conf.resolve_hops_env` accepted the same inputs.
    """
    if isinstance(conf, Mapping) and CONF_KEY in conf:
        return "conf"
    own = [key for key in HOPS_ENV_KEYS if explicit is not None and key in explicit]
    kind = getattr(run_type, "value", run_type)
    scheduled = kind in SCHEDULED_RUN_TYPES and has_interval
    if own and (len(own) == len(HOPS_ENV_KEYS) or not scheduled):
        return "operator env"
    if own:
        return "scheduler and operator env"
    return "scheduler" if scheduled else None


def log_window(logger: Any, values: Mapping[str, str], source: str | None) -> None:
    """One INFO line with the three values and their source, or why there are none."""
    if not values:
        logger.info('HOPS window: none (a run from outside without conf["%s"]); HOPS_* variables are not set', CONF_KEY)
        return
    text = " ".join(f"{key}={values.get(key, 'unset')}" for key in HOPS_ENV_KEYS)
    logger.info("HOPS window from %s: %s", source or "unknown", text)
