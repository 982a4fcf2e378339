"""Which cron fires become runs: the Hopsworks scheduling policy (docs/rules.md), shared by the timetable, the CLI and
the simulator. Every answer costs a few cron steps, never a walk over the missed fires.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime

from hops_timetable.core.cron import QuartzCron
from hops_timetable.core.decision import Decision
from hops_timetable.core.validation import EARLIEST_DATE, ArgumentError
from hops_timetable.core.window import TICK, as_utc, format_hops_time


@dataclass(frozen=True)
class Run:
    """One scheduled run: Airflow's ``run_after`` is ``fire`` and its data interval ``[interval_start, fire)``."""

    fire: datetime
    interval_start: datetime


@dataclass(frozen=True)
class After:
    """What the next scheduled run comes after: its fire is the first eligible one after ``fire``, its interval never
    starts before ``floor``, so runs stay unique and move forward."""

    fire: datetime
    floor: datetime

    @classmethod
    def of_fire(cls, fire: datetime) -> After:
        return cls(fire=fire, floor=fire)

    @classmethod
    def of_run(cls, cron: QuartzCron, start: datetime, end: datetime, run_after: datetime) -> After:
        """After the run ``[start, end)`` made by any timetable (``run_after == end``: the next starts at ``end``, 1 µs
        later after a zero-length one) or by hand (at the fire after its interval's end, or after the trigger time
        when the interval is not this cron's)."""
        if run_after != end:
            anchor = cron.next_after(end) or end
            if cron.prev_before(end) != start or cron.next_after(end - TICK) != end:
                # Not this cron's interval: its logical date may lie past the fire after its end, not past the trigger.
                anchor = max(anchor, cron.next_after(run_after) or anchor)
            return cls(fire=anchor, floor=anchor)
        return cls(fire=end, floor=end if start < end else end + TICK)


