"""The Trigger form's "window start" / "window end" fields: DAG params of Airflow's ``Param`` type.

How their values become ``conf["hops_window"]`` is a rule of the core,
:func:`hops_timetable.core.conf_window.conf_with_form_window`.
"""

from __future__ import annotations

from typing import Any

from hops_timetable.core.conf_window import END_PARAM, START_PARAM

__all__ = ["hops_window_params"]


def hops_window_params() -> dict[str, Any]:
    """DAG params that give the Trigger form a "window start" and a "window end" field, both optional.

    ``hops_schedule(...)`` adds them; for a DAG built on ``HopsworksTimetable`` directly, pass
    ``params={**hops_window_params(), ...}`` to the DAG. Scheduled runs ignore them.
    """
    from airflow.sdk import Param

    help_text = (
        "Optional: the HOPS window of this manual run, as in Hopsworks' job.run(start_time=..., end_time=...). "
        "The form reads each date and time in the UI's time zone (the user's setting, UTC unless changed) and "
        "passes it on in UTC, as conf has it: 2026-01-01T09:00:00Z. Leave both empty for a run without a window."
    )
    return {
        START_PARAM: Param(
            None, type=["null", "string"], format="date-time", title="HOPS window start", description=help_text
        ),
        END_PARAM: Param(
            None, type=["null", "string"], format="date-time", title="HOPS window end", description=help_text
        ),
    }
