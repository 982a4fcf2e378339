"""Render the observed run lists of docs/testing.md: what our timetable made in the end-to-end suite, next to what
Airflow's built-in ``CronDataIntervalTimetable`` and ``CronTriggerTimetable`` make on the same cron in the same
situation.

Usage::

    E2E_REPORT_DIR=report .venv/bin/python -m pytest -m e2e
    .venv/bin/python scripts/e2e_report.py report > report.md

The built-in timetables are asked in-process, with their clock set to the instants the suite recorded: when the
DAG file was written, when each run row was created, when the scheduler restarted. That is when Airflow's scheduler
would have asked them. No second Airflow is started. They are asked the way the installed Airflow's scheduler asks
them (``hops_timetable._compat``), so the lists can be made with any Airflow 3 minor.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import pendulum
from airflow.timetables.base import DagRunInfo, TimeRestriction, Timetable
from airflow.timetables.interval import CronDataIntervalTimetable
from airflow.timetables.trigger import CronTriggerTimetable

from hops_timetable._compat import builtin_next_dagrun_info, frozen_builtin_clock

Row = tuple[datetime, datetime, datetime]  # fire (run_after), data interval start, data interval end


def airflow_cron(quartz: str) -> str:
    """The croniter spelling of the suite's every-N-seconds Quartz crons (``0/5 * * * * ?`` -> ``* * * * * */5``)."""
    seconds = quartz.split()[0]
    if not seconds.startswith("0/") or quartz.split()[1:] != ["*", "*", "*", "*", "?"]:
        raise ValueError(f"cron={quartz!r}: only 0/N * * * * ? crons are translated")
    return f"* * * * * */{seconds[2:]}"


def builtins(quartz: str) -> dict[str, Timetable]:
    cron = airflow_cron(quartz)
    return {
        "CronDataIntervalTimetable": CronDataIntervalTimetable(cron, timezone="UTC"),
        "CronTriggerTimetable": CronTriggerTimetable(cron, timezone="UTC"),
    }


def at(moment: datetime, ask: Callable[[], DagRunInfo | None]) -> DagRunInfo | None:
    with frozen_builtin_clock(moment):
        return ask()


def row(info: DagRunInfo) -> Row:
    interval = info.data_interval
    assert interval is not None
    return (info.run_after, interval.start, interval.end)


def ask(timetable: Timetable, last: Row | None, restriction: TimeRestriction) -> Callable[[], DagRunInfo | None]:
    # Every row here fires at its interval's end (ours, and both built-ins), which is what ``interval`` assumes.
    last_info = None if last is None else DagRunInfo.interval(pendulum.instance(last[1]), pendulum.instance(last[2]))
    return lambda: builtin_next_dagrun_info(timetable, last_info, restriction)


def parse(value: str | None) -> datetime | None:
    return None if value is None else datetime.fromisoformat(value)


def observed(data: dict[str, Any]) -> list[Row]:
    return [(parse(r["fire"]), parse(r["start"]), parse(r["end"])) for r in data["runs"]]  # type: ignore[misc]


def fmt(value: datetime) -> str:
    return value.strftime("%H:%M:%S")


def table(rows: list[Row]) -> Iterator[str]:
    yield "| run_after (fire) | data interval |"
    yield "|---|---|"
    for fire, start, end in rows:
        yield f"| {fmt(fire)} | [{fmt(start)}, {fmt(end)}) |"


def first_interval(data: dict[str, Any]) -> Iterator[str]:
    start = datetime.fromisoformat(data["start_date"])
    written = datetime.fromisoformat(data["events"]["dag_file_written"])
    restriction = TimeRestriction(pendulum.instance(start), None, False)
    yield f"### First interval: `{data['cron']}`, start_date {fmt(start)}, catchup=False\n"
    yield "hops_timetable (observed in the suite):\n"
    yield from table(observed(data))
    for name, timetable in builtins(data["cron"]).items():
        rows: list[Row] = []
        last: Row | None = None
        for _ in range(2):
            moment = written if last is None else last[0]
            info = at(moment, ask(timetable, last, restriction))
            assert info is not None
            last = row(info)
            rows.append(last)
        yield f"\n{name} (same cron, asked at the same instants):\n"
        yield from table(rows)
    yield ""


