"""A 25-hour trailing window on an hourly schedule (``start_time_offset_seconds = 25 * 3600``).

As in the Hopsworks guide: the run of the 11:00 fire sees HOPS_START_TIME = 09:00 and HOPS_END_TIME = 10:00 of the
previous day; HOPS_LOGICAL_DATE stays 10:00 of the current day.
"""

from __future__ import annotations

import os
from datetime import datetime, timezone

from airflow.sdk import DAG

from hops_timetable import hops_schedule
from hops_timetable.operators import HopsPythonOperator


def late_data_job() -> None:
    window = {key: os.environ.get(key, "unset") for key in ("HOPS_START_TIME", "HOPS_END_TIME", "HOPS_LOGICAL_DATE")}
    print(f"Re-processing late data: {window}")


with DAG(
    dag_id="offset_25h",
    tags=["hopsworks"],
    **hops_schedule(
        cron_expression="0 0 * ? * * *",
        start_time=datetime(2026, 1, 1, tzinfo=timezone.utc),
        start_time_offset_seconds=25 * 3600,
    ),
):
    HopsPythonOperator(task_id="late_data_job", python_callable=late_data_job)
