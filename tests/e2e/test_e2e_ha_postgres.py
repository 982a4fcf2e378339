"""Airflow's own high availability with this timetable: two schedulers on PostgreSQL, one of them killed midway.

Airflow keeps ``UNIQUE(dag_id, logical_date)`` on ``dag_run`` and has the schedulers take row locks
(``SELECT ... FOR UPDATE SKIP LOCKED``) on the DAGs they schedule. This test shows that with HopsworksTimetable
that is enough: every cron fire in the catch-up bound gets exactly one run, whichever scheduler creates it, and
the runs' windows tile, also across a SIGKILL of one scheduler.

Needs ``E2E_POSTGRES_URL`` (``scripts/start-postgres`` prints one); each run uses a database of its own.
Also here, on the SQLite stack: a DAG whose cron is rewritten while the scheduler runs keeps being scheduled.
"""

from __future__ import annotations

import itertools
import json
import signal
from collections.abc import Iterator
from dataclasses import asdict, dataclass, replace
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from dagfiles import DagSpec, Schedule, write_dag
from harness import Run, StackFactory, ceil_to, floor_to, utcnow
from postgres_stack import POSTGRES_URL, PostgresStack, fresh_database

pytestmark = pytest.mark.e2e

FIVE = timedelta(seconds=5)
BOUND = 3
SCHEDULERS = ("scheduler-a", "scheduler-b")


# -- what the runs must satisfy ----------------------------------------------------------------------------------


@dataclass
class HaReport:
    """The numbers of one run of the scenario, as docs/high-availability.md reports them."""

    fires: int
    runs: int
    duplicates: int
    missing: int
    dropped_by_bound: int
    runs_by_scheduler_a: int
    runs_by_scheduler_b: int
    runs_after_kill: int
    observed_seconds: float
    kill_after_seconds: float


def check_runs(runs: list[Run], step: timedelta, bound: int, cut: datetime) -> tuple[int, int, int, int]:
    """Assert the scheduling invariants of consecutive scheduled runs up to the fire *cut*.

    Returns (fires, duplicates, missing, dropped by the bound). A gap between two runs is allowed only where the
    bound allowed it: the later run was created when at least ``bound`` fires from it on were due, so it is the
    ``bound``-th newest and the older fires were dropped, as Hopsworks drops them; anything else counts as missing.
    """
    assert runs, "no run at all"
    fires_seen = [run.run_after for run in runs]
    duplicates = len(fires_seen) - len(set(fires_seen))
    logical = [run.logical_date for run in runs]
    duplicates += len(logical) - len(set(logical))
    for run in runs:
        assert run.run_type == "scheduled", run
        assert run.run_after.timestamp() % step.total_seconds() == 0, run
        assert run.data_interval_end == run.run_after, run
        assert run.logical_date == run.data_interval_start, run
        assert run.data_interval_start == run.run_after - step, run
    missing = dropped = 0
    for before, after in itertools.pairwise(sorted(runs, key=lambda r: r.run_after)):
        gap = int((after.run_after - before.run_after) / step) - 1
        if gap == 0:
            assert after.data_interval_start == before.data_interval_end, ("windows do not tile", before, after)
            continue
        assert after.created_at is not None
        newest_due = floor_to(after.created_at, int(step.total_seconds()))
        if after.run_after + (bound - 1) * step <= newest_due:
            dropped += gap
        else:
            missing += gap
    last = max(fires_seen)
    if last < cut:
        missing += int((cut - last) / step)
    fires = int((cut - min(fires_seen)) / step) + 1
    return fires, duplicates, missing, dropped


# -- the scenario ---------------------------------------------------------------------------------------------------


@pytest.fixture
def postgres_stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PostgresStack]:
    if not POSTGRES_URL:
        pytest.skip("E2E_POSTGRES_URL is not set: run scripts/start-postgres and export the URL it prints")
    # Airflow 3 opens an async engine next to the sync one; for PostgreSQL it needs the asyncpg driver.
    pytest.importorskip("asyncpg", reason="Airflow 3 on PostgreSQL needs the asyncpg driver: install asyncpg")
    with fresh_database(POSTGRES_URL) as url:
        home = tmp_path_factory.mktemp("airflow-ha")
        stack = PostgresStack(
            home,
            home / "dags",
            url,
            {
                # The survivor adopts or resets the killed scheduler's tasks within seconds, not five minutes.
                "AIRFLOW__SCHEDULER__ORPHANED_TASKS_CHECK_INTERVAL": "5",
                "AIRFLOW__CORE__PARALLELISM": "4",
            },
        )
        try:
            stack.migrate()
            yield stack
        finally:
            stack.stop()


