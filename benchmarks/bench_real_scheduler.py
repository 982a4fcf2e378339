"""A real Airflow scheduler creating catch-up runs: HopsworksTimetable beside Airflow's own cron timetables.

Opt-in (not part of CI; ``python -m benchmarks --real-scheduler`` runs it too): ``python -m
benchmarks.bench_real_scheduler`` (100 DAGs, about an hour on two cores) or ``--quick`` (20 DAGs, about 15
minutes). Each trial is one scheduler process
on its own copy of a migrated SQLite metadata database holding *dags* DAGs of one timetable and one size, every
DAG *runs* fires behind, unpaused. The trial ends when every run exists.
Measured per trial, from the scheduler's own records:

- time to all runs: from the first run's ``queued_at`` to the last one's (the scheduler's start-up is the same
  for every timetable and left out);
- scheduler CPU seconds over the same span (``psutil``, the scheduler process itself);
- loop time: the median of Airflow's own ``scheduler.scheduler_loop_duration`` metric, received over StatsD.

Trials are paired: each repeat runs the four DAG kinds back to back in a shuffled order, so slow phases of a
busy machine fall on all of them; the report gives each ratio's median and its spread over the repeats. The four
kinds: ``hops_schedule(...)`` as it builds a DAG by default, the same with ``trigger_form=True`` (the default
before), and Airflow's ``CronDataIntervalTimetable`` and ``CronTriggerTimetable``. The report starts with the goals
of :mod:`benchmarks.goals`.

The tasks are ``EmptyOperator`` s, which the scheduler completes itself without an executor: what is measured is
the scheduler deciding and creating runs, the work a timetable takes part in. Each DAG is built the way its users
write it: ``hops_schedule(...)`` for ours, ``CronDataIntervalTimetable`` and ``CronTriggerTimetable`` with the
same daily cron, start dates chosen so that every DAG has exactly *runs* runs due.

Also measured in-process: what the dag-processor does with each file (execute it, run the cluster policies,
serialize the DAG) and the serialized size, each as a ratio to the same DAG on the built-in timetables. With
``--profile DIR``, one more scheduler per kind and size runs under cProfile after the timed trials, for the
timetable code's share of the scheduler's time.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import pstats
import random
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import psutil

from benchmarks import goals
from benchmarks.bench_scheduler import measure

UTC = timezone.utc
KINDS = ("hops", "hops_form", "interval", "trigger")
LABELS = {
    "hops": "HopsworksTimetable (hops_schedule's default)",
    "hops_form": "HopsworksTimetable, trigger_form=True",
    "interval": "CronDataIntervalTimetable",
    "trigger": "CronTriggerTimetable",
}

# One DAG file per DAG; {schedule} is the DAG's schedule arguments (max_active_runs above the runs due, so that
# no DAG waits for its own runs), {tasks} its task count.
DAG_FILE = """\
from datetime import datetime, timezone

from airflow.providers.standard.operators.empty import EmptyOperator
from airflow.sdk import DAG
{imports}

with DAG("{dag_id}", {schedule}) as dag:
    for number in range({tasks}):
        EmptyOperator(task_id=f"task_{{number}}")
