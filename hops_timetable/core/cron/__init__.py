"""Quartz cron in UTC: the Hopsworks dialect (docs/cron-dialect.md), 5-field cron and ``@`` presets as Airflow (through
croniter) fires them. Text is parsed once (:func:`.quartz.parse`) into a frozen form that :mod:`.engine` evaluates
and :mod:`.explain` tells in English."""

from hops_timetable.core.cron.engine import QuartzCron, parse_shared
from hops_timetable.core.cron.form import LAST_YEAR, MAX_YEAR, MIN_YEAR, Dialect
from hops_timetable.core.cron.reader import CronSyntaxError

__all__ = ["LAST_YEAR", "MAX_YEAR", "MIN_YEAR", "CronSyntaxError", "Dialect", "QuartzCron", "parse_shared"]
