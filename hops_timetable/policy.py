"""The DAG policy (entry point ``airflow.policy``) that gives every ``HopsworksTimetable`` its DAG's restriction.

A timetable tells a backfill's range from the DAG's own restriction only when it holds the latter, which
``schedule=HopsworksTimetable(...)`` does not pass (docs/deployment.md, "The DAG policy").
"""

from __future__ import annotations

import sys
from datetime import datetime
from typing import Any

from airflow.policies import hookimpl


def dag_restriction(dag: Any) -> tuple[datetime | None, datetime | None, bool]:
    """The ``(earliest, latest, catchup)`` Airflow schedules *dag* with, in aware UTC, by Airflow's rule: the
    earliest of the DAG's and its tasks' start dates; the DAG's end date, or, when every task has one, the latest."""
    from hops_timetable.core.window import as_utc

    tasks = list(getattr(dag, "tasks", ()))
    starts = [*(getattr(task, "start_date", None) for task in tasks), dag.start_date]
    ends = [getattr(task, "end_date", None) for task in tasks]
    ends = [*ends, dag.end_date] if tasks and None not in ends else [dag.end_date]
    earliest = min((as_utc(value) for value in starts if value is not None), default=None)
    latest = max((as_utc(value) for value in ends if value is not None), default=None)
    return earliest, latest, bool(dag.catchup)


@hookimpl
def dag_policy(dag: Any) -> None:
    """Bind *dag*'s ``HopsworksTimetable`` to the DAG's restriction; refuse what could never run or would run wrong."""
    if (module := sys.modules.get("hops_timetable.timetable")) is None:  # no HopsworksTimetable exists in this process
        return
    timetable: Any = getattr(dag, "timetable", None)
    hops = module.HopsworksTimetable
    # The class's MRO, not isinstance: Airflow's Timetable is a Protocol, whose checks cost microseconds.
    inner: Any = timetable if hops in type(timetable).__mro__ else getattr(timetable, "timetable", None)
    if hops not in type(inner).__mro__:
        return
    from airflow.exceptions import AirflowClusterPolicyViolation

    from hops_timetable.config import settings
    from hops_timetable.core.validation import ArgumentError

    if not settings().dag_policy:
        return
    if inner is not timetable:
        raise AirflowClusterPolicyViolation(
            f"DAG {dag.dag_id!r}: HopsworksTimetable cannot be wrapped in {type(timetable).__name__}: the "
            "wrapper forwards only some of its methods, so the catch-up bound after an outage and the HOPS "
            "window's offset would be lost. Schedule this DAG with the HopsworksTimetable alone, and react to "
            "the assets in a second DAG (schedule=[...assets]) that runs the same tasks"
        )
    earliest, latest, catchup = dag_restriction(dag)
    try:
        bound = inner.bound_to(earliest, latest, catchup)
    except ArgumentError as exc:
        raise AirflowClusterPolicyViolation(f"DAG {dag.dag_id!r}: {exc}") from None
    if bound is not timetable:
        dag.timetable = bound
