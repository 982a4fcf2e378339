"""Coverage of a DAG's data windows: which HOPS windows have been processed, which are missing, and why.

Given a DAG's schedule and its runs as Airflow recorded them (run type, state, data interval, ``conf``), every cron
fire from the DAG's start to *now* gets one decision, in the vocabulary the policy and the outage simulator share
(:class:`~hops_timetable.core.decision.Decision`):

* ``created``: the fire has a scheduled or backfill run; its state says whether it ran, runs or failed.
* ``dropped beyond max_catchup_runs`` / ``dropped: catchup=False``: no run, and the run created after the gap is
  exactly the one the catch-up policy picks at the moment Airflow queued it, so the bound dropped this fire.
* ``skipped before skip_to_date``: never meant to run.
* ``due: no run yet``: after the newest run, and the scheduler would still create it if it looked now.
* ``missed: ...``: no run and the bound does not explain it (the DAG was paused, Airflow down past the bound
  "now", or the run was deleted).

Two kinds of unprocessed window are kept apart. Fires the schedule drops *by design* (the decisions in
:data:`~hops_timetable.core.decision.BY_DESIGN`: the catch-up bound, ``catchup=False``, ``skip_to_date``, before
the start, after the end) are listed and counted, and their windows form ``dropped``; they are not gaps. Windows that
*should* have been processed and were not (a failed run, a missed or overdue fire) are the ``gaps``, and windows
processed more than once the ``duplicates`` and ``overlaps``.

Each run's HOPS window is the one its tasks see, by the operators' own rule
(:func:`~hops_timetable.core.conf_window.resolve_hops_env`): a window in ``conf["hops_window"]``, else the
scheduler's window for scheduled and backfill runs, else none. The *expected* windows are those of every fire up
to now that was not dropped by design; the *processed* ones those of runs that succeeded or are in flight. Gaps are
the parts of the expected span no processed window covers (each with the reasons of the fires there), overlaps the
parts two processed windows cover, duplicates identical windows of two runs. Pure: no Airflow import.
"""

from __future__ import annotations

import itertools
from bisect import bisect_right
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from hops_timetable.core.catchup import CatchupPolicy
from hops_timetable.core.conf_window import (
    SCHEDULED_RUN_TYPES,
    HopsWindowError,
    RunWindowError,
    conf_with_form_window,
    resolve_run_window,
)
from hops_timetable.core.decision import BY_DESIGN, Decision
from hops_timetable.core.simulate import scheduled_runs
from hops_timetable.core.window import TICK, HopsWindow, as_utc, format_hops_time, hops_window, parse_hops_time

__all__ = [
    "DONE_STATES",
    "IN_FLIGHT_STATES",
    "Coverage",
    "FireCoverage",
    "History",
    "RunRecord",
    "RunWindow",
    "Span",
    "Stretch",
    "coverage",
    "history",
    "upcoming_windows",
]


DONE_STATES = frozenset({"success"})
IN_FLIGHT_STATES = frozenset({"queued", "running"})


@dataclass(frozen=True)
class RunRecord:
    """One DAG run as Airflow's REST API or metadata database gives it; datetimes aware (UTC)."""

    run_id: str
    run_type: str
    state: str
    run_after: datetime
    logical_date: datetime | None = None
    data_interval_start: datetime | None = None
    data_interval_end: datetime | None = None
    queued_at: datetime | None = None
    conf: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class RunWindow:
    """The HOPS window a run's tasks see, and where it comes from: ``scheduler``, ``conf`` or ``None``.

    ``error`` is set (and ``window`` is ``None``) when ``conf["hops_window"]`` is invalid: such a run's tasks fail.
    """

    run: RunRecord
    window: HopsWindow | None
    source: str | None
    error: str | None = None

    @property
    def processed(self) -> bool:
        """The window counts as processed: the run succeeded or is in flight."""
        return self.window is not None and (self.run.state in DONE_STATES or self.run.state in IN_FLIGHT_STATES)


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
            if self.state in DONE_STATES:
                return "ran"
            if self.state in IN_FLIGHT_STATES:
                return "running"
            return self.state or "created"
        return str(self.decision.value)

    @property
    def by_design(self) -> bool:
        """The schedule itself left this fire without a run (its bounds, skip_to_date or catch-up rule)."""
        return self.decision in BY_DESIGN

    @property
    def expected(self) -> bool:
        """Whether this window should have been processed: not dropped by design, and not only just due."""
        return not self.by_design and not self.pending


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


