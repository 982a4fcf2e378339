"""At scale on Airflow's own distributed engine: 100 DAGs, Celery workers, two schedulers, and faults.

PostgreSQL (``scripts/start-postgres``, through ``E2E_POSTGRES_URL``) holds the metadata; Redis
(``scripts/start-redis``, started and stopped here) is the Celery broker. Two schedulers, one dag-processor, two
api-servers and two Celery workers run as separate processes. The DAGs fire every 30 or 60 seconds with a mix of
``catchup=False``, ``max_catchup_runs`` 1 to 3, HOPS offsets, a start date between fires (the first interval clamped)
and ``skip_to_date``; every task (``HopsBashOperator``, and ``@hops_task`` in a fifth of the DAGs) records the HOPS_*
values it received.

Faults, in this order: SIGKILL of one scheduler (restarted later), SIGKILL of one Celery worker while it runs a task
(restarted later), a PostgreSQL restart (components that exit because of it are started again, as a supervisor
would), a tenth of the DAGs paused for two minutes, and both schedulers down for longer than any catch-up bound.
The check is the simulator's: each DAG's run set must be exactly what :func:`hops_timetable.core.simulate.simulate`
predicts from the pause and outage instants, with every run's interval and every task's HOPS_* values those of
the schedule.

Every fire lies in the first ten seconds of a half minute, and every event that ends a pause or an outage happens at
second 15: the scheduler's catch-up after it is over well before the next fire, which the simulator assumes (it
creates a catch-up's runs at one instant). Takes about 11 minutes.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import psutil
import pytest
from dagfiles import RECORDER, Schedule
from harness import Run, floor_to, owner_environment, traceback_blocks, utcnow
from postgres_stack import POSTGRES_URL, PostgresStack, connect, fresh_database
from sqlalchemy.engine import make_url

from hops_timetable.core.catchup import CatchupPolicy
from hops_timetable.core.cron import QuartzCron
from hops_timetable.core.simulate import Event, created_fires, simulate
from hops_timetable.core.window import hops_window

pytestmark = [pytest.mark.e2e, pytest.mark.scale, pytest.mark.postgres]

ROOT = Path(__file__).resolve().parents[2]
DAG_COUNT = int(os.environ.get("SCALE_DAGS", "100"))
PAUSED = 1  # the DAGs whose number ends in this digit are paused and unpaused: a tenth
SCHEDULERS = ("scheduler-a", "scheduler-b")
WORKERS = ("worker-1", "worker-2")
PATTERN = "scale_%"  # every DAG of this test, in SQL
UNTIL = timedelta(seconds=435)  # from the base minute to the end of the observation and of every DAG


# -- the DAGs --------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ScaleDag:
    """One DAG of the scale test: its ``hops_schedule`` arguments, and whether it also runs a ``@hops_task``."""

    dag_id: str
    schedule: Schedule
    python_task: bool

    def policy(self) -> CatchupPolicy:
        s = self.schedule
        return CatchupPolicy(
            QuartzCron(s.cron_expression),
            start=s.start_time,
            end=s.end_time,
            skip_to=s.skip_to_date,
            max_catchup_runs=s.max_catchup_runs if s.catchup else None,
        )


def scale_dags(base: datetime) -> list[ScaleDag]:
    """``DAG_COUNT`` schedules around the minute *base* (the first unpause is at *base* + 15 s).

    A tenth of the DAGs fire every 30 s, three tenths every minute, the rest every three minutes; all at a second
    in [0, 10) of a half minute, and only the first two kinds fire often enough for the outage to exceed their
    catch-up bounds (at most 3 and 1). Most start four minutes back (the first look replays the catch-up bound);
    every seventh starts between two fires 40 s after *base*, so its first interval is clamped; every fifth skips
    to 50 s before *base*; every third has a one-hour HOPS offset. All end at the end of the observation, so that
    the runs in flight then can finish (pausing the DAGs instead would keep their tasks from being queued at all).
    """
    out = []
    for i in range(DAG_COUNT):
        second = i % 10
        half = 30 * (i // 10 % 2)
        if i % 10 == 0:
            cron, bounds = f"{second}/30 * * * * ?", (None, 1, 2, 3)
        elif i % 10 in (1, 2, 3):
            cron, bounds = f"{second + half} * * * * ?", (None, 1)
        else:
            cron, bounds = f"{second + half} 0/3 * * * ?", (None, 1)
        bound = bounds[i // 10 % len(bounds)] if i % 10 == 0 else bounds[(i // 10 + i) % 2]
        start = base - timedelta(minutes=4)
        if i % 7 == 3:
            start = base + timedelta(seconds=40, milliseconds=500)
        out.append(
            ScaleDag(
                dag_id=f"scale_{i:03d}",
                schedule=Schedule(
                    cron,
                    start_time=start,
                    end_time=base + UNTIL,
                    catchup=bound is not None,
                    max_active_runs=16,
                    max_catchup_runs=bound,
                    skip_to_date=base - timedelta(seconds=50) if i % 5 == 2 else None,
                    start_time_offset_seconds=3600 if i % 3 == 0 else None,
                ),
                python_task=i % 5 == 0,
            )
        )
    return out


_FILE_HEADER = '''"""Generated by the hops_timetable scale test: one DAG."""
import json
import os
from datetime import datetime, timedelta

from airflow.sdk import DAG
from hops_timetable import hops_schedule
from hops_timetable.operators import HopsBashOperator, hops_task

OUT_DIR = {out_dir!r}
RETRY = {{"retries": 3, "retry_delay": timedelta(seconds=2)}}


def record(dag_id, **context):
    path = os.path.join(OUT_DIR, dag_id, context["run_id"] + ".python.json")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path + ".tmp", "w") as out:
        json.dump({{"run_id": context["run_id"], "task": "python",
                   "env": {{k: v for k, v in os.environ.items() if k.startswith("HOPS_")}}}}, out)
    os.replace(path + ".tmp", path)
'''

_DAG = """

