"""What an execution's ``-start_time`` argument means, read from the data, and the fire and window it gives.

The argument has meant three things (see docs/migration.md): the **next** fire after the one that launched the
execution (the public backend code advances the schedule before building it), the **fire** itself (the docs of
that period), the **logical** date, i.e. the previous fire clamped to the start (the current docs). Read with the
wrong meaning every window shifts by one interval, so the meaning is never assumed:

* An *on-time* execution was submitted within ``grace`` of the newest fire ``F`` at or before its submission (the
  Hopsworks timer ticks every minute). It votes for each meaning whose value for ``F`` equals its argument, and is
  decisive when exactly one does. Late launches (catch-up after an outage) do not vote: their ``F`` is unknown.
* The meaning is detected when the decisive votes are unanimous and at least :data:`MIN_VOTES`; otherwise it is
  refused with the counts, and the user may state it.

Pure: no Airflow import.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Final

from hops_timetable.core.catchup import CatchupPolicy
from hops_timetable.core.parity.exports import Execution, ScheduleVersion
from hops_timetable.core.parity.replay import Plan, version_index
from hops_timetable.core.window import TICK, HopsWindow, hops_window

__all__ = ["MEANINGS", "MIN_VOTES", "Reading", "attribute", "detect_meaning", "window_of"]

MEANINGS: Final = ("next", "fire", "logical")
DESCRIPTIONS: Final = {
    "next": "the fire after the one that launched the execution",
    "fire": "the fire that launched the execution",
    "logical": "the logical date: the previous fire, clamped to the start",
}
MIN_VOTES: Final = 2
DEFAULT_GRACE: Final = timedelta(seconds=120)


@dataclass(frozen=True)
class Reading:
    """How ``-start_time`` is read: the meaning (``None``: undecidable), the votes, and whether the user gave it."""

    meaning: str | None
    votes: dict[str, int] = field(default_factory=dict)
    on_time: int = 0
    undecided: int = 0
    given: bool = False

    @property
    def decisive(self) -> int:
        return sum(self.votes.values())

    def explain(self) -> str:
        counts = ", ".join(f"{m} {self.votes.get(m, 0)}" for m in MEANINGS)
        if self.given:
            return f"-start_time read as {self.meaning} ({DESCRIPTIONS[self.meaning or 'fire']}), as given"
        if self.meaning is None:
            return (
                f"-start_time cannot be read: {self.on_time} on-time execution(s), decisive votes {counts}; "
                f"detection needs at least {MIN_VOTES} votes, all for one meaning; say which with "
                "--start-time-meaning next|fire|logical"
            )
        return (
            f"-start_time read as {self.meaning} ({DESCRIPTIONS[self.meaning]}): {self.votes[self.meaning]} of "
            f"{self.on_time} on-time execution(s) agree, none disagree"
        )

    def as_json(self) -> dict[str, object]:
        return {
            "meaning": self.meaning,
            "given": self.given,
            "votes": {m: self.votes.get(m, 0) for m in MEANINGS},
            "on_time_executions": self.on_time,
            "undecided": self.undecided,
            "explanation": self.explain(),
        }


def _value(meaning: str, policy: CatchupPolicy, fire: datetime) -> datetime | None:
    if meaning == "next":
        return policy.cron.next_after(fire)
    if meaning == "fire":
        return fire
    return policy.interval_start(fire)


def detect_meaning(
    executions: Sequence[Execution],
    versions: Sequence[ScheduleVersion],
    grace: timedelta = DEFAULT_GRACE,
    given: str | None = None,
) -> Reading:
    """Count the votes of the on-time executions; see the module docstring. *given* skips the detection."""
    policies = [v.settings.policy() for v in versions]
    votes = dict.fromkeys(MEANINGS, 0)
    on_time = undecided = 0
    for execution in executions:
        if execution.start_time is None:
            continue
        policy = policies[version_index(versions, execution.submitted)]
        fire = policy.cron.prev_before(execution.submitted + TICK)
        if fire is None or execution.submitted - fire > grace:
            continue
        on_time += 1
        # At most one meaning can agree (next > fire > logical), so one cron step decides which.
        arg = execution.start_time
        if arg == fire:
            votes["fire"] += 1
        elif arg > fire and _value("next", policy, fire) == arg:
            votes["next"] += 1
        elif arg < fire and _value("logical", policy, fire) == arg:
            votes["logical"] += 1
        else:
            undecided += 1
    if given is not None:
        return Reading(given, votes, on_time, undecided, given=True)
    winners = [m for m in MEANINGS if votes[m]]
    meaning = winners[0] if len(winners) == 1 and votes[winners[0]] >= MIN_VOTES else None
    return Reading(meaning, votes, on_time, undecided)


def attribute(execution: Execution, meaning: str, plan: Plan) -> tuple[datetime | None, str]:
    """The fire *execution* ran for under *meaning* (the schedule in force at its submission), or ``None`` and why."""
    arg = execution.start_time
    if arg is None:
        return None, "manual: no -start_time argument"
    cron = plan.policy(version_index(plan.versions, execution.submitted)).cron
    fire: datetime | None
    if meaning == "logical":
        fire = cron.next_after(arg)
    elif meaning == "next":
        fire = cron.prev_before(arg) if cron.matches(arg) else None
    else:
        fire = arg if cron.matches(arg) else None
    if fire is None:
        return None, f"-start_time {arg.isoformat()} is not a {meaning} value of {cron.source!r}"
    return fire, ""


def window_of(execution: Execution, fire: datetime, meaning: str, plan: Plan) -> HopsWindow:
    """The HOPS window of *execution*, which ran for *fire*.

    For ``next`` and ``fire`` the argument names only the fire, and the window is the schedule's window of that fire
    (as replayed, the edit floor included). For ``logical`` the argument is the window's logical date itself, so a
    window that was not clamped as the schedule says shows as a difference.
    """
    index = version_index(plan.versions, execution.submitted)
    offset = plan.versions[index].settings.offset
    if meaning == "logical" and execution.start_time is not None:
        return hops_window(execution.start_time, fire, offset)
    planned = plan.fires.get(fire)
    if planned is not None:
        return planned.window
    return hops_window(plan.policy(index).interval_start(fire), fire, offset)
