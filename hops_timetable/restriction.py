"""Which restriction Airflow asks a ``HopsworksTimetable`` with: the DAG's own, or a backfill's range.

Airflow passes the DAG's own restriction (earliest = start_date, latest = end_date, the DAG's catchup) when it
schedules, and ``TimeRestriction(from, to, catchup=True)`` when a backfill or its dry run lists runs. The two read the
same fields with different meanings (the end date excludes fires, a backfill's ``to`` includes logical dates; the
catch-up bound applies only to the former), so they must be told apart; this module does, for the timetable.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from hops_timetable.core.catchup import Run
from hops_timetable.core.schedule import Schedule
from hops_timetable.core.window import as_utc

if TYPE_CHECKING:
    from airflow.timetables.base import TimeRestriction

__all__ = ["is_range_request", "own_bounds", "range_run"]


def is_range_request(schedule: Schedule, restriction: TimeRestriction) -> bool:
    """Whether *restriction* asks for the runs of a range (a backfill) rather than being the DAG's own.

    * A schedule that holds the DAG's restriction (``hops_schedule`` builds it so, and the package's DAG policy binds
      every other one when Airflow parses the DAG: :mod:`hops_timetable.policy`): the restriction is the DAG's own
      exactly when it equals the held one. The only backfill that cannot be told from it is one over exactly
      ``[start_time, end_time]`` of a ``catchup=True`` DAG with an end date; it is bounded like a catch-up.
    * A restriction without latest, or with ``catchup=False``, is always the DAG's own: a backfill has both.
    * Without a held restriction (a timetable used outside a parsed DAG), one with both is ambiguous: a backfill, or a
      ``catchup=True`` DAG with an end date. It is read as the DAG's own, so that such a DAG's schedule stays right.
    """
    if restriction.latest is None or not restriction.catchup or not schedule.bound:
        return False
    earliest = None if restriction.earliest is None else as_utc(restriction.earliest)
    return (earliest, as_utc(restriction.latest)) != (schedule.start, schedule.end) or not schedule.catchup


def own_bounds(schedule: Schedule, restriction: TimeRestriction | None) -> tuple[datetime | None, datetime | None]:
    """The start and end of a DAG's own schedule: the held ones when the schedule holds the DAG's restriction,
    otherwise the restriction's (none given: no start and no end)."""
    if schedule.bound:
        return schedule.start, schedule.end
    if restriction is None:
        return None, None
    return (
        None if restriction.earliest is None else as_utc(restriction.earliest),
        None if restriction.latest is None else as_utc(restriction.latest),
    )


def range_run(schedule: Schedule, previous: Run | None, restriction: TimeRestriction) -> Run | None:
    """The next run of a backfill over *restriction* after *previous*: the scheduled run of the next logical date in
    ``[earliest, latest]`` (earliest defaults to the schedule's start), never bounded."""
    if restriction.latest is None:
        return None
    policy = schedule.range_policy
    earliest = policy.start if restriction.earliest is None else as_utc(restriction.earliest)
    if earliest is None:
        return None
    return policy.range_run(earliest, as_utc(restriction.latest), previous)
