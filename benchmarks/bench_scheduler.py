"""The scheduler's hot path: HopsworksTimetable against Airflow's own cron timetables, in one run, as ratios.

Airflow asks a DAG's timetable for its next run on every parse of the DAG file and after every run it creates, so
``next_dagrun_info_v2`` is the number that matters. Each measurement is the median of several repeats of a timed
loop; what the report states are the ratios between rows measured side by side, never absolute thresholds.

Run: ``python -m benchmarks`` (everything) or ``python -m benchmarks.bench_scheduler``.
"""

from __future__ import annotations

import compileall
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from functools import partial
from pathlib import Path
from typing import Any

import pendulum
from airflow.timetables.base import DagRunInfo, TimeRestriction
from airflow.timetables.interval import CronDataIntervalTimetable
from airflow.timetables.trigger import CronTriggerTimetable

import hops_timetable
from hops_timetable.timetable import HopsworksTimetable

UTC = timezone.utc

# (name, 5-field cron for Airflow, equivalent Quartz cron for this timetable)
SCHEDULES = [
    ("hourly", "0 * * * *", "0 0 * ? * *"),
    ("every 5 minutes", "*/5 * * * *", "0 0/5 * ? * *"),
    ("09:00 and 17:00", "0 9,17 * * *", "0 0 9,17 * * ?"),
    ("last day of month", "0 0 L * *", "0 0 0 L * ?"),
    ("weekdays 06:30", "30 6 * * 1-5", "0 30 6 ? * MON-FRI"),
]


@dataclass
class Row:
    """One measured case. ``kind`` says how its ratio reads: ``speed-up`` is baseline / ours (higher is better),
    ``cost`` is ours / baseline (lower is better); rows without a baseline have no ratio."""

    section: str
    name: str
    median_ns: float
    baseline: str = ""
    baseline_ns: float = 0.0
    goal: str = ""
    met: bool | None = None
    kind: str = "speed-up"

    @property
    def ratio(self) -> float | None:
        if not self.baseline_ns:
            return None
        if self.kind == "speed-up":
            return self.baseline_ns / self.median_ns
        return self.median_ns / self.baseline_ns

    @property
    def ratio_text(self) -> str:
        ratio = self.ratio
        if ratio is None:
            return ""
        if self.kind == "speed-up":
            return f"{ratio:.1f}x faster"
        return f"{ratio:.3g}x the baseline"


def measure(
    fn: Callable[[], Any],
    *,
    repeats: int = 7,
    min_time: float = 0.05,
    clock: Callable[[], int] = time.perf_counter_ns,
) -> float:
    """Median nanoseconds per call of *fn* over *repeats* timed loops, each at least *min_time* seconds long.

    *clock* is wall-clock time by default; ``time.process_time_ns`` counts this process's CPU only, which other
    processes competing for the machine do not inflate.
    """
    number = 1
    while True:
        start = clock()
        for _ in range(number):
            fn()
        elapsed = clock() - start
        if elapsed >= min_time * 1e9:
            break
        number *= 2
    samples = []
    for _ in range(repeats):
        start = clock()
        for _ in range(number):
            fn()
        samples.append((clock() - start) / number)
    return statistics.median(samples)


def _steady_state_call(timetable: Any, fire: datetime, previous: datetime, start: datetime) -> Callable[[], Any]:
    last = DagRunInfo.interval(pendulum.instance(previous), pendulum.instance(fire))
    restriction = TimeRestriction(earliest=pendulum.instance(start), latest=None, catchup=True)

    def call() -> Any:
        return timetable.next_dagrun_info_v2(last_dagrun_info=last, restriction=restriction)

    return call


def steady_state(quick: bool) -> list[Row]:
    """Previous run known, nothing missed, on a warm object (one built once and asked again and again)."""
    rows = []
    now = datetime.now(UTC)
    for name, unix, quartz in SCHEDULES:
        ours = HopsworksTimetable(quartz)
        fire = ours.cron.prev_before(now)
        assert fire is not None
        previous = ours.cron.prev_before(fire)
        assert previous is not None
        start = now - timedelta(days=400)
        kwargs: dict[str, Any] = {"repeats": 3 if quick else 7, "min_time": 0.02 if quick else 0.05}
        ours_ns = measure(_steady_state_call(ours, fire, previous, start), **kwargs)
        interval_ns = measure(
            _steady_state_call(CronDataIntervalTimetable(unix, timezone="UTC"), fire, previous, start), **kwargs
        )
        trigger_ns = measure(
            _steady_state_call(CronTriggerTimetable(unix, timezone="UTC"), fire, previous, start), **kwargs
        )
        rows.append(
            Row(
                "warm object: next_dagrun_info_v2",
                f"{name}: vs CronDataIntervalTimetable",
                ours_ns,
                "CronDataIntervalTimetable",
                interval_ns,
                ">= 10x faster",
                interval_ns / ours_ns >= 10,
            )
        )
        rows.append(
            Row(
                "warm object: next_dagrun_info_v2",
                f"{name}: vs CronTriggerTimetable",
                ours_ns,
                "CronTriggerTimetable",
                trigger_ns,
            )
        )
    return rows


