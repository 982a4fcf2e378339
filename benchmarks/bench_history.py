"""Growth with the history: coverage, one page of the Hopsworks tab, ``audit`` and ``preview -n``.

Each case is measured at sizes a decade apart and reported with the ratio to the decade before: about 10x is linear
growth, about 1x is a cost that does not grow. Two histories of an hourly-or-finer DAG:

* ``bounded``: every minute since 2026-01-01, first scheduled after N fires with ``max_catchup_runs=24``: the 24
  newest fires run, the rest are dropped by design (a long-lived DAG deployed late, like ``bounded_catchup``);
* ``every other failed``: one scheduled run per fire, every other one failed (runs = fires, gaps = fires / 2);
* ``every fire ran``: one scheduled run per fire, each on time and successful (runs = fires, one stretch).

``python -m benchmarks.bench_history`` (``--quick`` stops a decade earlier). Times depend on the machine and its
load; the bytes do not.
"""

from __future__ import annotations

import contextlib
import io
import json
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from functools import partial
from typing import Any

from hops_timetable.core.coverage import RunRecord, coverage, history
from hops_timetable.core.cron import QuartzCron
from hops_timetable.core.schedule import Schedule
from hops_timetable.ui.render import build_page, dag_data, dag_page

UTC = timezone.utc
START = datetime(2026, 1, 1, tzinfo=UTC)
MINUTE = timedelta(minutes=1)
MINUTELY = QuartzCron("0 * * ? * * *")
PAGE_BUDGET = 300_000
PAGE_SECONDS = 0.2


@dataclass(frozen=True)
class Point:
    case: str
    n: int
    seconds: float
    size: int | None = None  # bytes of the output, where there is one
    goal: str = ""
    met: bool | None = None


def bounded(n: int) -> tuple[Schedule, list[RunRecord], datetime]:
    """*n* minutely fires, the 24 newest replayed at the first scheduling, the rest dropped by the bound."""
    deployed = START + n * MINUTE + timedelta(seconds=30)
    runs = []
    for k in range(max(n - 23, 1), n + 1):
        fire = START + k * MINUTE
        runs.append(
            RunRecord(f"scheduled__{k}", "scheduled", "success", fire, fire - MINUTE, fire - MINUTE, fire, deployed)
        )
    settings = Schedule(cron=MINUTELY, start=START, catchup=True, max_catchup_runs=24)
    return settings, runs, deployed


def every_other_failed(n: int) -> tuple[Schedule, list[RunRecord], datetime]:
    """*n* minutely fires, each with its scheduled run on time, every other one failed."""
    runs = []
    for k in range(1, n + 1):
        fire = START + k * MINUTE
        state = "failed" if k % 2 == 0 else "success"
        runs.append(RunRecord(f"scheduled__{k}", "scheduled", state, fire, fire - MINUTE, fire - MINUTE, fire, fire))
    settings = Schedule(cron=MINUTELY, start=START, catchup=True)
    return settings, runs, START + n * MINUTE + timedelta(seconds=30)


def every_fire_ran(n: int) -> tuple[Schedule, list[RunRecord], datetime]:
    """*n* minutely fires, each with its scheduled run on time and successful: the common DAG with a run per fire."""
    runs = []
    for k in range(1, n + 1):
        fire = START + k * MINUTE
        runs.append(
            RunRecord(f"scheduled__{k}", "scheduled", "success", fire, fire - MINUTE, fire - MINUTE, fire, fire)
        )
    settings = Schedule(cron=MINUTELY, start=START, catchup=True)
    return settings, runs, START + n * MINUTE + timedelta(seconds=30)


def _timed(fn: Callable[[], Any], repeats: int) -> tuple[float, Any]:
    best, result = float("inf"), None
    for _ in range(repeats):
        started = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - started)
    return best, result


HISTORIES = (
    ("bounded", bounded, 6),
    ("every other failed", every_other_failed, 5),
    ("every fire ran", every_fire_ran, 5),
)
"""Each history, its maker and the largest power of ten of fires it is measured at."""


def _sizes(top: int) -> list[int]:
    return [10**k for k in range(3, top + 1)]


def coverage_points(quick: bool) -> Iterator[Point]:
    # coverage(): fire by fire, capped at 100,000 fires (the audit's and the tab's old way); history(): stretches.
    for n in _sizes(4 if quick else 5):
        settings, runs, now = every_other_failed(n)
        seconds, _ = _timed(partial(coverage, settings.policy(), True, None, runs, now), 1)
        yield Point("coverage(), fire by fire, every other failed", n, seconds)
    for name, make, top in HISTORIES:
        for n in _sizes(top - 1 if quick else top):
            settings, runs, now = make(n)
            repeats = 1 if n > 10**4 else 3
            seconds, _ = _timed(partial(history, settings.policy(), True, None, runs, now), repeats)
            yield Point(f"history() in stretches, {name}", n, seconds)


