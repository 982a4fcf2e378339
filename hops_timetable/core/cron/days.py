"""The calendar the evaluator walks: an instant as UTC fields, and which days of a month fire, per "month shape"
(month, first weekday, leap February)."""

from __future__ import annotations

import calendar
from datetime import date, datetime

from hops_timetable.core.cron.fields import LAST_YEAR, UTC
from hops_timetable.core.cron.form import MonthDays, WeekDays
from hops_timetable.core.validation import ArgumentTypeError

# (year, month, day, hour, minute, second)
_Fields = tuple[int, int, int, int, int, int]


def utc_fields(dt: datetime) -> tuple[_Fields, int]:
    """``dt`` (aware in any zone, or naive = UTC) as UTC fields, and its microseconds."""
    if not isinstance(dt, datetime):
        raise ArgumentTypeError("dt", dt, f"expected a datetime, got {type(dt).__name__} {dt!r}")
    tz = dt.tzinfo
    if tz is not None and tz is not UTC:
        off = dt.utcoffset()
        if off:
            # A plain datetime keeps subclass arithmetic (pendulum) out of the conversion.
            try:
                dt = datetime(dt.year, dt.month, dt.day, dt.hour, dt.minute, dt.second, dt.microsecond) - off
            except OverflowError:
                # Past either end of datetime's range: before every fire, or after every fire.
                year = 1 if off.days >= 0 else LAST_YEAR + 1
                return (year, 1, 1, 0, 0, 0), 0
    return (dt.year, dt.month, dt.day, dt.hour, dt.minute, dt.second), dt.microsecond


# Which days of a month fire depends only on the month, its first weekday and (for
# February) leap-ness, so day sets are cached per such "month shape": at most 12 * 7 * 2 keys. The Gregorian
# calendar repeats every 400 years (146,097 days, a whole number of weeks), so one cycle describes every year.

_CYCLE = 400
_MONTH_SHAPE: tuple[int, ...] = tuple(
    (m - 1) * 14 + date(2000 + y, m, 1).weekday() * 2 + (1 if m == 2 and calendar.isleap(2000 + y) else 0)
    for y in range(_CYCLE)
    for m in range(1, 13)
)
_MONTH_DAYS = (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


def _day_set(dom: MonthDays | None, dow: WeekDays | None, shape: int) -> tuple[int, ...]:
    """Days of a month of the given shape on which the day rules fire (OR when both are given)."""
    month = shape // 14 + 1
    wd1 = (shape % 14) // 2
    ndays = 29 if shape % 2 else _MONTH_DAYS[month - 1]
    if dom is None and dow is None:
        return tuple(range(1, ndays + 1))
    days: set[int] = set()
    # Each part is tested before it is used: a shape is computed once per expression, but an expression the
    # scheduler has not seen computes every shape it meets, so the empty parts must cost nothing.
    if dom is not None:
        if dom.days:
            days.update(dom.days)
            if ndays < 31:
                days.difference_update(range(ndays + 1, 32))
        if dom.before_last is not None and ndays - dom.before_last >= 1:
            days.add(ndays - dom.before_last)
        if dom.nearest_weekday is not None:
            n = dom.nearest_weekday
            wd = (wd1 + n - 1) % 7
            if wd == 5:  # Saturday: the Friday before, unless that leaves the month
                days.add(n - 1 if n > 1 else n + 2)
            elif wd == 6:  # Sunday: the Monday after, unless that leaves the month
                days.add(n + 1 if n < ndays else n - 2)
            else:
                days.add(n)
        if dom.last_weekday:
            wd = (wd1 + ndays - 1) % 7
            days.add(ndays - 1 if wd == 5 else ndays - 2 if wd == 6 else ndays)
    if dow is not None:
        for wd in dow.every:
            days.update(range(1 + (wd - wd1) % 7, ndays + 1, 7))
        for wd, k in dow.nth:
            d = 1 + (wd - wd1) % 7 + 7 * (k - 1)
            if d <= ndays:
                days.add(d)
        for wd in dow.last:
            first = 1 + (wd - wd1) % 7
            days.add(first + 7 * ((ndays - first) // 7))
    return tuple(sorted(days))