@dataclass(frozen=True)
class Coverage:
    """The coverage of one DAG at *now*; see the module docstring. ``truncated``: older fires were left out."""

    now: datetime
    begin: datetime | None
    fires: list[FireCoverage]
    runs: list[RunWindow]
    gaps: list[Span]
    overlaps: list[Span]
    duplicates: list[Span]
    truncated: bool = False
    counts: dict[str, int] = field(default_factory=dict)
    dropped: list[Span] = field(default_factory=list)

    @property
    def complete(self) -> bool:
        """Every expected window up to now is processed or in flight (drops by design aside)."""
        return not self.gaps

    @property
    def ok(self) -> bool:
        """Complete, and no window processed twice or in part twice: nothing went wrong that should not have."""
        return self.complete and not self.duplicates and not self.overlaps

    def missing(self) -> list[FireCoverage]:
        """The fires whose window should have been processed and was not."""
        return [f for f in self.fires if f.expected and not f.covered]

    def dropped_fires(self) -> list[FireCoverage]:
        """The fires the schedule dropped by design whose window no run processed."""
        return [f for f in self.fires if f.by_design and not f.covered]

    def verdict(self) -> str:
        """One line naming both kinds: the windows that should have run and did not, and the drops by design."""
        return _verdict(
            self.now,
            sum(1 for f in self.fires if f.expected),
            _by_status((f, 1) for f in self.missing()),
            _by_status((f, 1) for f in self.dropped_fires()),
            sum(1 for f in self.fires if f.pending),
            len(self.gaps),
            len(self.duplicates),
            len(self.overlaps),
        )

    def as_json(self) -> dict[str, Any]:
        return {
            "now": format_hops_time(self.now),
            "begin": None if self.begin is None else format_hops_time(self.begin),
            "complete": self.complete,
            "ok": self.ok,
            "verdict": self.verdict(),
            "expected_windows": sum(1 for f in self.fires if f.expected),
            "missing_windows": len(self.missing()),
            "dropped_by_design": len(self.dropped_fires()),
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


def run_window(run: RunRecord, offset_seconds: int | None, policy: CatchupPolicy | None = None) -> RunWindow:
    """The HOPS window *run*'s tasks see, by the operators' rule (operator ``env`` aside, which runs do not record).

    *policy* is the DAG's schedule: a backfill's takeover of a manual run processes the scheduled window of its
    logical date, which only the schedule knows (without it, the interval the run carries is read).
    """
    interval = None
    if run.data_interval_start is not None and run.data_interval_end is not None:
        interval = (run.data_interval_start, run.data_interval_end)

    def replay(logical_date: datetime) -> HopsWindow | None:
        assert policy is not None
        scheduled = policy.scheduled_run_at(logical_date)
        return None if scheduled is None else hops_window(scheduled.interval_start, scheduled.fire, offset_seconds)

    try:
        env, source = resolve_run_window(
            run_type=run.run_type,
            data_interval=interval,
            conf=conf_with_form_window(run.conf),
            offset_seconds=offset_seconds,
            run_after=run.run_after,
            logical_date=run.logical_date,
            replay=None if policy is None else replay,
            run_id=run.run_id,
        )
    except HopsWindowError as exc:
        return RunWindow(run, None, "conf", str(exc))
    except RunWindowError as exc:
        return RunWindow(run, None, None, str(exc))
    if not env:
        return RunWindow(run, None, None)
    window = HopsWindow(
        start=_env_time(env["HOPS_START_TIME"]),
        end=_env_time(env["HOPS_END_TIME"]),
        logical_date=_env_time(env["HOPS_LOGICAL_DATE"]),
    )
    return RunWindow(run, window, "conf" if source == "conf" else "scheduler")


def _env_time(text: str) -> datetime:
    """A ``HOPS_*`` value read back; ``fromisoformat`` does it in a tenth of ``strptime``'s time."""
    value = datetime.fromisoformat(text[:-1] + "+00:00") if text.endswith("Z") else parse_hops_time(text)
    return as_utc(value)


_STATE_RANK = {"success": 3, "running": 2, "queued": 1}


def _best_state(runs: Sequence[RunRecord]) -> str:
    return max(runs, key=lambda r: _STATE_RANK.get(r.state, 0)).state


class _Rules:
    """What the runs of one DAG say about any of its fires: the one place a fire's decision and coverage are made.

    Built once from the runs (``O(runs log runs)``); each fire is then answered by bisection, so the cost of a
    timeline is its number of fires times ``log(runs)``, or, for :func:`history`, its number of runs and stretches.
    """

    def __init__(
        self,
        policy: CatchupPolicy,
        catchup: bool,
        offset_seconds: int | None,
        runs: Iterable[RunRecord],
        now: datetime,
        due_grace: timedelta,
    ) -> None:
        self.policy = policy
        self.catchup = catchup
        self.offset = offset_seconds
        self.now = as_utc(now)
        self.grace_limit = self.now - due_grace
        self.records = sorted(runs, key=lambda r: (as_utc(r.run_after), r.run_id))
        self.windows = [run_window(r, offset_seconds, policy) for r in self.records]
        by_fire: dict[datetime, list[RunRecord]] = defaultdict(list)
        for record in self.records:
            if record.run_type in SCHEDULED_RUN_TYPES and record.data_interval_end is not None:
                by_fire[as_utc(record.data_interval_end)].append(record)
        self.by_fire = dict(by_fire)
        self.processed = _merge_spans(
            (r.window.start, r.window.end) for r in self.windows if r.processed and r.window is not None
        )
        self.processed_starts = [lo for lo, _ in self.processed]
        scheduled = sorted(
            (fire, min((r.queued_at for r in rs if r.queued_at is not None), default=None))
            for fire, rs in self.by_fire.items()
            if any(r.run_type == "scheduled" for r in rs)
        )
        self.scheduled_fires = [fire for fire, _ in scheduled]
        self.scheduled_queued = [queued for _, queued in scheduled]
        self.dropped = Decision.DROPPED_BOUND if catchup else Decision.DROPPED_NO_CATCHUP
        newest_run = self.scheduled_fires[-1] if scheduled else None
        due = policy.next_run(newest_run, self.now, catchup=catchup)
        self.due_from = None if due is None else due.fire
        self._gap_decisions: dict[int, Decision] = {}
        self._overlaps: tuple[list[Span], list[Span]] | None = None

    def decide(self, fire: datetime) -> Decision:
        """The decision of *fire*; see the module docstring."""
        if fire in self.by_fire:
            return Decision.CREATED
        why = self.policy.classify(fire)
        if why is not Decision.ELIGIBLE:
            return why
        index = bisect_right(self.scheduled_fires, fire)  # the first scheduled run with a fire after this one
        if index < len(self.scheduled_fires):
            if index not in self._gap_decisions:
                # The run after the gap: the bound explains the gap if the policy, asked when Airflow queued that
                # run, picks exactly it. One question per gap, whatever the number of fires in it.
                previous = self.scheduled_fires[index - 1] if index > 0 else None
                queued = self.scheduled_queued[index]
                picked = None if queued is None else self.policy.next_run(previous, queued, catchup=self.catchup)
                explained = picked is not None and picked.fire == self.scheduled_fires[index]
                self._gap_decisions[index] = self.dropped if explained else Decision.MISSED
            return self._gap_decisions[index]
        if self.due_from is not None and fire >= self.due_from:
            return Decision.DUE
        return Decision.MISSED

    def fire(self, fire: datetime) -> FireCoverage:
        """Everything known of *fire*."""
        decision = self.decide(fire)
        interval_start = self.policy.interval_start(fire)
        window = hops_window(interval_start, fire, self.offset)
        own = self.by_fire.get(fire, [])
        return FireCoverage(
            fire=fire,
            decision=decision,
            interval_start=interval_start,
            window=window,
            run_ids=tuple(r.run_id for r in own),
            state=_best_state(own) if own else None,
            covered=_inside(self.processed, self.processed_starts, window.start, window.end),
            pending=decision is Decision.DUE and fire > self.grace_limit,
        )

    def overlaps(self) -> tuple[list[Span], list[Span]]:
        """The overlaps and duplicates of the processed windows, worked out once."""
        if self._overlaps is None:
            self._overlaps = _overlaps(self.windows)
        return self._overlaps

    def cuts(self, offset_seconds: int | None) -> list[datetime]:
        """The instants where what :meth:`fire` says may change, as the ends of stretches ``(.., c]``.

        Between two of them every fire without a run has the same decision (the policy's start, skip_to_date and
        end; the scheduled run after it; the first fire still due; the grace period) and the same coverage, except
        the first fire after a cut, whose window starts before it: the processed spans' ends, moved by the offset,
        since a fire's window ``[previous fire - offset, fire - offset)`` lies inside ``[lo, hi)`` exactly when
        ``lo + offset <= previous fire`` and ``fire <= hi + offset``. Every fire with a run ends a stretch too.
        """
        policy = self.policy
        shift = timedelta(seconds=offset_seconds or 0)
        cuts: list[datetime] = [*self.by_fire, self.grace_limit]
        cuts += [t for t in (policy.start,) if t is not None]
        cuts += [t - TICK for t in (policy.skip_to, policy.end, self.due_from) if t is not None]
        for lo, hi in self.processed:
            cuts += [lo + shift, hi + shift]
        cuts += [fire - TICK for fire in self.by_fire]
        return sorted(set(cuts))


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
    due_grace: timedelta = timedelta(minutes=1),
) -> Coverage:
    """The coverage at *now* of a DAG scheduled by *policy* (with *catchup* and the HOPS offset) that has *runs*.

    The timeline begins at the policy's start (or, without one, at the data interval start of the oldest scheduled
    run) or at *since* if that is later, and ends at *now* or at *until* if that is earlier (a page of the
    history: decisions, coverage and gaps are those of the whole history, cut to it); when more than *max_fires*
    fires lie in it, only the newest are kept and ``truncated`` is set. A fire that became due less than
    *due_grace* before *now* and has no run yet is ``pending``: listed, but neither a gap nor counted, since the
    scheduler creates runs a moment after their fire. Raises ``ValueError`` for ``max_fires < 1``.
    """
    rules = _Rules(policy, catchup, offset_seconds, runs, now, due_grace)
    return _coverage(rules, since, until, max_fires)


