"""Quartz cron in UTC: the Hopsworks scheduling dialect, 5-field cron as Airflow reads it, and ``@`` presets.

The dialect is the common ground of Quartz 2.3.2 and cron-utils 9.2.1 (``CronType.QUARTZ``), which the Hopsworks
job scheduler runs; constructs on which those engines disagree are refused. 5-field cron and the presets fire as
Airflow (through croniter) fires them. Text is parsed once (:func:`.quartz.parse`) into a frozen form that
:mod:`.engine` evaluates and :mod:`.explain` tells in English.
"""

from hops_timetable.core.cron.engine import QuartzCron, parse_shared
from hops_timetable.core.cron.form import LAST_YEAR, MAX_YEAR, MIN_YEAR, Dialect
from hops_timetable.core.cron.reader import CronSyntaxError

__all__ = ["LAST_YEAR", "MAX_YEAR", "MIN_YEAR", "CronSyntaxError", "Dialect", "QuartzCron", "parse_shared"]
