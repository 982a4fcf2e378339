"""The Hopsworks tab and ``audit`` against a real Airflow whose metadata database holds up to a million runs of one DAG.

For each size (default 10^4, 10^5, 10^6 runs) a fresh Airflow home is made: the database migrated (SQLite, or a fresh
PostgreSQL database with ``--postgres URL``), the DAG ``minutely`` (a HopsworksTimetable firing every minute since
2024-01-01, catch-up on) serialized by ``airflow dags reserialize``, and its runs bulk-inserted into ``dag_run``:
one scheduled run per fire up to two minutes ago (the DAG starts N minutes before that), every 1,000th failed, and
a manual run with a conf window every 10,000 fires. Then an api-server is started (one worker) and measured:

* each tab page and its JSON twin (the newest page, the next one, one in the middle, the oldest, the run tab): the
  first view (it answers at once while the api-server reads the DAG's runs once, and the tab asks again until
  the page; both timed), then each page worked out (its first view) and shown
  again (median of 5 more);
* a view after 10 new runs, then one after 1 more, and one after an old run was marked failed (each page worked out
  anew);
* the api-server's memory (RSS, its process tree) before the first view and after them all;
* the api-server started again: its first view, the DAG's runs taken up from the snapshot the first one wrote;
* ``audit --json`` of the DAG over REST (``--audit-max`` runs at most: its time and peak RSS).

``python -m benchmarks.bench_big_history [--sizes 10000,100000,1000000] [--postgres URL] [--audit-max 100000]
[--keep DIR]`` prints a Markdown table; ``--keep`` keeps each Airflow home (and database) in DIR and reuses it
later. Building a million runs takes a few minutes; times depend on the machine and its load.
``--dag-counts`` measures instead the deserialization of the timetables of 4,096 to 20,000 DAGs (no cliff past the
shared cache's size).
"""

from __future__ import annotations

import argparse
import os
import secrets
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

UTC = timezone.utc
MINUTE = timedelta(minutes=1)
DAG_ID = "minutely"
PAGE_MS_GOAL = 300
RSS_GROWTH_MB_GOAL = 150
AUDIT_SECONDS_GOAL = 60
AUDIT_MB_GOAL = 300
WARMED_AFTER_S = 20  # how long after a start the api-server is first asked, in the case that waits

DAG_FILE = textwrap.dedent(
    """
    from datetime import datetime, timezone

    from airflow.providers.standard.operators.empty import EmptyOperator
    from airflow.sdk import DAG

    from hops_timetable import hops_schedule

    with DAG(
        dag_id="minutely",
        **hops_schedule(cron_expression="0 * * ? * * *", start_time=datetime.fromisoformat("{start}"), catchup=True),
    ):
        EmptyOperator(task_id="noop")
    """
)


@dataclass(frozen=True)
class Point:
    database: str
    runs: int
    case: str
    value: float
    unit: str
    goal: str = ""
    met: bool | None = None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _airflow(env: dict[str, str], *args: str) -> None:
    subprocess.run([sys.executable, "-m", "airflow", *args], env=env, check=True, capture_output=True)


def _fresh_postgres(url: str, name: str) -> str:
    """A new empty database *name* on the server of *url*; its URL."""
    from sqlalchemy import create_engine, text

    engine = create_engine(url, isolation_level="AUTOCOMMIT")
    with engine.connect() as connection:
        connection.execute(text(f'DROP DATABASE IF EXISTS "{name}"'))
        connection.execute(text(f'CREATE DATABASE "{name}"'))
    engine.dispose()
    return url.rsplit("/", 1)[0] + f"/{name}"


def _rows(start: datetime, first: int, last: int) -> Iterator[dict[str, Any]]:
    """The runs of the fires *first* .. *last* minutes after *start*."""
    for k in range(first, last + 1):
        fire = start + k * MINUTE
        yield {
            "dag_id": DAG_ID,
            "run_id": f"scheduled__{fire.isoformat()}",
            "run_type": "scheduled",
            "state": "failed" if k % 1000 == 0 else "success",
            "run_after": fire,
            "logical_date": fire - MINUTE,
            "data_interval_start": fire - MINUTE,
            "data_interval_end": fire,
            "queued_at": fire,
            "conf": {},
            "clear_number": 0,
        }
        if k % 10_000 == 0:
            window = {"start_time": (fire - 90 * MINUTE).isoformat(), "end_time": (fire - 30 * MINUTE).isoformat()}
            yield {
                "dag_id": DAG_ID,
                "run_id": f"manual__{k}",
                "run_type": "manual",
                "state": "success",
                "run_after": fire,
                "logical_date": None,
                "data_interval_start": None,
                "data_interval_end": None,
                "queued_at": fire,
                "conf": {"hops_window": window},
                "clear_number": 0,
            }


