"""How the gaps of a DAG's coverage are filled (``audit --repair``): a fire with no run and a free logical date is
backfilled, consecutive ones in one backfill, a failed scheduled run with ``reprocess_behavior="failed"``; any other
gets a manual run with its window in ``conf["hops_window"]`` and no logical date, so none is ever repeated.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any, Literal

from hops_timetable.core.coverage import Coverage, FireCoverage, History, RunRecord, Stretch
from hops_timetable.core.decision import CATCH_UP_DROPS, Decision
from hops_timetable.core.window import format_hops_time as _t

Reprocess = Literal["none", "failed"]  # Airflow's reprocess_behavior of a backfill


class RepairKind(str, Enum):
    BACKFILL = "backfill"
    MANUAL = "manual"


@dataclass(frozen=True)
class RepairStep:
    """One write: a backfill of ``fires`` or one manual run of ``fires[0]``'s window; ``note``: why not a backfill."""

    kind: RepairKind
    fires: tuple[FireCoverage, ...]
    reprocess: Reprocess = "none"
    note: str = ""

    def describe(self) -> str:
        first, last = self.fires[0], self.fires[-1]
        if self.kind is RepairKind.BACKFILL:
            span = _t(first.interval_start) + ("" if len(self.fires) == 1 else f" .. {_t(last.interval_start)}")
            return f"backfill logical date(s) {span} ({len(self.fires)} run(s), reprocess={self.reprocess}){self.note}"
        env = first.window.as_env()
        return f"manual run with conf window [{env['HOPS_START_TIME']}, {env['HOPS_END_TIME']}){self.note}"

    def as_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind.value,
            "reprocess_behavior": self.reprocess if self.kind is RepairKind.BACKFILL else None,
            "logical_dates": [_t(f.interval_start) for f in self.fires],
            "windows": [f.window.as_env() for f in self.fires],
            "note": self.note.strip(" ;") or None,
        }


def needs_repair(fire: FireCoverage, include_dropped: bool) -> bool:
    """Whether *fire*'s window is to be filled: expected (or dropped by the catch-up rule, with *include_dropped*),
    not processed by any run, and not merely due."""
    wanted = fire.expected or (include_dropped and fire.decision in CATCH_UP_DROPS)
    return wanted and not fire.covered and fire.decision is not Decision.DUE


def plan_repair(cov: Coverage, runs: Sequence[RunRecord], *, include_dropped: bool = False) -> list[RepairStep]:
    """The writes that fill the gaps of *cov*, in fire order: consecutive fires backfilled alike are one step."""
    taken = {r.logical_date for r in runs if r.logical_date is not None}

    def how(fire: FireCoverage) -> Reprocess | Literal["skip", "manual"]:
        if not needs_repair(fire, include_dropped):
            return "skip"
        if fire.decision is Decision.CREATED:
            # Its run exists: a backfill re-runs it in place only if it failed.
            return "failed" if fire.state == "failed" else "manual"
        return "manual" if fire.interval_start in taken else "none"

    steps: list[RepairStep] = []
    for kind, group in itertools.groupby(cov.fires, how):
        if kind == "manual":
            note = "; its logical date is taken by another run"
            steps += [RepairStep(RepairKind.MANUAL, (fire,), note=note) for fire in group]
        elif kind != "skip":
            steps.append(RepairStep(RepairKind.BACKFILL, tuple(group), reprocess=kind))
    return steps


def runs_in(steps: Iterable[RepairStep]) -> int:
    return sum(len(step.fires) for step in steps)


def to_repair(hist: History, include_dropped: bool) -> list[Stretch]:
    """The stretches of fires :func:`plan_repair` fills, found without taking the fires one by one."""
    return [stretch for stretch in hist.stretches if needs_repair(stretch.sample, include_dropped)]


def repair_view(hist: History, stretches: Sequence[Stretch]) -> Coverage:
    """The fires of *stretches* for :func:`plan_repair`, each followed by the fire that ends it (two stretches apart
    stay two steps)."""
    fires: list[FireCoverage] = []
    for stretch in stretches:
        if fires and fires[-1].fire >= stretch.first:
            fires.pop()  # the fire that ended the stretch before is this one's first
        fires += hist.expand(stretch)
        after = hist.fire_after(stretch)
        if after is not None:
            fires.append(after)
    return Coverage(hist.now, hist.begin, fires, [], [], [], [])
