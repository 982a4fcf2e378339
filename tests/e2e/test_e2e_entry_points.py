"""The other ways Airflow creates runs, on a real scheduler: manual and backfill runs that occupy the run the
catch-up bound wants after an outage. Backfills through the REST API and the CLI are in
``test_e2e_entry_points_backfill.py``, a DAG file switched from a plain cron string to HopsworksTimetable in
``test_e2e_entry_points_switch.py``: one module per scenario (each on a stack of its own), so that
``--dist loadfile`` runs them side by side. The helpers here serve those modules and the re-run scenarios.

Each scenario asserts that the scheduler's log holds no Traceback: Airflow logs the exceptions a timetable or a
failed insert raise and goes on (or dies), so a clean log is the proof that nothing went wrong on the way.
"""

from __future__ import annotations

import time
from collections import Counter
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from dagfiles import DagSpec, Schedule, write_dag
from expect import fires, report, run_rows, wait_runs
from harness import AirflowStack, StackError, StackFactory, ceil_to, floor_to, traceback_blocks, utcnow

from hops_timetable import _compat

pytestmark = pytest.mark.e2e

STEP = timedelta(seconds=30)
TEN = timedelta(seconds=10)


def create_backfill(stack: AirflowStack, body: dict[str, object], attempts: int = 10) -> None:
    """``POST /api/v2/backfills``, again after Airflow's 503 "Database is locked" on SQLite.

    Airflow 3.3.2 creates a backfill's runs in one read-then-write transaction after committing the backfill row;
    on SQLite a concurrent writer (a scheduler's heartbeat) makes that fail at once with SQLITE_BUSY, the runs are
    rolled back and the backfill row stays active. It is cancelled before the next attempt. Before 3.3 the
    api-server answers the same lock with a bare 500.
    """
    locked = "Database is locked" if _compat.AIRFLOW_VERSION >= (3, 3) else "-> 500: Internal Server Error"
    for attempt in range(attempts):
        try:
            stack.api("POST", "/api/v2/backfills", body, retries=0)
            return
        except StackError as error:
            if locked not in str(error) or attempt == attempts - 1:
                raise
        listed = stack.api("GET", f"/api/v2/backfills?dag_id={body['dag_id']}")
        for backfill in listed["backfills"]:
            if backfill["completed_at"] is None:
                stack.api("PUT", f"/api/v2/backfills/{backfill['id']}/cancel")
        time.sleep(0.3)


def scheduler_tracebacks(stack: AirflowStack, first_generation: int = 1) -> list[str]:
    """Tracebacks in the scheduler's logs from *first_generation* on (a stopped scheduler's tasks may log some),
    and any IntegrityError line.

    Two kinds of traceback are Airflow's own and say nothing about the timetable, so they do not count:
    - SIGTERM arriving while SQLAlchemy closes a connection: the scheduler's ``_exit_gracefully`` raises
      ``SystemExit`` inside the pool's close and the pool logs it. Such a block ends in ``SystemExit``.
    - A task that failed to start in a LocalExecutor worker, a child process of the scheduler that logs to the
      scheduler's log. Its block starts in the worker's loop; the one seen (Airflow 3.0, two suites sharing the
      machine) ended in the Execution API's error answer to the task's start call. The timetable never runs on
      that path, and what the runs hold is checked from the database; a block on it that passes through this
      package still counts.
    """
    found = []
    for log in sorted((stack.home / "component-logs").glob("scheduler.*.log")):
        if int(log.name.split(".")[1]) < first_generation:
            continue
        text = log.read_text(errors="replace")
        blocks = [block for block in traceback_blocks(text) if not _airflows_own(block)]
        if blocks or "IntegrityError" in text:
            found.append(f"{log.name}:\n" + "\n\n".join("\n".join(block) for block in blocks) + f"\n{text[-1500:]}")
    return found


def _airflows_own(block: list[str]) -> bool:
    if block[-1].startswith("SystemExit"):
        return True
    # The first frame is the outermost call: the worker's loop, for a task that failed to start.
    in_worker = len(block) > 1 and "executors/local_executor.py" in block[1] and block[1].endswith("in _run_worker")
    return in_worker and not any("hops_timetable" in line for line in block)


def assert_unique_logical_dates(stack: AirflowStack, dag_id: str) -> None:
    counts = Counter(run.logical_date for run in stack.runs(dag_id) if run.logical_date is not None)
    assert all(n == 1 for n in counts.values()), f"{dag_id}: a logical date ran twice: {counts}"


def backfill_body(dag_id: str, start: datetime, end: datetime) -> dict[str, object]:
    return {
        "dag_id": dag_id,
        "from_date": start.isoformat(),
        "to_date": end.isoformat(),
        "run_backwards": False,
        "dag_run_conf": {},
        "reprocess_behavior": "none",
        "max_active_runs": 10,
    }