@pytest.mark.postgres
@pytest.mark.one_minor  # the timetable's HA rules are the scheduler loop's, alike on every minor
def test_two_schedulers_on_postgres_one_killed_midway(
    postgres_stack: PostgresStack, tmp_path: Path, record_property: Any
) -> None:
    stack = postgres_stack
    try:
        for name in ("api-server", "control-api", "dag-processor"):
            stack.start_component(name)
        stack.wait_healthy()
        job_a = stack.start_scheduler("scheduler-a")
        job_b = stack.start_scheduler("scheduler-b")

        written_at = utcnow()
        spec = DagSpec(
            "ha",
            Schedule(
                "0/5 * * * * ?",
                start_time=written_at - timedelta(minutes=2),
                catchup=True,
                max_catchup_runs=BOUND,
                max_active_runs=16,
            ),
        )
        write_dag(stack.dags_folder, spec, tmp_path)
        stack.wait_for_dag("ha", timeout=90)
        first = stack.wait_until(lambda: stack.runs("ha"), timeout=60, what="the first run")[0]
        started = first.created_at or utcnow()

        stack.wait_until(lambda: utcnow() >= started + timedelta(seconds=35), 60, what="the first half")
        stack.kill_component("scheduler-a", signal.SIGKILL)
        killed_at = utcnow()
        stack.wait_until(lambda: utcnow() >= started + timedelta(seconds=75), 60, what="the second half")
        ended_at = utcnow()
        cut = floor_to(ended_at, 5)
        # Runs for fires up to the cut must exist within a scheduler loop or two; give a loaded machine time.
        stack.wait_until(
            lambda: any(run.run_after >= cut for run in stack.runs("ha")), 30, what=f"the run of the fire at {cut}"
        )
        stack.pause("ha")
        runs = [run for run in stack.runs("ha") if run.run_after <= cut]
        creators = stack.creating_jobs("ha")

        fires, duplicates, missing, dropped = check_runs(runs, FIVE, BOUND, cut)
        # The first run is the bound-th newest fire due when the DAG was first scheduled (start 2 minutes back).
        assert first.created_at is not None
        assert first.run_after + (BOUND - 1) * FIVE <= floor_to(first.created_at, 5), first
        assert first.run_after >= floor_to(written_at, 5) - (BOUND - 1) * FIVE, (written_at, first)
        after_kill = [run for run in runs if run.created_at is not None and run.created_at > killed_at]
        by_a = sum(creators[run.run_id] == job_a for run in runs)
        by_b = sum(creators[run.run_id] == job_b for run in runs)
        assert by_a + by_b == len(runs), creators
        assert len(after_kill) >= 5, "the surviving scheduler did not take over"
        assert all(creators[run.run_id] == job_b for run in after_kill), "a run created by the killed scheduler"
        numbers = HaReport(
            fires=fires,
            runs=len(runs),
            duplicates=duplicates,
            missing=missing,
            dropped_by_bound=dropped,
            runs_by_scheduler_a=by_a,
            runs_by_scheduler_b=by_b,
            runs_after_kill=len(after_kill),
            observed_seconds=round((ended_at - started).total_seconds(), 1),
            kill_after_seconds=round((killed_at - started).total_seconds(), 1),
        )
        record_property("ha_numbers", json.dumps(asdict(numbers)))
        print("HA numbers:", json.dumps(asdict(numbers)))
        assert duplicates == 0 and missing == 0, numbers
        assert fires == len(runs) + dropped, numbers
    except BaseException:
        print(stack.logs(80))
        raise


# -- a schedule edit in the real scheduler ---------------------------------------------------------------------------


def test_cron_rewritten_while_scheduling_keeps_runs_coming(stacks: StackFactory, tmp_path: Path) -> None:
    """Every 5 s, then every 15 s (coarser, as hourly to daily): runs keep coming and logical dates stay unique.

    Two times in three the last 5-s run is not at a 15-s fire; the previous 15-s fire is then the logical date of
    an existing 5-s run. A timetable that started the first new interval there would stall the DAG for good
    (Airflow skips the duplicate and asks again from the older run); this one starts it at the last run's fire.
    For a few seconds after the file changes, the scheduler may still schedule by the old cron (it reads the
    serialized DAG on its own schedule), so the new cron's fires are checked from a settling point on.
    """
    stack = stacks("schedule-edit")
    start = utcnow() - timedelta(seconds=12)
    before = Schedule("0/5 * * * * ?", start_time=start, catchup=True, max_active_runs=16)
    write_dag(stack.dags_folder, DagSpec("edited", before), tmp_path)
    stack.wait_until(lambda: len(stack.runs("edited")) >= 4, 90, what="four runs at the first cron")

    write_dag(stack.dags_folder, DagSpec("edited", replace(before, cron_expression="0/15 * * * * ?")), tmp_path)
    edited_at = utcnow()
    settled = ceil_to(edited_at + timedelta(seconds=30), 15)
    stack.wait_until(
        lambda: sum(run.run_after > settled for run in stack.runs("edited")) >= 3,
        120,
        what="three runs at the new cron after the edit",
    )
    stack.pause("edited")
    runs = stack.runs("edited")
    fires = [run.run_after for run in runs]
    assert all(b > a for a, b in itertools.pairwise(fires)), fires
    logical = [run.logical_date for run in runs]
    assert len(set(logical)) == len(logical), logical
    # The windows tile across the edit: each interval starts where the previous run's ended.
    for a, b in itertools.pairwise(runs):
        assert b.data_interval_start == a.data_interval_end, (a, b)
    late = [run for run in runs if run.run_after > settled]
    assert [run.run_after for run in late[:3]] == [settled + timedelta(seconds=15 * k) for k in (1, 2, 3)], fires