with DAG(dag_id={dag_id!r}, is_paused_upon_creation=True, default_args=RETRY, **hops_schedule({schedule})):
    # Long enough that a worker killed at a random moment is running some task.
    HopsBashOperator(task_id="bash", bash_command={bash!r}, legacy_args="start_time")
"""

_PYTHON = """    hops_task(task_id="python")(record)({dag_id!r})
"""


def write_dag_files(dags_folder: Path, dags: list[ScaleDag], out_dir: Path) -> None:
    """One file per DAG: a task parses its DAG's whole file, so a file of ten would cost each task ten DAGs."""
    dags_folder.mkdir(parents=True, exist_ok=True)
    for dag in dags:
        text = _FILE_HEADER.format(out_dir=str(out_dir))
        bash = f"sleep 1; {sys.executable} {RECORDER} {out_dir / dag.dag_id} bash {{{{ hops.legacy_args }}}}"
        text += _DAG.format(dag_id=dag.dag_id, schedule=dag.schedule.kwargs_source(), bash=bash)
        if dag.python_task:
            text += _PYTHON.format(dag_id=dag.dag_id)
        path = dags_folder / f"{dag.dag_id}.py"
        tmp = path.with_name(f".{path.name}.tmp")
        tmp.write_text(text)
        os.replace(tmp, path)


# -- the stack -------------------------------------------------------------------------------------------------------


