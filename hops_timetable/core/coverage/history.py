"""A DAG's whole history as stretches of fires that read alike: what :func:`~.detail.coverage` says, at a cost set
by the runs, not by the fires. Pure: no Airflow import."""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from operator import attrgetter
from typing import Any

from hops_timetable.core.catchup import CatchupPolicy
from hops_timetable.core.conf_window import SCHEDULED_RUN_TYPES
from hops_timetable.core.coverage.blocks import RunBlock, earliest_start
from hops_timetable.core.coverage.detail import DUE_GRACE, Coverage, coverage_of, gaps_in, span_of_fires, timeline_begin
from hops_timetable.core.coverage.fires import FireCoverage, Rules, Span, Tally
from hops_timetable.core.coverage.runs import RunRecord
from hops_timetable.core.decision import Decision
from hops_timetable.core.window import TICK, as_utc, format_hops_time


@dataclass(frozen=True)
class Stretch:
    """Consecutive fires, ``sample.fire`` to ``last`` (``count`` of them), of which *sample* says what holds for each
    (their decision, status and coverage; the run ids are those of the first fire only)."""

    sample: FireCoverage
    last: datetime
    count: int
    window_end: datetime  # the HOPS window end of the last fire

    @property
    def first(self) -> datetime:
        return self.sample.fire

    def key(self) -> tuple[object, ...]:
        s = self.sample
        return (s.decision, s.status, s.covered, s.pending)

    def describe(self) -> str:
        """``2026-01-01T01:00:00Z .. 2026-11-30T12:00:00Z: 8,003 window(s) dropped beyond max_catchup_runs``."""
        span = format_hops_time(self.first) + (f" .. {format_hops_time(self.last)}" if self.count > 1 else "")
        other = self.sample.covered and self.sample.decision is not Decision.CREATED
        return f"{span}: {self.count:,} window(s) {self.sample.status}{' (covered by other runs)' if other else ''}"

    def as_json(self) -> dict[str, Any]:
        return {
            "first": format_hops_time(self.first),
            "last": format_hops_time(self.last),
            "count": self.count,
            "decision": self.sample.decision.value,
            "status": self.sample.status,
            "covered": self.sample.covered,
            "pending": self.sample.pending,
        }


@dataclass(frozen=True)
class History:
    """A DAG's whole history at *now* as :class:`Stretch` es: what :func:`coverage` says, at a cost set by the runs
    (``gaps`` and ``dropped`` as in :class:`Coverage`, over the whole history)."""

    now: datetime
    begin: datetime | None
    stretches: list[Stretch]
    gaps: list[Span]
    dropped: list[Span]
    duplicates: int
    overlaps: int
    policy: CatchupPolicy
    rules: Rules = field(repr=False, compare=False)
    # Counted once over every stretch: shared by a copy made for another instant with the same now_key.
    tally: Tally = field(repr=False, compare=False)

    @property
    def fires(self) -> int:
        return sum(self.tally.counts.values())

    @property
    def complete(self) -> bool:
        return not self.gaps

    @property
    def ok(self) -> bool:
        return self.complete and not self.duplicates and not self.overlaps

    def counts(self) -> dict[str, int]:
        """Fires by status."""
        return dict(self.tally.counts)

    def verdict(self) -> str:
        """The verdict :meth:`Coverage.verdict` gives for the same history, uncapped."""
        return self.tally.verdict(self.now, len(self.gaps), self.duplicates, self.overlaps)

    def summary(self) -> dict[str, Any]:
        """Whether it is complete and ok, its verdict and its fires by status: as the tab and ``audit --json`` say."""
        return {"complete": self.complete, "ok": self.ok, "verdict": self.verdict(), "counts": self.counts()}

    def nth_newest(self, n: int) -> datetime | None:
        """The fire *n* places before the newest (0: the newest), or None beyond the oldest."""
        for stretch in reversed(self.stretches):
            if n < stretch.count:
                return stretch.last if n == 0 else self.policy.cron.nth_before(stretch.last, n)
            n -= stretch.count
        return None

    def coverage(
        self, since: datetime | None = None, until: datetime | None = None, max_fires: int = 100_000
    ) -> Coverage:
        """:func:`coverage` of the same runs, fire by fire, for the fires in ``(since, until]`` (a page)."""
        return coverage_of(self.rules, since, until, max_fires)

    def expand(self, stretch: Stretch) -> list[FireCoverage]:
        """Every fire of *stretch*, one by one (the cost of its length)."""
        out = [self.rules.fire(stretch.first)]
        while (fire := self.policy.cron.next_after(out[-1].fire)) is not None and fire <= stretch.last:
            out.append(self.rules.fire(fire))
        return out

    def fire_after(self, stretch: Stretch) -> FireCoverage | None:
        """The fire right after *stretch*, if the history has it."""
        fire = self.policy.cron.next_after(stretch.last)
        return None if fire is None or fire > self.stretches[-1].last else self.rules.fire(fire)

    def older_than(self, fire: datetime) -> list[Stretch]:
        """The stretches of the fires before *fire*, the one holding it cut short."""
        out = self.stretches[: bisect_left(self.stretches, fire, key=attrgetter("first"))]
        if out and out[-1].last >= fire:  # only the newest of them can hold *fire*
            stretch, last = out[-1], self.policy.cron.prev_before(fire)
            assert last is not None
            count = self.rules.count_between(stretch.first, last)
            out[-1] = Stretch(stretch.sample, last, count, last + (stretch.window_end - stretch.last))
        return out


