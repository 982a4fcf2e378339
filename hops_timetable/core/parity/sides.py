"""The two sides of a parity check as runs on fires, and the outages inferred from late launches or gaps. Pure."""

from __future__ import annotations

import bisect
import itertools
from array import array
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from hops_timetable.core.parity.compare import Ordered, Report, SideRun, compare
from hops_timetable.core.parity.exports import NO_TIME, Execution, ScheduleVersion, from_us, to_us
from hops_timetable.core.parity.ledger import LedgerRow
from hops_timetable.core.parity.meaning import (
    DEFAULT_GRACE,
    Reading,
    attribute,
    derived_values,
    detect_meaning,
    window_of,
)
from hops_timetable.core.parity.replay import Plan, replay, version_index
from hops_timetable.core.simulate import Event
from hops_timetable.core.window import TICK, HopsWindow

_SECOND = timedelta(seconds=1)


def execution_runs(
    executions: Sequence[Execution], meaning: str, plan: Plan, skew: timedelta = timedelta(0)
) -> Sequence[SideRun]:
    """Hopsworks' executions as runs on the fires their ``-start_time`` names, in fire order (made when read)."""
    derived = derived_values(meaning)
    named = (attribute(e, meaning, plan, skew)[0] for e in executions)
    fires = array("q", (NO_TIME if fire is None else to_us(fire) for fire in named))
    order: Sequence[int] = range(len(fires))
    if any(a > b for a, b in itertools.pairwise(fires)):
        order = array("q", sorted(order, key=fires.__getitem__))

    def runs() -> Iterator[SideRun]:
        for i in order:
            e = executions[i]
            fire = None if fires[i] == NO_TIME else from_us(fires[i])
            why = "" if fire is not None else attribute(e, meaning, plan, skew)[1]
            window = None if fire is None else window_of(e, fire, meaning, plan, skew)
            yield SideRun(f"execution {e.id}", fire, window, e.outcome, 1 + e.rerun_count, why, derived)

    return Ordered(runs, len(fires))


def ledger_runs(rows: Iterable[LedgerRow], plan: Plan) -> list[SideRun]:
    """A ledger's windows as runs: on the fire after ``HOPS_LOGICAL_DATE``, else the one ending the interval."""
    runs = []
    for row in rows:
        version = plan.versions[version_index(plan.versions, row.logical_date or row.end)].settings
        offset = timedelta(seconds=version.offset or 0)
        if row.logical_date is not None:
            fire, logical = version.cron.next_after(row.logical_date), row.logical_date
        else:
            fire, logical = version.cron.prev_before(row.end + offset + TICK), row.start + offset
        why = "" if fire is not None else f"no fire of {version.cron.source!r} for the window ending {row.end}"
        runs.append(SideRun(f"ledger {row.id}", fire, HopsWindow(row.start, row.end, logical), row.outcome, 1, why))
    return runs


def replay_runs(plan: Plan, start: datetime, end: datetime) -> Sequence[SideRun]:
    """The runs a replayed schedule makes in ``[start, end)``, all successful, in fire order (made when read)."""

    def runs() -> Iterator[SideRun]:
        for fire, planned in plan.fires.items():
            if planned.created and start <= fire < end:
                yield SideRun(f"replayed {fire.isoformat()}", fire, planned.window, "succeeded")

    return Ordered(runs)


def infer_outages(placed: Iterable[tuple[datetime | None, datetime]], grace: timedelta, since: datetime) -> list[Event]:
    """Hopsworks down before each launch later than *grace* after its fire, from just after the newest fire launched
    on time before it (else from *since*); *placed* are (fire, submission) pairs."""
    on_time = array("q")  # the fires launched on time, in microseconds: a million cost 8 MB
    late: list[tuple[datetime, datetime]] = []
    for fire, at in placed:
        if fire is not None and at - fire > grace:
            late.append((fire, at))
        elif fire is not None:
            on_time.append(to_us(fire))
    if any(a > b for a, b in itertools.pairwise(on_time)):
        on_time = array("q", sorted(on_time))
    spans = []
    for fire, at in late:
        i = bisect.bisect_left(on_time, to_us(fire))
        begin = from_us(on_time[i - 1]) + _SECOND if i else since
        spans.append((min(begin, fire), at))
    merged: list[Event] = []
    for begin, at in sorted(spans):
        # One catch-up launches its executions one after the other: one outage, until the last of them.
        if merged and begin <= merged[-1].end:
            merged[-1] = Event("outage", merged[-1].start, max(merged[-1].end, at))
        else:
            merged.append(Event("outage", begin, at))
    return merged