def _coverage(rules: _Rules, since: datetime | None, until: datetime | None, max_fires: int) -> Coverage:
    if max_fires < 1:
        raise ValueError(f"max_fires={max_fires} is invalid: it must be >= 1")
    policy = rules.policy
    now = rules.now
    begin = _begin(policy, rules.records, since)
    fires: list[datetime] = []
    truncated = False
    if begin is not None:
        upto = now if until is None else min(now, as_utc(until))
        fires, truncated = _fires(policy, begin, upto, max_fires)
    result = [rules.fire(fire) for fire in fires]
    gaps = _gaps([f for f in result if f.expected], rules.processed)
    dropped = _gaps([f for f in result if f.by_design], rules.processed)
    overlaps, duplicates = rules.overlaps()
    counts: dict[str, int] = defaultdict(int)
    for item in result:
        counts[item.status] += 1
    return Coverage(now, begin, result, rules.windows, gaps, overlaps, duplicates, truncated, dict(counts), dropped)


def _begin(policy: CatchupPolicy, records: Sequence[RunRecord], since: datetime | None) -> datetime | None:
    begin = policy.start
    if begin is None:
        starts = [
            as_utc(r.data_interval_start)
            for r in records
            if r.run_type in SCHEDULED_RUN_TYPES and r.data_interval_start is not None
        ]
        begin = min(starts) if starts else None
    if since is not None and (begin is None or as_utc(since) > begin):
        begin = as_utc(since)
    return begin


