"""The one log line that says, before the job runs, which ``HOPS_*`` values a task got and from where (as
:func:`~hops_timetable.core.conf_window.resolve_run_window` decided). Pure: no Airflow import.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hops_timetable.core.conf_window import CONF_KEY
from hops_timetable.core.window import HOPS_ENV_KEYS


def log_window(logger: Any, values: Mapping[str, str], source: str | None) -> None:
    """One INFO line with the three values and their source, or why there are none."""
    if not values:
        logger.info('HOPS window: none (a run from outside without conf["%s"]); HOPS_* variables are not set', CONF_KEY)
        return
    text = " ".join(f"{key}={values.get(key, 'unset')}" for key in HOPS_ENV_KEYS)
    logger.info("HOPS window from %s: %s", source or "unknown", text)