def history(
    policy: CatchupPolicy,
    catchup: bool,
    offset_seconds: int | None,
    runs: Iterable[RunRecord],
    now: datetime,
    *,
    since: datetime | None = None,
    due_grace: timedelta = DUE_GRACE,
    blocks: Sequence[RunBlock] = (),
    previous: History | None = None,
) -> History:
    """The whole history of :func:`coverage`, uncapped, as stretches of fires that read alike.

    The fires are cut only where an answer may change (:meth:`Rules.cuts`), each piece asked about its first,
    second and last fire and counted by the cron: the cost grows with the runs, not the fires. Given the *previous*
    history of the same DAG (other runs, another instant), the stretches that read alike in both
    (:func:`unchanged_before`) are kept and only the newer fires asked.
    """
    rules = Rules(policy, catchup, offset_seconds, runs, now, due_grace, blocks)
    begin = timeline_begin(policy, earliest_start(rules.records, rules.blocks), since)
    stretches: list[Stretch] = []
    span = None if begin is None else span_of_fires(policy, begin, rules.now)
    if span is not None:
        first, newest = span
        fire: datetime | None = first  # the first fire not yet in a stretch
        if previous is not None and previous.begin == begin and previous.stretches[:1]:
            stable = unchanged_before(previous.rules, rules) if previous.stretches[0].first == first else None
            if stable is not None:
                stretches = previous.older_than(min(stable, newest + TICK))
                fire = policy.cron.next_after(stretches[-1].last) if stretches else first
        for cut in [*(c for c in rules.cuts() if first <= c < newest), newest]:
            if fire is None:
                break
            if fire > cut:
                continue  # no fire in this piece: the cron is not asked
            pieces, fire = _piece(rules, fire, cut, stretches[-1].last if stretches else None)
            for stretch in pieces:  # joined to the one before when every fire of both reads alike
                if stretches and stretches[-1].key() == stretch.key():
                    top = stretches[-1]
                    stretches[-1] = Stretch(top.sample, stretch.last, top.count + stretch.count, stretch.window_end)
                else:
                    stretches.append(stretch)

    def spans(keep: Callable[[FireCoverage], bool]) -> list[Span]:
        chosen = [s for s in stretches if keep(s.sample) and not s.sample.covered]
        return gaps_in([(s.sample.window.start, s.window_end, s.sample.status, ()) for s in chosen], rules.processed)

    gaps, dropped = spans(lambda f: f.expected), spans(lambda f: f.by_design)
    overlaps, duplicates = rules.overlaps
    tally = Tally.of((s.sample, s.count) for s in stretches)
    return History(rules.now, begin, stretches, gaps, dropped, len(duplicates), len(overlaps), policy, rules, tally)


