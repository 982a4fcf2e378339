"""Quartz cron in UTC: the Hopsworks scheduling dialect, 5-field cron as Airflow reads it, and ``@`` presets.

The dialect is the common ground of Quartz 2.3.2 and cron-utils 9.2.1 (``CronType.QUARTZ``), which is what the
Hopsworks job scheduler runs: 6 or 7 fields (seconds first, optional year), exactly one of the day fields is ``?``,
day-of-week 1-7 = SUN-SAT, and the specials ``L``, ``L-n``, ``nW``, ``LW`` (day-of-month) and ``L``, ``nL``, ``n#k``
(day-of-week). Constructs on which those engines disagree are rejected. For Airflow users it also reads 5-field UNIX
cron and Airflow's ``@`` presets, giving the fire times that Airflow (through croniter) gives the same string.

One idea per module: :mod:`.errors` (the error and its rewrite hint), :mod:`.fields` (the shared vocabulary),
:mod:`.parse` (reading each field's text), :mod:`.days` (which days of a month fire), :mod:`.engine` (the
evaluator, :class:`QuartzCron`) and :mod:`.explain` (English prose and lints). Pure: standard library only.
"""

from hops_timetable.core.cron.engine import QuartzCron, parse_shared
from hops_timetable.core.cron.errors import CronSyntaxError
from hops_timetable.core.cron.fields import LAST_YEAR, MAX_YEAR, MIN_YEAR, Dialect

__all__ = ["LAST_YEAR", "MAX_YEAR", "MIN_YEAR", "CronSyntaxError", "Dialect", "QuartzCron", "parse_shared"]
