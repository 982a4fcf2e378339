"""``hops_schedule``: a DAG's scheduling arguments written with Hopsworks' own names.

It mirrors ``job.schedule(...)`` of the Hopsworks Python API and returns the keyword arguments of ``@dag``/``DAG``::

    @dag(dag_id="feature_pipeline", **hops_schedule(cron_expression="0 0 * ? * * *",
                                                    start_time=datetime(2026, 1, 1, tzinfo=timezone.utc)))
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from hops_timetable.core.validation import check_bool, check_max_active_runs
from hops_timetable.operators.window_params import hops_window_params
from hops_timetable.timetable import HopsworksTimetable

__all__ = ["hops_schedule", "hops_window_params"]


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
    trigger_form: bool = True,
) -> dict[str, Any]:
    """The DAG keyword arguments ``schedule``, ``start_date``, ``end_date``, ``catchup`` and ``max_active_runs``.

    ``start_time=None`` means "from now on", as in Hopsworks: nothing before the moment the DAG is first scheduled
    is replayed. Dates must be timezone-aware. Every argument is validated here, so a mistake fails the DAG import
    with a message instead of silently stopping the scheduler later.

    ``trigger_form=True`` also returns ``params`` that give the Trigger form optional "HOPS window start" / "HOPS
    window end" fields (:func:`hops_window_params`), which become the run's ``conf["hops_window"]``. Pass
    ``trigger_form=False`` when the DAG has params of its own, and merge ``hops_window_params()`` into them, or
    when the DAG has many tasks: Airflow copies DAG params into every task and validates each copy whenever the DAG
    is serialized (docs/performance.md).
    """
    # A DAG's catchup is True or False (the timetable also accepts None: one that does not hold the DAG's); every
    # other argument is the schedule's, validated once by the timetable (core/schedule.py).
    check_bool("catchup", catchup)
    check_max_active_runs("max_active_runs", max_active_runs)
    timetable = HopsworksTimetable(
        cron_expression,
        start_time_offset_seconds=start_time_offset_seconds,
        end_time_offset_seconds=end_time_offset_seconds,
        max_catchup_runs=max_catchup_runs,
        skip_to_date=skip_to_date,
        # The timetable holds the DAG's restriction, so that it tells a backfill's range from the DAG's own and
        # never needs the serialized DAG when it re-checks a stored run.
        start_time=start_time,
        end_time=end_time,
        catchup=catchup,
    )
    kwargs: dict[str, Any] = {
        "schedule": timetable,
        "start_date": timetable.start_time,
        "end_date": timetable.end_time,
        "catchup": catchup,
        "max_active_runs": max_active_runs,
    }
    if trigger_form:
        from hops_timetable import _compat

        # A ParamsDict compares by value, so two equal hops_schedule(...) calls stay equal.
        kwargs["params"] = _compat.params_dict(hops_window_params())
    return kwargs
