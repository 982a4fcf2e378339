"""Fire by fire: did Hopsworks and Airflow process the same HOPS windows, and where not, why (each status:
docs/cli.md). Manual runs without a window are listed, never counted. Linear in the runs and fires. Pure."""

from __future__ import annotations

import heapq
import itertools
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from operator import attrgetter, itemgetter
from typing import Any, Final, TypeVar

from hops_timetable.core.decision import Verdict
from hops_timetable.core.parity.replay import Plan, Planned
from hops_timetable.core.window import HOPS_ENV_KEYS, HopsWindow

CLASSES: Final = (  # the statuses, in the summary's order
    *("match", "match_retried", "differs", "missing_in_airflow", "missing_in_hopsworks"),
    *("duplicate_in_hopsworks", "duplicate_in_airflow", "failed_in_hopsworks", "failed_in_airflow", "failed_in_both"),
    *("in_flight", "not_compared"),
)
SIDES: Final = ("hopsworks", "airflow")
_T = TypeVar("_T")
AGREE: Final = frozenset({"match", "match_retried"})
INCONCLUSIVE: Final = frozenset({"in_flight", "not_compared"})
_INELIGIBLE: Final = frozenset({"before start", "after end", "skip_to_date"})  # outside the schedule: a row only if run


class Lazy(Sequence[_T]):
    """A sequence whose items *make* makes again each time they are read (never stored); indexing walks them."""

    def __init__(self, make: Callable[[], Iterator[_T]], length: int | None = None) -> None:
        self._make, self._length = make, length

    def __iter__(self) -> Iterator[_T]:
        return self._make()

    def __len__(self) -> int:
        if self._length is None:
            self._length = sum(1 for _ in self._make())
        return self._length

    def __getitem__(self, index: int | slice) -> Any:
        if isinstance(index, slice):
            return list(self)[index]
        at = index + len(self) if index < 0 else index
        for item in itertools.islice(self._make(), at, None) if at >= 0 else ():
            return item
        raise IndexError(index)

    def __repr__(self) -> str:
        return f"Lazy({list(self)!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Sequence) and list(self) == list(other)

    __hash__ = None  # type: ignore[assignment]


class Ordered(Lazy[_T]):
    """Runs on no fire first, then in fire order: :func:`compare` sorts others."""


@dataclass(frozen=True, slots=True)
class SideRun:
    """One run of one side: the fire it ran for (``None``: manual), its window, ``succeeded``/``failed``/``running``."""

    run_id: str
    fire: datetime | None
    window: HopsWindow | None
    outcome: str
    attempts: int = 1
    why: str = ""
    derived: tuple[str, ...] = ()  # the HOPS_* values of the window taken from the schedule, not from the export


@dataclass(frozen=True, slots=True)
class Row:
    """One fire and its classification; ``accepted`` is the signed-off reason when the difference is accepted."""

    fire: datetime
    status: str
    hopsworks: HopsWindow | None = None
    airflow: HopsWindow | None = None
    hopsworks_runs: tuple[str, ...] = ()
    airflow_runs: tuple[str, ...] = ()
    how: str | None = None
    hint: str | None = None
    explained_by: str | None = None
    why: str | None = None
    accepted: str | None = None
    derived: tuple[str, ...] = ()  # the Hopsworks window's values derived from the schedule, not observed

    @property
    def counts_as_difference(self) -> bool:
        return self.status not in AGREE and self.status not in INCONCLUSIVE and self.accepted is None