"""


@dataclass(frozen=True)
class Case:
    kind: str
    tasks: int

    @property
    def label(self) -> str:
        return f"{LABELS[self.kind]}, {self.tasks} task{'s' if self.tasks > 1 else ''}"


@dataclass
class Trial:
    seconds: float
    cpu: float
    loop_ms: float
    runs: int


@dataclass
class Results:
    trials: dict[Case, list[Trial]] = field(default_factory=dict)

    def add(self, case: Case, trial: Trial) -> None:
        self.trials.setdefault(case, []).append(trial)


def dag_source(kind: str, dag_id: str, tasks: int, runs: int, today: datetime) -> str:
    """The DAG file of *kind*: a daily cron at midnight UTC, with exactly *runs* runs due before *today*."""
    if kind in ("hops", "hops_form"):
        # The first interval starts at start_time; each fire after it is one run. The default DAG is written as
        # its users write it, without the argument.
        start = today - timedelta(days=runs)
        imports = "from hops_timetable import hops_schedule"
        form = ", trigger_form=True" if kind == "hops_form" else ""
        schedule = (
            f'**hops_schedule("0 0 0 * * ?", start_time=datetime.fromisoformat("{start.isoformat()}"), '
            f"catchup=True, max_active_runs={runs + 1}{form})"
        )
    elif kind == "interval":
        # Each complete interval from start_date on is one run.
        start = today - timedelta(days=runs)
        imports = "from airflow.timetables.interval import CronDataIntervalTimetable"
        schedule = (
            f'schedule=CronDataIntervalTimetable("0 0 * * *", timezone="UTC"), '
            f'start_date=datetime.fromisoformat("{start.isoformat()}"), catchup=True, max_active_runs={runs + 1}'
        )
    else:
        # Each fire from start_date on, start_date's own included, is one run.
        start = today - timedelta(days=runs - 1)
        imports = "from airflow.timetables.trigger import CronTriggerTimetable"
        schedule = (
            f'schedule=CronTriggerTimetable("0 0 * * *", timezone="UTC"), '
            f'start_date=datetime.fromisoformat("{start.isoformat()}"), catchup=True, max_active_runs={runs + 1}'
        )
    return DAG_FILE.format(imports=imports, dag_id=dag_id, schedule=schedule, tasks=tasks)


def environment(home: Path, extra: dict[str, str] | None = None) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if not key.startswith("AIRFLOW")}
    env.update(
        {
            "AIRFLOW_HOME": str(home),
            "AIRFLOW__DATABASE__SQL_ALCHEMY_CONN": f"sqlite:///{home / 'airflow.db'}?timeout=30",
            "AIRFLOW__CORE__DAGS_FOLDER": str(home / "dags"),
            "AIRFLOW__CORE__LOAD_EXAMPLES": "False",
            "AIRFLOW__CORE__EXECUTOR": "LocalExecutor",
            "AIRFLOW__CORE__DAGS_ARE_PAUSED_AT_CREATION": "False",
            "AIRFLOW__CORE__MAX_ACTIVE_RUNS_PER_DAG": "1000",
            # Airflow's defaults (10 and 20) make the run count per loop the limit and the loop the clock: with
            # room for all 100 DAGs in each loop the span measures the scheduler's work, not its pacing.
            "AIRFLOW__SCHEDULER__MAX_DAGRUNS_TO_CREATE_PER_LOOP": "100",
            "AIRFLOW__SCHEDULER__MAX_DAGRUNS_PER_LOOP_TO_SCHEDULE": "100",
            "AIRFLOW__LOGGING__LOGGING_LEVEL": "WARNING",
            "PYTHONUNBUFFERED": "1",
        }
    )
    env.update(extra or {})
    return env


def airflow(home: Path, *args: str, env: dict[str, str] | None = None) -> None:
    log = home / f"{args[0]}-{args[1] if len(args) > 1 else ''}.log"
    with log.open("wb") as out:
        done = subprocess.run(
            [sys.executable, "-m", "airflow", *args],
            env=env or environment(home),
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            check=False,
            timeout=900,
        )
    if done.returncode != 0:
        raise RuntimeError(f"airflow {' '.join(args)} failed:\n{log.read_text()[-3000:]}")


def prepare(root: Path, case: Case, dags: int, runs: int, today: datetime, migrated: Path) -> Path:
    """An Airflow home for *case*: the migrated database with its DAG files parsed and serialized into it."""
    home = root / f"{case.kind}-{case.tasks}"
    (home / "dags").mkdir(parents=True)
    for number in range(dags):
        dag_id = f"bench_{case.kind}_{number:03d}"
        (home / "dags" / f"{dag_id}.py").write_text(dag_source(case.kind, dag_id, case.tasks, runs, today))
    copy_database(migrated, home / "airflow.db")
    airflow(home, "dags", "reserialize")
    (home / "airflow.db").rename(home / "template.db")
    return home


def copy_database(source: Path, target: Path) -> None:
    """A consistent copy of a SQLite database (the backup API folds in a pending write-ahead log)."""
    with contextlib.closing(sqlite3.connect(source)) as src, contextlib.closing(sqlite3.connect(target)) as dst:
        src.backup(dst)


class StatsdListener:
    """Receives Airflow's StatsD packets on 127.0.0.1 and keeps the scheduler loop durations (ms)."""

    def __init__(self) -> None:
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.loops: list[tuple[float, float]] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._listen, daemon=True)
        self._thread.start()

    def _listen(self) -> None:
        while not self._stop.is_set():
            try:
                data = self.sock.recv(65535)
            except TimeoutError:
                continue
            for line in data.decode(errors="replace").splitlines():
                name, _, rest = line.partition(":")
                if name.endswith("scheduler.scheduler_loop_duration"):
                    value = rest.split("|")[0]
                    with contextlib.suppress(ValueError):
                        self.loops.append((time.monotonic(), float(value)))

    def close(self) -> None:
        self._stop.set()
        self._thread.join()
        self.sock.close()