@pytest.fixture
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    state = tmp_path_factory.mktemp("redis")
    script = str(ROOT / "scripts" / "start-redis")
    # Redis daemonizes, leaving every process group of this test; the harness's marker in its environment is what
    # has it stopped when this test process ends without reaching the teardown below (a timeout, a kill).
    result = subprocess.run(
        [script, str(state)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env={**os.environ, **owner_environment()},
    )
    if result.returncode != 0:
        pytest.fail(f"scripts/start-redis failed ({result.returncode}):\n{result.stderr}")
    try:
        yield result.stdout.strip()
    finally:
        subprocess.run([script, str(state), "--stop"], capture_output=True, timeout=60, check=False)


class CeleryStack(PostgresStack):
    """The PostgreSQL stack with the CeleryExecutor: named schedulers and Celery workers."""

    def start_worker(self, name: str) -> None:
        # Two workers on one host: each its own pid file and Celery node name, and no log server (its port is one).
        self.start_component(
            name,
            [
                "celery",
                "worker",
                "--celery-hostname",
                f"{name}@%h",
                "--concurrency",
                "6",
                "--pid",
                str(self.home / f"{name}.pid"),
                "--skip-serve-logs",
            ],
        )

    def start_named_scheduler(self, name: str) -> None:
        self.start_component(name, ["scheduler"])

    def running_task_processes(self, name: str) -> list[psutil.Process]:
        """Processes that run tasks under worker *name*: children of its pool processes."""
        found: list[psutil.Process] = []
        # Task processes come and go while this looks: one that has gone is simply not running a task any more.
        with contextlib.suppress(psutil.NoSuchProcess):
            pool = psutil.Process(self.pids()[name]).children(recursive=True)
            for child in pool:
                with contextlib.suppress(psutil.NoSuchProcess):
                    found += child.children()
        return found

    def task_instances(self) -> list[dict[str, Any]]:
        rows: list[dict[str, Any]] = self.query(
            "SELECT dag_id, run_id, task_id, state, try_number FROM task_instance WHERE dag_id LIKE ?", (PATTERN,)
        )
        return rows


def restart_postgres() -> float:
    """Stop and start the project's PostgreSQL server (same port); returns how long it was down, in seconds."""
    script = str(ROOT / "scripts" / "start-postgres")
    began = time.monotonic()
    subprocess.run([script, "--stop"], capture_output=True, timeout=120, check=True)
    subprocess.run([script], capture_output=True, timeout=120, check=True)
    return time.monotonic() - began


@pytest.fixture
def celery_stack(tmp_path_factory: pytest.TempPathFactory, redis_url: str) -> Iterator[CeleryStack]:
    if not POSTGRES_URL:
        pytest.skip("E2E_POSTGRES_URL is not set: run scripts/start-postgres and export the URL it prints")
    pytest.importorskip("airflow.providers.celery", reason="the scale test needs apache-airflow-providers-celery")
    with fresh_database(POSTGRES_URL) as url:
        # Commits return before their WAL reaches the disk: this machine's disk, not Airflow, would otherwise set
        # the pace. The database restart below is a clean one, which writes every committed transaction first.
        admin = connect(url)
        admin.autocommit = True
        with admin.cursor() as cursor:
            cursor.execute(f'ALTER DATABASE "{make_url(url).database}" SET synchronous_commit = off')
        admin.close()
        home = tmp_path_factory.mktemp("airflow-scale")
        stack = CeleryStack(
            home,
            home / "dags",
            url,
            {
                "AIRFLOW__CORE__EXECUTOR": "CeleryExecutor",
                "AIRFLOW__CELERY__BROKER_URL": redis_url,
                "AIRFLOW__CELERY__RESULT_BACKEND": "db+" + url,
                # A task message a killed worker held comes back to the broker's queue after this many seconds.
                "AIRFLOW__CELERY_BROKER_TRANSPORT_OPTIONS__VISIBILITY_TIMEOUT": "60",
                # A task whose process was killed with its worker is failed (and retried) after 20 s, not 5 min.
                "AIRFLOW__SCHEDULER__TASK_INSTANCE_HEARTBEAT_TIMEOUT": "20",
                "AIRFLOW__SCHEDULER__TASK_INSTANCE_HEARTBEAT_TIMEOUT_DETECTION_INTERVAL": "5",
                "AIRFLOW__SCHEDULER__ORPHANED_TASKS_CHECK_INTERVAL": "5",
                # A task message a worker takes while the database restarts can be lost: Celery's result backend
                # fails to record it as started and drops it, and the task instance stays queued. Airflow queues
                # such a task again after this timeout (default 10 minutes).
                "AIRFLOW__SCHEDULER__TASK_QUEUED_TIMEOUT": "120",
                "AIRFLOW__SCHEDULER__TASK_QUEUED_TIMEOUT_CHECK_INTERVAL": "10",
                # Every DAG that needs a run gets it in the same loop, so a catch-up is over within seconds.
                "AIRFLOW__SCHEDULER__MAX_DAGRUNS_TO_CREATE_PER_LOOP": "200",
                "AIRFLOW__SCHEDULER__MAX_DAGRUNS_PER_LOOP_TO_SCHEDULE": "100",
                # Each scheduler's executor counts a task as running until the result backend says it ended.
                "AIRFLOW__CORE__PARALLELISM": "64",
                "AIRFLOW__DAG_PROCESSOR__MIN_FILE_PROCESS_INTERVAL": "300",
            },
        )
        try:
            stack.migrate()
            yield stack
        finally:
            stack.stop()


# -- the scenario ----------------------------------------------------------------------------------------------------


@dataclass
class ScaleReport:
    """The counts of one run, as docs/deployment.md reports them."""

    dags: int
    runs: int
    tasks: int
    tasks_retried: int
    predicted_runs: int
    duplicates: int
    missing: int
    beyond_bound: int
    wrong_intervals: int
    wrong_windows: int
    tasks_not_succeeded: int
    plugin_tracebacks: int
    other_tracebacks: int
    other_traceback_kinds: dict[str, int]
    postgres_down_seconds: float
    restarted_after_database_restart: list[str]
    wall_seconds: float


def at(base: datetime, seconds: float) -> datetime:
    return base + timedelta(seconds=seconds)


def sleep_until(stack: CeleryStack, moment: datetime, what: str) -> None:
    stack.wait_until(lambda: utcnow() >= moment, (moment - utcnow()).total_seconds() + 30, interval=0.2, what=what)


def first_queued_after(runs: list[Run], moment: datetime) -> datetime | None:
    times = [run.queued_at for run in runs if run.queued_at is not None and run.queued_at > moment]
    return min(times) if times else None


def plugin_tracebacks(stack: CeleryStack, killed: str) -> tuple[list[str], Counter[str]]:
    """Traceback blocks through this package in the schedulers', dag-processor's and workers' logs; and the others
    (Airflow's own, around the kills and the database restart), counted by log and exception type, so that a
    report shows which kind grew when their number does.

    The log *killed* is left out of the first list: the SIGKILL of its worker interrupts the task it runs inside
    ``HopsBashOperator.execute``, whose traceback passes through the operator without being its fault.
    """
    ours: list[str] = []
    others: Counter[str] = Counter()
    for log in sorted((stack.home / "component-logs").glob("*.log")):
        if log.name.startswith(("api-server", "control-api")):
            continue
        for block in traceback_blocks(log.read_text(errors="replace")):
            if log.name != killed and any("hops_timetable" in line for line in block):
                ours.append(f"{log.name}:\n" + "\n".join(block))
            else:
                last = block[-1]
                kind = last.split(":")[0] if last and not last[0].isspace() else "(cut off at the log's end)"
                others[f"{log.name}: {kind}"] += 1
    return ours, others


def test_100_dags_on_celery_with_two_schedulers_through_kills_a_database_restart_pauses_and_an_outage(
    celery_stack: CeleryStack, tmp_path: Path, record_property: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    stack = celery_stack
    began = time.monotonic()
    out_dir = tmp_path / "records"
    try:
        for name in ("api-server", "control-api", "dag-processor"):
            stack.start_component(name)
        stack.wait_healthy()
        for name in SCHEDULERS:
            stack.start_named_scheduler(name)
        for name in WORKERS:
            stack.start_worker(name)

        # The base minute leaves the dag-processor time to parse every file (paused) before the first unpause.
        base = floor_to(utcnow() + timedelta(seconds=150), 60)
        dags = scale_dags(base)
        write_dag_files(stack.dags_folder, dags, out_dir)
        parsed = "SELECT dag_id FROM dag WHERE dag_id LIKE ? AND next_dagrun IS NOT NULL"
        stack.wait_until(
            lambda: len(stack.query(parsed, (PATTERN,))) == len(dags),
            210,
            what=f"all {len(dags)} DAGs parsed",
        )
        assert not stack.import_errors()

        sleep_until(stack, at(base, 15), "the first unpause")
        stack.api("PATCH", "/api/v2/dags?dag_id_pattern=scale_&update_mask=is_paused", {"is_paused": False})
        unpaused_at = utcnow()

        sleep_until(stack, at(base, 50), "the scheduler kill")
        stack.kill_component("scheduler-a", signal.SIGKILL)
        sleep_until(stack, at(base, 80), "the scheduler restart")
        stack.start_named_scheduler("scheduler-a")

        # The half minute's tasks are running from second 90 on: kill a worker that runs one.
        sleep_until(stack, at(base, 91), "the worker kill")
        stack.wait_until(lambda: stack.running_task_processes("worker-1"), 30, interval=0.1, what="worker-1 busy")
        killed_log = stack.component_log("worker-1").name
        stack.kill_component("worker-1", signal.SIGKILL)
        # Airflow's components exit when the database goes away under them (which of them depends on what each
        # was doing); a supervisor (Kubernetes, systemd, docker compose) starts them again, and so does the test.
        sleep_until(stack, at(base, 100), "the database restart")
        down = restart_postgres()
        time.sleep(10)
        revived = stack.restart_exited()
        stack.wait_healthy(timeout=60)
        sleep_until(stack, at(base, 125), "the worker restart")
        stack.start_worker("worker-1")

        paused = [dag for number, dag in enumerate(dags) if number % 10 == PAUSED]
        sleep_until(stack, at(base, 140), "the pause")
        pause_from = utcnow()
        for dag in paused:
            stack.pause(dag.dag_id)
        sleep_until(stack, at(base, 255), "the unpause")
        unpause_at = utcnow()
        for dag in paused:
            stack.unpause(dag.dag_id)

        # The outage counts from the moment both schedulers have stopped: a fire before it was still created on
        # time (by a scheduler not yet gone), as the simulator has it.
        sleep_until(stack, at(base, 262), "the outage")
        for name in SCHEDULERS:
            stack.stop_component(name)
        outage_from = utcnow()
        sleep_until(stack, at(base, 375), "the end of the outage")
        restarted_at = utcnow()
        for name in SCHEDULERS:
            stack.start_named_scheduler(name)

        until = base + UNTIL
        sleep_until(stack, until, "the end of the observation")
        policies = {dag.dag_id: dag.policy() for dag in dags}

        def newest_fires_exist() -> bool:
            for dag in dags:
                newest = policies[dag.dag_id].newest_eligible_at_or_before(until)
                if newest is not None and not any(run.run_after == newest for run in stack.runs(dag.dag_id)):
                    return False
            return True

        stack.wait_until(newest_fires_exist, 90, interval=1.0, what="every DAG's run of its newest fire")

        def drained() -> bool:
            rows = stack.query(
                "SELECT count(*) AS n FROM dag_run WHERE dag_id LIKE ? AND state IN ('queued', 'running')", (PATTERN,)
            )
            return rows[0]["n"] == 0

        stack.wait_until(drained, 300, interval=2.0, what="every run finished")

        # -- checks --------------------------------------------------------------------------------------------
        problems: list[str] = []
        counts: Counter[str] = Counter()
        for number, dag in enumerate(dags):
            runs = [run for run in stack.runs(dag.dag_id) if run.run_after <= until]
            counts["runs"] += len(runs)
            if any(run.run_type != "scheduled" for run in runs):
                problems.append(f"{dag.dag_id}: a run not made by the scheduler: {runs}")
            logical = [run.logical_date for run in runs]
            counts["duplicates"] += len(logical) - len(set(logical))
            look = unpaused_at if dag.schedule.start_time > unpaused_at else first_queued_after(runs, unpaused_at)
            assert look is not None, f"{dag.dag_id}: no run after the first unpause"
            outage_to = first_queued_after(runs, restarted_at) or until
            events = [Event("outage", outage_from, outage_to)]
            if number % 10 == PAUSED:
                events.append(Event("pause", pause_from, first_queued_after(runs, unpause_at) or until))
            policy = policies[dag.dag_id]
            rows = simulate(policy, dag.schedule.catchup, look, until, events)
            predicted = [fire for fire in created_fires(rows, policy.cron) if fire <= until]
            counts["predicted_runs"] += len(predicted)
            real = sorted({run.run_after for run in runs})
            missing = sorted(set(predicted) - set(real))
            beyond = sorted(set(real) - set(predicted))
            counts["missing"] += len(missing)
            counts["beyond_bound"] += len(beyond)
            if missing or beyond:
                problems.append(
                    f"{dag.dag_id} ({dag.schedule.kwargs_source()}): missing {missing}, not predicted {beyond}; "
                    f"look {look}, events {events}"
                )
            records = {
                task: {
                    path.name.split(f".{task}.json")[0]: json.loads(path.read_text())
                    for path in (out_dir / dag.dag_id).glob(f"*.{task}.json")
                }
                for task in ("bash", "python")
            }
            for run in runs:
                expected = policy.run(run.run_after)
                if (run.data_interval_start, run.data_interval_end, run.logical_date) != (
                    expected.interval_start,
                    expected.fire,
                    expected.interval_start,
                ):
                    counts["wrong_intervals"] += 1
                    problems.append(f"{dag.dag_id}: interval of {run.run_id} is not {expected}")
                offset = dag.schedule.start_time_offset_seconds
                env = hops_window(expected.interval_start, expected.fire, offset).as_env()
                for task in ("bash", "python") if dag.python_task else ("bash",):
                    got = records[task].get(run.run_id)
                    ok = got is not None and got["env"] == env
                    if ok and task == "bash":
                        ok = got is not None and got["argv"] == ["-start_time", env["HOPS_LOGICAL_DATE"]]
                    if not ok:
                        counts["wrong_windows"] += 1
                        problems.append(f"{dag.dag_id}: {task} of {run.run_id} recorded {got}, expected {env}")

        checked = {(run.dag_id, run.run_id) for dag in dags for run in stack.runs(dag.dag_id) if run.run_after <= until}
        tis = [ti for ti in stack.task_instances() if (ti["dag_id"], ti["run_id"]) in checked]
        not_ok = [ti for ti in tis if ti["state"] != "success"]
        problems += [f"task not succeeded: {ti}" for ti in not_ok[:20]]
        ours, others = plugin_tracebacks(stack, killed_log)
        problems += ours[:5]
        numbers = ScaleReport(
            dags=len(dags),
            runs=counts["runs"],
            tasks=len(tis),
            tasks_retried=sum(int(ti["try_number"] or 0) > 1 for ti in tis),
            predicted_runs=counts["predicted_runs"],
            duplicates=counts["duplicates"],
            missing=counts["missing"],
            beyond_bound=counts["beyond_bound"],
            wrong_intervals=counts["wrong_intervals"],
            wrong_windows=counts["wrong_windows"],
            tasks_not_succeeded=len(not_ok),
            plugin_tracebacks=len(ours),
            other_tracebacks=others.total(),
            other_traceback_kinds=dict(others.most_common()),
            postgres_down_seconds=round(down, 1),
            restarted_after_database_restart=revived,
            wall_seconds=round(time.monotonic() - began, 1),
        )
        record_property("scale_numbers", json.dumps(asdict(numbers)))
        with capsys.disabled():
            # In the terminal also when the test passes: these are the counts docs/deployment.md reports.
            print("\nscale numbers:", json.dumps(asdict(numbers)))
        assert not problems, f"{numbers}\n" + "\n".join(problems[:40])
        assert numbers.runs == numbers.predicted_runs > 0
        assert numbers.tasks == numbers.runs + sum(
            sum(run.run_after <= until for run in stack.runs(dag.dag_id)) for dag in dags if dag.python_task
        )
    except BaseException:
        print(stack.logs(60))
        raise
