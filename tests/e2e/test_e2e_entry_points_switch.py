"""A DAG file switched from a plain cron string (CronTriggerTimetable) to HopsworksTimetable while the scheduler
runs: runs keep coming, logical dates stay unique, and the new runs tile.

Each scenario asserts that the scheduler's log holds no Traceback: Airflow logs the exceptions a timetable or a
failed insert raise and goes on (or dies), so a clean log is the proof that nothing went wrong on the way.
"""

from __future__ import annotations

import itertools
import os
from datetime import timedelta
from pathlib import Path

import pytest
from expect import report, run_rows, wait_runs
from harness import StackFactory, floor_to, utcnow
from test_e2e_entry_points import TEN, assert_unique_logical_dates, scheduler_tracebacks

pytestmark = pytest.mark.e2e

SWITCH_BEFORE = '''"""A DAG on Airflow's default timetable for a cron string (CronTriggerTimetable), every 10 s."""
from datetime import datetime, timezone
from airflow.providers.standard.operators.empty import EmptyOperator
from airflow.sdk import DAG

with DAG(dag_id="switch", schedule="* * * * * */10", start_date=datetime.fromisoformat({start!r}),
         catchup=False, is_paused_upon_creation=False):
    EmptyOperator(task_id="job")
'''

SWITCH_AFTER = '''"""The same DAG moved to HopsworksTimetable."""
from datetime import datetime
from airflow.providers.standard.operators.empty import EmptyOperator
from airflow.sdk import DAG
from hops_timetable import hops_schedule

with DAG(dag_id="switch", is_paused_upon_creation=False,
         **hops_schedule("0/10 * * * * ?", start_time=datetime.fromisoformat({start!r}), max_active_runs=4)):
    EmptyOperator(task_id="job")
'''


def test_a_dag_switched_from_a_cron_string_to_hopsworks_timetable_keeps_running(
    stacks: StackFactory, tmp_path: Path
) -> None:
    stack = stacks("switch")
    start = (floor_to(utcnow(), 10) - timedelta(minutes=1)).isoformat()
    path = stack.dags_folder / "switch.py"
    path.write_text(SWITCH_BEFORE.format(start=start))
    before = wait_runs(stack, "switch", lambda r: len(r) >= 2, 120, "two CronTriggerTimetable runs")
    assert all(run.data_interval_start == run.data_interval_end for run in before), run_rows(before)
    tmp = stack.dags_folder / ".switch.tmp"
    tmp.write_text(SWITCH_AFTER.format(start=start))
    os.replace(tmp, path)
    switched_at = utcnow()

    wait_runs(
        stack,
        "switch",
        lambda r: len([x for x in r if x.data_interval_start != x.data_interval_end]) >= 3,
        150,
        "three HopsworksTimetable runs after the switch",
    )
    runs = stack.runs("switch")
    assert_unique_logical_dates(stack, "switch")
    assert [r.run_after for r in runs] == sorted({r.run_after for r in runs})
    after = [r for r in runs if r.data_interval_start != r.data_interval_end]
    for previous, current in itertools.pairwise(after):
        assert current.data_interval_start == previous.data_interval_end, run_rows(after)
    for run in after[1:]:
        assert run.run_after - run.data_interval_start == TEN
    assert scheduler_tracebacks(stack) == []
    report("switch", switched_at=switched_at, runs=run_rows(runs))