def page_points(quick: bool) -> Iterator[Point]:
    for name, make, top in HISTORIES:
        for n in _sizes(top - 1 if quick else top):
            settings, runs, now = make(n)

            def page(s: Schedule = settings, r: list[RunRecord] = runs, t: datetime = now) -> tuple[str, str]:
                built = build_page(s, r, t)
                data = dag_data("d", s, False, built, [])
                return dag_page(data), json.dumps(data)

            seconds, (html, data) = _timed(page, 1 if n > 10**4 else 3)
            goal = f"< {PAGE_BUDGET:,} B" + (f", < {PAGE_SECONDS * 1000:.0f} ms" if name == "bounded" else "")
            met = len(html.encode()) < PAGE_BUDGET and len(data.encode()) < PAGE_BUDGET
            if name == "bounded":
                met = met and seconds < PAGE_SECONDS
            yield Point(f"tab page (HTML), {name}", n, seconds, len(html.encode()), goal, met)
            yield Point(f"tab page (JSON), {name}", n, seconds, len(data.encode()))


def audit_points(quick: bool) -> Iterator[Point]:
    """``audit --json`` against a fake Airflow serving the runs as the plugin's ``/hops/api/dags/{id}/runs`` does."""
    import httpx

    from hops_timetable.cli import audit_client
    from hops_timetable.cli.app import main

    for name, make, top in (("bounded", bounded, 6), ("every other failed", every_other_failed, 5)):
        for n in _sizes(top - 1 if quick else top):
            settings, runs, now = make(n)
            items: list[dict[str, Any]] = [
                {
                    "dag_run_id": r.run_id,
                    "run_type": r.run_type,
                    "state": r.state,
                    "run_after": r.run_after.isoformat(),
                    "logical_date": None if r.logical_date is None else r.logical_date.isoformat(),
                    "data_interval_start": None if r.data_interval_start is None else r.data_interval_start.isoformat(),
                    "data_interval_end": None if r.data_interval_end is None else r.data_interval_end.isoformat(),
                    "queued_at": None if r.queued_at is None else r.queued_at.isoformat(),
                    "conf": {},
                }
                for r in runs
            ]
            dag = {"dag_id": "d", **settings.as_json(), "is_paused": False}

            def handle(request: httpx.Request, items: list[dict[str, Any]] = items, dag: Any = dag) -> httpx.Response:
                if request.url.path == "/hops/api/dags":
                    return httpx.Response(200, json={"dags": [dag]})
                if request.url.path == "/hops/api/dags/d/runs":
                    # The plugin's route: pages of 5,000 by row id (here the position in the list).
                    after = int(request.url.params["after"])
                    page = items[after : after + 5_000]
                    following = after + len(page) if after + len(page) < len(items) else None
                    return httpx.Response(200, json={"dag_runs": page, "next": following})
                offset, limit = int(request.url.params["offset"]), int(request.url.params["limit"])
                return httpx.Response(
                    200, json={"dag_runs": items[offset : offset + limit], "total_entries": len(items)}
                )

            def client(self: Any, api: str, token: str | None, *, timeout: float = 30.0, handle: Any = handle) -> None:
                self._errors = httpx.HTTPError
                self.http = httpx.Client(base_url=api, transport=httpx.MockTransport(handle))

            original = audit_client.Client.__init__
            audit_client.Client.__init__ = client  # type: ignore[method-assign]
            try:
                argv = ["audit", "--api", "http://airflow.invalid", "--token", "t", "--now", now.isoformat(), "--json"]

                def run(argv: list[str] = argv) -> str:
                    out = io.StringIO()
                    with contextlib.redirect_stdout(out):
                        main(argv)
                    return out.getvalue()

                seconds, output = _timed(run, 1)
            finally:
                audit_client.Client.__init__ = original  # type: ignore[method-assign]
            yield Point(f"audit --json, {name}", n, seconds, len(output.encode()))


def preview_points(quick: bool) -> Iterator[Point]:
    """``preview -n N`` seen from 9999-01-01 with a catch-up bound past every fire (once a walk to 1970 per run)."""
    from hops_timetable.cli.app import main

    for n in [10**k for k in range(2, 4 if quick else 5)]:
        argv = ["preview", "--cron", "0 0 * * * ?", "--start-time", "2026-01-01", "--catchup"]
        argv += ["--max-catchup-runs", "100000000", "--now", "9999-01-01", "-n", str(n), "--json"]

        def run(argv: list[str] = argv) -> str:
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                main(argv)
            return out.getvalue()

        seconds, output = _timed(run, 1)
        yield Point("preview -n, bound past every fire, --now 9999-01-01", n, seconds, len(output.encode()))


def run(quick: bool = False) -> list[Point]:
    return [
        *coverage_points(quick),
        *page_points(quick),
        *audit_points(quick),
        *preview_points(quick),
    ]


def report(points: list[Point]) -> str:
    """A Markdown table: each case at each size, with its growth from the size a decade smaller."""
    lines = [
        "| case | fires (runs for preview) | time | x per decade | bytes | x per decade | goal | met |",
        "|---|---|---|---|---|---|---|---|",
    ]
    previous: dict[str, Point] = {}
    for p in points:
        before = previous.get(p.case)
        time_ratio = f"{p.seconds / before.seconds:.1f}x" if before and before.seconds else ""
        size_ratio = f"{p.size / before.size:.2f}x" if before and before.size and p.size is not None else ""
        size = "" if p.size is None else f"{p.size:,} B"
        met = "" if p.met is None else ("yes" if p.met else "NO")
        lines.append(
            f"| {p.case} | {p.n:,} | {p.seconds * 1000:,.1f} ms | {time_ratio} | {size} | {size_ratio} | {p.goal} | "
            f"{met} |"
        )
        previous[p.case] = p
    return "\n".join(lines)


if __name__ == "__main__":
    print(report(run(quick="--quick" in sys.argv)))
