"""What an execution's ``-start_time`` argument means (next, fire or logical: docs/cli.md), read from the data.

* **The server's clock** may write local time with a literal ``Z``: every submission off by the same whole number of
  quarter hours. Each meaning's likeliest skew is its most common delay, in quarter hours, from the fires it names to
  the submissions; the hypothesis putting the most executions on time wins, less those it places before the
  schedule's first fire and less one when it leaves that fire unrun, unless the earliest fire it names was launched
  late under a bounded catch-up (the outage that delayed it dropped the first fire); a tie keeps no skew. A skew
  that wins only by that first fire, against another meaning unskewed, is undecidable: both readings are said.
* An *on-time* execution (within ``grace`` of the newest fire ``F`` before it) votes for the meaning whose value for
  ``F`` is its argument, if any. Pure.
"""

from __future__ import annotations

import itertools
import math
from array import array
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime, timedelta
from typing import Final

from hops_timetable.core.cron import QuartzCron
from hops_timetable.core.parity.exports import Execution, ScheduleVersion
from hops_timetable.core.parity.replay import Plan, version_index
from hops_timetable.core.window import TICK, HopsWindow, hops_window

MEANINGS: Final = ("next", "fire", "logical")
DESCRIPTIONS: Final = {
    "next": "the fire after the one that launched the execution",
    "fire": "the fire that launched the execution",
    "logical": "the logical date: the previous fire, clamped to the start",
}
MIN_VOTES: Final = 2
MAJORITY: Final = 0.75
DEFAULT_GRACE: Final = timedelta(seconds=120)
QUARTER: Final = timedelta(minutes=15)
MAX_SKEW: Final = timedelta(hours=14)  # the farthest a time zone lies from UTC
MAX_OUTLIERS: Final = 1_000


@dataclass(frozen=True, slots=True)
class Outlier:
    """An on-time execution whose argument is not the detected meaning's value for its fire."""

    execution: int
    submitted: datetime
    fire: datetime
    start_time: datetime  # the argument
    fits: str | None  # the meaning it fits instead, if any


@dataclass(frozen=True)
class Reading:
    """How ``-start_time`` is read (``meaning`` ``None``: undecidable), and the evidence."""

    meaning: str | None
    votes: dict[str, int] = field(default_factory=dict)
    on_time: int = 0
    undecided: int = 0
    given: bool = False
    skew: timedelta = timedelta(0)
    outliers: tuple[Outlier, ...] = ()
    outliers_total: int = 0
    leader: str | None = None  # the meaning a clear majority of the votes names, if any
    ambiguous: str | None = None  # why the data fits two readings, one of them with a skewed clock

    @property
    def contradicted(self) -> bool:
        return self.given and self.leader is not None and self.leader != self.meaning

    def _counts(self) -> str:
        return ", ".join(f"{m} {self.votes.get(m, 0)}" for m in MEANINGS) + f", none {self.undecided}"

    def explain(self) -> str:
        if self.given:
            text = f"-start_time read as {self.meaning} ({DESCRIPTIONS[self.meaning or 'fire']}), as given"
            if self.contradicted:
                text += (
                    f"; the data contradicts it: {self.votes[self.leader or 'fire']} of {self.on_time} on-time "
                    f"execution(s) fit {self.leader} ({self._counts()})"
                )
            return text
        if self.meaning is None and self.ambiguous:
            return (
                f"-start_time cannot be read: {self.ambiguous}; say which with --start-time-meaning "
                "next|fire|logical (the clock skew is then found for that meaning)"
            )
        if self.meaning is None:
            return (
                f"-start_time cannot be read: {self.on_time} on-time execution(s), votes {self._counts()}; "
                f"detection needs at least {MIN_VOTES} votes and {MAJORITY:.0%} of them for one meaning; say which "
                "with --start-time-meaning next|fire|logical"
            )
        agree = self.votes[self.meaning]
        others = self.on_time - agree
        tail = "none disagree" if not others else f"{others} outlier(s) compared as their arguments say"
        return (
            f"-start_time read as {self.meaning} ({DESCRIPTIONS[self.meaning]}): {agree} of {self.on_time} on-time "
            f"execution(s) agree, {tail}"
        )

    def skew_note(self) -> str | None:
        if not self.skew:
            return None
        seconds, way = int(self.skew.total_seconds()), "ahead of" if self.skew > timedelta(0) else "behind"
        return (
            f"server clock skew: submission times read {abs(seconds)} s ({abs(seconds) / 3600:g} h) {way} UTC, "
            "constant (a server writing its local time with a literal Z); corrected before comparing"
        )

    def as_json(self) -> dict[str, object]:
        return {
            "meaning": self.meaning,
            "given": self.given,
            "contradicted": self.contradicted,
            "votes": {m: self.votes.get(m, 0) for m in MEANINGS},
            "on_time_executions": self.on_time,
            "undecided": self.undecided,
            "clock_skew_seconds": int(self.skew.total_seconds()),
            "ambiguous": self.ambiguous,
            "outliers_total": self.outliers_total,
            "outliers": [
                {k: v.isoformat() if isinstance(v, datetime) else v for k, v in asdict(o).items()}
                for o in self.outliers
            ],
            "explanation": self.explain(),
        }