def test_runs_occupying_the_newest_missed_logical_date_never_kill_the_scheduler(
    stacks: StackFactory, tmp_path: Path
) -> None:
    # A slower heartbeat: fewer concurrent writes for the backfill's SQLite transaction to collide with.
    stack = stacks("occupied", env={"AIRFLOW__SCHEDULER__SCHEDULER_HEARTBEAT_SEC": "3"})
    start = floor_to(utcnow(), 30) - 2 * STEP
    for dag_id in ("by_manual", "by_backfill"):
        write_dag(stack.dags_folder, DagSpec(dag_id, Schedule("0/30 * * * * ?", start_time=start)), tmp_path)
    write_dag(stack.dags_folder, DagSpec("bystander", Schedule("0/10 * * * * ?", start_time=start)), tmp_path)
    for dag_id in ("by_manual", "by_backfill"):
        wait_runs(stack, dag_id, lambda r: len(r) >= 1, 120, f"{dag_id}: a first run")

    stack.stop_component("dag-processor")
    stack.stop_component("scheduler")
    stopped_at = utcnow()
    # The scheduler comes back first, with the two DAGs paused: a scheduler takes longer to start on a busy
    # machine than a fire lasts, and the unpause below must reach a running one. The dag-processor stays down,
    # so that no re-parse replaces the stale stored next runs.
    for dag_id in ("by_manual", "by_backfill"):
        stack.pause(dag_id)
    stack.start_component("scheduler")
    restarted_at = utcnow()
    stack.wait_healthy()
    # Two fires or more are missed; then wait for a fire F to pass, so that F is the newest due fire for a while.
    newest = max(ceil_to(stopped_at, 30) + STEP, ceil_to(utcnow(), 30))
    stack.wait_until(lambda: utcnow() >= newest + timedelta(seconds=1), 120, what="the outage")
    occupied = newest - STEP  # the logical date of the run of F, the one the catch-up bound wants
    stack.trigger("by_manual", logical_date=occupied)
    dry = stack.api("POST", "/api/v2/backfills/dry_run", backfill_body("by_backfill", occupied, occupied))
    assert [entry["logical_date"] for entry in dry["backfills"]] == [occupied.isoformat().replace("+00:00", "Z")]
    create_backfill(stack, backfill_body("by_backfill", occupied, occupied))
    for dag_id in ("by_manual", "by_backfill"):
        stack.unpause(dag_id)
    unpaused_at = utcnow()
    assert unpaused_at < newest + STEP - timedelta(seconds=10), "too slow to occupy the date before the next fire"
    for dag_id in ("by_manual", "by_backfill"):
        wait_runs(
            stack,
            dag_id,
            lambda r: any(run.run_type == "scheduled" and run.run_after > newest for run in r),
            120,
            f"{dag_id}: a scheduled run after the occupied one",
        )
    bystander = stack.runs("bystander")
    assert any(run.created_at is not None and run.created_at > restarted_at for run in bystander)
    for dag_id in ("by_manual", "by_backfill", "bystander"):
        assert_unique_logical_dates(stack, dag_id)
    for dag_id, kind in (("by_manual", "manual"), ("by_backfill", "backfill")):
        runs = stack.runs(dag_id)
        assert [run.run_type for run in runs if run.logical_date == occupied] == [kind], run_rows(runs)
        if not _compat.HAS_DAG_MODEL_HOOK:
            # 3.0/3.1 create the stale stored run without asking the timetable; the scheduler skips a stored run
            # whose logical date is taken. What must hold there is above: it survived, no date ran twice.
            continue
        after = [run for run in runs if run.run_type == "scheduled" and run.run_after > stopped_at]
        # The bound wanted the run of F; its logical date being taken, the next fire's run came instead.
        assert after[0].run_after == newest + STEP, fires(after)
        # Created before its own fire: while F was the newest due fire, so the bound did want the occupied date.
        assert after[0].created_at is not None and after[0].created_at < after[0].run_after, run_rows(after)
        assert (after[0].data_interval_start, after[0].data_interval_end) == (newest, newest + STEP)
    # The dag-processor back too: the DAGs go on from the runs made.
    stack.start_component("dag-processor")
    stack.wait_healthy()
    for dag_id in ("by_manual", "by_backfill"):
        wait_runs(
            stack,
            dag_id,
            lambda r: len([x for x in r if x.run_type == "scheduled" and x.run_after > newest]) >= 2,
            90,
            f"{dag_id}: runs on",
        )
        assert_unique_logical_dates(stack, dag_id)
    assert scheduler_tracebacks(stack, first_generation=2) == []
    stack.wait_healthy()
    report(
        "occupied",
        events={
            "stopped": stopped_at,
            "restarted": restarted_at,
            "occupied_logical_date": occupied,
            "unpaused": unpaused_at,
        },
        by_manual=run_rows(stack.runs("by_manual")),
        by_backfill=run_rows(stack.runs("by_backfill")),
    )