def _fresh_call(
    cls: Any, payload: dict[str, Any], fire: datetime, previous: datetime, start: datetime
) -> Callable[[], Any]:
    last = DagRunInfo.interval(pendulum.instance(previous), pendulum.instance(fire))
    restriction = TimeRestriction(earliest=pendulum.instance(start), latest=None, catchup=True)

    def call() -> Any:
        return cls.deserialize(payload).next_dagrun_info_v2(last_dagrun_info=last, restriction=restriction)

    return call


def fresh_path(quick: bool) -> list[Row]:
    """What the scheduler does for each decision: deserialize the stored timetable, then ask it.

    The scheduler never keeps a timetable object between decisions; it deserializes the DAG's stored payload each
    time. Ours is built as ``hops_schedule`` builds it (holding the DAG's start and catchup); the built-ins are
    given the same cron, start and catchup.
    """
    rows = []
    now = datetime.now(UTC)
    kwargs: dict[str, Any] = {"repeats": 3 if quick else 7, "min_time": 0.02 if quick else 0.05}
    start = (now - timedelta(days=400)).replace(microsecond=0)
    for name, unix, quartz in SCHEDULES:
        ours = HopsworksTimetable(quartz, start_time=start, catchup=True)
        fire = ours.cron.prev_before(now)
        assert fire is not None
        previous = ours.cron.prev_before(fire)
        assert previous is not None
        payload = ours.serialize()
        interval_payload = CronDataIntervalTimetable(unix, timezone="UTC").serialize()
        trigger_payload = CronTriggerTimetable(unix, timezone="UTC").serialize()
        ours_ns = measure(_fresh_call(HopsworksTimetable, payload, fire, previous, start), **kwargs)
        interval_ns = measure(_fresh_call(CronDataIntervalTimetable, interval_payload, fire, previous, start), **kwargs)
        trigger_ns = measure(_fresh_call(CronTriggerTimetable, trigger_payload, fire, previous, start), **kwargs)
        ours_de = measure(partial(HopsworksTimetable.deserialize, payload), **kwargs)
        interval_de = measure(partial(CronDataIntervalTimetable.deserialize, interval_payload), **kwargs)
        section = "fresh path: deserialize + next_dagrun_info_v2"
        rows += [
            Row(
                section,
                f"{name}: vs CronDataIntervalTimetable",
                ours_ns,
                "CronDataIntervalTimetable",
                interval_ns,
                ">= 50x faster",
                interval_ns / ours_ns >= 50,
            ),
            Row(
                section,
                f"{name}: vs CronTriggerTimetable",
                ours_ns,
                "CronTriggerTimetable",
                trigger_ns,
                ">= 25x faster",
                trigger_ns / ours_ns >= 25,
            ),
            Row(
                "fresh path: deserialize alone",
                f"{name}: vs CronDataIntervalTimetable",
                ours_de,
                "CronDataIntervalTimetable",
                interval_de,
                ">= 50x faster",
                interval_de / ours_de >= 50,
            ),
        ]
    return rows