def _named(meaning: str, cron: QuartzCron, arg: datetime) -> datetime | None:
    if meaning == "logical":
        return cron.next_after(arg)
    return None if not cron.matches(arg) else arg if meaning == "fire" else cron.prev_before(arg)


def _skew(executions: Sequence[Execution], plan: Plan, grace: timedelta) -> tuple[timedelta, str | None, str | None]:
    """The skew and meaning of the best hypothesis, and the unskewed meaning the data cannot tell from it."""
    first = plan.policies[0].first_eligible_after(None) if plan.policies[0].start is not None else None
    bounded = plan.policies[0].bound(plan.versions[0].settings.catchup) is not None
    # Flat arrays of (delay, named fire) in seconds: a million executions cost 48 MB here, not tuples' 400.
    delays: dict[str, array[float]] = {m: array("d") for m in MEANINGS}
    for execution in executions:
        if execution.start_time is None:
            continue
        cron = plan.policies[version_index(plan.versions, execution.submitted)].cron
        for meaning in MEANINGS:
            fire = _named(meaning, cron, execution.start_time)
            if fire is not None:
                delays[meaning].extend(((execution.submitted - fire).total_seconds(), fire.timestamp()))
    first_ts = None if first is None else first.timestamp()
    best: tuple[tuple[int, bool], timedelta, str | None] = ((0, True), timedelta(0), None)
    unskewed: dict[str, int] = {}
    for meaning, found in delays.items():
        if not found:
            continue
        quarters = Counter(math.floor(d / QUARTER.total_seconds()) for d in found[::2])
        skew = quarters.most_common(1)[0][0] * QUARTER
        if abs(skew) <= grace or abs(skew) > MAX_SKEW:
            skew = timedelta(0)
        low, high = skew.total_seconds(), (skew + grace).total_seconds()
        score, earliest, late = 0, math.inf, False
        for d, fire_ts in zip(found[::2], found[1::2], strict=True):
            # Every execution, on time or late, must name a fire of the schedule: none before its first.
            before_first = first_ts is not None and fire_ts < first_ts
            score += -1 if before_first else int(low <= d <= high)
            if not before_first and fire_ts <= earliest:
                late = d > high and (late or fire_ts < earliest)  # every launch of the earliest fire named late
                earliest = fire_ts
        # The schedule's first fire left unrun: a misreading, unless every hypothesis leaves it, or the outage that
        # delayed the earliest launch dropped it (a bounded catch-up runs only the newest fires it missed).
        if score and first_ts is not None and earliest > first_ts and not (late and bounded):
            score -= 1
        if not skew:
            unskewed[meaning] = score
        if (score, not skew) > best[0]:
            best = ((score, not skew), skew, meaning)
    # A skew that wins only by the first fire another meaning leaves unrun (an outage at the start would do that too).
    rival = next((m for m, other in unskewed.items() if best[1] and other == best[0][0] - 1), None)
    return best[1], best[2], rival


def _on_time(
    executions: Sequence[Execution], plan: Plan, skew: timedelta, grace: timedelta, only: Iterable[int] | None = None
) -> Iterator[tuple[int, Execution, datetime, datetime, str | None]]:
    for i in range(len(executions)) if only is None else only:
        execution = executions[i]
        arg = execution.start_time
        if arg is None:
            continue
        submitted = execution.submitted - skew
        policy = plan.policies[version_index(plan.versions, submitted)]
        fire = policy.cron.prev_before(submitted + TICK)
        if fire is None or submitted - fire > grace:
            continue
        # At most one meaning can agree (next > fire > logical), so one cron step decides which.
        fits: str | None = None
        if arg == fire:
            fits = "fire"
        elif arg > fire and policy.cron.next_after(fire) == arg:
            fits = "next"
        elif arg < fire and policy.interval_start(fire) == arg:
            fits = "logical"
        yield i, execution, arg, fire, fits


