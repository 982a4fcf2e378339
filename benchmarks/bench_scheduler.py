"""The scheduler's hot path: HopsworksTimetable against Airflow's own cron timetables, in one run, as ratios.

Airflow asks a DAG's timetable for its next run on every parse of the DAG file and after every run it creates, so
``next_dagrun_info_v2`` is the number that matters. Each measurement is the median of several repeats of a timed
loop; what the report states are the ratios between rows measured side by side, never absolute thresholds.

Run: ``python -m benchmarks`` (everything) or ``python -m benchmarks.bench_scheduler``.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any

import pendulum
from airflow.timetables.base import DagRunInfo, TimeRestriction
from airflow.timetables.interval import CronDataIntervalTimetable
from airflow.timetables.trigger import CronTriggerTimetable

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
    section: str
    name: str
    median_ns: float
    baseline: str = ""
    baseline_ns: float = 0.0
    goal: str = ""
    met: bool | None = None

    @property
    def ratio(self) -> float | None:
        return self.baseline_ns / self.median_ns if self.baseline_ns else None


def measure(fn: Callable[[], Any], *, repeats: int = 7, min_time: float = 0.05) -> float:
    """Median nanoseconds per call of *fn* over *repeats* timed loops, each at least *min_time* seconds long."""
    number = 1
    while True:
        start = time.perf_counter_ns()
        for _ in range(number):
            fn()
        elapsed = time.perf_counter_ns() - start
        if elapsed >= min_time * 1e9:
            break
        number *= 2
    samples = []
    for _ in range(repeats):
        start = time.perf_counter_ns()
        for _ in range(number):
            fn()
        samples.append((time.perf_counter_ns() - start) / number)
    return statistics.median(samples)


def _steady_state_call(timetable: Any, fire: datetime, previous: datetime, start: datetime) -> Callable[[], Any]:
    last = DagRunInfo.interval(pendulum.instance(previous), pendulum.instance(fire))
    restriction = TimeRestriction(earliest=pendulum.instance(start), latest=None, catchup=True)

    def call() -> Any:
        return timetable.next_dagrun_info_v2(last_dagrun_info=last, restriction=restriction)

    return call


def steady_state(quick: bool) -> list[Row]:
    """Previous run known, nothing missed: the path taken on every parse and after every run."""
    rows = []
    now = datetime.now(UTC)
    for name, unix, quartz in SCHEDULES:
        ours = HopsworksTimetable(quartz)
        fire = ours.cron.prev_before(now)
        assert fire is not None
        previous = ours.cron.prev_before(fire)
        assert previous is not None
        start = now - timedelta(days=400)
        kwargs = {"repeats": 3 if quick else 7, "min_time": 0.02 if quick else 0.05}
        ours_ns = measure(_steady_state_call(ours, fire, previous, start), **kwargs)
        interval_ns = measure(
            _steady_state_call(CronDataIntervalTimetable(unix, timezone="UTC"), fire, previous, start), **kwargs
        )
        trigger_ns = measure(
            _steady_state_call(CronTriggerTimetable(unix, timezone="UTC"), fire, previous, start), **kwargs
        )
        rows.append(
            Row(
                "steady state next_dagrun_info_v2",
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
                "steady state next_dagrun_info_v2",
                f"{name}: vs CronTriggerTimetable",
                ours_ns,
                "CronTriggerTimetable",
                trigger_ns,
            )
        )
    return rows


def outages(quick: bool) -> list[Row]:
    """The same call after outages: the cost must not grow with the outage (O(max_catchup_runs) cron steps)."""
    rows = []
    now = datetime.now(UTC)
    kwargs = {"repeats": 3 if quick else 7, "min_time": 0.02 if quick else 0.05}
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
                )
                if outage_name == "1 year":
                    row.goal, row.met = "<= 3x the no-outage cost", ratio <= 3
                rows.append(row)
    return rows


def construction(quick: bool) -> list[Row]:
    """Building, serializing and deserializing the timetable: done on every DAG parse."""
    kwargs = {"repeats": 3 if quick else 7, "min_time": 0.02 if quick else 0.05}
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


def _import_seconds(code: str, runs: int) -> float:
    """Best-of-*runs* wall time of a fresh interpreter running *code*, minus a bare interpreter's start-up."""

    def once(snippet: str) -> float:
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", snippet], check=True)
        return time.perf_counter() - start

    return min(once(code) for _ in range(runs)) - min(once("pass") for _ in range(runs))


def imports(quick: bool) -> list[Row]:
    """What importing the package costs, on top of Airflow and alone."""
    runs = 3 if quick else 7
    airflow_alone = _import_seconds("import airflow.timetables.base", runs)
    with_package = _import_seconds("import airflow.timetables.base; import hops_timetable.timetable", runs)
    core_alone = _import_seconds("import hops_timetable.catchup", runs)
    added = max(with_package - airflow_alone, 0.0)
    return [
        Row(
            "import time",
            "HopsworksTimetable on top of Airflow (added)",
            added * 1e9,
            "Airflow's timetables alone",
            airflow_alone * 1e9,
            "<= 50 ms added",
            added <= 0.050,
        ),
        Row("import time", "pure core (cron, window, catch-up) alone", core_alone * 1e9),
    ]


def _fmt_ns(ns: float) -> str:
    if ns >= 1e6:
        return f"{ns / 1e6:.2f} ms"
    if ns >= 1e3:
        return f"{ns / 1e3:.2f} µs"
    return f"{ns:.0f} ns"


def report(rows: list[Row]) -> str:
    """A Markdown table: each row's median, its baseline, the speed-up and the goal it serves."""
    lines = [
        "| section | case | ours | baseline | baseline time | speed-up (baseline / ours) | goal | met |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        ratio = row.ratio
        lines.append(
            f"| {row.section} | {row.name} | {_fmt_ns(row.median_ns)} | {row.baseline} | "
            f"{_fmt_ns(row.baseline_ns) if row.baseline_ns else ''} | {'' if ratio is None else f'{ratio:.2f}x'} | "
            f"{row.goal} | {'' if row.met is None else ('yes' if row.met else 'NO')} |"
        )
    return "\n".join(lines)


def run(quick: bool = False) -> list[Row]:
    return steady_state(quick) + outages(quick) + construction(quick) + imports(quick)


if __name__ == "__main__":
    print(report(run(quick="--quick" in sys.argv)))