def run_count(database: Path) -> tuple[int, float | None]:
    """(runs, seconds from the first run's queued_at to the last one's)."""
    with contextlib.closing(sqlite3.connect(f"file:{database}?mode=ro", uri=True, timeout=30)) as db:
        count, first, last = db.execute("SELECT count(*), min(queued_at), max(queued_at) FROM dag_run").fetchone()
    if not count or first is None:
        return 0, None
    span = datetime.fromisoformat(last) - datetime.fromisoformat(first)
    return count, span.total_seconds()


def trial(home: Path, expected: int, timeout: float, profile: Path | None = None) -> Trial:
    """One scheduler on a fresh copy of *home*'s template database, until *expected* runs exist.

    With *profile*, the scheduler runs under cProfile and writes its profile there when it stops (its times are
    then not comparable with unprofiled trials).
    """
    database = home / "airflow.db"
    for suffix in ("", "-wal", "-shm"):
        Path(f"{database}{suffix}").unlink(missing_ok=True)
    copy_database(home / "template.db", database)
    listener = StatsdListener()
    env = environment(
        home,
        {
            "AIRFLOW__METRICS__STATSD_ON": "True",
            "AIRFLOW__METRICS__STATSD_HOST": "127.0.0.1",
            "AIRFLOW__METRICS__STATSD_PORT": str(listener.port),
        },
    )
    log = (home / "scheduler.log").open("wb")
    process = subprocess.Popen(
        [sys.executable, *(["-m", "cProfile", "-o", str(profile)] if profile else []), "-m", "airflow", "scheduler"],
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        start_new_session=True,
    )
    scheduler = psutil.Process(process.pid)
    try:
        began, cpu_at_first, at_first = time.monotonic(), None, 0.0
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"the scheduler exited:\n{(home / 'scheduler.log').read_text()[-3000:]}")
            if time.monotonic() - began > timeout:
                raise RuntimeError(f"{run_count(database)[0]} of {expected} runs after {timeout:.0f} s")
            count, span = run_count(database)
            if count and cpu_at_first is None:
                cpu_at_first, at_first = _cpu(scheduler), time.monotonic()
            if count >= expected and span is not None and cpu_at_first is not None:
                cpu = _cpu(scheduler) - cpu_at_first
                finished = time.monotonic()
                break
            time.sleep(0.25)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, 15)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, 9)
            process.wait()
        log.close()
        listener.close()
    loops = [ms for at, ms in listener.loops if at_first <= at <= finished]
    return Trial(seconds=span, cpu=cpu, loop_ms=statistics.median(loops) if loops else float("nan"), runs=count)


def _cpu(process: psutil.Process) -> float:
    """The scheduler process's own CPU seconds (its executor's idle workers are not the scheduler's work)."""
    times = process.cpu_times()
    return float(times.user + times.system)


# Where a timetable's code lives: this package and Airflow's own timetables (which ours subclasses, and which call
# croniter); time inside them, entered from anywhere else, is the timetable's share of the scheduler.
_TIMETABLE_CODE = ("/hops_timetable/", "/airflow/timetables/")


@dataclass(frozen=True)
class Share:
    """Seconds of a profiled scheduler inside timetable code: *calls* made while scheduling, *imports* of its
    modules at start-up (a plugin's module and what it imports), of *total* seconds."""

    calls: float
    imports: float
    total: float

    @property
    def percent(self) -> float:
        return 100 * (self.calls + self.imports) / self.total


