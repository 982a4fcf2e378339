"""Backfills through the REST API (and its dry run) and the CLI, on a real scheduler: the scheduled runs of the
range, neither bounded by the catch-up bound nor invented, clamped at the start only.

Each scenario asserts that the scheduler's log holds no Traceback: Airflow logs the exceptions a timetable or a
failed insert raise and goes on (or dies), so a clean log is the proof that nothing went wrong on the way.
"""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest
from dagfiles import DagSpec, Schedule, write_dag
from expect import report, run_rows
from harness import StackFactory, floor_to, utcnow
from test_e2e_entry_points import TEN, backfill_body, create_backfill, scheduler_tracebacks

pytestmark = [pytest.mark.e2e, pytest.mark.every_minor]


def test_backfills_through_the_rest_api_and_the_cli_are_the_scheduled_runs_of_the_range(
    stacks: StackFactory, tmp_path: Path
) -> None:
    stack = stacks("backfill")
    start = floor_to(utcnow(), 10) - timedelta(minutes=10)
    for dag_id in ("bounded_api", "bounded_cli"):
        # Paused: only the backfills make runs. A catch-up bound and catchup=False must not bound a backfill.
        spec = DagSpec(dag_id, Schedule("0/10 * * * * ?", start_time=start, max_catchup_runs=2), paused=True)
        write_dag(stack.dags_folder, spec, tmp_path)
    for dag_id in ("bounded_api", "bounded_cli"):
        stack.wait_for_dag(dag_id)
    # Nothing here needs the scheduler, and on SQLite its writes can make a backfill's transaction fail.
    stack.stop_component("dag-processor")
    stack.stop_component("scheduler")
    # From an unaligned date and from before the start: intervals are the scheduled ones, clamped at the start only.
    low, high = start + timedelta(seconds=65), start + timedelta(seconds=120)
    want = [start + timedelta(seconds=s) for s in range(70, 121, 10)]
    dry = stack.api("POST", "/api/v2/backfills/dry_run", backfill_body("bounded_api", low, high))
    assert [entry["logical_date"] for entry in dry["backfills"]] == [w.isoformat().replace("+00:00", "Z") for w in want]
    create_backfill(stack, backfill_body("bounded_api", low, high))
    runs = stack.wait_until(lambda: stack.runs("bounded_api") if len(stack.runs("bounded_api")) >= 6 else None, 60)
    assert sorted(run.logical_date for run in runs if run.logical_date) == want
    for run in runs:
        assert run.run_type == "backfill"
        assert (run.data_interval_start, run.data_interval_end) == (run.logical_date, run.run_after), run
        assert run.logical_date is not None and run.run_after - run.logical_date == TEN, run

    cli_low, cli_high = start - timedelta(minutes=1), start + timedelta(seconds=30)
    command = [
        sys.executable,
        "-m",
        "airflow",
        "backfill",
        "create",
        "--dag-id",
        "bounded_cli",
        "--from-date",
        cli_low.isoformat(),
        "--to-date",
        cli_high.isoformat(),
        "--run-backwards",
    ]
    env = dict(stack.env)
    result = subprocess.run(command, env=env, capture_output=True, text=True, timeout=180, check=False, cwd=os.getcwd())
    assert result.returncode == 0, result.stdout + result.stderr
    runs = stack.wait_until(lambda: stack.runs("bounded_cli") if len(stack.runs("bounded_cli")) >= 4 else None, 60)
    got = sorted((run.data_interval_start, run.data_interval_end, run.run_after) for run in runs)
    assert got == [(start + k * TEN, start + (k + 1) * TEN, start + (k + 1) * TEN) for k in range(4)]
    assert scheduler_tracebacks(stack) == []
    report("backfill", api=run_rows(stack.runs("bounded_api")), cli=run_rows(runs))
