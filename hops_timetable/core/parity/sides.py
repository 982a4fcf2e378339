"""The two sides of a parity check as runs on fires: Hopsworks' executions or ledger, Airflow's replay, and the
outages inferred from late launches.

Pure: no Airflow import.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from hops_timetable.core.parity.compare import Report, SideRun, compare
from hops_timetable.core.parity.exports import Execution, LedgerRow, ScheduleVersion
from hops_timetable.core.parity.meaning import DEFAULT_GRACE, Reading, attribute, detect_meaning, window_of
from hops_timetable.core.parity.replay import Plan, replay, version_index
from hops_timetable.core.simulate import Event
from hops_timetable.core.window import TICK, HopsWindow

__all__ = ["Outcome", "execution_runs", "infer_outages", "ledger_runs", "parity", "replay_runs"]

_SECOND = timedelta(seconds=1)


def execution_runs(executions: Iterable[Execution], meaning: str, plan: Plan) -> list[SideRun]:
    """Hopsworks' executions as runs: each on the fire its ``-start_time`` names under *meaning*, with its window
    (none yet when *plan* is ``None``: the fires alone are enough to infer outages)."""
    runs = []
    for execution in executions:
        fire, why = attribute(execution, meaning, plan)
        window = None if fire is None else window_of(execution, fire, meaning, plan)
        attempts = 1 + execution.rerun_count
        runs.append(SideRun(f"execution {execution.id}", fire, window, execution.outcome, attempts, why))
    return runs


def ledger_runs(rows: Iterable[LedgerRow], plan: Plan) -> list[SideRun]:
    """A ledger's windows as runs: on the fire after ``HOPS_LOGICAL_DATE``, else at or before the window's end moved
    back by the offset (the fire that ends the interval)."""
    runs = []
    for row in rows:
        moment = row.logical_date if row.logical_date is not None else row.end
        version = plan.versions[version_index(plan.versions, moment)].settings
        offset = timedelta(seconds=version.offset or 0)
        if row.logical_date is not None:
            fire = version.cron.next_after(row.logical_date)
            logical = row.logical_date
        else:
            fire = version.cron.prev_before(row.end + offset + TICK)
            logical = row.start + offset
        window = HopsWindow(row.start, row.end, logical)
        why = "" if fire is not None else f"no fire of {version.cron.source!r} for the window ending {row.end}"
        runs.append(SideRun(f"ledger {row.id}", fire, window, row.outcome, 1, why))
    return runs


def replay_runs(plan: Plan, start: datetime, end: datetime) -> list[SideRun]:
    """The runs a replayed schedule makes in ``[start, end)``, all successful."""
    return [
        SideRun(f"replayed {fire.isoformat()}", fire, planned.window, "succeeded")
        for fire, planned in plan.fires.items()
        if planned.created and start <= fire < end
    ]


def infer_outages(
    placed: Sequence[tuple[str, datetime | None, datetime]], grace: timedelta, since: datetime
) -> list[Event]:
    """Hopsworks down before each late launch: from just after the newest fire launched on time before it (else from
    *since*), to the launch. *placed* holds (run id, fire, submission); a run is late when submitted more than
    *grace* after its fire."""
    on_time: list[datetime] = []
    late: list[tuple[datetime, datetime]] = []
    for _, fire, at in placed:
        if fire is None:
            continue
        if at - fire > grace:
            late.append((fire, at))
        else:
            on_time.append(fire)
    on_time.sort()
    spans = []
    for fire, at in late:
        i = bisect.bisect_left(on_time, fire)
        begin = on_time[i - 1] + _SECOND if i else since
        spans.append((min(begin, fire), at))
    spans.sort()
    merged: list[list[datetime]] = []
    for begin, at in spans:
        # One catch-up launches its executions one after the other: one outage, until the last of them.
        if merged and begin <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], at)
        else:
            merged.append([begin, at])
    return [Event("outage", begin, at) for begin, at in merged]


@dataclass
class Outcome:
    """A parity check's result: the report, how ``-start_time`` was read, and the outages replayed."""

    report: Report | None
    reading: Reading | None
    outages: list[Event] = field(default_factory=list)
    inferred: list[Event] = field(default_factory=list)
    hopsworks_runs: list[SideRun] = field(default_factory=list)


def parity(
    versions: Sequence[ScheduleVersion],
    start: datetime,
    end: datetime,
    *,
    executions: Sequence[Execution] | None = None,
    ledger: Sequence[LedgerRow] | None = None,
    airflow_versions: Sequence[ScheduleVersion] | None = None,
    airflow_runs: Sequence[SideRun] | None = None,
    outages: Sequence[Event] = (),
    meaning: str | None = None,
    grace: timedelta = DEFAULT_GRACE,
    accepted: Mapping[tuple[datetime, str], str] | None = None,
    incomplete_note: str | None = None,
) -> Outcome:
    """Compare Hopsworks (*executions* or *ledger*) with Airflow over ``[start, end)``.

    Airflow is *airflow_runs* (read from a live Airflow) planned by *airflow_versions*, or with no runs the replay
    of *airflow_versions* (a DAG file's schedule), or of *versions* themselves. Outages declared and inferred from
    late executions are replayed on both sides. With executions, the report is ``None`` when the meaning of
    ``-start_time`` cannot be decided (see :attr:`Outcome.reading`).
    """
    reading: Reading | None = None
    inferred: list[Event] = []
    if executions is not None:
        reading = detect_meaning(executions, versions, grace, meaning)
        if reading.meaning is None:
            return Outcome(None, reading, list(outages))
        fires = Plan(versions, {}, [v.settings.policy() for v in versions])
        placed = [(f"execution {e.id}", attribute(e, reading.meaning, fires)[0], e.submitted) for e in executions]
        inferred = infer_outages(placed, grace, start)
    events = [*outages, *inferred]
    hops_plan = replay(versions, start, end, events)
    if executions is not None and reading is not None and reading.meaning is not None:
        hops = execution_runs(executions, reading.meaning, hops_plan)
    else:
        hops = ledger_runs(ledger or (), hops_plan)
    air_plan = hops_plan if airflow_versions is None else replay(airflow_versions, start, end, events)
    air = list(airflow_runs) if airflow_runs is not None else replay_runs(air_plan, start, end)
    report = compare(start, end, hops_plan, air_plan, hops, air, accepted)
    if incomplete_note:
        report.notes.append(incomplete_note)
    return Outcome(report, reading, list(outages), inferred, hops)