def timetable_share(profile: Path) -> Share:
    """Where a scheduler profile's time went inside timetable code.

    Counted on the call edges that enter timetable code from elsewhere, so each call is counted once with
    everything it calls (croniter, pendulum) and nothing twice. Entering a module's top level is its import.
    """
    stats = pstats.Stats(str(profile))
    raw: dict[Any, Any] = stats.stats  # type: ignore[attr-defined]

    def inside(function: tuple[str, int, str]) -> bool:
        return any(part in function[0] for part in _TIMETABLE_CODE)

    calls = imports = 0.0
    for function, (_cc, _nc, _tt, _ct, callers) in raw.items():
        if not inside(function):
            continue
        for caller, edge in callers.items():
            if not inside(caller):
                if function[2] == "<module>":
                    imports += edge[3]
                else:
                    calls += edge[3]
    return Share(calls, imports, float(stats.total_tt))  # type: ignore[attr-defined]


def dag_processor_rows(tasks: int, runs: int, today: datetime, rounds: int) -> list[dict[str, Any]]:
    """What the dag-processor does with each kind's DAG file: execute it, run the cluster policies, serialize the DAG.

    The policies are Airflow's own hooks (``airflow.settings``), with every installed policy plugin: this package's
    DAG policy runs for every DAG, as in the dag-processor. The kinds are timed in a shuffled order in each round,
    so that every round gives one paired sample of each; the time is this process's CPU time, which the other
    processes of a busy machine do not inflate.
    """
    from airflow import settings
    from airflow.serialization.serialized_objects import DagSerialization

    parses = {}
    for kind in KINDS:
        source = dag_source(kind, f"parse_{kind}", tasks, runs, today)
        code = compile(source, f"parse_{kind}.py", "exec")

        def parse(code: Any = code) -> Any:
            namespace: dict[str, Any] = {"__name__": "bench_dag_file"}
            exec(code, namespace)  # the benchmark's own generated file, as the dag-processor executes one
            dag = namespace["dag"]
            settings.dag_policy(dag)  # type: ignore[no-untyped-call]
            for task in dag.tasks:
                settings.task_policy(task)  # type: ignore[no-untyped-call]
            return DagSerialization.to_dict(dag)

        parses[kind] = parse
    sizes = {kind: len(json.dumps(parse()).encode()) for kind, parse in parses.items()}
    samples: dict[str, list[float]] = {kind: [] for kind in KINDS}
    order = random.Random(tasks)
    for _ in range(rounds):
        kinds = list(KINDS)
        order.shuffle(kinds)
        for kind in kinds:
            samples[kind].append(measure(parses[kind], repeats=1, min_time=0.05, clock=time.process_time_ns))
    return [
        {
            "kind": kind,
            "tasks": tasks,
            "ns": statistics.median(samples[kind]),
            "samples": samples[kind],
            "bytes": sizes[kind],
        }
        for kind in KINDS
    ]


def goal_rows(
    results: Results, parse_rows: list[dict[str, Any]], shares: dict[tuple[str, int], Share], sizes: list[int]
) -> list[goals.Goal]:
    trials = {
        (case.kind, case.tasks): [{"seconds": t.seconds, "cpu": t.cpu} for t in measured]
        for case, measured in results.trials.items()
    }
    return (
        goals.parse_goals(parse_rows)
        + goals.scheduler_goals(trials, sizes)
        + (goals.share_goals({key: share.percent for key, share in shares.items()}, sizes) if shares else [])
    )