def bounded_catchup(data: dict[str, Any]) -> Iterator[str]:
    start = datetime.fromisoformat(data["start_date"])
    written = datetime.fromisoformat(data["events"]["dag_file_written"])
    ours = observed(data)
    restriction = TimeRestriction(pendulum.instance(start), None, True)
    bound = data["max_catchup_runs"]
    yield (
        f"### Bounded replay: `{data['cron']}`, start_date {fmt(start)} (10 minutes before the DAG file was "
        f"written at {fmt(written)}), catchup=True, max_catchup_runs={bound}\n"
    )
    yield "hops_timetable (observed; the first three are the replay, then live runs):\n"
    yield from table(ours)
    until = ours[bound - 1][0]
    for name, timetable in builtins(data["cron"]).items():
        rows: list[Row] = []
        last: Row | None = None
        while True:
            info = at(written, ask(timetable, last, restriction))
            if info is None or info.run_after > until:
                break
            last = row(info)
            rows.append(last)
        yield (
            f"\n{name}: {len(rows)} runs replayed for the same backlog (every fire since start_date up to "
            f"{fmt(until)}); the first two and the last:\n"
        )
        yield from table([*rows[:2], rows[-1]])
    yield ""


def outage(data: dict[str, Any]) -> Iterator[str]:
    start = datetime.fromisoformat(data["start_date"])
    stopped = datetime.fromisoformat(data["events"]["stopped"])
    restarted = datetime.fromisoformat(data["events"]["restarted"])
    ours = observed(data)
    created = [parse(r["created_at"]) for r in data["runs"]]
    before = [r for r, c in zip(ours, created, strict=True) if c is not None and c < stopped]
    restriction = TimeRestriction(pendulum.instance(start), None, False)
    yield (
        f"### catchup=False after an outage: `{data['cron']}`; scheduler and dag-processor stopped at "
        f"{fmt(stopped)}, restarted at {fmt(restarted)}\n"
    )
    yield "hops_timetable (observed; the runs before the outage, then after it):\n"
    yield from table(ours)
    for name, timetable in builtins(data["cron"]).items():
        # The stored next run, computed when the last run before the outage was created.
        last_created = max(c for c in created if c is not None and c < stopped)
        stored = at(last_created, ask(timetable, before[-1], restriction))
        assert stored is not None
        rows = [row(stored)]
        # After the restart the scheduler creates the stored run, then asks for the next one at each step.
        moment = restarted
        while len(rows) < len(ours) - len(before):
            info = at(max(moment, rows[-1][0]), ask(timetable, rows[-1], restriction))
            assert info is not None
            rows.append(row(info))
            moment = rows[-1][0]
        yield f"\n{name}: after the restart (the runs before the outage are the same):\n"
        yield from table(rows)
    yield ""


SECTIONS: dict[str, Callable[[dict[str, Any]], Iterator[str]]] = {
    "first_interval": first_interval,
    "outage": outage,
    "bounded_catchup": bounded_catchup,
}


def render(folder: Path) -> str:
    """The Markdown of every section, from the suite's report files in *folder*."""
    parts: list[str] = []
    for name, section in SECTIONS.items():
        path = folder / f"{name}.json"
        if not path.exists():
            raise FileNotFoundError(f"{path} is missing: run the e2e suite with E2E_REPORT_DIR={folder}")
        parts.extend(section(json.loads(path.read_text())))
    return "".join(f"{line}\n" for line in parts)


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: e2e_report.py <E2E_REPORT_DIR>", file=sys.stderr)
        return 2
    try:
        sys.stdout.write(render(Path(argv[0])))
    except FileNotFoundError as error:
        print(error, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
