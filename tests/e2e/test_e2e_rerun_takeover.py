"""A backfill with ``reprocess_behavior=completed`` takes over manual runs (one with a conf window) on a real
scheduler: each then processes its logical date's scheduled window, and the range has no gap and no window twice.

The three re-run scenarios (``test_e2e_rerun_takeover.py``, ``test_e2e_rerun_offset_edit.py`` and
``test_e2e_rerun_ways.py``) each stop or edit their own stack, so they cannot share one; as three modules,
``--dist loadfile`` runs them side by side.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from expect import wait_runs
from harness import StackFactory, floor_to, utcnow
from rerun_dags import TEN, hops, iso, records, window, write
from test_e2e_entry_points import backfill_body, create_backfill, scheduler_tracebacks

pytestmark = pytest.mark.e2e


def test_a_backfill_that_takes_over_manual_runs_processes_their_scheduled_windows(
    stacks: StackFactory, tmp_path: Path
) -> None:
    stack = stacks("takeover", env={"AIRFLOW__SCHEDULER__SCHEDULER_HEARTBEAT_SEC": "3"})
    start = floor_to(utcnow(), 10) - timedelta(seconds=120)
    # catchup=False: the fires before the first run stay free for manual runs in the past.
    write(
        stack,
        "takeover",
        tmp_path,
        f"""
with DAG("takeover", is_paused_upon_creation=False, **hops_schedule("0/10 * * * * ?",
         start_time=datetime.fromisoformat({start.isoformat()!r}), start_time_offset_seconds=7, catchup=False,
         max_active_runs=8, trigger_form=False)):
    HopsPythonOperator(task_id="record", python_callable=record)
""",
    )
    wait_runs(stack, "takeover", lambda r: any(x.run_type == "scheduled" for x in r), 120, "a first scheduled run")
    plain, windowed = start + timedelta(seconds=30), start + timedelta(seconds=40)
    stack.trigger("takeover", logical_date=plain, run_id="manual__plain")
    conf = {"hops_window": {"start_time": iso(start), "end_time": iso(start + timedelta(hours=1))}}
    stack.trigger("takeover", conf, logical_date=windowed, run_id="manual__windowed")
    wait_runs(
        stack,
        "takeover",
        lambda r: all(x.state == "success" for x in r if x.run_type == "manual") and len(r) >= 3,
        120,
        "the manual runs done",
    )
    stack.stop_component("dag-processor")
    stack.stop_component("scheduler")
    low, high = start + timedelta(seconds=20), start + timedelta(seconds=50)
    body = {**backfill_body("takeover", low, high), "reprocess_behavior": "completed"}
    create_backfill(stack, body)
    stack.start_component("scheduler")
    stack.wait_healthy()
    wanted = [low + k * TEN for k in range(4)]
    runs = wait_runs(
        stack,
        "takeover",
        lambda r: all(
            any(x.logical_date == d and x.run_type == "backfill" and x.state == "success" for x in r) for d in wanted
        ),
        180,
        "the backfill done",
    )
    got = records(tmp_path, "takeover")
    by_date = {run.logical_date: run for run in runs}
    for logical_date in wanted:
        run = by_date[logical_date]
        # Each logical date of the range processed its scheduled window: the takeovers too, whatever interval
        # and conf the manual run carried (Airflow keeps the manual interval, [L - 10 s, L)).
        assert hops(got[run.run_id][-1]) == window(logical_date, 7), (run, got[run.run_id])
    assert hops(got["manual__plain"][0]) == {}  # the manual run itself had no window
    assert scheduler_tracebacks(stack) == []