def stale_path(quick: bool) -> list[Row]:
    """``next_run_info_from_dag_model`` during a catch-up: the stored next run is due and the fire after it too.

    The scheduler takes this path for 23 of every 24 runs of a catch-up. A timetable built by ``hops_schedule``
    holds the DAG's start and catchup, so nothing is read from the database: the cost is that of the hook Airflow's
    own timetables inherit, plus one cron step, whatever the DAG's size. The DAG model is the scheduler's own row
    for the DAG, as it hands it over (built here without a database: neither path reads one).
    """
    from airflow.models.dag import DagModel

    kwargs: dict[str, Any] = {"repeats": 3 if quick else 7, "min_time": 0.02 if quick else 0.05}
    now = datetime.now(UTC)
    start = (now - timedelta(days=30)).replace(hour=0, minute=0, second=0, microsecond=0)
    ours = HopsworksTimetable("0 0 0 * * ?", start_time=start, catchup=True)
    stored = start + timedelta(days=1)
    dag_model = DagModel(  # type: ignore[no-untyped-call]
        dag_id="stale",
        next_dagrun=pendulum.instance(start),
        next_dagrun_data_interval_start=pendulum.instance(start),
        next_dagrun_data_interval_end=pendulum.instance(stored),
        next_dagrun_create_after=pendulum.instance(stored),
    )
    rows = []
    for cls, timetable in (
        (CronDataIntervalTimetable, CronDataIntervalTimetable("0 0 * * *", timezone="UTC")),
        (CronTriggerTimetable, CronTriggerTimetable("0 0 * * *", timezone="UTC")),
    ):
        ours_ns = measure(lambda: ours.next_run_info_from_dag_model(dag_model=dag_model), **kwargs)
        theirs_ns = measure(partial(timetable.next_run_info_from_dag_model, dag_model=dag_model), **kwargs)
        rows.append(
            Row(
                "stale-run path: next_run_info_from_dag_model, catch-up due",
                f"daily, any DAG size: vs {cls.__name__}",
                ours_ns,
                cls.__name__,
                theirs_ns,
                "<= 2x the built-in's hook",
                ours_ns <= 2 * theirs_ns,
                kind="cost",
            )
        )
    return rows


def outages(quick: bool) -> list[Row]:
    """The same call after outages: the cost must not grow with the outage (O(max_catchup_runs) cron steps)."""
    rows = []
    now = datetime.now(UTC)
    kwargs: dict[str, Any] = {"repeats": 3 if quick else 7, "min_time": 0.02 if quick else 0.05}
    settings = [("catchup=False", False, None), ("max_catchup_runs=24", True, 24), ("unbounded catch-up", True, None)]
    for cron_name, quartz in [("per-minute", "0 * * ? * *"), ("hourly", "0 0 * ? * *")]:
        for label, catchup, bound in settings:
            timetable = HopsworksTimetable(quartz, max_catchup_runs=bound)
            restriction = TimeRestriction(
                earliest=pendulum.instance(now - timedelta(days=800)), latest=None, catchup=catchup
            )
            costs: dict[str, float] = {}
            for outage_name, outage in [
                ("none", timedelta(0)),
                ("1 hour", timedelta(hours=1)),
                ("1 week", timedelta(weeks=1)),
                ("1 year", timedelta(days=365)),
            ]:
                fire = timetable.cron.prev_before(now - outage)
                assert fire is not None
                previous = timetable.cron.prev_before(fire)
                assert previous is not None
                last = DagRunInfo.interval(pendulum.instance(previous), pendulum.instance(fire))

                def call(
                    timetable: HopsworksTimetable = timetable,
                    last: DagRunInfo = last,
                    restriction: TimeRestriction = restriction,
                ) -> Any:
                    return timetable.next_dagrun_info_v2(last_dagrun_info=last, restriction=restriction)

                costs[outage_name] = measure(call, **kwargs)
            for outage_name in ("1 hour", "1 week", "1 year"):
                ratio = costs[outage_name] / costs["none"]
                row = Row(
                    "after an outage",
                    f"{cron_name}, {label}, outage {outage_name}",
                    costs[outage_name],
                    "same call, no outage",
                    costs["none"],
                    kind="cost",
                )
                if outage_name == "1 year":
                    row.goal, row.met = "<= 3x the no-outage cost", ratio <= 3
                rows.append(row)
    return rows


def construction(quick: bool) -> list[Row]:
    """Building, serializing and deserializing the timetable: done on every DAG parse."""
    kwargs: dict[str, Any] = {"repeats": 3 if quick else 7, "min_time": 0.02 if quick else 0.05}
    quartz = "0 0 * ? * *"
    ours = HopsworksTimetable(quartz, start_time_offset_seconds=3600, max_catchup_runs=24)
    theirs = CronDataIntervalTimetable("0 * * * *", timezone="UTC")
    payload, their_payload = ours.serialize(), theirs.serialize()
    return [
        Row(
            "per DAG parse",
            "build",
            measure(lambda: HopsworksTimetable(quartz, start_time_offset_seconds=3600, max_catchup_runs=24), **kwargs),
            "CronDataIntervalTimetable",
            measure(lambda: CronDataIntervalTimetable("0 * * * *", timezone="UTC"), **kwargs),
        ),
        Row(
            "per DAG parse",
            "serialize",
            measure(ours.serialize, **kwargs),
            "CronDataIntervalTimetable",
            measure(theirs.serialize, **kwargs),
        ),
        Row(
            "per DAG parse",
            "deserialize",
            measure(lambda: HopsworksTimetable.deserialize(payload), **kwargs),
            "CronDataIntervalTimetable",
            measure(lambda: CronDataIntervalTimetable.deserialize(their_payload), **kwargs),
        ),
    ]


