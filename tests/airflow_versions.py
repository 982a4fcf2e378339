"""Version differences the tests need to drive Airflow's own code by hand, across Airflow 3 minors, and the one
model of the scheduler's run-creation loop built on them (:func:`scheduled_runs`).

The package's own differences are in ``hops_timetable/_compat.py``; these are the tests' alone.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import time_machine
from airflow.timetables.base import DagRunInfo

from hops_timetable._compat import AIRFLOW_VERSION


def dag_serialization_class() -> Any:
    """The class that serializes a DAG as the dag-processor stores it and deserializes it as the scheduler reads it.

    ``DagSerialization`` from 3.2; ``SerializedDAG`` (the same ``to_dict``/``from_dict`` and
    ``serialize_dag``/``deserialize_dag`` class methods) in 3.0 and 3.1. Used by the tests to build the scheduler's
    view of a DAG.
    """
    from airflow.serialization import serialized_objects

    name = "DagSerialization" if AIRFLOW_VERSION >= (3, 2) else "SerializedDAG"
    return getattr(serialized_objects, name)


def dag_next_dagrun_info(dag: Any, last: DagRunInfo | None) -> DagRunInfo | None:
    """The next run of the scheduler's DAG *dag* after *last*, as the scheduler and dag-processor compute it.

    3.2 made the argument the last run's ``DagRunInfo`` (``last_automated_run_info``, keyword-only); 3.0 and 3.1
    take its data interval (``last_automated_dagrun``). Used by the tests to drive Airflow's own run creation.
    """
    if AIRFLOW_VERSION >= (3, 2):
        result: DagRunInfo | None = dag.next_dagrun_info(last_automated_run_info=last)
        return result
    interval = None if last is None else last.data_interval
    older: DagRunInfo | None = dag.next_dagrun_info(interval)
    return older


def scheduled_runs(
    dag: Any, now: datetime, *, last: DagRunInfo | None = None, count: int | None = None, limit: int = 500
) -> list[DagRunInfo]:
    """The runs Airflow's scheduler creates for *dag* after *last*, one after the other, with the clock frozen at
    *now* and never down: each run is the DAG's next run after the one before (:func:`dag_next_dagrun_info`).

    Without *count*, the runs due at *now* (``run_after <= now``), fewer than *limit* of them; with it, the next
    *count* runs, due or not (as many as there are, if the schedule ends first).

    Airflow's own code decides each run; this only loops, so it is a driver, not an oracle for the timetable.
    """
    runs: list[DagRunInfo] = []
    with time_machine.travel(now, tick=False):
        while count is None or len(runs) < count:
            info = dag_next_dagrun_info(dag, last)
            if info is None or (count is None and info.run_after > now):
                break
            runs.append(info)
            last = info
            assert count is not None or len(runs) < limit, f"more than {limit} runs due at {now}"
    return runs


def store_next_dagrun(dag_model: Any, dag: Any, run: Any) -> None:
    """Have Airflow store *dag*'s next run in *dag_model* after the created run *run*, as the scheduler does.

    3.3 made the argument the run to continue from, whatever its type (``reference_run``); 3.2 called it
    ``last_automated_run``; 3.0 and 3.1 take the last automated run's data interval (``last_automated_dag_run``).
    Used by the tests of timetable switches.
    """
    if AIRFLOW_VERSION >= (3, 3):
        dag_model.calculate_dagrun_date_fields(dag=dag, reference_run=run)
    elif AIRFLOW_VERSION >= (3, 2):
        dag_model.calculate_dagrun_date_fields(dag=dag, last_automated_run=run)
    else:
        from airflow.timetables.base import DataInterval

        interval = DataInterval(run.data_interval_start, run.data_interval_end)
        dag_model.calculate_dagrun_date_fields(dag=dag, last_automated_dag_run=interval)
