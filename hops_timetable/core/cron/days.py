"""Which days of a month fire, per "month shape" (month, first weekday, leap February)."""

from __future__ import annotations

import calendar
from datetime import date

from hops_timetable.core.cron.fields import _DaySpec

# ---------------------------------------------------------------------------------------------------------
# Calendar tables. Which days of a month fire depends only on the month, its first weekday and (for
# February) leap-ness, so day sets are cached per such "month shape": at most 12 * 7 * 2 keys. The Gregorian
# calendar repeats every 400 years (146,097 days, a whole number of weeks), so one cycle describes every year.

_CYCLE = 400
_MONTH_SHAPE: tuple[int, ...] = tuple(
    (m - 1) * 14 + date(2000 + y, m, 1).weekday() * 2 + (1 if m == 2 and calendar.isleap(2000 + y) else 0)
    for y in range(_CYCLE)
    for m in range(1, 13)
)
_MONTH_DAYS = (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)

# ---------------------------------------------------------------------------------------------------------
# Day sets


def _day_set(dom: _DaySpec | None, dow: _DaySpec | None, shape: int) -> tuple[int, ...]:
    """Days of a month of the given shape on which the day specs fire (OR when both are given)."""
    month = shape // 14 + 1
    wd1 = (shape % 14) // 2
    ndays = 29 if shape % 2 else _MONTH_DAYS[month - 1]
    days: set[int] = set()
    if dom is None and dow is None:
        return tuple(range(1, ndays + 1))
    if dom is not None:
        kind = dom[0]
        if kind == "set":
            days.update(d for d in dom[1] if d <= ndays)
        elif kind == "L":
            if ndays - dom[1] >= 1:
                days.add(ndays - dom[1])
        elif kind == "W":
            n = dom[1]
            wd = (wd1 + n - 1) % 7
            if wd == 5:  # Saturday: the Friday before, unless that leaves the month
                days.add(n - 1 if n > 1 else n + 2)
            elif wd == 6:  # Sunday: the Monday after, unless that leaves the month
                days.add(n + 1 if n < ndays else n - 2)
            else:
                days.add(n)
        elif kind == "setL":  # 5-field: listed days and the last day
            days.update(d for d in dom[1] if d <= ndays)
            days.add(ndays)
        else:  # LW
            wd = (wd1 + ndays - 1) % 7
            days.add(ndays - 1 if wd == 5 else ndays - 2 if wd == 6 else ndays)
    if dow is not None:
        kind = dow[0]
        if kind == "set":
            days.update(d for d in range(1, ndays + 1) if (wd1 + d - 1) % 7 in dow[1])
        elif kind == "nL":
            first = 1 + (dow[1] - wd1) % 7
            days.add(first + 7 * ((ndays - first) // 7))
        elif kind == "#":
            d = 1 + (dow[1] - wd1) % 7 + 7 * (dow[2] - 1)
            if d <= ndays:
                days.add(d)
        else:  # "nth", 5-field: any number of k-th weekday and last weekday terms
            for wd, k in dow[1]:
                d = 1 + (wd - wd1) % 7 + 7 * (k - 1)
                if d <= ndays:
                    days.add(d)
            for wd in dow[2]:
                first = 1 + (wd - wd1) % 7
                days.add(first + 7 * ((ndays - first) // 7))
    return tuple(sorted(days))