def _insert(url: str, rows: Iterator[dict[str, Any]], batch: int = 20_000) -> None:
    """Bulk inserts into ``dag_run`` through Airflow's own table definition (its column types convert)."""
    from airflow.models.dagrun import DagRun
    from sqlalchemy import create_engine

    engine = create_engine(url)
    chunk: list[dict[str, Any]] = []
    with engine.begin() as connection:
        for row in rows:
            chunk.append(row)
            if len(chunk) >= batch:
                connection.execute(DagRun.__table__.insert(), chunk)
                chunk.clear()
        if chunk:
            connection.execute(DagRun.__table__.insert(), chunk)
    engine.dispose()


def _rss_mb(pid: int) -> float:
    import psutil

    root = psutil.Process(pid)
    total = 0
    for proc in [root, *root.children(recursive=True)]:
        with suppress(psutil.Error):
            total += proc.memory_info().rss
    return total / 2**20


@contextmanager
def _api_server(env: dict[str, str], port: int) -> Iterator[subprocess.Popen[bytes]]:
    import httpx

    proc = subprocess.Popen(
        [sys.executable, "-m", "airflow", "api-server", "--port", str(port)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 180
        while True:
            try:
                if httpx.get(f"http://127.0.0.1:{port}/api/v2/monitor/health", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline or proc.poll() is not None:
                raise RuntimeError("the api-server did not start")
            time.sleep(0.5)
        yield proc
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def _timed_get(client: Any, path: str, reading: bool = False) -> float:
    """Milliseconds to answer GET *path*; with *reading*, an answer that the DAG's runs are still being read counts."""
    started = time.perf_counter()
    answer = client.get(path)
    elapsed = (time.perf_counter() - started) * 1000
    if answer.status_code != 200 and not (reading and answer.status_code == 202):
        raise RuntimeError(f"GET {path}: HTTP {answer.status_code}: {answer.text[:300]}")
    return elapsed


def _first_view(client: Any, path: str) -> tuple[float, float]:
    """A first view as the tab makes it: the first answer's milliseconds, and the seconds until the page itself
    (asked again every second, as the tab does while the DAG's runs are being read)."""
    started = time.perf_counter()
    first = _timed_get(client, path, reading=True)
    while client.get(path).status_code == 202:
        time.sleep(1)
    return first, time.perf_counter() - started


def _audit(env: dict[str, str], base: str) -> tuple[float, float]:
    """``audit --json`` of the DAG: seconds and peak RSS (MB), polled every 50 ms."""
    import psutil

    argv = [sys.executable, "-m", "hops_timetable.cli", "audit", "--api", base, "--dag-id", DAG_ID, "--json"]
    started = time.perf_counter()
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    peak = 0.0
    handle = psutil.Process(proc.pid)
    while proc.poll() is None:
        try:
            peak = max(peak, handle.memory_info().rss / 2**20)
        except psutil.Error:
            break
        time.sleep(0.05)
    seconds = time.perf_counter() - started
    if proc.returncode not in (0, 3):
        raise RuntimeError(
            f"audit failed ({proc.returncode}): {proc.stderr.read().decode()[:500] if proc.stderr else ''}"
        )
    return seconds, peak


def measure(n: int, postgres: str | None, audit_max: int, keep: Path | None = None) -> list[Point]:
    """The figures at *n* runs; with *keep*, the Airflow home (and its database) is kept there and reused by a later
    measure of the same size and database instead of built again (its runs then end when it was built)."""
    import httpx

    database = "PostgreSQL" if postgres else "SQLite"
    home = Path(tempfile.mkdtemp(prefix="hops-big-history-")) if keep is None else keep / f"{database.lower()}-{n}"
    built_before = (home / "start").exists()
    if built_before:
        start = datetime.fromisoformat((home / "start").read_text())
    else:
        (home / "dags").mkdir(parents=True, exist_ok=True)
        start = datetime.now(UTC).replace(second=0, microsecond=0) - (n + 2) * MINUTE
        (home / "dags" / "minutely.py").write_text(DAG_FILE.replace("{start}", start.isoformat()))
    if not postgres:
        url = f"sqlite:///{home / 'airflow.db'}"
    elif built_before:
        url = postgres.rsplit("/", 1)[0] + f"/hops_bench_{n}"
    else:
        url = _fresh_postgres(postgres, f"hops_bench_{n}")
    port = _free_port()
    env = {
        **os.environ,
        "AIRFLOW_HOME": str(home),
        "AIRFLOW__DATABASE__SQL_ALCHEMY_CONN": url,
        "AIRFLOW__CORE__DAGS_FOLDER": str(home / "dags"),
        "AIRFLOW__CORE__LOAD_EXAMPLES": "False",
        "AIRFLOW__CORE__SIMPLE_AUTH_MANAGER_ALL_ADMINS": "True",
        "AIRFLOW__API__WORKERS": "1",
        "AIRFLOW__API__PORT": str(port),
        "AIRFLOW__API__BASE_URL": f"http://127.0.0.1:{port}",
        "AIRFLOW__API_AUTH__JWT_SECRET": secrets.token_hex(32),
    }
    os.environ["AIRFLOW__DATABASE__SQL_ALCHEMY_CONN"] = url
    out = []
    if not built_before:
        built = time.perf_counter()
        _airflow(env, "db", "migrate")
        _airflow(env, "dags", "reserialize")
        _insert(url, _rows(start, 1, n))
        build_seconds = time.perf_counter() - built
        out.append(Point(database, n, "database built (migrate, reserialize, bulk insert)", build_seconds, "s"))
        if keep is not None:
            (home / "start").write_text(start.isoformat())
    newest = _newest_fire(url, start)
    pages = -(-n // 200)
    paths = {
        "tab JSON, newest page": f"/hops/api/dags/{DAG_ID}",
        "tab HTML, newest page": f"/hops/dags/{DAG_ID}",
        "tab JSON, next page": f"/hops/api/dags/{DAG_ID}?page=1",
        "tab JSON, middle page": f"/hops/api/dags/{DAG_ID}?page={pages // 2}",
        "tab HTML, oldest page": f"/hops/dags/{DAG_ID}?page={pages - 1}",
        "run tab JSON": f"/hops/api/dags/{DAG_ID}/runs/scheduled__{(start + MINUTE * (n // 2)).isoformat()}",
        "run tab HTML": f"/hops/dags/{DAG_ID}/runs/scheduled__{(start + MINUTE * (n // 2)).isoformat()}",
    }
    goal = f"< {PAGE_MS_GOAL} ms"
    shutil.rmtree(home / "hops_timetable", ignore_errors=True)  # a kept home's snapshots of runs: read them anew
    with _api_server(env, port) as proc, httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=3600) as client:
        rss_before = _rss_mb(proc.pid)
        first, read = _first_view(client, paths["tab JSON, newest page"])
        case = "tab JSON, first view (answers while the runs are read once)"
        out.append(Point(database, n, case, first, "ms", goal, first < PAGE_MS_GOAL))
        out.append(Point(database, n, "the runs read once, in the background: the first page shown after", read, "s"))
        for case, path in paths.items():
            # The first view of a page works it out; the next ones, until the runs change or a fire passes, show
            # it again (both are timed: a minutely DAG gets a new fire, and so a worked-out page, every minute).
            worked_out = _timed_get(client, path)
            median = statistics.median(_timed_get(client, path) for _ in range(5))
            out.append(Point(database, n, f"{case}, worked out", worked_out, "ms", goal, worked_out < PAGE_MS_GOAL))
            out.append(Point(database, n, f"{case}, shown again", median, "ms", goal, median < PAGE_MS_GOAL))
        _insert(url, _rows(start, newest + 1, newest + 10))
        ms = _timed_get(client, paths["tab JSON, newest page"])
        out.append(Point(database, n, "tab JSON after 10 new runs", ms, "ms", goal, ms < PAGE_MS_GOAL))
        # A minutely DAG's every minute: one run more, the newest page worked out again from the one before.
        _insert(url, _rows(start, newest + 11, newest + 11))
        ms = _timed_get(client, paths["tab JSON, newest page"])
        out.append(Point(database, n, "tab JSON after 1 new run", ms, "ms", goal, ms < PAGE_MS_GOAL))
        old = secrets.randbelow(n - 10) + 7
        _mark_failed(url, f"scheduled__{(start + MINUTE * (old + (old % 1000 == 0))).isoformat()}")
        ms = _timed_get(client, paths["tab JSON, newest page"])
        out.append(Point(database, n, "tab JSON after an old run was marked failed", ms, "ms"))
        growth = _rss_mb(proc.pid) - rss_before
        out.append(
            Point(database, n, "api-server RSS growth", growth, "MB", f"< {RSS_GROWTH_MB_GOAL} MB", growth < 150)
        )
        if n <= audit_max:
            seconds, peak = _audit(env, f"http://127.0.0.1:{port}")
            met = seconds < AUDIT_SECONDS_GOAL and peak < AUDIT_MB_GOAL
            goals = f"< {AUDIT_SECONDS_GOAL} s, < {AUDIT_MB_GOAL} MB"
            out.append(Point(database, n, "audit --json: time", seconds, "s", goals, met))
            out.append(Point(database, n, "audit --json: peak RSS", peak, "MB"))
    with _api_server(env, port) as proc, httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=3600) as client:
        # Started again: the DAG's runs are taken up from the snapshot the first view wrote, brought up to date
        # (11 runs added and one marked failed since it was written).
        ms, shown = _first_view(client, paths["tab JSON, newest page"])
        case = "tab JSON, first view after a restart (the runs taken up)"
        out.append(Point(database, n, case, ms, "ms", goal, ms < PAGE_MS_GOAL))
        out.append(Point(database, n, "the runs taken up after a restart: the first page shown after", shown, "s"))
    with _api_server(env, port) as proc, httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=3600) as client:
        # A user's first view a little after a start: the api-server took the snapshots up as it started.
        time.sleep(WARMED_AFTER_S)
        ms = _timed_get(client, paths["tab JSON, newest page"])
        case = f"tab JSON, first view {WARMED_AFTER_S} s after a restart"
        out.append(Point(database, n, case, ms, "ms", goal, ms < PAGE_MS_GOAL))
    if keep is None:
        shutil.rmtree(home, ignore_errors=True)
    return out


def _newest_fire(url: str, start: datetime) -> int:
    """The number of minutes after *start* of the newest scheduled run's fire."""
    from airflow.models.dagrun import DagRun
    from sqlalchemy import create_engine, func, select

    table = DagRun.__table__
    engine = create_engine(url)
    with engine.connect() as connection:
        newest = connection.execute(select(func.max(table.c.data_interval_end))).scalar_one()
    engine.dispose()
    return int((newest.replace(tzinfo=UTC) - start) // MINUTE)


def _mark_failed(url: str, run_id: str) -> None:
    from airflow.models.dagrun import DagRun
    from sqlalchemy import create_engine

    table = DagRun.__table__
    engine = create_engine(url)
    with engine.begin() as connection:
        connection.execute(table.update().where(table.c.run_id == run_id).values(state="failed"))
    engine.dispose()


def dag_count_points(counts: tuple[int, ...] = (4_096, 4_097, 8_000, 20_000)) -> list[Point]:
    """Deserializing the timetables of many DAGs, each with its own schedule, as the scheduler does for each
    decision: µs per DAG (best of 3 passes over all of them, after one to fill the cache)."""
    from hops_timetable.core.cron.engine import _shared
    from hops_timetable.timetable import HopsworksTimetable, _deserialize_shared

    out = []
    base = datetime(2026, 1, 1, tzinfo=UTC)
    for n in counts:
        _deserialize_shared.cache_clear()
        _shared.cache_clear()
        payloads = [
            HopsworksTimetable(f"0 {k % 60} * * * ?", start_time=base + k * MINUTE, catchup=False).serialize()
            for k in range(n)
        ]
        for payload in payloads:
            HopsworksTimetable.deserialize(payload)
        best = float("inf")
        for _ in range(3):
            started = time.perf_counter()
            for payload in payloads:
                HopsworksTimetable.deserialize(payload)
            best = min(best, (time.perf_counter() - started) / n)
        out.append(Point("-", n, "deserialize a DAG's timetable, each DAG its own schedule (DAGs)", best * 1e6, "µs"))
    return out


def report(points: list[Point]) -> str:
    lines = ["| database | runs | case | value | goal | met |", "|---|---|---|---|---|---|"]
    for p in points:
        value = f"{p.value:,.1f} {p.unit}"
        met = "" if p.met is None else ("yes" if p.met else "NO")
        lines.append(f"| {p.database} | {p.runs:,} | {p.case} | {value} | {p.goal} | {met} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="10000,100000,1000000")
    parser.add_argument("--postgres", help="a PostgreSQL server's SQLAlchemy URL (scripts/start-postgres prints one)")
    parser.add_argument("--audit-max", type=int, default=100_000, help="audit only histories up to this many runs")
    parser.add_argument("--dag-counts", action="store_true", help="only the deserialization cost at 4,096-20,000 DAGs")
    parser.add_argument("--keep", type=Path, help="keep each Airflow home in this folder, and reuse one built before")
    args = parser.parse_args(argv)
    if args.dag_counts:
        print(report(dag_count_points()))
        return
    points: list[Point] = []
    for n in (int(size) for size in args.sizes.split(",")):
        points += measure(n, args.postgres, args.audit_max, args.keep)
        print(report(points), flush=True)


if __name__ == "__main__":
    main()
