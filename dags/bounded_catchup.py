"""Bounded catch-up: hourly, ``catchup=True``, ``max_catchup_runs=24``, started a week ago.

A week of hourly fires is missed from the moment the DAG appears, but only the newest 24 become runs, as after a
one-week outage in Hopsworks. The start date moves with the clock so that this always shows on a fresh install.
"""

from __future__ import annotations

import os

import pendulum
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
        start_time=pendulum.today("UTC").subtract(days=7),
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
