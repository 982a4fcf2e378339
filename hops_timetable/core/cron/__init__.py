"""Quartz cron in UTC: the Hopsworks scheduling dialect, 5-field cron as Airflow reads it, and ``@`` presets.

The dialect is the common ground of Quartz 2.3.2 and cron-utils 9.2.1 (``CronType.QUARTZ``), which is what the
Hopsworks job scheduler runs: 6 or 7 fields (seconds first, optional year), exactly one of the day fields is ``?``,
day-of-week 1-7 = SUN-SAT, and the specials ``L``, ``L-n``, ``nW``, ``LW`` (day-of-month) and ``L``, ``nL``, ``n#k``
(day-of-week). Constructs on which those engines disagree are rejected. For Airflow users it also reads 5-field UNIX
cron and Airflow's ``@`` presets, giving the fire times that Airflow (through croniter) gives the same string.

Text is read once into a frozen, typed parsed form (:mod:`.form`) by :func:`.syntax.parse`, which refuses what is
not valid (:mod:`.reader` reads a field, :mod:`.quartz` and :mod:`.unix` the day fields and the whole per dialect,
:mod:`.errors` words the error); :mod:`.engine` (:class:`QuartzCron`, with the calendar of :mod:`.days`) evaluates
that form, and :mod:`.explain` tells it in English. :mod:`.fields` is the vocabulary they share. Pure: standard
library only.
"""

from hops_timetable.core.cron.engine import QuartzCron, parse_shared
from hops_timetable.core.cron.errors import CronSyntaxError
from hops_timetable.core.cron.fields import LAST_YEAR, MAX_YEAR, MIN_YEAR, Dialect

__all__ = ["LAST_YEAR", "MAX_YEAR", "MIN_YEAR", "CronSyntaxError", "Dialect", "QuartzCron", "parse_shared"]
