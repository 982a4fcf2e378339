"""The coverage fire by fire (a page of fires with their decisions, windows and runs) and the gaps windows leave."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import cached_property
from operator import attrgetter
from typing import Any

from hops_timetable.core.catchup import CatchupPolicy
from hops_timetable.core.coverage.blocks import RunBlock, earliest_start
from hops_timetable.core.coverage.fires import FireCoverage, Rules, Span, Tally, merge_spans
from hops_timetable.core.coverage.runs import RunRecord, RunWindow
from hops_timetable.core.validation import ArgumentError
from hops_timetable.core.window import TICK, as_utc, format_hops_time

DUE_GRACE = timedelta(minutes=1)
"""How long after its fire a fire without a run is only ``pending``: the scheduler creates runs a moment after."""


@dataclass(frozen=True)
class Coverage:
    """The coverage of one DAG at *now*; see the package docstring. ``truncated``: older fires were left out."""

    now: datetime
    begin: datetime | None
    fires: list[FireCoverage]
    runs: list[RunWindow]
    gaps: list[Span]
    overlaps: list[Span]
    duplicates: list[Span]
    truncated: bool = False
    dropped: list[Span] = field(default_factory=list)

    @property
    def complete(self) -> bool:
        """Every expected window up to now is processed or in flight (drops by design aside)."""
        return not self.gaps

    @property
    def ok(self) -> bool:
        """Complete, and no window processed twice or in part twice: nothing went wrong that should not have."""
        return self.complete and not self.duplicates and not self.overlaps

    @cached_property
    def tally(self) -> Tally:
        return Tally.of((f, 1) for f in self.fires)

    @property
    def counts(self) -> dict[str, int]:
        return self.tally.counts

    def verdict(self) -> str:
        """One line naming both kinds: the windows that should have run and did not, and the drops by design."""
        return self.tally.verdict(self.now, len(self.gaps), len(self.duplicates), len(self.overlaps))

    def as_json(self) -> dict[str, Any]:
        return {
            "now": format_hops_time(self.now),
            "begin": None if self.begin is None else format_hops_time(self.begin),
            "complete": self.complete,
            "ok": self.ok,
            "verdict": self.verdict(),
            "expected_windows": self.tally.expected,
            "missing_windows": sum(self.tally.missing.values()),
            "dropped_by_design": sum(self.tally.dropped.values()),
            "truncated": self.truncated,
            "counts": dict(self.counts),
            "fires": [
                {
                    "fire": format_hops_time(f.fire),
                    "data_interval_start": format_hops_time(f.interval_start),
                    "data_interval_end": format_hops_time(f.fire),
                    **f.window.as_env(),
                    "decision": f.decision.value,
                    "status": f.status,
                    "state": f.state,
                    "run_ids": list(f.run_ids),
                    "covered": f.covered,
                    "pending": f.pending,
                }
                for f in self.fires
            ],
            "runs": [
                {
                    "run_id": r.run.run_id,
                    "run_type": r.run.run_type,
                    "state": r.run.state,
                    "source": r.source,
                    "error": r.error,
                    **({} if r.window is None else r.window.as_env()),
                }
                for r in self.runs
            ],
            "gaps": [g.as_json() for g in self.gaps],
            "dropped": [d.as_json() for d in self.dropped],
            "overlaps": [o.as_json() for o in self.overlaps],
            "duplicates": [d.as_json() for d in self.duplicates],
        }


def coverage(
    policy: CatchupPolicy,
    catchup: bool,
    offset_seconds: int | None,
    runs: Iterable[RunRecord],
    now: datetime,
    *,
    since: datetime | None = None,
    until: datetime | None = None,
    max_fires: int = 100_000,
    due_grace: timedelta = DUE_GRACE,
    blocks: Sequence[RunBlock] = (),
) -> Coverage:
    """The coverage at *now* of a DAG scheduled by *policy* (with *catchup* and the HOPS offset) that has *runs*.

    The timeline runs from :func:`timeline_begin` to *now*, or to *until* if earlier (a page: decisions, coverage
    and gaps are those of the whole history, cut to it); past *max_fires* fires only the newest are kept and
    ``truncated`` is set. A fire due less than *due_grace* before *now* without a run yet is ``pending``: listed,
    neither a gap nor counted. Raises :class:`ArgumentError` for ``max_fires < 1``.
    """
    return coverage_of(Rules(policy, catchup, offset_seconds, runs, now, due_grace, blocks), since, until, max_fires)


def coverage_of(rules: Rules, since: datetime | None, until: datetime | None, max_fires: int) -> Coverage:
    if max_fires < 1:
        raise ArgumentError("max_fires", max_fires, f"max_fires={max_fires} is invalid: it must be >= 1")
    policy, now = rules.policy, rules.now
    begin = timeline_begin(policy, earliest_start(rules.records, rules.blocks), since)
    upto = now if until is None else min(now, as_utc(until))
    span = None if begin is None else span_of_fires(policy, begin, upto)
    result: list[FireCoverage] = []
    if span is not None:  # the newest max_fires fires of the span, stepped
        oldest = policy.cron.nth_before(span[1] + TICK, max_fires)
        result = [rules.fire(oldest if oldest is not None and oldest > span[0] else span[0])]
        while (fire := policy.cron.next_after(result[-1].fire)) is not None and fire <= span[1]:
            result.append(rules.fire(fire))
    truncated = span is not None and result[0].fire > span[0]
    gaps, dropped = (
        gaps_in([(f.window.start, f.window.end, f.status, f.run_ids) for f in result if want(f)], rules.processed)
        for want in (attrgetter("expected"), attrgetter("by_design"))
    )
    overlaps, duplicates = rules.overlaps
    return Coverage(now, begin, result, rules.windows, gaps, overlaps, duplicates, truncated, dropped)


def timeline_begin(policy: CatchupPolicy, earliest_start: datetime | None, since: datetime | None) -> datetime | None:
    """The policy's start, else *earliest_start* (of the scheduled runs), or *since* if that is later."""
    begin = policy.start if policy.start is not None else earliest_start
    return max((t for t in (begin, None if since is None else as_utc(since)) if t is not None), default=None)


