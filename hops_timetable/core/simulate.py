"""Outage simulator: which cron fires become runs when Airflow is down or the DAG is paused (docs/cli.md, ``simulate``).

Events are half-open, overlapping ones merge; the runs due when one ends at R are all created at R (the stale stored
run is not created first). A timeline beginning before the DAG's start has the scheduler's first look at its start.
Consecutive fires alike form one :class:`FireRow`, counted by :meth:`QuartzCron.count_between`.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import NamedTuple

from hops_timetable.core.catchup import CatchupPolicy, Run
from hops_timetable.core.cron import QuartzCron
from hops_timetable.core.decision import Decision as Decision  # re-exported
from hops_timetable.core.validation import ArgumentError
from hops_timetable.core.window import TICK, as_utc

_UNDEPLOYED = "not yet deployed"
_STEPWISE_RUNS = 1000  # runs of one catch-up created one by one before the rest is summarised as a range


@dataclass(frozen=True)
class Event:
    """Airflow down (``kind="outage"``) or the DAG paused (``kind="pause"``) during ``[start, end)``."""

    kind: str
    start: datetime
    end: datetime

    def __post_init__(self) -> None:
        if self.kind not in ("outage", "pause"):
            raise ArgumentError("kind", self.kind, f"event kind {self.kind!r} is invalid: expected 'outage' or 'pause'")
        if as_utc(self.end) <= as_utc(self.start):
            empty = f"{self.kind} {self.start.isoformat()}..{self.end.isoformat()} is empty"
            raise ArgumentError("end", self.end, f"{empty}: its end must be after its start")


@dataclass(frozen=True)
class FireRow:
    """The consecutive fires ``first`` .. ``last`` (``count`` of them) and what happened to them; ``created_at``:
    when created runs were all made (``None``: each at its own fire)."""

    decision: Decision
    first: datetime
    last: datetime
    count: int
    created_at: datetime | None = None
    event: str | None = None


class _Down(NamedTuple):
    start: datetime
    end: datetime
    label: str


def _merge(events: Iterable[Event]) -> list[_Down]:
    merged: list[_Down] = []
    for start, end, kind in sorted(((as_utc(e.start), as_utc(e.end), e.kind) for e in events), key=lambda s: s[0]):
        if merged and start <= (top := merged[-1]).end:
            kinds = top.label if kind in top.label.split("+") else f"{top.label}+{kind}"
            merged[-1] = _Down(top.start, max(top.end, end), kinds)
        else:
            merged.append(_Down(start, end, kind))
    return merged


class _Builder:
    """Collects the rows of fires in time ranges."""

    def __init__(self, policy: CatchupPolicy) -> None:
        self.policy = policy
        self.cron = policy.cron
        self.rows: list[FireRow] = []
        # Eligibility changes only at these cuts, so one classify() answers for the fires between two. A cut c
        # splits (.., c] from (c, ..): the start is excluded, skip_to and the end belong to the later side.
        cuts = [policy.start] + [t - TICK for t in (policy.skip_to, policy.end) if t is not None]
        self.cuts = sorted({t for t in cuts if t is not None})

    def emit(
        self, why: Decision, first: datetime, last: datetime, at: datetime | None = None, event: str | None = None
    ) -> None:
        row = FireRow(why, first, last, self.cron.count_between(first, last), at, event)
        top = self.rows[-1] if self.rows else None
        # Runs created in one catch-up stay one row each, as the scheduler makes them.
        apart = at is not None and why is Decision.CREATED
        if top is None or apart or (top.decision, top.created_at, top.event) != (why, at, event):
            self.rows.append(row)
        else:
            self.rows[-1] = replace(top, last=last, count=top.count + row.count)

    def classify_range(self, after: datetime, upto: datetime, eligible: Decision, event: str | None = None) -> None:
        """Rows for every fire in ``(after, upto]``: ineligible ones as the policy says, eligible ones *eligible*."""
        lo = after
        for cut in [*(c for c in self.cuts if after < c < upto), upto]:
            first = self.cron.next_after(lo)
            if first is not None and first <= cut:
                last = self.cron.prev_before(cut + TICK)
                assert last is not None
                why = self.policy.classify(first)
                self.emit(eligible if why is Decision.ELIGIBLE else why, first, last, event=event)
            lo = cut


def scheduled_runs(policy: CatchupPolicy, last_fire: datetime | None, now: datetime, *, catchup: bool) -> Iterator[Run]:
    """The runs the scheduler makes from *last_fire* on, all seen at *now*, oldest first, unbounded without an end
    (each after the first asked at its predecessor's fire, where the bound counts nothing back)."""
    run = policy.next_run(last_fire, now, catchup=catchup)
    while run is not None:
        yield run
        run = policy.next_run(run.fire, run.fire, catchup=catchup)


def simulate(
    policy: CatchupPolicy, catchup: bool, start: datetime, until: datetime, events: Sequence[Event] = ()
) -> list[FireRow]:
    """The rows of the fires in ``(start, until]``, in fire order, as Airflow schedules *policy* through *events*."""
    start, until = as_utc(start), as_utc(until)
    if until <= start:
        raise ArgumentError(
            "until", until, f"until={until.isoformat()} is not after start={start.isoformat()}: the timeline is empty"
        )
    out = _Builder(policy)
    downs = [d for d in _merge(events) if d.end > start]
    if policy.start is not None and policy.start < start:
        # Until the scheduler first sees the DAG its fires are missed as in an outage.
        downs = [d for d in _merge([*events, Event("outage", policy.start, start)]) if d.end > policy.start]
        downs[0] = downs[0]._replace(label=downs[0].label.replace("outage", _UNDEPLOYED, 1))
        start = policy.start
    last: datetime | None = None  # fire of the newest created run
    decided = start  # every fire at or before this has a row
    look = start  # when the scheduler next looks, after being unable to
    label: str | None = None
    # look never passes until: a down that ends after until ends the loop before it is looked at.
    for down in [*downs, None]:
        last, decided = _catch_up(out, catchup, last, decided, look, label)
        up_to = until if down is None else min(until, down.start - TICK)
        if up_to > decided:
            out.classify_range(decided, up_to, Decision.CREATED)
            made = policy.newest_eligible_at_or_before(up_to)
            if made is not None and made > decided:
                last = made
            decided = up_to
        if down is None:
            break
        if down.end > until:
            out.classify_range(decided, until, Decision.NOT_YET_DUE, event=down.label)
            break
        look, label = down.end, down.label
    return out.rows


def _catch_up(
    out: _Builder, catchup: bool, last: datetime | None, decided: datetime, now: datetime, event: str | None
) -> tuple[datetime | None, datetime]:
    """Rows for the fires in ``(decided, now]``, when the scheduler looks again at *now*."""
    policy = out.policy
    if now <= decided:
        return last, decided
    due = itertools.takewhile(lambda run: run.fire <= now, scheduled_runs(policy, last, now, catchup=catchup))
    created = [run.fire for run in itertools.islice(due, _STEPWISE_RUNS)]
    if not created:
        skipped = Decision.BEFORE_FIRST_LOOK if last is None and policy.start is None else Decision.DROPPED_BOUND
        out.classify_range(decided, now, skipped, event=event)
        return last, now
    passed_over = Decision.DROPPED_NO_CATCHUP if not catchup else Decision.DROPPED_BOUND
    out.classify_range(decided, created[0] - TICK, passed_over, event=event)
    for fire in created:
        out.emit(Decision.CREATED, fire, fire, at=now, event=event)
    newest = policy.newest_eligible_at_or_before(now)
    if newest is not None and newest > created[-1]:
        # Unbounded catch-up beyond the step-by-step part: every eligible fire up to now is made.
        nxt = policy.first_eligible_after(created[-1])
        assert nxt is not None
        out.emit(Decision.CREATED, nxt, newest, at=now, event=event)
        created.append(newest)
    # Fires after the newest created one that are not eligible (after end) still need their row.
    out.classify_range(created[-1], now, Decision.DROPPED_BOUND, event=event)
    return created[-1], now


def _fires(row: FireRow, cron: QuartzCron) -> Iterator[datetime]:
    fire: datetime | None = row.first
    while fire is not None and fire <= row.last:
        yield fire
        fire = cron.next_after(fire)


def expand(rows: Iterable[FireRow], cron: QuartzCron, max_fires: int) -> list[FireRow]:
    """Rows of at most *max_fires* fires split into one row per fire, ``created_at`` set for every created run."""
    out: list[FireRow] = []
    for row in rows:
        if row.count > max(max_fires, 1):
            out.append(row)
            continue
        for fire in _fires(row, cron):
            at = (row.created_at or fire) if row.decision is Decision.CREATED else None
            out.append(replace(row, first=fire, last=fire, count=1, created_at=at))
    return out


def created_fires(rows: Iterable[FireRow], cron: QuartzCron, limit: int = 1_000_000) -> list[datetime]:
    """The fire of every created run, in order; raises ``ValueError`` beyond *limit* runs."""
    created = (fire for row in rows if row.decision is Decision.CREATED for fire in _fires(row, cron))
    if len(fires := list(itertools.islice(created, max(limit, 0) + 1))) > limit:
        raise ArgumentError("limit", limit, f"more than limit={limit} created runs; narrow the timeline")
    return fires