def _import_times(code: str) -> list[tuple[str, int]]:
    """(module, cumulative µs) of each top-level import a fresh interpreter makes running *code*, in order.

    Read from ``-X importtime``, which times each import itself; wall-clock differences between two interpreter
    runs are dominated by noise on a busy machine.
    """
    done = subprocess.run([sys.executable, "-X", "importtime", "-c", code], capture_output=True, text=True, check=True)
    rows = []
    for line in done.stderr.splitlines():
        if not line.startswith("import time:") or "cumulative" in line:
            continue
        _, cumulative, name = line.split("|")
        if not name.startswith("  "):  # one leading space: a top-level import
            rows.append((name.strip(), int(cumulative)))
    return rows


def _added_after(rows: list[tuple[str, int]], marker: str) -> float:
    """Seconds spent in top-level imports made after *marker* finished importing."""
    names = [name for name, _ in rows]
    start = names.index(marker) + 1
    return sum(us for _, us in rows[start:]) / 1e6


def imports(quick: bool) -> list[Row]:
    """What importing the package costs, on top of Airflow and alone (best of several fresh interpreters)."""
    # An installed wheel's bytecode is compiled at install time; an editable checkout run with
    # PYTHONDONTWRITEBYTECODE (as CI machines often are) would recompile every module on each import instead.
    compileall.compile_dir(str(Path(hops_timetable.__file__).parent), quiet=1)
    runs = 3 if quick else 7
    airflow = min(sum(us for _, us in _import_times("import airflow")) / 1e6 for _ in range(runs))
    root = min(_added_after(_import_times("import airflow; import hops_timetable"), "airflow") for _ in range(runs))
    timetable = min(
        _added_after(_import_times("import airflow; from hops_timetable import HopsworksTimetable"), "airflow")
        for _ in range(runs)
    )
    bare = min(sum(us for _, us in _import_times("pass")) for _ in range(runs))
    core = (
        min(sum(us for _, us in _import_times("import hops_timetable.core.catchup")) - bare for _ in range(runs)) / 1e6
    )
    return [
        Row(
            "import time",
            "`import hops_timetable` after `import airflow` (added)",
            root * 1e9,
            "`import airflow`",
            airflow * 1e9,
            "<= 50 ms added",
            root <= 0.050,
            kind="cost",
        ),
        Row(
            "import time",
            "`from hops_timetable import HopsworksTimetable` after `import airflow` (added)",
            timetable * 1e9,
            "`import airflow`",
            airflow * 1e9,
            "<= 50 ms added",
            timetable <= 0.050,
            kind="cost",
        ),
        Row("import time", "pure core alone (cron, window, catch-up)", core * 1e9),
    ]


def _fmt_ns(ns: float) -> str:
    if ns >= 1e6:
        return f"{ns / 1e6:.2f} ms"
    if ns >= 1e3:
        return f"{ns / 1e3:.2f} µs"
    return f"{ns:.0f} ns"


def report(rows: list[Row]) -> str:
    """A Markdown table: each row's median, its baseline, the ratio and the goal it serves."""
    lines = [
        "| section | case | ours | baseline | baseline time | ratio | goal | met |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        baseline_time = _fmt_ns(row.baseline_ns) if row.baseline_ns else ""
        met = "" if row.met is None else ("yes" if row.met else "NO")
        lines.append(
            f"| {row.section} | {row.name} | {_fmt_ns(row.median_ns)} | {row.baseline} | {baseline_time} | "
            f"{row.ratio_text} | {row.goal} | {met} |"
        )
    return "\n".join(lines)


def run(quick: bool = False) -> list[Row]:
    return (
        fresh_path(quick)
        + stale_path(quick)
        + steady_state(quick)
        + outages(quick)
        + construction(quick)
        + imports(quick)
    )


if __name__ == "__main__":
    print(report(run(quick="--quick" in sys.argv)))
