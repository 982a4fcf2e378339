"""Airflow's own high availability with this timetable: two schedulers on PostgreSQL, one of them killed midway.

Airflow keeps ``UNIQUE(dag_id, logical_date)`` on ``dag_run`` and has the schedulers take row locks
(``SELECT ... FOR UPDATE SKIP LOCKED``) on the DAGs they schedule. This test shows that with HopsworksTimetable
that is enough: every cron fire in the catch-up bound gets exactly one run, whichever scheduler creates it, and
the runs' windows tile, also across a SIGKILL of one scheduler.

Needs ``E2E_POSTGRES_URL`` (``scripts/start-postgres`` prints one); each run uses a database of its own.
Also here, on the SQLite stack: a DAG whose cron is rewritten while the scheduler runs keeps being scheduled.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import signal
import uuid
from collections.abc import Iterator, Mapping
from dataclasses import asdict, dataclass, replace
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from dagfiles import DagSpec, Schedule, write_dag
from harness import AirflowStack, Run, StackFactory, ceil_to, floor_to, run_migrate, utcnow

pytestmark = pytest.mark.e2e

POSTGRES_URL = os.environ.get("E2E_POSTGRES_URL", "")
FIVE = timedelta(seconds=5)
BOUND = 3
SCHEDULERS = ("scheduler-a", "scheduler-b")


# -- a stack on PostgreSQL with two schedulers -----------------------------------------------------------------


def _connect(url: str, database: str | None = None) -> Any:
    import psycopg2
    from sqlalchemy.engine import make_url

    parts = make_url(url)
    return psycopg2.connect(
        host=parts.host,
        port=parts.port or 5432,
        user=parts.username,
        password=parts.password,
        dbname=database or parts.database,
        connect_timeout=10,
    )


@contextlib.contextmanager
def fresh_database(url: str) -> Iterator[str]:
    """A new, empty database on the server of *url* for one test; its SQLAlchemy URL. Dropped afterwards."""
    from sqlalchemy.engine import make_url

    name = f"hops_ha_{uuid.uuid4().hex[:12]}"
    admin = _connect(url)
    admin.autocommit = True
    try:
        with admin.cursor() as cursor:
            cursor.execute(f'CREATE DATABASE "{name}"')
        try:
            yield make_url(url).set(database=name).render_as_string(hide_password=False)
        finally:
            with admin.cursor() as cursor:
                cursor.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    finally:
        admin.close()


def _as_text(value: object) -> object:
    # The harness parses timestamps and JSON columns from text, as SQLite returns them.
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, dict | list):
        return json.dumps(value)
    return value


class PostgresStack(AirflowStack):
    """The harness's stack on a PostgreSQL database, with any number of named schedulers.

    Reads go through psycopg2; timestamps come back as the harness's ISO text, so its ``runs()`` and
    ``dag_model()`` work unchanged.
    """

    def __init__(self, home: Path, dags_folder: Path, url: str, env: Mapping[str, str] | None = None) -> None:
        super().__init__(home, dags_folder, env)
        self.url = url
        self.env["AIRFLOW__DATABASE__SQL_ALCHEMY_CONN"] = url
        self.scheduler_jobs: dict[str, int] = {}

    def migrate(self) -> None:
        run_migrate(self.home, self.env)

    def start_scheduler(self, name: str, timeout: float = 90.0) -> int:
        """Start one more ``airflow scheduler`` as component *name*; returns its job id once it heartbeats."""
        known = {row["id"] for row in self.query("SELECT id FROM job WHERE job_type = 'SchedulerJob'")}
        self.start_component("scheduler")
        # The harness knows one component per name: file this one under its own.
        self._components[name] = self._components.pop("scheduler")

        def new_job() -> int | None:
            rows = self.query("SELECT id FROM job WHERE job_type = 'SchedulerJob' AND state = 'running'")
            fresh = [row["id"] for row in rows if row["id"] not in known]
            return fresh[0] if fresh else None

        job = self.wait_until(new_job, timeout=timeout, what=f"{name} registered as a scheduler job")
        self.scheduler_jobs[name] = job
        return job

    def stop(self) -> None:
        for name in list(self._components):
            self.stop_component(name)

    def query(self, sql: str, params: tuple[Any, ...] = ()) -> list[Any]:
        connection = _connect(self.url)
        try:
            with connection.cursor() as cursor:
                cursor.execute(sql.replace("?", "%s"), params)
                if cursor.description is None:
                    return []
                names = [column.name for column in cursor.description]
                return [
                    {name: _as_text(value) for name, value in zip(names, row, strict=True)} for row in cursor.fetchall()
                ]
        finally:
            connection.close()

    def creating_jobs(self, dag_id: str) -> dict[str, int | None]:
        rows = self.query("SELECT run_id, creating_job_id FROM dag_run WHERE dag_id = ?", (dag_id,))
        return {row["run_id"]: row["creating_job_id"] for row in rows}


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