def report(
    results: Results,
    parse_rows: list[dict[str, Any]],
    shares: dict[tuple[str, int], Share],
    dags: int,
    runs: int,
) -> str:
    sizes = sorted({case.tasks for case in results.trials} | {row["tasks"] for row in parse_rows})
    repeats = len(next(iter(results.trials.values()))) if results.trials else 0
    lines = [
        "Goals for the DAG hops_schedule(...) builds by default ('after'), and the same DAG with trigger_form=True "
        "('before'), measured in this run: ratios are ours / built-in (below 1: ours is cheaper), medians over "
        "paired trials, [min - max] of the default's.",
        "",
        goals.report(goal_rows(results, parse_rows, shares, sizes)),
        "",
    ]
    if results.trials:
        lines += [
            f"Real scheduler: {dags} DAGs x {runs} catch-up runs per DAG kind and size, {repeats} paired repeats; "
            "ratios are ours / built-in, median [min - max] over the repeats.",
            "",
            "| DAG size | metric | DAG kind | vs CronDataIntervalTimetable | vs CronTriggerTimetable |",
            "|---|---|---|---|---|",
        ]
        for tasks in sorted({case.tasks for case in results.trials}):
            for metric, name in (
                ("seconds", "time to all runs"),
                ("cpu", "scheduler CPU seconds"),
                ("loop_ms", "loop time"),
            ):
                for ours in ("hops", "hops_form"):
                    cells = []
                    for kind in ("interval", "trigger"):
                        values = [
                            getattr(a, metric) / getattr(b, metric)
                            for a, b in zip(
                                results.trials[Case(ours, tasks)], results.trials[Case(kind, tasks)], strict=True
                            )
                        ]
                        cells.append(f"{statistics.median(values):.2f}x [{min(values):.2f} - {max(values):.2f}]")
                    lines.append(f"| {tasks} | {name} | {LABELS[ours]} | {cells[0]} | {cells[1]} |")
        lines += ["", "| DAG size | DAG kind | time to all runs (s) | CPU (s) | loop (ms) |", "|---|---|---|---|---|"]
        for case, trials in sorted(results.trials.items(), key=lambda item: (item[0].tasks, KINDS.index(item[0].kind))):
            lines.append(
                f"| {case.tasks} | {LABELS[case.kind]} | {_spread([t.seconds for t in trials])} | "
                f"{_spread([t.cpu for t in trials])} | {_spread([t.loop_ms for t in trials])} |"
            )
        lines.append("")
    if shares:
        lines += [
            "Profiled schedulers (one per kind and size, after the timed trials): seconds inside timetable code "
            "(this package, airflow/timetables), split into the calls made while scheduling and the import of its "
            "modules at start-up.",
            "",
            "| DAG size | DAG kind | calls | imports | scheduler total | share |",
            "|---|---|---|---|---|---|",
        ]
        for (kind, tasks), share in sorted(shares.items(), key=lambda item: (item[0][1], KINDS.index(item[0][0]))):
            lines.append(
                f"| {tasks} | {LABELS[kind]} | {share.calls:.2f} s ({100 * share.calls / share.total:.2f}%) | "
                f"{share.imports:.2f} s ({100 * share.imports / share.total:.2f}%) | {share.total:.1f} s | "
                f"{share.percent:.2f}% |"
            )
        lines.append("")
    lines += [
        "| DAG size | DAG file | dag-processor per file: execute + policies + serialize | ratio | serialized size "
        "| ratio |",
        "|---|---|---|---|---|---|",
    ]
    for tasks in sorted({row["tasks"] for row in parse_rows}):
        by_kind = {row["kind"]: row for row in parse_rows if row["tasks"] == tasks}
        base = by_kind["interval"]
        for kind in KINDS:
            row = by_kind[kind]
            ratio, _ = goals.paired(row["samples"], base["samples"])
            lines.append(
                f"| {tasks} | {LABELS[kind]} | {row['ns'] / 1e6:.2f} ms | {ratio:.2f}x | "
                f"{row['bytes']:,} B | {row['bytes'] / base['bytes']:.3f}x |"
            )
    return "\n".join(lines)


def _spread(values: list[float]) -> str:
    return f"{statistics.median(values):.2f} [{min(values):.2f} - {max(values):.2f}]"


def midnight(now: datetime) -> datetime:
    return now.replace(hour=0, minute=0, second=0, microsecond=0)


@contextlib.contextmanager
def workdir(keep: bool) -> Iterator[Path]:
    if keep:
        yield Path(tempfile.mkdtemp(prefix="bench-real-scheduler-"))
        return
    with tempfile.TemporaryDirectory(prefix="bench-real-scheduler-") as path:
        yield Path(path)


def parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dags", type=int, default=100, help="DAGs per DAG kind and size (default 100)")
    parser.add_argument("--quick", action="store_true", help="20 DAGs instead of 100: about 15 minutes")
    parser.add_argument("--runs", type=int, default=24, help="catch-up runs due per DAG (default 24)")
    parser.add_argument("--repeats", type=int, default=3, help="paired trials per DAG size (default 3)")
    parser.add_argument("--sizes", default="1,50", help="task counts per DAG, comma-separated (default 1,50)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the trial order")
    parser.add_argument("--keep", action="store_true", help="keep the Airflow homes and logs")
    parser.add_argument(
        "--profile",
        type=Path,
        help="a folder: after the timed trials, run one scheduler per DAG kind and size under cProfile, write "
        "<kind>-<tasks>.prof there and report the timetable code's share of the scheduler's time",
    )
    parser.add_argument(
        "--profile-sizes", help="the DAG sizes to profile, comma-separated (default: every size of --sizes)"
    )
    parser.add_argument("--json", type=Path, help="also write every trial's figures to this file, after each trial")
    parser.add_argument(
        "--trials-from",
        type=Path,
        help="the timed trials of an earlier run's --json file instead of running them (its complete paired repeats; "
        "an interrupted run's trials are kept after each one), for a report with this run's profiles and "
        "dag-processor rows",
    )
    return parser


