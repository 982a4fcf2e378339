"""What a DAG's runs say about any one of its fires: :class:`Rules` is the one place a fire's decision and coverage
(by the processed :class:`Span` s, merged) are made, asked fire by fire by :func:`~.detail.coverage` and stretch by
stretch by :func:`~.history.history`."""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import cached_property, lru_cache
from itertools import groupby, pairwise
from operator import itemgetter
from typing import Any

from hops_timetable.core.catchup import CatchupPolicy
from hops_timetable.core.conf_window import SCHEDULED_RUN_TYPES
from hops_timetable.core.coverage.blocks import RunBlock
from hops_timetable.core.coverage.runs import DONE_STATES, PROCESSED_STATES, RunRecord, best_state, run_window
from hops_timetable.core.decision import BY_DESIGN, Decision
from hops_timetable.core.window import TICK, HopsWindow, as_utc, format_hops_time, hops_window


@dataclass(frozen=True)
class Span:
    """A half-open stretch ``[start, end)`` of HOPS time, with the reasons and runs that explain it."""

    start: datetime
    end: datetime
    reasons: tuple[str, ...] = ()
    run_ids: tuple[str, ...] = ()

    def as_json(self) -> dict[str, Any]:
        return {
            "start": format_hops_time(self.start),
            "end": format_hops_time(self.end),
            "reasons": list(self.reasons),
            "run_ids": list(self.run_ids),
        }