def _voters(on_time: Iterable[tuple[int, Execution, datetime, datetime, str | None]]) -> dict[str | None, array[int]]:
    voters: dict[str | None, array[int]] = {m: array("q") for m in (*MEANINGS, None)}
    for i, *_, fits in on_time:
        voters[fits].append(i)
    return voters


def detect_meaning(
    executions: Sequence[Execution],
    versions: Sequence[ScheduleVersion],
    grace: timedelta = DEFAULT_GRACE,
    given: str | None = None,
) -> Reading:
    """The reading of *executions*; *given*, the meaning the user states, is used and checked against the votes."""
    plan = Plan(versions)
    skew, best, rival = _skew(executions, plan, grace)
    voters = _voters(_on_time(executions, plan, skew, grace))
    shown = {m: len(voters[m]) for m in MEANINGS}
    shown_on_time, undecided = sum(map(len, voters.values())), len(voters[None])
    if rival is not None and given == rival:
        # The user settles what the data cannot: the clock was right, and this the meaning.
        skew, voters = timedelta(0), _voters(_on_time(executions, plan, timedelta(0), grace))
    top = max(MEANINGS, key=lambda m: shown[m])
    leader = top if shown[top] >= MIN_VOTES and shown[top] >= MAJORITY * shown_on_time else None
    if rival is not None and given in (best, rival):
        leader = given  # either reading fits the data: the stated one contradicts nothing
    meaning, ambiguous = given if given is not None else leader, None
    if given is None and rival is not None:
        meaning = None
        ambiguous = (
            f"the submission times fit -start_time read as {best} with the server clock "
            f"{abs(int(skew.total_seconds()))} s {'ahead of' if skew > timedelta(0) else 'behind'} UTC, or read as "
            f"{rival} with the clock right and the schedule's first fire never run"
        )
    # An outlier names another fire than the one it was on time for; a logical date floored by a schedule edit
    # fits no meaning's value, yet names its own fire.
    outliers, total, skew = list[Outlier](), 0, skew if meaning is not None else timedelta(0)
    if meaning is not None:
        others = sorted(itertools.chain(*(v for m, v in voters.items() if m != meaning)))
        for _, e, arg, f, fits in _on_time(executions, plan, skew, grace, others):
            if _named(meaning, plan.policies[version_index(versions, e.submitted - skew)].cron, arg) != f:
                total += 1  # counted, the first MAX_OUTLIERS kept
                if total <= MAX_OUTLIERS:
                    outliers.append(Outlier(e.id, e.submitted - skew, f, arg, fits))
    return Reading(
        meaning, shown, shown_on_time, undecided, given is not None, skew, tuple(outliers), total, leader, ambiguous
    )


def attribute(
    execution: Execution, meaning: str, plan: Plan, skew: timedelta = timedelta(0)
) -> tuple[datetime | None, str]:
    """The fire *execution* ran for under *meaning* (the schedule in force at its submission), or ``None`` and why."""
    arg = execution.start_time
    if arg is None:
        return None, "manual: no -start_time argument"
    cron = plan.policies[version_index(plan.versions, execution.submitted - skew)].cron
    fire = _named(meaning, cron, arg)
    return (
        fire,
        "" if fire is not None else f"-start_time {arg.isoformat()} is not a {meaning} value of {cron.source!r}",
    )


def derived_values(meaning: str) -> tuple[str, ...]:
    """The ``HOPS_*`` values that an argument read as *meaning* does not carry: derived from the schedule."""
    return ("HOPS_END_TIME",) if meaning == "logical" else ("HOPS_START_TIME", "HOPS_LOGICAL_DATE")


def window_of(
    execution: Execution, fire: datetime, meaning: str, plan: Plan, skew: timedelta = timedelta(0)
) -> HopsWindow:
    """The window of *execution*, which ran for *fire*: the schedule's, but for ``logical`` from its argument."""
    index = version_index(plan.versions, execution.submitted - skew)
    offset = plan.versions[index].settings.offset
    if meaning == "logical" and execution.start_time is not None:
        return hops_window(execution.start_time, fire, offset)
    planned = plan.fires.get(fire)
    return (
        planned.window if planned is not None else hops_window(plan.policies[index].interval_start(fire), fire, offset)
    )
