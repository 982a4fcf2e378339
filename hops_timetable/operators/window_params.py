"""The Trigger form's window fields; the core makes them ``conf["hops_window"]`` (``conf_with_form_window``)."""

from __future__ import annotations

from typing import Any

from hops_timetable.core.conf_window import END_PARAM, START_PARAM

__all__ = ["hops_window_params"]


def hops_window_params() -> dict[str, Any]:
    """DAG params that give the Trigger form optional "window start" and "window end" fields; scheduled runs ignore
    them. ``hops_schedule(..., trigger_form=True)`` adds them; otherwise pass ``params={**hops_window_params()}``."""
    from airflow.sdk import Param

    # Short: Airflow copies DAG params, descriptions included, into every task of the serialized DAG.
    help_text = (
        "Optional: the HOPS window of this manual run, as in Hopsworks' job.run(start_time=..., end_time=...). "
        "Only these two fields give the tasks a window; Airflow's own data interval and logical date do not. "
        "Typed in the UI's time zone, passed on in UTC. Leave both empty for a run without a window."
    )
    return {
        key: Param(None, type=["null", "string"], format="date-time", title=title, description=help_text)
        for key, title in ((START_PARAM, "HOPS window start"), (END_PARAM, "HOPS window end"))
    }
