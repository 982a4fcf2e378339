"""Bounded catch-up: hourly, ``catchup=True``, ``max_catchup_runs=24``, started on 2026-01-01.

Every hourly fire since the start date is missed by the time the DAG appears, but only the newest 24 become runs,
as after a long outage in Hopsworks; this shows on a fresh install at once. The start date is a constant: a value
computed from the clock (``pendulum.today()``) would change the DAG, and so its version, as the date moves, which
Airflow flags as a runtime-varying value in the DAG constructor.
"""

from __future__ import annotations

import os
from datetime import datetime, timezone

from airflow.providers.standard.operators.python import PythonOperator
from airflow.sdk import DAG

from hops_timetable import hops_schedule
from hops_timetable.operators import inject_hops_env, restore_hops_env


def replay() -> None:
    print("Replaying", os.environ.get("HOPS_START_TIME"), "to", os.environ.get("HOPS_END_TIME"))


with DAG(
    dag_id="bounded_catchup",
    tags=["hopsworks"],
    **hops_schedule(
        cron_expression="0 0 * ? * * *",
        start_time=datetime(2026, 1, 1, tzinfo=timezone.utc),
        catchup=True,
        max_active_runs=4,
        max_catchup_runs=24,
    ),
):
    # Any operator can take the HOPS_* variables through its pre/post-execute hooks.
    PythonOperator(
        task_id="replay",
        python_callable=replay,
        pre_execute=inject_hops_env,
        post_execute=restore_hops_env,
    )