def _span_of_fires(policy: CatchupPolicy, begin: datetime, now: datetime) -> tuple[datetime, datetime] | None:
    """The first and the newest fire in ``(begin, now]`` before the end."""
    upto = now if policy.end is None else min(now, policy.end - TICK)
    newest = policy.cron.prev_before(upto + TICK)
    first = policy.cron.next_after(begin)
    if newest is None or first is None or first > newest:
        return None
    return first, newest


def _fires(policy: CatchupPolicy, begin: datetime, now: datetime, cap: int) -> tuple[list[datetime], bool]:
    """Fires in ``(begin, now]`` before the end, at most the newest *cap*."""
    span = _span_of_fires(policy, begin, now)
    if span is None:
        return [], False
    first, newest = span
    oldest = newest if cap == 1 else policy.cron.nth_before(newest, cap - 1)
    truncated = oldest is not None and oldest > first
    fire: datetime | None = oldest if truncated else first
    out: list[datetime] = []
    while fire is not None and fire <= newest:
        out.append(fire)
        fire = policy.cron.next_after(fire)
    return out, truncated


def _merge_spans(spans: Iterable[tuple[datetime, datetime]]) -> list[tuple[datetime, datetime]]:
    merged: list[tuple[datetime, datetime]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def _inside(
    merged: Sequence[tuple[datetime, datetime]], starts: Sequence[datetime], lo: datetime, hi: datetime
) -> bool:
    """Whether ``[lo, hi)`` lies inside one of the disjoint, sorted *merged* spans (*starts*: their starts)."""
    # Only the last span starting at or before lo can hold it: the spans are disjoint and sorted.
    index = bisect_right(starts, lo) - 1
    return index >= 0 and hi <= merged[index][1]


def _holes(
    wanted: Sequence[tuple[datetime, datetime]], processed: Sequence[tuple[datetime, datetime]]
) -> list[tuple[datetime, datetime]]:
    """The parts of the merged spans *wanted* that no merged span of *processed* covers; both sorted and disjoint."""
    holes: list[tuple[datetime, datetime]] = []
    index = 0
    for lo, hi in wanted:
        # Processed spans ending at or before lo cannot touch this or any later wanted span.
        while index < len(processed) and processed[index][1] <= lo:
            index += 1
        cursor = lo
        scan = index
        while scan < len(processed) and processed[scan][0] < hi:
            plo, phi = processed[scan]
            if plo > cursor:
                holes.append((cursor, plo))
            cursor = max(cursor, phi)
            scan += 1
        if cursor < hi:
            holes.append((cursor, hi))
    return holes


def _by_status(items: Iterable[tuple[FireCoverage, int]]) -> dict[str, int]:
    """Fires counted by status: each item a fire and how many fires read like it."""
    why: dict[str, int] = defaultdict(int)
    for fire, count in items:
        why[fire.status] += count
    return dict(why)


def _verdict(
    now: datetime,
    expected: int,
    missing: Mapping[str, int],
    dropped: Mapping[str, int],
    pending: int,
    gaps: int,
    duplicates: int,
    overlaps: int,
) -> str:
    """The one-line verdict of :class:`Coverage` and :class:`History`, from their counts."""

    def listed(counts: Mapping[str, int]) -> str:
        return ", ".join(f"{n:,} {why}" for why, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))

    n_dropped = sum(dropped.values())
    design = f"{n_dropped:,} dropped by design ({listed(dropped)})" if n_dropped else "none dropped by design"
    twice = [f"{duplicates:,} window(s) processed more than once"] if duplicates else []
    twice += [f"{overlaps:,} overlap(s)"] if overlaps else []
    upto = format_hops_time(now)
    if missing:
        head = f"gaps found: {sum(missing.values()):,} of {expected:,} expected window(s) not processed "
        return head + f"({listed(missing)}); " + "; ".join([f"{gaps:,} gap(s)", *twice, design])
    if twice:
        return f"overlaps found: all {expected:,} expected window(s) up to {upto} processed; " + "; ".join(
            [*twice, design]
        )
    tail = f" ({pending:,} fire(s) due a moment ago, run not created yet)" if pending else ""
    return f"complete: all {expected:,} expected window(s) up to {upto} processed{tail}; {design}"


