"""Hourly feature pipeline: the job code of the Hopsworks scheduling guide, unchanged, as an Airflow task.

Quartz ``0 0 * ? * * *`` fires at every full hour (UTC); the run of the 10:00 fire processes [09:00, 10:00).
"""

from __future__ import annotations

import os
from datetime import datetime, timezone

from airflow.sdk import dag

from hops_timetable import hops_schedule
from hops_timetable.operators import hops_task


@dag(
    dag_id="hourly_feature_pipeline",
    tags=["hopsworks"],
    **hops_schedule(cron_expression="0 0 * ? * * *", start_time=datetime(2026, 1, 1, tzinfo=timezone.utc)),
)
def hourly_feature_pipeline() -> None:
    @hops_task
    def compute_features() -> None:
        if "HOPS_START_TIME" not in os.environ:
            # A manual run without a window: Hopsworks sets no variables, so the job picks its own range.
            print("No HOPS_* window given; nothing to process")
            return
        # The values end in "Z", which datetime.fromisoformat reads from Python 3.11 on; this also runs on 3.10.
        start = datetime.fromisoformat(os.environ["HOPS_START_TIME"].replace("Z", "+00:00"))
        end = datetime.fromisoformat(os.environ["HOPS_END_TIME"].replace("Z", "+00:00"))
        print(f"Processing rows in [{start}, {end})")

    compute_features()


hourly_feature_pipeline()
