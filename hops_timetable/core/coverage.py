"""Coverage of a DAG's data windows: which HOPS windows have been processed, which are missing, and why.

Given a DAG's schedule and its runs as Airflow recorded them (run type, state, data interval, ``conf``), every cron
fire from the DAG's start to *now* gets one decision, in the outage simulator's vocabulary
(:class:`~hops_timetable.core.simulate.Decision`):

* ``created``: the fire has a scheduled or backfill run; its state says whether it ran, runs or failed.
* ``dropped beyond max_catchup_runs`` / ``dropped: catchup=False``: no run, and the run created after the gap is
  exactly the one the catch-up policy picks at the moment Airflow queued it, so the bound dropped this fire.
* ``skipped before skip_to_date``: never meant to run.
* ``due: no run yet``: after the newest run, and the scheduler would still create it if it looked now.
* ``missed: ...``: no run and the bound does not explain it (the DAG was paused, Airflow down past the bound
  "now", or the run was deleted).

Two kinds of unprocessed window are kept apart. Fires the schedule drops *by design* (the decisions in
:data:`~hops_timetable.core.simulate.BY_DESIGN`: the catch-up bound, ``catchup=False``, ``skip_to_date``, before
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
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from hops_timetable.core.catchup import CatchupPolicy, FireDecision
from hops_timetable.core.conf_window import (
    SCHEDULED_RUN_TYPES,
    HopsWindowError,
    RunWindowError,
    conf_with_form_window,
    resolve_run_window,
)
from hops_timetable.core.simulate import BY_DESIGN, Decision, scheduled_runs
from hops_timetable.core.window import TICK, HopsWindow, as_utc, format_hops_time, hops_window, parse_hops_time

__all__ = [
    "DONE_STATES",
    "IN_FLIGHT_STATES",
    "Coverage",
    "FireCoverage",
    "RunRecord",
    "RunWindow",
    "Span",
    "coverage",
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
        expected = sum(1 for f in self.fires if f.expected)
        dropped = _tally(self.dropped_fires())
        design = f"{dropped[0]} dropped by design ({dropped[1]})" if dropped[0] else "none dropped by design"
        twice = []
        if self.duplicates:
            twice.append(f"{len(self.duplicates)} window(s) processed more than once")
        if self.overlaps:
            twice.append(f"{len(self.overlaps)} overlap(s)")
        upto = format_hops_time(self.now)
        if not self.complete:
            missing = _tally(self.missing())
            head = f"gaps found: {missing[0]} of {expected} expected window(s) not processed ({missing[1]}); "
            return head + "; ".join([f"{len(self.gaps)} gap(s)", *twice, design])
        if twice:
            return f"overlaps found: all {expected} expected window(s) up to {upto} processed; " + "; ".join(
                [*twice, design]
            )
        pending = sum(1 for f in self.fires if f.pending)
        tail = f" ({pending} fire(s) due a moment ago, run not created yet)" if pending else ""
        return f"complete: all {expected} expected window(s) up to {upto} processed{tail}; {design}"

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


def coverage(
    policy: CatchupPolicy,
    catchup: bool,
    offset_seconds: int | None,
    runs: Iterable[RunRecord],
    now: datetime,
    *,
    since: datetime | None = None,
    max_fires: int = 100_000,
    due_grace: timedelta = timedelta(minutes=1),
) -> Coverage:
    """The coverage at *now* of a DAG scheduled by *policy* (with *catchup* and the HOPS offset) that has *runs*.

    The timeline begins at the policy's start (or, without one, at the data interval start of the oldest scheduled
    run) or at *since* if that is later; when more than *max_fires* fires lie in it, only the newest are kept and
    ``truncated`` is set. A fire that became due less than *due_grace* before *now* and has no run yet is
    ``pending``: listed, but neither a gap nor counted, since the scheduler creates runs a moment after their fire.
    Raises ``ValueError`` for ``max_fires < 1``.
    """
    if max_fires < 1:
        raise ValueError(f"max_fires={max_fires} is invalid: it must be >= 1")
    now = as_utc(now)
    records = sorted(runs, key=lambda r: (as_utc(r.run_after), r.run_id))
    windows = [run_window(r, offset_seconds, policy) for r in records]
    by_fire: dict[datetime, list[RunRecord]] = defaultdict(list)
    for record in records:
        if record.run_type in SCHEDULED_RUN_TYPES and record.data_interval_end is not None:
            by_fire[as_utc(record.data_interval_end)].append(record)
    begin = _begin(policy, records, since)
    fires: list[datetime] = []
    truncated = False
    if begin is not None:
        fires, truncated = _fires(policy, begin, now, max_fires)
    processed = _merge_spans((r.window.start, r.window.end) for r in windows if r.processed and r.window is not None)
    processed_starts = [lo for lo, _ in processed]
    decisions = _decide(policy, catchup, fires, by_fire, now)
    result: list[FireCoverage] = []
    for fire, decision in zip(fires, decisions, strict=True):
        interval_start = policy.interval_start(fire)
        window = hops_window(interval_start, fire, offset_seconds)
        own = by_fire.get(fire, [])
        result.append(
            FireCoverage(
                fire=fire,
                decision=decision,
                interval_start=interval_start,
                window=window,
                run_ids=tuple(r.run_id for r in own),
                state=_best_state(own) if own else None,
                covered=_inside(processed, processed_starts, window.start, window.end),
                pending=decision is Decision.DUE and fire > now - due_grace,
            )
        )
    gaps = _gaps([f for f in result if f.expected], processed)
    dropped = _gaps([f for f in result if f.by_design], processed)
    overlaps, duplicates = _overlaps(windows)
    counts: dict[str, int] = defaultdict(int)
    for item in result:
        counts[item.status] += 1
    return Coverage(now, begin, result, windows, gaps, overlaps, duplicates, truncated, dict(counts), dropped)


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


def _fires(policy: CatchupPolicy, begin: datetime, now: datetime, cap: int) -> tuple[list[datetime], bool]:
    """Fires in ``(begin, now]`` before the end, at most the newest *cap*."""
    upto = now if policy.end is None else min(now, policy.end - TICK)
    newest = policy.cron.prev_before(upto + TICK)
    first = policy.cron.next_after(begin)
    if newest is None or first is None or first > newest:
        return [], False
    oldest = newest if cap == 1 else policy.cron.nth_before(newest, cap - 1)
    truncated = oldest is not None and oldest > first
    fire: datetime | None = oldest if truncated else first
    out: list[datetime] = []
    while fire is not None and fire <= newest:
        out.append(fire)
        fire = policy.cron.next_after(fire)
    return out, truncated


def _decide(
    policy: CatchupPolicy,
    catchup: bool,
    fires: Sequence[datetime],
    by_fire: Mapping[datetime, Sequence[RunRecord]],
    now: datetime,
) -> list[Decision]:
    """A decision per fire; see the module docstring."""
    scheduled = sorted(
        (fire, min((r.queued_at for r in rs if r.queued_at is not None), default=None))
        for fire, rs in by_fire.items()
        if any(r.run_type == "scheduled" for r in rs)
    )
    dropped = Decision.DROPPED_BOUND if catchup else Decision.DROPPED_NO_CATCHUP
    out: list[Decision] = []
    newest_run = scheduled[-1][0] if scheduled else None
    pending = policy.next_fire(newest_run, now, catchup=catchup)
    index = 0  # scheduled[index] is the first scheduled run with a fire after the current one
    for fire in fires:
        while index < len(scheduled) and scheduled[index][0] <= fire:
            index += 1
        why = policy.classify(fire)
        if fire in by_fire:
            out.append(Decision.CREATED)
        elif why is FireDecision.BEFORE_SKIP_TO_DATE:
            out.append(Decision.BEFORE_SKIP_TO_DATE)
        elif why is not FireDecision.ELIGIBLE:
            out.append(Decision.BEFORE_START if why is FireDecision.BEFORE_START else Decision.AFTER_END)
        elif index < len(scheduled):
            # The run after the gap: the bound explains the gap if the policy, asked when Airflow queued that run,
            # picks exactly it.
            previous = scheduled[index - 1][0] if index > 0 else None
            after_fire, queued = scheduled[index]
            picked = None if queued is None else policy.next_fire(previous, queued, catchup=catchup)
            out.append(dropped if picked == after_fire else Decision.MISSED)
        elif pending is not None and fire >= pending:
            out.append(Decision.DUE)
        else:
            out.append(Decision.MISSED)
    return out


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


def _tally(fires: Sequence[FireCoverage]) -> tuple[int, str]:
    """How many *fires*, and their statuses counted, the commonest first."""
    why: dict[str, int] = defaultdict(int)
    for fire in fires:
        why[fire.status] += 1
    return len(fires), ", ".join(f"{n} {reason}" for reason, n in sorted(why.items(), key=lambda kv: -kv[1]))


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


def upcoming_windows(
    policy: CatchupPolicy, catchup: bool, offset_seconds: int | None, last_fire: datetime | None, now: datetime, n: int
) -> list[tuple[datetime, datetime, HopsWindow]]:
    """The next *n* runs as (fire, interval start, HOPS window), as the scheduler would make them from *now* on."""
    runs = itertools.islice(scheduled_runs(policy, last_fire, now, catchup=catchup), n)
    return [(run.fire, run.interval_start, hops_window(run.interval_start, run.fire, offset_seconds)) for run in runs]