def _gaps(expected: Sequence[FireCoverage], processed: Sequence[tuple[datetime, datetime]]) -> list[Span]:
    """The parts of the windows of *expected* (fires in order) that no processed window covers, with their reasons."""
    holes = _holes(_merge_spans((f.window.start, f.window.end) for f in expected), processed)
    # Windows follow the fires: their starts and their ends both grow with the fire, and so do the holes, so one
    # pass finds the fires each hole meets.
    gaps = []
    first = 0
    for lo, hi in holes:
        while first < len(expected) and expected[first].window.end <= lo:
            first += 1
        there = []
        index = first
        while index < len(expected) and expected[index].window.start < hi:
            if lo < expected[index].window.end:
                there.append(expected[index])
            index += 1
        reasons = tuple(dict.fromkeys(f.status for f in there))
        run_ids = tuple(dict.fromkeys(r for f in there for r in f.run_ids))
        gaps.append(Span(lo, hi, reasons, run_ids))
    return gaps


def _overlaps(windows: Sequence[RunWindow]) -> tuple[list[Span], list[Span]]:
    """Stretches covered by two or more processed windows, and identical windows of two or more runs."""
    done = [w for w in windows if w.processed and w.window is not None]
    same: dict[tuple[datetime, datetime], list[str]] = defaultdict(list)
    for w in done:
        assert w.window is not None
        same[(w.window.start, w.window.end)].append(w.run.run_id)
    duplicates = [Span(s, e, ("processed more than once",), tuple(ids)) for (s, e), ids in sorted(same.items())]
    duplicates = [d for d in duplicates if len(d.run_ids) > 1]
    # Sweep over window edges, counting how many windows are open.
    edges: list[tuple[datetime, int, str]] = []
    for w in done:
        assert w.window is not None
        edges += [(w.window.start, 1, w.run.run_id), (w.window.end, -1, w.run.run_id)]
    edges.sort(key=lambda e: (e[0], e[1]))
    open_ids: list[str] = []
    overlaps: list[Span] = []
    previous: datetime | None = None
    for at, step, run_id in edges:
        if previous is not None and at > previous and len(open_ids) > 1:
            ids = tuple(sorted(open_ids))
            if overlaps and overlaps[-1].end == previous and overlaps[-1].run_ids == ids:
                overlaps[-1] = Span(overlaps[-1].start, at, overlaps[-1].reasons, ids)
            else:
                overlaps.append(Span(previous, at, ("covered by more than one run",), ids))
        if step > 0:
            open_ids.append(run_id)
        else:
            open_ids.remove(run_id)
        previous = at
    return overlaps, duplicates


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
        span = format_hops_time(self.first)
        if self.count > 1:
            span += f" .. {format_hops_time(self.last)}"
        covered = (
            " (covered by other runs)" if self.sample.covered and self.sample.decision is not Decision.CREATED else ""
        )
        return f"{span}: {self.count:,} window(s) {self.sample.status}{covered}"

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
    """A DAG's whole history at *now* as :class:`Stretch` es: what :func:`coverage` says, at a cost set by the runs.

    ``fires`` is the number of fires; ``gaps`` and ``dropped`` as in :class:`Coverage`, over the whole history.
    """

    now: datetime
    begin: datetime | None
    stretches: list[Stretch]
    gaps: list[Span]
    dropped: list[Span]
    duplicates: int
    overlaps: int
    policy: CatchupPolicy
    rules: _Rules = field(repr=False, compare=False)

    @property
    def fires(self) -> int:
        return sum(s.count for s in self.stretches)

    @property
    def complete(self) -> bool:
        return not self.gaps

    @property
    def ok(self) -> bool:
        return self.complete and not self.duplicates and not self.overlaps

    def counts(self) -> dict[str, int]:
        """Fires by status."""
        return _by_status((s.sample, s.count) for s in self.stretches)

    def verdict(self) -> str:
        """The verdict :meth:`Coverage.verdict` gives for the same history, uncapped."""
        return _verdict(
            self.now,
            sum(s.count for s in self.stretches if s.sample.expected),
            _by_status((s.sample, s.count) for s in self.stretches if s.sample.expected and not s.sample.covered),
            _by_status((s.sample, s.count) for s in self.stretches if s.sample.by_design and not s.sample.covered),
            sum(s.count for s in self.stretches if s.sample.pending),
            len(self.gaps),
            self.duplicates,
            self.overlaps,
        )

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
        return _coverage(self.rules, since, until, max_fires)

    def expand(self, stretch: Stretch) -> list[FireCoverage]:
        """Every fire of *stretch*, one by one (the cost of its length)."""
        out = []
        fire: datetime | None = stretch.first
        while fire is not None and fire <= stretch.last:
            out.append(self.rules.fire(fire))
            fire = self.policy.cron.next_after(fire)
        return out

    def fire_after(self, stretch: Stretch) -> FireCoverage | None:
        """The fire right after *stretch*, if the history has it."""
        fire = self.policy.cron.next_after(stretch.last)
        return None if fire is None or fire > self.stretches[-1].last else self.rules.fire(fire)

    def older_than(self, fire: datetime) -> list[Stretch]:
        """The stretches of the fires before *fire*, the one holding it cut short."""
        out = []
        for stretch in self.stretches:
            if stretch.first >= fire:
                break
            if stretch.last < fire:
                out.append(stretch)
                continue
            last = self.policy.cron.prev_before(fire)
            assert last is not None
            count = _count(self.policy.cron, stretch.first, last)
            shift = stretch.window_end - stretch.last
            out.append(Stretch(stretch.sample, last, count, last + shift))
        return out


