"""``hops_schedule``: a DAG's scheduling arguments with the names of Hopsworks' ``job.schedule(...)``, as the keyword
arguments of ``@dag``/``DAG`` (``@dag(dag_id="d", **hops_schedule(cron_expression="0 0 * ? * * *"))``)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from hops_timetable._compat import params_dict
from hops_timetable.core.conf_window import END_PARAM, START_PARAM
from hops_timetable.core.schedule import argument_names
from hops_timetable.core.validation import check_bool, check_max_active_runs
from hops_timetable.timetable import HopsworksTimetable


def hops_schedule(
    cron_expression: str,
    start_time: datetime | None = None,
    end_time: datetime | None = None,
    start_time_offset_seconds: int | None = None,
    end_time_offset_seconds: int | None = None,
    catchup: bool = False,
    max_active_runs: int = 1,
    max_catchup_runs: int | None = None,
    skip_to_date: datetime | None = None,
    trigger_form: bool = False,
) -> dict[str, Any]:
    """The DAG keyword arguments ``schedule``, ``start_date``, ``end_date``, ``catchup`` and ``max_active_runs``.

    ``start_time=None`` means "from now on", as in Hopsworks. Dates must be timezone-aware. Every argument is
    validated here, so a mistake fails the DAG import with a message instead of silently stopping the scheduler.
    ``trigger_form=True`` also returns the ``params`` of :func:`hops_window_params`; off by default, as Airflow copies
    and validates DAG params for every task (a cost measured in docs/performance.md).
    """
    given = locals()
    # A DAG's catchup is True or False (the timetable also accepts None); the rest is validated by the timetable.
    check_bool("catchup", catchup)
    check_max_active_runs("max_active_runs", max_active_runs)
    timetable = HopsworksTimetable(**{name: given[name] for name in argument_names()})
    # A ParamsDict compares by value, so two equal hops_schedule(...) calls stay equal.
    params = {"params": params_dict(hops_window_params())} if trigger_form else {}
    return {
        "schedule": timetable,
        "start_date": timetable.start_time,
        "end_date": timetable.end_time,
        "catchup": catchup,
        "max_active_runs": max_active_runs,
        **params,
    }


def hops_window_params() -> dict[str, Any]:
    """DAG params that give the Trigger form optional "window start" and "window end" fields, which become the run's
    ``conf["hops_window"]`` (``params={**hops_window_params()}``, or ``hops_schedule(..., trigger_form=True)``)."""
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