def span_of_fires(policy: CatchupPolicy, begin: datetime, now: datetime) -> tuple[datetime, datetime] | None:
    """The first and the newest fire in ``(begin, now]`` before the end."""
    upto = now if policy.end is None else min(now, policy.end - TICK)
    newest = policy.cron.prev_before(upto + TICK)
    first = policy.cron.next_after(begin)
    return None if newest is None or first is None or first > newest else (first, newest)


def page_of_fires(
    policy: CatchupPolicy, begin: datetime | None, now: datetime, page: int, size: int
) -> tuple[int, int, datetime, datetime] | None:
    """Page *page* (0: the newest; clamped to the oldest) of *size* fires in ``(begin, now]``: its number, the
    number of pages, its oldest and its newest fire; ``None`` without fires. The cron is searched, never walked."""
    span = None if begin is None else span_of_fires(policy, begin, now)
    if span is None:
        return None
    first, newest = span
    total = policy.cron.count_between(first, newest)
    pages = max(1, -(-total // size))
    number = min(max(page, 0), pages - 1)
    counts = (min((number + 1) * size, total), number * size + 1)  # back from the tick after the newest: itself first
    oldest, newer = (policy.cron.nth_before(newest + TICK, n) for n in counts)
    assert oldest is not None and newer is not None  # both within the total
    return number, pages, oldest, newer


def gaps_in(
    windows: Sequence[tuple[datetime, datetime, str, tuple[str, ...]]], processed: Sequence[tuple[datetime, datetime]]
) -> list[Span]:
    """The parts of *windows* (start, end, reason, run ids) no span of *processed* (merged) covers, each with the
    reasons and runs of the windows it meets. The windows follow fires: their starts and ends both grow, and so do
    the holes, so one pass finds the holes and another the windows each meets."""
    holes: list[tuple[datetime, datetime]] = []
    index = 0
    for lo, hi in merge_spans((start, end) for start, end, _, _ in windows):
        # Processed spans ending at or before lo cannot touch this or any later window.
        while index < len(processed) and processed[index][1] <= lo:
            index += 1
        cursor, scan = lo, index
        while scan < len(processed) and processed[scan][0] < hi:
            plo, phi = processed[scan]
            if plo > cursor:
                holes.append((cursor, plo))
            cursor = max(cursor, phi)
            scan += 1
        if cursor < hi:
            holes.append((cursor, hi))
    out, first = [], 0
    for lo, hi in holes:
        while first < len(windows) and windows[first][1] <= lo:
            first += 1
        index = first
        while index < len(windows) and windows[index][0] < hi:
            index += 1
        there = windows[first:index]
        reasons = tuple(dict.fromkeys(reason for _, _, reason, _ in there))
        out.append(Span(lo, hi, reasons, tuple(dict.fromkeys(r for *_, ids in there for r in ids))))
    return out