def merge_spans(spans: Iterable[tuple[datetime, datetime]]) -> list[tuple[datetime, datetime]]:
    merged: list[tuple[datetime, datetime]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


@dataclass(frozen=True)
class FireCoverage:
    """One cron fire: its decision, its scheduled Airflow interval and HOPS window, and the runs that have it."""

    fire: datetime
    decision: Decision
    interval_start: datetime
    window: HopsWindow
    run_ids: tuple[str, ...] = ()
    state: str | None = None
    covered: bool = False
    pending: bool = False  # due within the grace period: the scheduler is about to create its run

    @property
    def status(self) -> str:
        """``ran``, ``running``, ``failed`` for a fire with a run (its best state), else the decision's text."""
        if self.decision is Decision.CREATED:
            state = self.state or "created"
            return "ran" if state in DONE_STATES else "running" if state in PROCESSED_STATES else state
        return str(self.decision.value)

    @property
    def by_design(self) -> bool:
        return self.decision in BY_DESIGN

    @property
    def expected(self) -> bool:
        """Whether this window should have been processed: not dropped by design, and not only just due."""
        return not self.by_design and not self.pending


class Rules:
    """What the runs of one DAG say about any of its fires: built once (``O(runs log runs)``), each fire then
    answered by bisection."""

    def __init__(
        self,
        policy: CatchupPolicy,
        catchup: bool,
        offset_seconds: int | None,
        runs: Iterable[RunRecord],
        now: datetime,
        due_grace: timedelta,
        blocks: Sequence[RunBlock] = (),
    ) -> None:
        self.policy, self.catchup, self.offset = policy, catchup, offset_seconds
        self.now = as_utc(now)
        self.grace_limit = self.now - due_grace
        self.records = sorted(runs, key=lambda r: (as_utc(r.run_after), r.run_id))
        self.windows = [run_window(r, offset_seconds, policy) for r in self.records]
        self.blocks = sorted(blocks, key=lambda b: b.first_fire)
        self.block_firsts = [b.first_fire for b in self.blocks]
        self.by_fire: dict[datetime, list[RunRecord]] = {}
        for record in self.records:
            if record.run_type in SCHEDULED_RUN_TYPES and record.data_interval_end is not None:
                self.by_fire.setdefault(as_utc(record.data_interval_end), []).append(record)
        self.block_spans = [b.span(offset_seconds) for b in self.blocks]
        self.processed = merge_spans(
            [(r.window.start, r.window.end) for r in self.windows if r.processed and r.window is not None]
            + [span for b, span in zip(self.blocks, self.block_spans, strict=True) if b.state in PROCESSED_STATES]
        )
        self.processed_starts = [lo for lo, _ in self.processed]
        # Fires with a scheduled run kept whole, and when the first of them was queued.
        self.scheduled = sorted(
            (fire, min((r.queued_at for r in rs if r.queued_at is not None), default=None))
            for fire, rs in self.by_fire.items()
            if any(r.run_type == "scheduled" for r in rs)
        )
        self.scheduled_fires = [fire for fire, _ in self.scheduled]
        # Blocks of scheduled runs, by their first fire: a gap ends at a block's first fire or at a run kept whole.
        self.scheduled_blocks = [b for b in self.blocks if b.run_type == "scheduled"]
        self.scheduled_block_firsts = [b.first_fire for b in self.scheduled_blocks]
        self.dropped = Decision.DROPPED_BOUND if catchup else Decision.DROPPED_NO_CATCHUP
        newest = [*self.scheduled_fires[-1:], *(b.last_fire for b in self.scheduled_blocks[-1:])]
        due = policy.next_run(max(newest, default=None), self.now, catchup=catchup)
        self.due_from = None if due is None else due.fire
        self._gap_decisions: dict[datetime, Decision] = {}

    def block_at(self, fire: datetime) -> RunBlock | None:
        index = bisect_right(self.block_firsts, fire) - 1
        return self.blocks[index] if index >= 0 and self.blocks[index].holds(fire) else None

    def count_between(self, first: datetime, last: datetime) -> int:
        """The fires in ``[first, last]`` (the cron's search), or a block's own count when both lie next to its
        ends: a block's fires are consecutive, so a stretch of it costs no search."""
        block = self.block_at(first)
        if block is not None and block.holds(last) and block.count > 2:
            cron = self.policy.cron
            head = 1 if first == block.first_fire else 2 if first == cron.next_after(block.first_fire) else 0
            tail = block.count if last == block.last_fire else block.count - 1
            if head and (last == block.last_fire or last == cron.prev_before(block.last_fire)):
                return tail - head + 1
        return self.policy.cron.count_between(first, last)

    def scheduled_before(self, moment: datetime) -> tuple[datetime, datetime | None] | None:
        """The newest fire before *moment* with a scheduled run, kept whole or in a block, and when it was queued."""
        index = bisect_left(self.scheduled_fires, moment)
        found = self.scheduled[max(index - 1, 0) : index]
        index = bisect_left(self.scheduled_block_firsts, moment)
        if index > 0:
            block = self.scheduled_blocks[index - 1]
            if block.last_fire < moment:
                found.append((block.last_fire, block.last_queued))
            else:  # a block holding *moment* has a run at every fire: the newest before it is the fire before
                inner = self.policy.cron.prev_before(moment)
                assert inner is not None  # the block's first fire lies before *moment*
                found.append((inner, None))
        return max(found, key=itemgetter(0), default=None)

    def decide(self, fire: datetime, block: RunBlock | None = None) -> Decision:
        """The decision of *fire* (the table in docs/audit-and-ui.md); *block*: the block with a run at it, if known."""
        if fire in self.by_fire or (block or self.block_at(fire)) is not None:
            return Decision.CREATED
        why = self.policy.classify(fire)
        if why is not Decision.ELIGIBLE:
            return why
        index = bisect_right(self.scheduled_fires, fire)  # the first scheduled run with a fire after this one
        found = self.scheduled[index : index + 1]
        index = bisect_right(self.scheduled_block_firsts, fire)
        found += [(block.first_fire, block.first_queued) for block in self.scheduled_blocks[index : index + 1]]
        if found:
            following, queued = min(found, key=itemgetter(0))
            if following not in self._gap_decisions:
                # The bound explains the gap if the policy picks exactly the run after it when Airflow asked: as it
                # queued that run (3.2 on) or as it created the run before (3.0, 3.1: one catch-up run per loop).
                previous, queued_before = self.scheduled_before(fire) or (None, None)
                asked = [moment for moment in (queued, queued_before) if moment is not None]
                explained = any(
                    (picked := self.policy.next_run(previous, moment, catchup=self.catchup)) is not None
                    and picked.fire == following
                    for moment in asked
                )
                self._gap_decisions[following] = self.dropped if explained else Decision.MISSED
            return self._gap_decisions[following]
        return Decision.DUE if self.due_from is not None and fire >= self.due_from else Decision.MISSED

    def fire(self, fire: datetime, previous: datetime | None = None) -> FireCoverage:
        """Everything known of *fire*; *previous*, when given, is the cron's fire before it (spares its search)."""
        block = self.block_at(fire)
        decision = self.decide(fire, block)
        start = self.policy.start
        if previous is None or (start is not None and previous < start):  # policy.interval_start's rule, searched
            previous = self.policy.interval_start(fire)
        window = hops_window(previous, fire, self.offset)
        own = self.by_fire.get(fire, [])
        run_ids = tuple(r.run_id for r in own)
        state = best_state(own) if own else None
        if block is not None:  # a run of a block: its state, and its id where the block kept it
            block_id = block.run_id(fire, self.policy)
            run_ids += (block_id,) if block_id else ()
            state = (
                best_state([*own, RunRecord(block_id or "", block.run_type, block.state, fire)]) if own else block.state
            )
        # Covered: inside the one processed span starting at or before the window (they are disjoint and sorted).
        span = bisect_right(self.processed_starts, window.start) - 1
        covered = span >= 0 and window.end <= self.processed[span][1]
        pending = decision is Decision.DUE and fire > self.grace_limit
        return FireCoverage(fire, decision, previous, window, run_ids, state, covered, pending)

    def block_window(self, window: tuple[datetime, datetime]) -> str | None:
        """The name of the block run that processed exactly *window* (``[start, end)``), if one did."""
        fire = window[1] + timedelta(seconds=self.offset or 0)
        block = self.block_at(fire)
        if block is None or block.state not in PROCESSED_STATES or not self.policy.cron.matches(fire):
            return None
        own = hops_window(block.interval_start(fire, self.policy), fire, self.offset)
        return (block.run_id(fire, self.policy) or block.label) if (own.start, own.end) == window else None

    @cached_property
    def overlaps(self) -> tuple[list[Span], list[Span]]:
        """Stretches two or more processed windows cover, and identical windows of two or more runs.

        A block's windows meet end to end, never each other: it counts as one window (its span), cut into its runs'
        windows where another meets it, so an overlap reads as it does with the runs whole.
        """
        done = [(w.window.start, w.window.end, w.run.run_id) for w in self.windows if w.processed and w.window]
        duplicates = []
        for (start, end), same in groupby(sorted(done, key=itemgetter(0, 1)), key=itemgetter(0, 1)):
            # A block run duplicating a run kept whole is named first.
            ids = [*filter(None, [self.block_window((start, end))]), *(run_id for *_, run_id in same)]
            if len(ids) > 1:
                duplicates.append(Span(start, end, ("processed more than once",), tuple(ids)))
        # Sweep over window edges, counting how many windows are open.
        spans = [(b, s) for b, s in zip(self.blocks, self.block_spans, strict=True) if b.state in PROCESSED_STATES]
        by_label = {b.label: b for b, _ in spans}
        edges = [(at, step, run_id) for start, end, run_id in done for at, step in ((start, 1), (end, -1))]
        edges += [edge for b, (lo, hi) in spans for edge in ((lo, 1, b.label), (hi, -1, b.label))]
        edges.sort(key=lambda e: (e[0], e[1]))
        open_ids: list[str] = []
        overlaps: list[Span] = []
        previous: datetime | None = None
        for at, step, run_id in edges:
            if previous is not None and at > previous and len(open_ids) > 1:
                # Blocks never meet each other's windows: at most one is open, cut into its runs' windows.
                block = next((n for n in open_ids if n in by_label), None)
                if block is not None:
                    others = [n for n in open_ids if n != block]
                    pieces = _block_pieces(by_label[block], previous, at, self.policy, self.offset)
                else:  # only runs: one piece, naming them all
                    others, pieces = open_ids[:-1], ((previous, at, open_ids[-1]),)
                for lo, hi, name in pieces:
                    names = tuple(sorted([*others, name]))
                    if overlaps and overlaps[-1].end == lo and overlaps[-1].run_ids == names:
                        overlaps[-1] = Span(overlaps[-1].start, hi, overlaps[-1].reasons, names)
                    else:
                        overlaps.append(Span(lo, hi, ("covered by more than one run",), names))
            (open_ids.append if step > 0 else open_ids.remove)(run_id)
            previous = at
        return overlaps, duplicates

    def cuts(self) -> list[datetime]:
        """The instants where what :meth:`fire` says may change, as the ends of stretches ``(.., c]``.

        Between two of them every fire without a run reads alike except the first, whose window starts before the
        cut (a fire's window ``[previous - offset, fire - offset)`` lies inside a processed ``[lo, hi)`` exactly when
        ``lo + offset <= previous`` and ``fire <= hi + offset``). Fires with runs are cut where their best state
        changes, so a run for every fire costs one cron step a run.
        """
        policy = self.policy
        shift = timedelta(seconds=self.offset or 0)
        cuts = [t for t in (self.grace_limit, policy.start) if t is not None]
        cuts += [t - TICK for t in (policy.skip_to, policy.end, self.due_from) if t is not None]
        cuts += [edge + shift for span in self.processed for edge in span]
        cuts += [t for block in self.blocks for t in (block.first_fire - TICK, block.last_fire)]
        by_fire = self.by_fire
        fires = sorted(by_fire)
        cuts += [fires[0] - TICK, fires[-1]] if fires else []
        for fire, following in pairwise(fires):
            if best_state(by_fire[fire]) != best_state(by_fire[following]) or policy.cron.next_after(fire) != following:
                cuts += [fire, following - TICK]
        return sorted(set(cuts))


@lru_cache(maxsize=1024)
def _block_pieces(
    block: RunBlock, lo: datetime, hi: datetime, policy: CatchupPolicy, offset: int | None
) -> tuple[tuple[datetime, datetime, str], ...]:
    """The windows of *block*'s runs within ``[lo, hi)`` (inside its span), each cut to it, with the run's name."""
    # Cached: every page works out the overlaps of the whole history (stepping blocks cost most of a page at 10^6 runs).
    shift = timedelta(seconds=offset or 0)
    cron = policy.cron
    fire: datetime | None = max(block.first_fire, cron.next_after(lo + shift) or block.first_fire)
    if fire is None or fire > block.last_fire:
        return ()
    # A block's fires are consecutive: each run's interval starts at the fire before (block.window's rule, stepped).
    start = block.interval_start(fire, policy)
    label = block.label
    out = []
    while fire is not None and fire <= block.last_fire:
        window_start, window_end = start - shift, fire - shift
        if window_start >= hi:
            break
        name = block.run_id(fire, policy) or f"{label} at {format_hops_time(fire)}"
        out.append((max(lo, window_start), min(hi, window_end), name))
        start, fire = fire, cron.next_after(fire)
    return tuple(out)


@dataclass(frozen=True)
class Tally:
    """What a verdict counts, over fires each read *n* times alike: every fire by status, the expected ones, those
    of them not processed and the drops by design not processed (both by status), and the pending ones."""

    counts: dict[str, int]
    expected: int
    missing: dict[str, int]
    dropped: dict[str, int]
    pending: int

    @classmethod
    def of(cls, items: Iterable[tuple[FireCoverage, int]]) -> Tally:
        counts, missing, dropped = Counter[str](), Counter[str](), Counter[str]()
        expected = pending = 0
        for fire, n in items:
            status = fire.status
            counts[status] += n
            expected += n if fire.expected else 0
            pending += n if fire.pending else 0
            if not fire.covered and (fire.expected or fire.by_design):
                (missing if fire.expected else dropped)[status] += n
        return cls(dict(counts), expected, dict(missing), dict(dropped), pending)

    def verdict(self, now: datetime, gaps: int, duplicates: int, overlaps: int) -> str:
        """The one-line verdict of :class:`Coverage` and :class:`History`."""

        def listed(counts: Mapping[str, int]) -> str:
            return ", ".join(f"{n:,} {why}" for why, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))

        n_dropped = sum(self.dropped.values())
        design = f"{n_dropped:,} dropped by design ({listed(self.dropped)})" if n_dropped else "none dropped by design"
        twice = [f"{duplicates:,} window(s) processed more than once"] if duplicates else []
        twice += [f"{overlaps:,} overlap(s)"] if overlaps else []
        done = f"all {self.expected:,} expected window(s) up to {format_hops_time(now)} processed"
        if self.missing:
            head = f"gaps found: {sum(self.missing.values()):,} of {self.expected:,} expected window(s) not processed"
            return "; ".join([f"{head} ({listed(self.missing)})", f"{gaps:,} gap(s)", *twice, design])
        if twice:
            return "; ".join([f"overlaps found: {done}", *twice, design])
        tail = f" ({self.pending:,} fire(s) due a moment ago, run not created yet)" if self.pending else ""
        return f"complete: {done}{tail}; {design}"
