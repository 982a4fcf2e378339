"""Daily job with the legacy argument: the command receives ``-start_time <HOPS_LOGICAL_DATE>``.

Quartz ``0 0 0 * * ?`` fires at midnight UTC; the run of today's fire processes yesterday.
"""

from __future__ import annotations

from datetime import datetime, timezone

from airflow.sdk import DAG

from hops_timetable import HopsworksTimetable
from hops_timetable.operators import HopsBashOperator

with DAG(
    dag_id="daily_job",
    schedule=HopsworksTimetable("0 0 0 * * ?"),
    start_date=datetime(2026, 1, 1, tzinfo=timezone.utc),
    catchup=False,
    max_active_runs=1,
    tags=["hopsworks"],
) as dag:
    # Old job code parses `-start_time`; newer code reads HOPS_START_TIME/HOPS_END_TIME.
    HopsBashOperator(
        task_id="daily_job",
        # The legacy arguments go where the command places them: here to the echo that stands for the job.
        bash_command='echo "window [${HOPS_START_TIME:-unset}, ${HOPS_END_TIME:-unset})"; '
        'echo "job arguments:" {{ hops.legacy_args }}',
        legacy_args="start_time",
    )
