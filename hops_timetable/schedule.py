"""``hops_schedule``: a DAG's scheduling arguments written with Hopsworks' own names.

It mirrors ``job.schedule(...)`` of the Hopsworks Python API and returns the keyword arguments of ``@dag``/``DAG``::

    @dag(dag_id="feature_pipeline", **hops_schedule(cron_expression="0 0 * ? * * *",
                                                    start_time=datetime(2026, 1, 1, tzinfo=timezone.utc)))
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from hops_timetable.core.schedule import argument_names
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
    trigger_form: bool = False,
) -> dict[str, Any]:
    """The DAG keyword arguments ``schedule``, ``start_date``, ``end_date``, ``catchup`` and ``max_active_runs``.

    ``start_time=None`` means "from now on", as in Hopsworks: nothing before the moment the DAG is first scheduled
    is replayed. Dates must be timezone-aware. Every argument is validated here, so a mistake fails the DAG import
    with a message instead of silently stopping the scheduler later.

    A manual run with a window comes from the DAG's Hopsworks tab ("Run with time window") or from
    ``conf["hops_window"]``, at no cost to the DAG. ``trigger_form=True`` also returns ``params`` that give
    Airflow's own Trigger form optional "HOPS window start" / "HOPS window end" fields (:func:`hops_window_params`),
    which become the run's ``conf["hops_window"]``. It is off by default because Airflow copies DAG params into
    every task and validates each copy with jsonschema whenever the DAG is serialized, and the params again at each
    run it creates: with them the dag-processor's work per DAG file is 2.0-2.1x that of Airflow's own cron
    timetables for 1 task and 6.7x for 50 tasks, without them 0.69-0.96x (docs/performance.md). Turn it on where
    people trigger runs from Airflow's Trigger form and the DAG has few tasks; a DAG with params of its own merges
    ``hops_window_params()`` into them instead.
    """
    given = locals()
    # A DAG's catchup is True or False (the timetable also accepts None: one that does not hold the DAG's); every
    # other argument is the schedule's, handed on by name and validated once by the timetable (core/schedule.py).
    # start_time, end_time and catchup among them: the timetable holds the DAG's restriction, so that it tells a
    # backfill's range from the DAG's own and never needs the serialized DAG when it re-checks a stored run.
    check_bool("catchup", catchup)
    check_max_active_runs("max_active_runs", max_active_runs)
    timetable = HopsworksTimetable(**{name: given[name] for name in argument_names()})
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
