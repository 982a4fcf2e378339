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

    ``hops_schedule(..., trigger_form=True)`` adds them; for a DAG built on ``HopsworksTimetable`` directly, pass
    ``params={**hops_window_params(), ...}`` to the DAG. Scheduled runs ignore them.
    """
    from airflow.sdk import Param

    # Short: Airflow copies DAG params, descriptions included, into every task of the serialized DAG.
    help_text = (
        "Optional: the HOPS window of this manual run, as in Hopsworks' job.run(start_time=..., end_time=...). "
        "Only these two fields give the tasks a window; Airflow's own data interval and logical date do not. "
        "Typed in the UI's time zone, passed on in UTC. Leave both empty for a run without a window."
    )
    return {
        START_PARAM: Param(
            None, type=["null", "string"], format="date-time", title="HOPS window start", description=help_text
        ),
        END_PARAM: Param(
            None, type=["null", "string"], format="date-time", title="HOPS window end", description=help_text
        ),
    }
