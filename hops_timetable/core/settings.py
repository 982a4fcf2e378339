"""The old name of :class:`hops_timetable.core.schedule.Schedule`, kept while its last users move to it."""

from __future__ import annotations

from hops_timetable.core.schedule import Schedule as ScheduleSettings

__all__ = ["ScheduleSettings"]