@dataclass
class Report:
    """The rows (made again each time they are read: a million held take hundreds of megabytes), counted.
    ``notes`` keep an agreement from being a verdict; ``incomplete`` (a missing page) leaves nothing decided."""

    start: datetime
    end: datetime
    rows: Sequence[Row]
    summary: dict[str, int]
    differ: int = 0
    derived: tuple[str, ...] = ()
    manual: list[tuple[str, SideRun]] = field(default_factory=list)
    unplaced: list[tuple[str, SideRun]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    unused_acceptances: list[tuple[str, str]] = field(default_factory=list)
    incomplete: list[str] = field(default_factory=list)

    @property
    def exit_status(self) -> Verdict:
        if self.differ and not self.incomplete:
            return Verdict.DIFFERENCES
        undecided = self.incomplete or any(self.summary[name] for name in INCONCLUSIVE)
        if undecided or self.unplaced or self.notes or not self.rows:
            return Verdict.INCONCLUSIVE
        return Verdict.OK

    def verdict(self) -> str:
        status, s, n = self.exit_status, self.summary, len(self.rows)
        agree = s["match"] + s["match_retried"]
        if status == Verdict.OK:
            retried = f" ({s['match_retried']} after a retry)" if s["match_retried"] else ""
            return f"parity: all {n} fire(s) agree{retried}"
        if status == Verdict.DIFFERENCES:
            kinds = ", ".join(f"{v} {k}" for k, v in s.items() if v and k not in AGREE)
            return f"differences: {self.differ} of {n} fire(s) differ ({kinds}); {agree} agree"
        why = list(self.incomplete)
        if self.incomplete and self.differ:
            why.append(f"{self.differ} fire(s) differ, which the executions missing from the export may explain")
        why += [f"{v} {k}" for k, v in s.items() if v and k in INCONCLUSIVE]
        why += [f"{len(self.unplaced)} execution(s) not placed on a fire"] if self.unplaced else []
        why += self.notes + (["no fire in range"] if not n else [])
        return f"inconclusive: {'; '.join(why)}; {agree} of {n} fire(s) agree"


def compare(
    start: datetime,
    end: datetime,
    hopsworks_plan: Plan,
    airflow_plan: Plan,
    hopsworks: Sequence[SideRun],
    airflow: Sequence[SideRun],
    accepted: Mapping[tuple[datetime, str], str] | None = None,
) -> Report:
    """The report of the two sides over ``[start, end)``; runs other than :class:`Ordered` are sorted first."""
    manual, unplaced = list[tuple[str, SideRun]](), list[tuple[str, SideRun]]()
    covering: dict[str, dict[tuple[datetime, datetime], str]] = {"hopsworks": {}, "airflow": {}}
    placed: dict[str, Sequence[SideRun]] = {}
    for side, runs in zip(SIDES, (hopsworks, airflow), strict=True):
        ordered = isinstance(runs, Ordered)
        for run in runs:
            if run.fire is None:
                if run.window is not None:
                    covering[side].setdefault(_span(run.window), run.run_id)
                (unplaced if run.why and not run.why.startswith("manual") else manual).append((side, run))
            elif ordered:
                break  # the rest are placed, in fire order
        placed[side] = runs if ordered else sorted(_in_range(runs, start, end), key=attrgetter("fire"))
    plans = {"hopsworks": hopsworks_plan, "airflow": airflow_plan}

    def rows() -> Iterator[Row]:
        pending = dict(accepted or {})
        for fire, hops, air, planned in _merged(start, end, plans, placed):
            row = _classify(fire, hops, air, planned, covering)
            reason = pending.pop((fire, row.status), None)
            yield row if reason is None else replace(row, accepted=reason)

    # One reading of the rows for what the verdict needs of them; the output reads them again.
    counts, differ, derived, unused = Counter[str](), 0, set[str](), dict(accepted or {})
    for row in rows():
        counts[row.status] += 1
        differ += row.counts_as_difference
        derived.update(row.derived)
        unused.pop((row.fire, row.status), None)
    summary = {name: counts[name] for name in CLASSES}
    report = Report(start, end, Lazy(rows, counts.total()), summary, differ, tuple(sorted(derived)), manual, unplaced)
    report.unused_acceptances = [(f.isoformat(), s) for f, s in unused]
    return report


def _in_range(runs: Iterable[SideRun], start: datetime, end: datetime) -> Iterator[SideRun]:
    return (r for r in runs if r.fire is not None and start <= r.fire < end)


def _merged(
    start: datetime, end: datetime, plans: Mapping[str, Plan], placed: Mapping[str, Iterable[SideRun]]
) -> Iterator[tuple[datetime, list[SideRun], list[SideRun], dict[str, Planned | None]]]:
    # Tagged by source (each side's runs, then its plan), numbered within it: merged by comparing tuples (in C).
    shared = plans["airflow"] is plans["hopsworks"]
    sources: list[Iterable[tuple[datetime | None, object]]] = [((r.fire, r) for r in placed[s]) for s in SIDES]
    sources += [plans[s].fires.items() for s in SIDES[: 1 if shared else 2]]
    streams = [_tagged(items, tag, start, end) for tag, items in enumerate(sources)]
    for fire, group in itertools.groupby(heapq.merge(*streams), key=itemgetter(0)):
        ran: tuple[list[SideRun], list[SideRun]] = ([], [])
        planned: dict[str, Planned | None] = {"hopsworks": None, "airflow": None}
        for _, tag, _, item in group:
            if tag < 2:
                ran[tag].append(item)  # type: ignore[arg-type]
            else:
                planned[SIDES[tag - 2]] = item  # type: ignore[assignment]
        if shared:
            planned["airflow"] = planned["hopsworks"]
        eligible = any(p is not None and p.explained_by not in _INELIGIBLE for p in planned.values())
        if ran[0] or ran[1] or eligible:
            yield fire, *ran, planned


def _tagged(
    items: Iterable[tuple[datetime | None, object]], tag: int, start: datetime, end: datetime
) -> Iterator[tuple[datetime, int, int, object]]:
    return ((f, tag, n, x) for n, (f, x) in enumerate(items) if f is not None and start <= f < end)


def _classify(
    fire: datetime,
    hops: list[SideRun],
    air: list[SideRun],
    planned: Mapping[str, Planned | None],
    covering: Mapping[str, Mapping[tuple[datetime, datetime], str]],
) -> Row:
    if len(hops) == len(air) == 1:
        # The common case, decided without the steps below: one run each, the same window.
        h, a = hops[0], air[0]
        if h.outcome == a.outcome == "succeeded" and h.attempts == a.attempts == 1 and h.window == a.window is not None:
            return Row(fire, "match", h.window, a.window, (h.run_id,), (a.run_id,), derived=h.derived)
    h_ok = [r for r in hops if r.outcome == "succeeded"]
    a_ok = [r for r in air if r.outcome == "succeeded"]
    pairs = ((h_ok, planned["hopsworks"]), (a_ok, planned["airflow"]))
    hw, aw = (ok[0].window if ok else p.window if p else None for ok, p in pairs)
    # Without a successful run the window shown is the schedule's: every value of it derived.
    derived = h_ok[0].derived if h_ok else HOPS_ENV_KEYS if hw is not None else ()
    base = Row(fire, "", hw, aw, tuple(r.run_id for r in hops), tuple(r.run_id for r in air), derived=derived)
    blind = [r for r in (*h_ok, *a_ok) if r.window is None]
    if blind:
        return replace(base, status="not_compared", why=blind[0].why or f"run {blind[0].run_id} has no readable window")
    if any(r.outcome == "running" for r in (*(() if h_ok else hops), *(() if a_ok else air))):
        return replace(base, status="in_flight")
    if not hops and not air:
        expected = [side for side, p in planned.items() if p is not None and p.created]
        if not expected:
            why = next((p.explained_by for p in planned.values() if p is not None and p.explained_by), None)
            return replace(base, status="match", explained_by=why, why="neither system ran it")
        why = "nor in airflow" if len(expected) == 2 else None
        return replace(base, status=f"missing_in_{expected[0]}", explained_by=None, why=why)
    for side, ran, other_window in (("hopsworks", hops, aw), ("airflow", air, hw)):
        if not ran:
            covered = None if other_window is None else covering[side].get(_span(other_window))
            if covered is not None:
                return replace(base, status="match", why=f"covered by the manual run {covered} in {side}")
            plan = planned[side]
            return replace(base, status=f"missing_in_{side}", explained_by=None if plan is None else plan.explained_by)
    if not h_ok or not a_ok:
        failed = "both" if not h_ok and not a_ok else "airflow" if h_ok else "hopsworks"
        return replace(base, status=f"failed_in_{failed}")
    if len(h_ok) > 1 or len(a_ok) > 1:
        return replace(base, status="duplicate_in_hopsworks" if len(h_ok) > 1 else "duplicate_in_airflow")
    assert hw is not None and aw is not None
    if _whole(hw) != _whole(aw):
        how, hint = _difference(fire, _whole(hw), _whole(aw))
        return replace(base, status="differs", how=how, hint=hint)
    retried = len(hops) + len(air) > 2 or any(r.attempts > 1 for r in (*hops, *air))
    return replace(base, status="match_retried" if retried else "match")


def _whole(window: HopsWindow) -> HopsWindow:
    # The window as a job sees it: HOPS_* values are whole seconds on both systems.
    return HopsWindow(*(t.replace(microsecond=0) for t in (window.start, window.end, window.logical_date)))


def _span(window: HopsWindow) -> tuple[datetime, datetime]:
    return window.start.replace(microsecond=0), window.end.replace(microsecond=0)


def _seconds(delta: timedelta) -> str:
    value = delta.total_seconds()
    return f"{value:+.0f}" if value.is_integer() else f"{value:+.3f}"


def _difference(fire: datetime, hw: HopsWindow, aw: HopsWindow) -> tuple[str, str | None]:
    ds, de, dl = aw.start - hw.start, aw.end - hw.end, aw.logical_date - hw.logical_date
    if ds == de and ds:
        how = f"shifted by {_seconds(ds)} s" + (f", logical date {_seconds(dl)} s" if dl and dl != ds else "")
        if dl != ds:
            return how, "offset model?" if not dl else None
        interval = fire - (aw.logical_date if aw.logical_date < fire else fire)
        return how, "-start_time meaning?" if abs(ds) == interval else "offset model?"
    parts = [f"start {_seconds(ds)} s"] if ds else []
    parts += [f"end {_seconds(de)} s"] if de else []
    parts += [f"width {_seconds((aw.end - aw.start) - (hw.end - hw.start))} s"] if ds != de else []
    parts += [f"logical date {_seconds(dl)} s"] if dl else []
    # Only the start moved: the clamp of the first window to the start, or the floor of the first run after an edit.
    hint = "first window clamped, or a schedule edit?" if ds and not de else None
    return ", ".join(parts), hint
