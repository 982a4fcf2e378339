"""What a schedule makes of a time range: the decision and window of every fire, through outages and edits.

The decisions are the outage simulator's, the intervals the catch-up policy's and the windows ``hops_window``'s:
nothing is re-derived here. Several versions are replayed one per stretch of time; the first run after an edit
never starts its interval before the last run's fire (the policy's edit floor, :class:`After`). Pure.
"""

from __future__ import annotations

import bisect
from array import array
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from functools import cached_property
from typing import Final

from hops_timetable.core.catchup import After, CatchupPolicy
from hops_timetable.core.decision import Decision
from hops_timetable.core.parity.exports import ScheduleVersion, from_us, to_us
from hops_timetable.core.simulate import Event, simulate
from hops_timetable.core.validation import ArgumentError
from hops_timetable.core.window import TICK, HopsWindow, as_utc, hops_window

MAX_FIRES: Final = 1_000_000  # a per-minute schedule over almost two years

EXPLAINED_BY: Final = {
    Decision.DROPPED_BOUND: "max_catchup_runs",
    Decision.DROPPED_NO_CATCHUP: "catchup=false",
    Decision.BEFORE_SKIP_TO_DATE: "skip_to_date",
    Decision.BEFORE_START: "before start",
    Decision.AFTER_END: "after end",
    Decision.NOT_YET_DUE: "outage",
    Decision.BEFORE_FIRST_LOOK: "outage",
}
_DECISIONS: Final = tuple(Decision)
_NUMBER: Final = {decision: n for n, decision in enumerate(_DECISIONS)}


@dataclass(frozen=True, slots=True)
class Planned:
    """One fire: its decision, the version in force, its interval's start (microseconds) and the version's offset."""

    decision: Decision
    version: int
    fire: datetime
    interval_start: int
    offset: int | None

    @property
    def window(self) -> HopsWindow:
        return hops_window(from_us(self.interval_start), self.fire, self.offset)

    @property
    def created(self) -> bool:
        return self.decision is Decision.CREATED

    @property
    def explained_by(self) -> str | None:
        return EXPLAINED_BY.get(self.decision)


class Fires:
    """Fires and what a plan makes of them, in fire order, as numbers (a million take 20 MB, not a dict's 400 MB)."""

    def __init__(self, offsets: Sequence[int | None] = ()) -> None:
        self._offsets = offsets  # each version's start_time_offset_seconds: the window is made on demand
        self._fire, self._start, self._version = array("q"), array("q"), array("I")
        self._decision = bytearray()  # its index in _DECISIONS

    def add(self, fire: datetime, decision: Decision, interval_start: datetime, version: int) -> None:
        at = to_us(fire)
        if self._fire and at <= self._fire[-1]:
            raise AssertionError(f"fire {fire.isoformat()} is not after the fires already planned")
        self._fire.append(at)
        self._start.append(to_us(interval_start))
        self._version.append(version)
        self._decision.append(_NUMBER[decision])

    def _planned(self, i: int, fire: datetime) -> Planned:
        version = self._version[i]
        return Planned(_DECISIONS[self._decision[i]], version, fire, self._start[i], self._offsets[version])

    def get(self, fire: datetime) -> Planned | None:
        at = to_us(fire)
        i = bisect.bisect_left(self._fire, at)
        return self._planned(i, fire) if i < len(self._fire) and self._fire[i] == at else None

    def items(self) -> Iterator[tuple[datetime, Planned]]:
        return ((fire, self._planned(i, fire)) for i, fire in enumerate(map(from_us, self._fire)))


@dataclass(frozen=True)
class Plan:
    """The replay of one side: every fire in ``[start, end)`` of the versions in force, in fire order."""

    versions: Sequence[ScheduleVersion]
    fires: Fires = field(default_factory=Fires)

    @cached_property
    def policies(self) -> list[CatchupPolicy]:
        return [v.settings.policy() for v in self.versions]


def version_index(versions: Sequence[ScheduleVersion], moment: datetime) -> int:
    """The index of the version in force at *moment*: the newest that took effect at or before it (else the first)."""
    if len(versions) == 1:
        return 0  # called once per execution: a million times
    times = [v.effective_from for v in versions[1:] if v.effective_from is not None]
    return bisect.bisect_right(times, moment)


def _spans(
    versions: Sequence[ScheduleVersion], start: datetime, end: datetime
) -> Iterator[tuple[int, ScheduleVersion, datetime, datetime]]:
    for index, version in enumerate(versions):
        begin = start if version.effective_from is None else max(start, version.effective_from)
        upto = end if index + 1 == len(versions) else min(end, versions[index + 1].effective_from or end)
        if begin < upto:
            yield index, version, begin, upto


def check_fires(versions: Sequence[ScheduleVersion], start: datetime, end: datetime) -> int:
    """The number of fires in ``[start, end)``; :class:`ArgumentError` beyond :data:`MAX_FIRES`."""
    total = 0
    for _, version, begin, upto in _spans(versions, start, end):
        cron = version.settings.cron
        first, last = cron.next_after(begin - TICK), cron.prev_before(upto)
        if first is not None and last is not None and first <= last:
            total += cron.count_between(first, last)
        if total > MAX_FIRES:
            raise ArgumentError(
                "--from", start, f"the range holds more than {MAX_FIRES:,} fires of {cron.source!r}; narrow --from/--to"
            )
    return total


def replay(versions: Sequence[ScheduleVersion], start: datetime, end: datetime, events: Sequence[Event]) -> Plan:
    """Replay *versions* over ``[start, end)`` through the outages *events*; :func:`check_fires` first."""
    check_fires(versions, start, end)
    fires = Fires([v.settings.offset for v in versions])
    last: datetime | None = None
    for index, version, begin, upto in _spans(versions, start, end):
        settings = version.settings
        policy = settings.policy()
        deciding = policy
        if index and version.effective_from is not None and (policy.start is None or policy.start < begin):
            # An edit takes effect while the scheduler runs: nothing before it is replayed as a first deployment.
            deciding = replace(policy, start=begin - TICK)
        # An outage running past the range ends in a catch-up that may still run fires inside it.
        horizon = max([upto, *(as_utc(e.end) + TICK for e in events)]) if index + 1 == len(versions) else upto
        floor = last
        # Every fire of the range is walked below (the limit was checked first): the rows' counts are not used.
        for row in simulate(deciding, settings.catchup, begin - TICK, horizon - TICK, events):
            if row.last < begin or row.first >= upto:
                continue  # replayed at the first look before the range, or after it
            fire: datetime | None = row.first if row.first >= begin else settings.cron.next_after(begin - TICK)
            while fire is not None and fire <= row.last and fire < upto:
                run = policy.run(fire)
                if row.decision is Decision.CREATED:
                    if floor is not None and floor < fire:  # the first run after an edit (the module docstring)
                        run = policy.next_run_after(After(fire=fire - TICK, floor=floor), fire) or run
                    floor = None
                    last = fire
                fires.add(fire, row.decision, run.interval_start, index)
                fire = settings.cron.next_after(fire)
    return Plan(versions, fires)