@dataclass(frozen=True)
class CatchupPolicy:
    """The scheduling rules of one schedule on aware UTC datetimes; never raises on valid (caller-checked) values."""

    cron: QuartzCron
    start: datetime | None = None
    end: datetime | None = None
    skip_to: datetime | None = None
    max_catchup_runs: int | None = None

    def classify(self, fire: datetime) -> Decision:
        """``ELIGIBLE`` when the schedule may run *fire*, else the rule that excludes it (the end is exclusive)."""
        if self.start is not None and fire <= self.start:
            return Decision.BEFORE_START
        if self.end is not None and fire >= self.end:
            return Decision.AFTER_END
        if self.skip_to is not None and fire < self.skip_to:
            return Decision.BEFORE_SKIP_TO_DATE
        return Decision.ELIGIBLE

    def first_eligible_after(self, moment: datetime | None) -> datetime | None:
        """The first eligible fire strictly after *moment* (``None``: the first after the start)."""
        # On the scheduler's every decision: plain comparisons, no list built (a third cheaper than max over one).
        after = moment
        if self.start is not None and (after is None or after < self.start):
            after = self.start
        if self.skip_to is not None and (after is None or after < self.skip_to - TICK):
            after = self.skip_to - TICK
        fire = None if after is None else self.cron.next_after(after)
        return None if fire is None or (self.end is not None and fire >= self.end) else fire

    def newest_eligible_at_or_before(self, moment: datetime) -> datetime | None:
        """The newest eligible fire at or before *moment*."""
        fire = self.cron.prev_before(moment + TICK if self.end is None else min(moment + TICK, self.end))
        return fire if fire is not None and self.classify(fire) is Decision.ELIGIBLE else None

    def pick(self, first: datetime, now: datetime, bound: int | None) -> datetime:
        """The fire to run when *first* is the oldest eligible fire not yet run: the *bound*-th newest of the eligible
        fires in ``[first, now]`` when there are more, else *first*."""
        if bound is None or first > now:
            return first
        newest = self.newest_eligible_at_or_before(now)
        if newest is None or newest <= first:
            return first
        # Every fire between first and newest is eligible: both are, and eligibility is an interval.
        oldest_kept = newest if bound == 1 else self.cron.nth_before(newest, bound - 1)
        return first if oldest_kept is None or oldest_kept <= first else oldest_kept

    def bound(self, catchup: bool) -> int | None:
        """The catch-up bound in force (``None``: unbounded)."""
        return self.max_catchup_runs if catchup else 1

    def interval_start(self, fire: datetime) -> datetime:
        """The previous fire, clamped to the start."""
        previous = self.cron.prev_before(fire)
        if self.start is not None and self.start < fire and (previous is None or previous < self.start):
            return self.start
        return fire if previous is None else previous

    def run(self, fire: datetime) -> Run:
        return Run(fire=fire, interval_start=self.interval_start(fire))

    def next_run(self, last_fire: datetime | None, now: datetime, *, catchup: bool = True) -> Run | None:
        """:meth:`next_run_after` the scheduled run that fired at *last_fire* (``None``: the first run); its interval
        never starts before *last_fire*, so logical dates stay unique after a cron edit."""
        return self.next_run_after(None if last_fire is None else After.of_fire(last_fire), now, catchup=catchup)

    def next_run_after(self, after: After | None, now: datetime, *, catchup: bool = True) -> Run | None:
        """The next scheduled run after *after* (``None``: the first run) seen at *now*: the one rule the scheduler,
        the simulator and the coverage apply."""
        first = self.first_eligible_after(after.fire if after is not None else now if self.start is None else None)
        if first is None:
            return None
        run = self.run(self.pick(first, now, self.bound(catchup)))
        if after is not None and run.interval_start < after.floor < run.fire:
            return Run(fire=run.fire, interval_start=after.floor)
        return run

    def stored_run(
        self, stored: Run, now: datetime, *, catchup: bool, taken: Callable[[datetime], bool], max_skips: int = 1000
    ) -> Run:
        """The run to create instead of the stored next run at *now*: the bound applied again when more than one fire
        is due, skipping logical dates *taken* (at most *max_skips*)."""
        following = self.cron.next_after(stored.fire)
        if following is None or following > now:
            return stored
        # Before the stored run, which comes next; its interval start (computed from the last run) stays the floor.
        run = self.next_run_after(After(stored.fire - TICK, stored.interval_start), now, catchup=catchup)
        for _ in range(max_skips):
            if run is None or run == stored:
                return stored
            if not taken(run.interval_start):
                return run
            run = self.next_run_after(After.of_fire(run.fire), now, catchup=catchup)
        return stored

    def range_run(self, earliest: datetime, latest: datetime, last: Run | None) -> Run | None:
        """A backfill's next run: the first scheduled run (unbounded, clamped only at the start) after *last* whose
        logical date lies in ``[earliest, latest]``."""
        if last is not None:
            fire = self.first_eligible_after(last.fire)
        elif self.start is not None and earliest <= self.start:
            # The clamped first interval starts at the start itself, which may lie after earliest.
            fire = self.first_eligible_after(self.start)
        else:
            # A run's logical date is the fire before its own: the first fire at or after earliest.
            aligned = self.cron.next_after(earliest - TICK)
            fire = None if aligned is None else self.first_eligible_after(aligned)
        while fire is not None:
            run = self.run(fire)
            if run.interval_start > latest:
                return None
            if run.interval_start >= earliest:
                return run
            # Only the skip_to/start clamps can leave a logical date before earliest; the next fire is past it.
            fire = self.first_eligible_after(fire)
        return None

    def scheduled_run_at(self, logical_date: datetime) -> Run | None:
        """The scheduled run (as a backfill makes it) of *logical_date*, if any."""
        return self.range_run(logical_date, logical_date, None)

    def check_can_run(self, now: datetime | None, names: Mapping[str, str]) -> None:
        """Raise :class:`ArgumentError` naming the setting (as *names* maps it) when this schedule can never run; with
        *now*, also one without a start and no fire after *now* (with a fire before it)."""
        cron_name, start_name, end_name, skip_name = (
            names.get(key, key) for key in ("cron_expression", "start_time", "end_time", "skip_to_date")
        )
        cron, source = self.cron, self.cron.source
        origin = self.start or now
        first = None if origin is None else self.first_eligible_after(origin)
        value: object  # the setting refused, as given
        if cron.next_after(EARLIEST_DATE) is None:
            name, value = cron_name, source
            problem = (
                f"{cron_name}={source!r} never fires: no date matches it (check the day of month against the "
                "month, and the year field)"
            )
        elif self.skip_to is not None and self.end is not None and self.skip_to >= self.end:
            name, value = skip_name, self.skip_to
            problem = (
                f"{skip_name}={format_hops_time(self.skip_to)} is not before {end_name}={format_hops_time(self.end)}: "
                f"every fire is skipped or after the end, so the schedule never runs; move {skip_name} before "
                f"{end_name} or drop one of them"
            )
        elif origin is None or (first is not None and (self.start is not None or cron.prev_before(first) is not None)):
            return
        elif first is not None:  # no start, and the first fire has none before it
            name, value = start_name, None
            problem = (
                f"{start_name} is missing: the first fire of {source!r}, {format_hops_time(first)}, has no fire "
                f"before it, so without a {start_name} its window would be empty; pass {start_name} (the first "
                "window's start) as well"
            )
        elif self.start is not None and cron.next_after(self.start) is None:
            name, value = start_name, self.start
            problem = (
                f"{start_name}={format_hops_time(self.start)} is at or after the last fire of {source!r}, so the "
                "schedule never runs; start before its last fire or extend the year field"
            )
        elif self.end is not None:
            name, value, since = end_name, self.end, start_name if self.start is not None else "now"
            problem = (
                f"{end_name}={format_hops_time(self.end)} leaves no run: {source!r} has no fire after "
                f"{since}={format_hops_time(origin)} and before it (at or after {skip_name} when given), so the "
                f"schedule never runs; move {end_name} later or change the cron expression"
            )
        elif self.start is None:
            name, value = cron_name, source
            problem = (
                f"{cron_name}={source!r} never fires after now ({format_hops_time(origin)}); extend the year "
                f"field, or pass a {start_name} before its last fire to run its past fires"
            )
        else:
            name, value = skip_name, self.skip_to
            problem = (
                f"{skip_name}={'-' if self.skip_to is None else format_hops_time(self.skip_to)} is after the last "
                f"fire of {source!r}, so the schedule never runs; move {skip_name} earlier"
            )
        raise ArgumentError(name, value, problem)

    def manual_run(self, run_after: datetime) -> Run:
        """The run a manual trigger is attributed to: the newest fire's at or before it, else an empty one."""
        fire = self.cron.prev_before(as_utc(run_after) + TICK)
        return Run(fire=as_utc(run_after), interval_start=as_utc(run_after)) if fire is None else self.run(fire)
