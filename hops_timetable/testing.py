"""Helpers for a migration's test suite: prove that Airflow processes the windows Hopsworks processed.

Plain functions over what ``hops-timetable parity`` calls (example in docs/migration.md); importing this module never
imports Airflow (:func:`dag_file_windows` does when called; :func:`airflow_windows` needs ``httpx``).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Union

from hops_timetable.core.decision import Verdict
from hops_timetable.core.parity.compare import Report, SideRun
from hops_timetable.core.parity.exports import Execution, ScheduleVersion, load_executions, load_schedule_versions
from hops_timetable.core.parity.ledger import LedgerRow
from hops_timetable.core.parity.replay import replay
from hops_timetable.core.parity.sides import Outcome, parity, replay_runs
from hops_timetable.core.simulate import Event
from hops_timetable.core.validation import ArgumentError
from hops_timetable.core.window import as_utc, format_hops_time

__all__ = [
    "Windows",
    "airflow_windows",
    "assert_dag_matches_schedule",
    "assert_same_windows",
    "compare_windows",
    "dag_file_windows",
    "hopsworks_windows",
    "schedule_windows",
]

Source = Union[str, "os.PathLike[str]", dict, list]  # type: ignore[type-arg]  # a file path, or the parsed JSON
Span = tuple[datetime, datetime]  # [start, end), aware
Accepted = Mapping[tuple[datetime, str], str]  # a signed-off difference: (fire, status) -> the reason


@dataclass(frozen=True)
class Windows:
    """One side over ``[start, end)``: its schedule versions and what ran; ``outages`` are replayed on both sides."""

    side: str
    start: datetime
    end: datetime
    versions: tuple[ScheduleVersion, ...]
    runs: tuple[SideRun, ...]
    executions: Sequence[Execution] | None = None
    ledger: Sequence[LedgerRow] | None = None
    live: bool = False
    meaning: str | None = None
    outages: tuple[Event, ...] = ()
    note: str | None = None


def _side(
    between: Span,
    schedule: Source | Sequence[ScheduleVersion] | None,
    outages: Sequence[Span] = (),
    offset_model: str | None = None,
) -> tuple[datetime, datetime, tuple[ScheduleVersion, ...], tuple[Event, ...]]:
    start, end = (as_utc(t) for t in between)
    if end <= start:
        raise ArgumentError("between", between, f"between={between!r} is empty: the end must lie after the start")
    events = tuple(Event("outage", as_utc(a), as_utc(b)) for a, b in outages)
    if isinstance(schedule, (str, os.PathLike)):
        from hops_timetable.cli.parity import read_schedule  # read as ``hops-timetable parity`` reads its inputs

        return start, end, tuple(read_schedule("schedule", os.fspath(schedule), offset_model)[0]), events
    if schedule is None or (
        isinstance(schedule, (list, tuple)) and schedule and all(isinstance(v, ScheduleVersion) for v in schedule)
    ):
        return start, end, tuple(schedule or ()), events
    return start, end, tuple(load_schedule_versions(schedule, "schedule", offset_model)), events


def hopsworks_windows(
    schedule: Source,
    executions: Source,
    *,
    between: Span,
    meaning: str | None = None,
    outages: Sequence[Span] = (),
    offset_model: str | None = None,
) -> Windows:
    """Hopsworks' side: *schedule* (REST / ``to_dict()`` JSON, or ``{"versions": [...]}``) and *executions* (the
    listing or a list of pages; a file, listing or CSV ledger, read as ``parity`` reads it). ``AssertionError`` when
    the meaning of ``-start_time`` cannot be read from the data and *meaning* is not given."""
    start, end, versions, events = _side(between, schedule, outages, offset_model)
    if not isinstance(executions, (dict, list)):
        from hops_timetable.cli.parity import read_record

        held, rows, note, _ = read_record("executions", os.fspath(executions))
    else:
        export = load_executions(executions, "executions")
        held, rows, note = export.executions, None, export.note
    side = Windows("hopsworks", start, end, versions, (), held, rows, meaning=meaning, outages=events, note=note)
    if (outcome := _run(side, None)).report is None:
        raise AssertionError(outcome.reading.explain() if outcome.reading else "no reading")
    runs = tuple(r for r in outcome.hopsworks_runs if r.fire is None or start <= r.fire < end)
    return replace(side, runs=runs, meaning=outcome.reading.meaning if outcome.reading else None)


def schedule_windows(
    schedule: Source | Sequence[ScheduleVersion],
    *,
    between: Span,
    outages: Sequence[Span] = (),
    offset_model: str | None = None,
) -> Windows:
    """*schedule* replayed over *between* through *outages*: the windows its imported DAG would process."""
    start, end, versions, events = _side(between, schedule, outages, offset_model)
    runs = tuple(replay_runs(replay(versions, start, end, events), start, end))
    return Windows("airflow", start, end, versions, runs, outages=events)


def dag_file_windows(
    dag_file: str | os.PathLike[str], dag_id: str, *, between: Span, outages: Sequence[Span] = ()
) -> Windows:
    """The schedule of DAG *dag_id* in *dag_file* (read as Airflow's dag-processor reads it) replayed."""
    from hops_timetable.cli.options import settings_from_dag_file

    version = ScheduleVersion(None, settings_from_dag_file(os.fspath(dag_file), dag_id))
    return schedule_windows([version], between=between, outages=outages)


def airflow_windows(
    api: str,
    dag_id: str,
    *,
    between: Span,
    token: str | None = None,
    username: str | None = None,
    password: str | None = None,
) -> Windows:
    """The runs of *dag_id* on the live Airflow at *api*, with the windows their tasks see (the audit's client)."""
    from hops_timetable.cli.parity import airflow_side

    start, end, _, _ = _side(between, None)
    version, runs = airflow_side(api, dag_id, token=token, username=username, password=password)
    return Windows("airflow", start, end, (version,), tuple(runs), live=True)


def _run(hopsworks: Windows, airflow: Windows | None, accepted: Accepted | None = None) -> Outcome:
    return parity(
        hopsworks.versions,
        hopsworks.start,
        hopsworks.end,
        executions=hopsworks.executions,
        ledger=hopsworks.ledger,
        airflow_versions=None if airflow is None else airflow.versions,
        airflow_runs=list(airflow.runs) if airflow is not None and airflow.live else None,
        outages=[*hopsworks.outages, *(airflow.outages if airflow is not None else ())],
        meaning=hopsworks.meaning,
        accepted=accepted,
        incomplete_note=hopsworks.note,
    )


def compare_windows(hopsworks: Windows, airflow: Windows, *, accepted: Accepted | None = None) -> Report:
    """The fire-by-fire report over Hopsworks' range, as ``parity`` makes it."""
    report = _run(hopsworks, airflow, accepted).report
    assert report is not None  # hopsworks_windows refused an undecidable meaning already
    return report


def assert_same_windows(hopsworks: Windows, airflow: Windows, *, accepted: Accepted | None = None) -> Report:
    """Fail, listing each differing fire, unless both sides processed the same windows (``parity``'s exit 0)."""
    report = compare_windows(hopsworks, airflow, accepted=accepted)
    if report.exit_status == Verdict.OK:
        return report
    from hops_timetable.cli.parity_report import detail

    lines = [report.verdict()]
    for row in report.rows:
        if row.counts_as_difference or row.status in ("in_flight", "not_compared"):
            why = detail(row)
            windows = " ".join(
                f"{name} {format_hops_time(w.start)}..{format_hops_time(w.end)}"
                for name, w in (("hopsworks", row.hopsworks), ("airflow", row.airflow))
                if w is not None
            )
            lines.append(f"  {format_hops_time(row.fire)} {row.status}: {windows}" + (f" ({why})" if why else ""))
    lines += [f"  {side} run {run.run_id} not placed on a fire: {run.why}" for side, run in report.unplaced]
    raise AssertionError("\n".join(lines))


def assert_dag_matches_schedule(
    dag_file: str | os.PathLike[str],
    dag_id: str,
    schedule: Source | Sequence[ScheduleVersion],
    *,
    between: Span,
    outages: Sequence[Span] = (),
    offset_model: str | None = None,
) -> Report:
    """Fail, listing each differing fire, unless the DAG file's schedule makes the windows *schedule* makes."""
    expected = schedule_windows(schedule, between=between, outages=outages, offset_model=offset_model)
    return assert_same_windows(expected, dag_file_windows(dag_file, dag_id, between=between, outages=outages))