def gap_outages(plan: Plan, ran: set[datetime], catchup_bounds: Sequence[int | None]) -> tuple[list[Event], bool]:
    """The outages whose catch-up drops exactly the gaps (fires the *plan* runs that are not in *ran*) of a record
    without launch times, and whether it ends in a gap within the catch-up that would follow it."""
    created = [(fire, p.version) for fire, p in plan.fires.items() if p.created]
    events, open_end, i = list[Event](), False, 0
    for missed, group in itertools.groupby(created, key=lambda c: c[0] not in ran):
        j = i + len(list(group))
        bound = catchup_bounds[created[i][1]]
        after = created[j : j + bound] if missed and bound is not None else []
        if missed and bound is not None and len(after) < bound:
            open_end = True
        elif after and all(f in ran for f, _ in after):
            begin = created[i - 1][0] + _SECOND if i else created[i][0] - _SECOND
            events.append(Event("outage", begin, after[-1][0] + _SECOND))
        i = j
    return events, open_end


@dataclass
class Outcome:
    """A parity check's result: the report, how ``-start_time`` was read, and the outages replayed."""

    report: Report | None
    reading: Reading | None
    outages: list[Event] = field(default_factory=list)
    inferred: list[Event] = field(default_factory=list)
    hopsworks_runs: Sequence[SideRun] = field(default_factory=list)
    from_gaps: list[Event] = field(default_factory=list)


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
    outages_known: bool = False,
) -> Outcome:
    """Compare Hopsworks (*executions*, *ledger*, else *versions* replayed) with Airflow (*airflow_runs*, else the
    replay of *airflow_versions*, else of *versions*) over ``[start, end)``; docs/cli.md says how outages are found.
    No report when ``-start_time`` cannot be read."""
    reading: Reading | None = None
    skew = timedelta(0)
    bare = Plan(versions)  # to place the runs on fires before any outage is known
    placed: Iterable[tuple[datetime | None, datetime]] = ()
    if executions is not None:
        reading = detect_meaning(executions, versions, grace, meaning)
        if reading.meaning is None:
            return Outcome(None, reading, list(outages))
        named, skew = reading.meaning, reading.skew
        placed = ((attribute(e, named, bare, skew)[0], e.submitted - skew) for e in executions)
    elif ledger is not None and any(row.submitted is not None for row in ledger):
        runs = zip(ledger, ledger_runs(ledger, bare), strict=True)
        placed = ((run.fire, row.submitted) for row, run in runs if row.submitted is not None)
    inferred = infer_outages(placed, grace, start)
    events = [*outages, *inferred]
    hops_plan = replay(versions, start, end, events)
    from_gaps, notes = list[Event](), list[str]()
    if executions is not None and reading is not None and reading.meaning is not None:
        hops: Sequence[SideRun] = execution_runs(executions, reading.meaning, hops_plan, skew)
    elif ledger is None:
        hops = replay_runs(hops_plan, start, end)
    else:
        hops = ledger_runs(ledger, hops_plan)
        if not inferred and not outages and not outages_known:
            bounds = [v.settings.policy().bound(v.settings.catchup) for v in versions]
            from_gaps, open_end = gap_outages(hops_plan, {r.fire for r in hops if r.fire is not None}, bounds)
            if from_gaps:
                events += from_gaps
                hops_plan = replay(versions, start, end, events)
                hops = ledger_runs(ledger, hops_plan)
            if open_end:
                notes.append(
                    "the ledger ends in a gap that an outage still being caught up after --to may explain; "
                    "declare it with --hopsworks-outage FROM..TO, or compare up to the gap"
                )
            if not from_gaps and any(b is not None for b in bounds):
                notes.append(
                    "the ledger has no launch times (no SUBMITTED column): an outage whose catch-up kept every window "
                    "it missed leaves no gap, and the catch-up bound then decides what Airflow runs; declare the "
                    "outages with --hopsworks-outage FROM..TO, or --hopsworks-outage none when Hopsworks was up"
                )
    air_plan = hops_plan if airflow_versions is None else replay(airflow_versions, start, end, events)
    air = list(airflow_runs) if airflow_runs is not None else replay_runs(air_plan, start, end)
    report = compare(start, end, hops_plan, air_plan, hops, air, accepted)
    report.notes += notes
    report.incomplete += [incomplete_note] if incomplete_note else []
    return Outcome(report, reading, list(outages), inferred, hops, from_gaps)