def history(
    policy: CatchupPolicy,
    catchup: bool,
    offset_seconds: int | None,
    runs: Iterable[RunRecord],
    now: datetime,
    *,
    since: datetime | None = None,
    due_grace: timedelta = timedelta(minutes=1),
) -> History:
    """The whole history of :func:`coverage`, uncapped, as stretches of fires that read alike.

    The fires are cut only where an answer may change (:meth:`_Rules.cuts`: the runs, the processed spans, the
    policy's bounds), each piece asked about its first, second and last fire and its length counted by the cron,
    so the cost grows with the runs, not with the fires: a million fires of a bounded catch-up cost what its few
    dozen runs cost.
    """
    rules = _Rules(policy, catchup, offset_seconds, runs, now, due_grace)
    begin = _begin(policy, rules.records, since)
    stretches: list[Stretch] = []
    span = None if begin is None else _span_of_fires(policy, begin, rules.now)
    if span is not None:
        first, newest = span
        low = first - TICK
        for cut in [*(c for c in rules.cuts(offset_seconds) if first <= c < newest), newest]:
            for stretch in _piece(rules, low, cut):
                _push(stretches, stretch)
            low = cut

    def spans(keep: Callable[[FireCoverage], bool]) -> list[Span]:
        chosen = [s for s in stretches if keep(s.sample) and not s.sample.covered]
        wanted = _merge_spans((s.sample.window.start, s.window_end) for s in chosen)
        holes = _holes(wanted, rules.processed)
        out = []
        index = 0
        for lo, hi in holes:
            while index < len(chosen) and chosen[index].window_end <= lo:
                index += 1
            there: list[str] = []
            scan = index
            while scan < len(chosen) and chosen[scan].sample.window.start < hi:
                there.append(chosen[scan].sample.status)
                scan += 1
            out.append(Span(lo, hi, tuple(dict.fromkeys(there))))
        return out

    overlaps, duplicates = rules.overlaps()
    return History(
        rules.now,
        begin,
        stretches,
        spans(lambda f: f.expected),
        spans(lambda f: f.by_design),
        len(duplicates),
        len(overlaps),
        policy,
        rules,
    )