def now_key(policy: CatchupPolicy, now: datetime, due_grace: timedelta = DUE_GRACE) -> tuple[object, ...]:
    """What of *now* a history depends on: two instants with the same key see the same runs the same way (every
    stretch, span and count alike; only ``now`` itself differs), so a history worked out at one serves the other.

    A history sees *now* only through the fires up to it (the newest fire, and with it the catch-up policy's pick
    and the first fire still due) and through the fires up to ``now - due_grace`` (those no longer pending).
    """
    return tuple(policy.cron.prev_before(moment + TICK) for moment in (as_utc(now), as_utc(now) - due_grace))


def _piece(
    rules: Rules, first: datetime, high: datetime, previous: datetime | None
) -> tuple[list[Stretch], datetime | None]:
    """The fires from *first* (*previous*: the fire before it, if known) to *high*, the first and last asked one by
    one, the rest as the second says; and the fire after them."""
    cron = rules.policy.cron
    following = cron.next_after(first)
    out = [_single(rules.fire(first, previous))]
    if following is None or following > high:
        return out, following
    last = cron.prev_before(high + TICK)
    assert last is not None
    before_last: datetime | None = first
    if following < last:
        before_last = cron.prev_before(last)
        assert before_last is not None
        shift = timedelta(seconds=rules.offset or 0)
        count = rules.count_between(first, last) - 2
        out.append(Stretch(rules.fire(following, first), before_last, count, before_last - shift))
    out.append(_single(rules.fire(last, before_last)))
    return out, cron.next_after(last)


def _single(fire: FireCoverage) -> Stretch:
    return Stretch(fire, fire.fire, 1, fire.window.end)


def unchanged_before(old: Rules, new: Rules) -> datetime | None:
    """An instant before which every fire reads alike under *old* and *new* (its decision, runs, state, coverage
    and pending), so the stretches of those fires carry over; ``None`` when no fire surely does.

    A fire reads the runs at it, the processed windows meeting its own, the scheduled runs around it and *now*
    (the first fire due, the grace period). Every run and block past the first that differ counts as changed.
    """
    if (old.policy, old.catchup, old.offset) != (new.policy, new.catchup, new.offset):
        return None
    shift = timedelta(seconds=new.offset or 0)
    fires: list[datetime] = []  # fires whose runs may differ
    points: list[datetime] = []  # instants from which a fire may read otherwise
    index, first_block = _first_difference(old.records, new.records), _first_difference(old.blocks, new.blocks)
    for rules in (old, new):
        for record, seen in zip(rules.records[index:], rules.windows[index:], strict=True):
            if record.run_type in SCHEDULED_RUN_TYPES and record.data_interval_end is not None:
                fires.append(as_utc(record.data_interval_end))
            if seen.window is not None:
                # A fire's window ends at the fire minus the offset: one ending at or before this start reads alike.
                points.append(seen.window.start + shift)
        for block, (lo, _) in zip(rules.blocks[first_block:], rules.block_spans[first_block:], strict=True):
            fires.append(block.first_fire)
            points.append(lo + shift)
    if fires:
        changed = min(fires)
        # The fires of the gap before a changed run are decided by it: only those up to the newest scheduled run
        # before it (the same in both, every run before *changed* being so) read alike.
        before = [rules.scheduled_before(changed) for rules in (old, new)]
        if None in before:
            return None
        points.append(min(b[0] for b in before if b is not None) + TICK)
    points += [rules.due_from for rules in (old, new) if rules.due_from is not None]  # due and pending fires
    return min(points) if points else max(old.now, new.now) + TICK  # else nothing differs: every fire carries over


def _first_difference(old: Sequence[object], new: Sequence[object]) -> int:
    pairs = enumerate(zip(old, new, strict=False))
    return next((index for index, (a, b) in pairs if a is not b and a != b), min(len(old), len(new)))
