"""The Trigger form's "window start" / "window end" fields, and how their values become ``conf["hops_window"]``.

Airflow's Trigger form turns DAG params into ``dag_run.conf`` entries of the same names, one flat key per field.
:func:`conf_with_form_window` folds :data:`START_PARAM` and :data:`END_PARAM` into ``conf["hops_window"]``, so a
window typed into the form goes through exactly the validation of a window passed in ``conf`` (and the coverage
audit reads it the same way). Pure apart from :func:`hops_window_params`, which imports Airflow's ``Param``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hops_timetable.operators.window_conf import CONF_KEY

__all__ = ["END_PARAM", "START_PARAM", "conf_with_form_window", "hops_window_params"]

START_PARAM = "hops_window_start_time"
END_PARAM = "hops_window_end_time"


def conf_with_form_window(conf: Mapping[str, Any] | None) -> Mapping[str, Any] | None:
    """*conf* with the form's window fields as ``conf["hops_window"]``; unchanged when both fields are empty.

    An explicit ``conf["hops_window"]`` wins over the fields. A field left empty while the other is set is passed
    on as missing, so that the window's own validation names it.
    """
    if not isinstance(conf, Mapping) or CONF_KEY in conf:
        return conf
    start, end = conf.get(START_PARAM), conf.get(END_PARAM)
    if start in (None, "") and end in (None, ""):
        return conf
    window = {key: value for key, value in (("start_time", start), ("end_time", end)) if value not in (None, "")}
    return {**conf, CONF_KEY: window}


def hops_window_params() -> dict[str, Any]:
    """DAG params that give the Trigger form a "window start" and a "window end" field, both optional.

    ``hops_schedule(...)`` adds them; for a DAG built on ``HopsworksTimetable`` directly, pass
    ``params={**hops_window_params(), ...}`` to the DAG. Scheduled runs ignore them.
    """
    from airflow.sdk import Param

    help_text = (
        "Optional: the HOPS window of this manual run, as in Hopsworks' job.run(start_time=..., end_time=...). "
        "UTC, for example 2026-01-01T09:00:00Z. Leave both empty for a run without a window."
    )
    return {
        START_PARAM: Param(
            None, type=["null", "string"], format="date-time", title="HOPS window start", description=help_text
        ),
        END_PARAM: Param(
            None, type=["null", "string"], format="date-time", title="HOPS window end", description=help_text
        ),
    }