def _piece(rules: _Rules, low: datetime, high: datetime) -> list[Stretch]:
    """The fires in ``(low, high]``: the first and the last asked one by one, the rest as the second says."""
    cron = rules.policy.cron
    first = cron.next_after(low)
    if first is None or first > high:
        return []
    last = cron.prev_before(high + TICK)
    assert last is not None
    shift = timedelta(seconds=rules.offset or 0)
    out = [_single(rules.fire(first))]
    if last == first:
        return out
    second = cron.next_after(first)
    assert second is not None
    if second < last:
        before_last = cron.prev_before(last)
        assert before_last is not None
        sample = rules.fire(second)
        out.append(Stretch(sample, before_last, _count(cron, second, before_last), before_last - shift))
    out.append(_single(rules.fire(last)))
    return out


def _single(fire: FireCoverage) -> Stretch:
    return Stretch(fire, fire.fire, 1, fire.window.end)


def _push(stretches: list[Stretch], stretch: Stretch) -> None:
    """Append *stretch*, joined to the one before when every fire of both reads alike."""
    if stretches and stretches[-1].key() == stretch.key():
        top = stretches[-1]
        stretches[-1] = Stretch(top.sample, stretch.last, top.count + stretch.count, stretch.window_end)
    else:
        stretches.append(stretch)


def _count(cron: Any, first: datetime, last: datetime) -> int:
    """The number of fires in ``[first, last]``, both fires, in about ``2 log2(n)`` backward counts of the cron."""
    end = last + TICK
    fire: datetime | None = first
    for n in range(1, 65):
        # Short stretches are walked, long ones searched.
        fire = cron.next_after(fire)
        if fire is None or fire > last:
            return n
    low, high = 64, 128
    while (found := cron.nth_before(end, high)) is not None and found >= first:
        low, high = high, high * 2
    while high - low > 1:
        middle = (low + high) // 2
        found = cron.nth_before(end, middle)
        if found is not None and found >= first:
            low = middle
        else:
            high = middle
    return low


def upcoming_windows(
    policy: CatchupPolicy, catchup: bool, offset_seconds: int | None, last_fire: datetime | None, now: datetime, n: int
) -> list[tuple[datetime, datetime, HopsWindow]]:
    """The next *n* runs as (fire, interval start, HOPS window), as the scheduler would make them from *now* on."""
    runs = itertools.islice(scheduled_runs(policy, last_fire, now, catchup=catchup), n)
    return [(run.fire, run.interval_start, hops_window(run.interval_start, run.fire, offset_seconds)) for run in runs]
