"""The documented import path of the cron engine, :mod:`hops_timetable.core.cron`: ``from hops_timetable.cron import
QuartzCron``."""

from hops_timetable.core.cron import LAST_YEAR, MAX_YEAR, MIN_YEAR, CronSyntaxError, Dialect, QuartzCron

__all__ = ["LAST_YEAR", "MAX_YEAR", "MIN_YEAR", "CronSyntaxError", "Dialect", "QuartzCron"]