def load_trials(path: Path) -> Results:
    """The timed trials of a ``--json`` file, cut to the paired repeats every kind of a size completed."""
    data = json.loads(path.read_text())
    results = Results()
    by_case = {Case(entry["kind"], entry["tasks"]): entry["trials"] for entry in data["trials"]}
    for tasks in {case.tasks for case in by_case}:
        complete = min(len(by_case.get(Case(kind, tasks), [])) for kind in KINDS)
        for kind in KINDS:
            for figures in by_case.get(Case(kind, tasks), [])[:complete]:
                results.add(Case(kind, tasks), Trial(**figures))
    return results


def run(args: argparse.Namespace) -> str:
    """Every trial, the dag-processor rows and the profiles of *args*; the report, goals first."""
    sizes = [int(size) for size in args.sizes.split(",")]
    profile_sizes = sizes if not args.profile_sizes else [int(size) for size in args.profile_sizes.split(",")]
    if args.quick:
        args.dags = 20
    order = random.Random(args.seed)
    today = midnight(datetime.now(UTC))
    results = Results() if args.trials_from is None else load_trials(args.trials_from)
    shares: dict[tuple[str, int], Share] = {}
    expected = args.dags * args.runs

    def save() -> None:
        if args.json is not None:
            data = {
                "trials": [
                    {"kind": case.kind, "tasks": case.tasks, "trials": [vars(t) for t in trials]}
                    for case, trials in results.trials.items()
                ],
                "shares": [{"kind": k, "tasks": t, **vars(share)} for (k, t), share in shares.items()],
            }
            args.json.write_text(json.dumps(data, indent=1))

    def check_day() -> None:
        if midnight(datetime.now(UTC)) != today:
            raise SystemExit("midnight UTC passed during the benchmark: a run more is due; run it again")

    with workdir(args.keep) as root:
        migrated_home = root / "migrated"
        (migrated_home / "dags").mkdir(parents=True)
        airflow(migrated_home, "db", "migrate")
        timed = set() if args.trials_from is not None else set(sizes)
        homes = {
            Case(kind, tasks): prepare(
                root, Case(kind, tasks), args.dags, args.runs, today, migrated_home / "airflow.db"
            )
            for tasks in sorted(timed | set(profile_sizes if args.profile else []))
            for kind in KINDS
        }
        for repeat in range(0 if args.trials_from is not None else args.repeats):
            for tasks in sizes:
                kinds = list(KINDS)
                order.shuffle(kinds)
                for kind in kinds:
                    case = Case(kind, tasks)
                    check_day()
                    result = trial(homes[case], expected, timeout=900)
                    results.add(case, result)
                    save()
                    print(
                        f"repeat {repeat + 1}: {case.label}: {result.runs} runs in {result.seconds:.2f} s, "
                        f"{result.cpu:.2f} CPU s, loop {result.loop_ms:.1f} ms",
                        file=sys.stderr,
                        flush=True,
                    )
        if args.profile:
            args.profile.mkdir(parents=True, exist_ok=True)
            for tasks in profile_sizes:
                kinds = list(KINDS)
                order.shuffle(kinds)
                for kind in kinds:
                    check_day()
                    profile = args.profile / f"{kind}-{tasks}.prof"
                    trial(homes[Case(kind, tasks)], expected, timeout=1800, profile=profile)
                    shares[(kind, tasks)] = share = timetable_share(profile)
                    save()
                    print(
                        f"profile {profile.name}: {share.calls:.2f} s in calls and {share.imports:.2f} s in imports "
                        f"of {share.total:.2f} s in timetable code ({share.percent:.1f}%)",
                        file=sys.stderr,
                        flush=True,
                    )
    parse_rows = [row for tasks in sizes for row in dag_processor_rows(tasks, args.runs, today, 9)]
    return textwrap.dedent(report(results, parse_rows, shares, args.dags, args.runs))


def main(argv: list[str] | None = None) -> int:
    print(run(parser().parse_args(argv)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
