"""Scenarios that take Airflow down: a clean outage with catchup=False, and a scheduler crash mid catch-up.

Each scenario has a stack of its own, since it stops or kills components. The expected fires are derived from
the timestamps recorded around each stop and start, and from when Airflow created each run row.
"""

from __future__ import annotations

import itertools
import signal
from datetime import timedelta
from pathlib import Path

import pytest
from dagfiles import DagSpec, Schedule, write_dag
from expect import assert_tiles, fires, report, run_rows, wait_runs
from harness import StackFactory, floor_to, utc, utcnow

from hops_timetable._compat import HAS_DAG_MODEL_HOOK

pytestmark = [pytest.mark.e2e, pytest.mark.every_minor]

FIVE = timedelta(seconds=5)
TEN = timedelta(seconds=10)


def test_catchup_false_after_an_outage_makes_one_run_for_the_newest_fire(stacks: StackFactory, tmp_path: Path) -> None:
    stack = stacks("outage")
    spec = DagSpec("outage", Schedule("0/5 * * * * ?", start_time=utcnow() - timedelta(minutes=1)))
    write_dag(stack.dags_folder, spec, tmp_path)
    wait_runs(stack, "outage", lambda r: len(r) >= 2, 90, "two runs before the outage")

    # The whole scheduling side goes down; the api-server stays so that the tests can read and the UI shows.
    stack.stop_component("dag-processor")
    stack.stop_component("scheduler")
    stopped_at = utcnow()
    before = stack.runs("outage")
    model = stack.dag_model("outage")
    assert model is not None
    stale = utc(model["next_dagrun_create_after"])
    assert stale is not None and stale <= stopped_at + FIVE, (stale, stopped_at)

    # At least three fires are missed.
    stack.wait_until(lambda: utcnow() > stopped_at + timedelta(seconds=17), 60, what="the outage")
    restarted_at = utcnow()
    # The scheduler alone first: it must not create the stored next run, and no re-parse may have fixed it.
    stack.start_component("scheduler")
    stack.wait_healthy()
    runs = wait_runs(stack, "outage", lambda r: len(r) > len(before), 90, "the first run after the outage")
    stack.start_component("dag-processor")
    stack.wait_healthy()
    runs = wait_runs(stack, "outage", lambda r: len(r) >= len(before) + 3, 90, "three runs after the outage")

    after = runs[len(before) :]
    assert fires(runs[: len(before)]) == fires(before)
    if not HAS_DAG_MODEL_HOOK:
        # Airflow 3.0 and 3.1 create the stored run without asking the timetable (docs/airflow-versions.md):
        # exactly that one stale run comes first, then the same runs as on 3.2 and later.
        assert fires(after)[0] == stale, f"the stale stored next run {stale} was expected first: {fires(after)}"
        after = after[1:]
        assert len(after) >= 2
    first = after[0]
    assert first.created_at is not None
    assert stale not in fires(after), f"the stale stored next run {stale} was created: {fires(after)}"
    assert floor_to(restarted_at, 5) <= first.run_after <= floor_to(first.created_at, 5), (
        restarted_at,
        fires(after),
    )
    assert first.run_after - before[-1].run_after >= 4 * FIVE, "the outage did not skip a fire"
    assert_tiles(after, FIVE)
    assert_tiles(before, FIVE)
    report(
        "outage",
        cron=spec.schedule.cron_expression,
        start_date=spec.schedule.start_time,
        catchup=False,
        events={"stopped": stopped_at, "restarted": restarted_at, "stored_next_run": stale},
        runs=run_rows(runs),
    )


def test_scheduler_killed_mid_catchup_leaves_no_duplicate_and_no_gap_within_the_bound(
    stacks: StackFactory, tmp_path: Path
) -> None:
    bound = 5
    stack = stacks(
        "crash",
        env={
            # A killed scheduler's running task is reset soon after the new scheduler starts, not in minutes.
            "AIRFLOW__SCHEDULER__ORPHANED_TASKS_CHECK_INTERVAL": "5",
            "AIRFLOW__SCHEDULER__SCHEDULER_HEALTH_CHECK_THRESHOLD": "6",
            "AIRFLOW__SCHEDULER__TASK_INSTANCE_HEARTBEAT_TIMEOUT": "20",
        },
    )
    spec = DagSpec(
        "crash",
        Schedule(
            "0/10 * * * * ?",
            start_time=utcnow() - timedelta(minutes=10),
            catchup=True,
            max_catchup_runs=bound,
            max_active_runs=1,
        ),
        sleep_seconds=1.0,
    )
    write_dag(stack.dags_folder, spec, tmp_path)
    written_at = utcnow()
    at_kill = wait_runs(stack, "crash", lambda r: len(r) >= 2, 90, "the catch-up under way")
    stack.kill_component("scheduler", signal.SIGKILL)
    assert len(stack.runs("crash")) < bound, "the catch-up finished before the kill; nothing was interrupted"
    stack.start_component("scheduler")
    restarted_at = utcnow()
    stack.wait_healthy()
    runs = wait_runs(
        stack,
        "crash",
        lambda r: r[-1].run_after >= floor_to(restarted_at, 10) + TEN,
        150,
        "live runs after the restart",
    )

    # The replay started at the bound: the 5th newest fire when the DAG was first scheduled.
    created = runs[0].created_at
    assert created is not None
    oldest = runs[0].run_after
    assert floor_to(written_at, 10) - (bound - 1) * TEN <= oldest <= floor_to(created, 10) - (bound - 1) * TEN
    assert len({run.run_after for run in runs}) == len(runs), f"a fire ran twice: {fires(runs)}"
    assert len({run.logical_date for run in runs}) == len(runs), f"a logical date ran twice: {fires(runs)}"
    for run in runs:
        assert run.run_type == "scheduled"
        assert (run.data_interval_start, run.data_interval_end) == (run.run_after - TEN, run.run_after), run
    for before, after in itertools.pairwise(runs):
        skipped = (after.run_after - before.run_after) // TEN - 1
        if skipped:
            # A fire may be dropped only when more than `bound` fires were due when the next run was made.
            assert after.created_at is not None
            newest_due = floor_to(after.created_at, 10)
            assert newest_due >= after.run_after + (bound - 1) * TEN, (
                f"{skipped} fire(s) before {after.run_after} missing though within the bound: {fires(runs)}"
            )
    assert fires(runs)[: len(at_kill)] == fires(at_kill)
