"""The evaluator: when a parsed cron expression fires, in UTC, to the second, walking a calendar of "month shapes".
A ``QuartzCron`` is immutable, hashable, picklable and safe to share between threads."""

from __future__ import annotations

import calendar
import functools
from bisect import bisect_left, bisect_right
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from hops_timetable.core.cron import explain
from hops_timetable.core.cron.form import LAST_YEAR, MIN_YEAR, UTC, Dialect, MonthDays, ParsedCron, WeekDays
from hops_timetable.core.cron.quartz import parse
from hops_timetable.core.validation import ArgumentError, ArgumentTypeError

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
    wd1 = (shape % 14) // 2
    ndays = 29 if shape % 2 else _MONTH_DAYS[shape // 14]
    if dom is None and dow is None:
        return tuple(range(1, ndays + 1))
    days: set[int] = set()
    # Each part is tested before it is used: a shape is computed once per expression, but an expression the
    # scheduler has not seen computes every shape it meets, so the empty parts must cost nothing.
    if dom is not None:
        if dom.days:
            days.update(d for d in dom.days if d <= ndays)
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


# The walk's direction: (at, past, off, step, edge), see QuartzCron._search.
_FORWARD = (bisect_left, bisect_right, 0, 1, 0)
_BACKWARD = (bisect_right, bisect_left, -1, -1, -1)
# Every year from 1970 on (no year restriction) shares one tuple and one set.
_ALL_YEARS = frozenset(range(MIN_YEAR, LAST_YEAR + 1))
_ALL_YEARS_TUPLE = tuple(range(MIN_YEAR, LAST_YEAR + 1))


# Frozen: set once in __init__ (through object.__setattr__), then shared between threads and cached.
@dataclass(frozen=True, slots=True, init=False, eq=False, repr=False)
class QuartzCron:
    """A parsed cron expression with UTC fire-time arithmetic; a refused one raises :class:`CronSyntaxError`.

    ``expression`` is the normalized Quartz string (see :class:`.form.ParsedCron`), ``source`` the string as given,
    stripped. Fire times are whole seconds in UTC from 1970 to the end of year 9999 (year-field values 1970-2099):
    ``first_fire`` is the earliest, ``last_fire`` the latest (in year 9999 without a year restriction), None if none.
    """

    expression: str
    source: str
    dialect: Dialect
    parsed: ParsedCron
    first_fire: datetime | None
    last_fire: datetime | None
    _years: tuple[int, ...]
    _mset: frozenset[int]
    _yset: frozenset[int]
    _cache: dict[int, tuple[int, ...]]
    _first: _Fields | None
    _last: _Fields | None

    def __init__(self, expression: str) -> None:
        parsed = parse(expression)
        setattr_ = object.__setattr__
        setattr_(self, "parsed", parsed)
        setattr_(self, "source", parsed.source)
        setattr_(self, "expression", parsed.expression)
        setattr_(self, "dialect", parsed.dialect)
        setattr_(self, "_cache", {})
        setattr_(self, "_mset", frozenset(parsed.months))
        years = parsed.years
        setattr_(self, "_years", _ALL_YEARS_TUPLE if years is None else years)
        setattr_(self, "_yset", _ALL_YEARS if years is None else frozenset(years))
        # An open calendar that fires in none of the month shapes (all occur in 2000-2027) never fires: no search.
        fires = years is not None or any(self._days(y, m) for y in range(2000, 2028) for m in parsed.months)
        first = self._search((MIN_YEAR - 1, 12, 31, 23, 59, 59), True) if fires else None
        last = self._search((LAST_YEAR + 1, 1, 1, 0, 0, 0), False) if fires else None
        setattr_(self, "_first", first)
        setattr_(self, "_last", last)
        setattr_(self, "first_fire", None if first is None else datetime(*first, tzinfo=UTC))
        setattr_(self, "last_fire", None if last is None else datetime(*last, tzinfo=UTC))

    def __eq__(self, other: object) -> bool:
        return self.expression == other.expression if isinstance(other, QuartzCron) else NotImplemented

    def __hash__(self) -> int:
        return hash(("QuartzCron", self.expression))

    def __repr__(self) -> str:
        return f"QuartzCron({self.source!r})"

    def __reduce__(self) -> tuple[type[QuartzCron], tuple[str]]:
        return (QuartzCron, (self.source,))

    def _days(self, year: int, month: int) -> tuple[int, ...]:
        shape = _MONTH_SHAPE[(year % _CYCLE) * 12 + month - 1]
        days = self._cache.get(shape)
        if days is None:
            days = _day_set(self.parsed.dom, self.parsed.dow, shape)
            self._cache[shape] = days
        return days

    def _search(self, t: _Fields, forward: bool, inclusive: bool = False) -> _Fields | None:
        """The nearest fire after ``t`` (``forward``) or before it, or at it when ``inclusive``."""
        at, past, off, step, edge = _FORWARD if forward else _BACKWARD
        y, mo, d, h, mi, s = t
        hours, minutes, seconds = self.parsed.hours, self.parsed.minutes, self.parsed.seconds
        if y in self._yset and mo in self._mset:
            days = self._days(y, mo)
            k = at(days, d) + off
            if 0 <= k < len(days) and days[k] == d:
                i = at(hours, h) + off
                if 0 <= i < len(hours) and hours[i] == h:
                    j = at(minutes, mi) + off
                    if 0 <= j < len(minutes) and minutes[j] == mi:
                        n = (at if inclusive else past)(seconds, s) + off
                        if 0 <= n < len(seconds):
                            return (y, mo, d, h, mi, seconds[n])
                        j += step
                    if 0 <= j < len(minutes):
                        return (y, mo, d, h, minutes[j], seconds[edge])
                    i += step
                if 0 <= i < len(hours):
                    return (y, mo, d, hours[i], minutes[edge], seconds[edge])
                k += step
            if 0 <= k < len(days):
                return (y, mo, days[k], hours[edge], minutes[edge], seconds[edge])
        years, months = self._years, self.parsed.months
        yi = at(years, y) + off
        j = past(months, mo) + off if 0 <= yi < len(years) and years[yi] == y else edge % len(months)
        # Consecutive years repeat every 400: a whole cycle without a firing day means there is none.
        give_up = y + step * (_CYCLE + 1) if self.parsed.years is None else LAST_YEAR + 1 if forward else 0
        while 0 <= yi < len(years):
            yy = years[yi]
            if (yy - give_up) * step > 0:
                return None
            while 0 <= j < len(months):
                m = months[j]
                days = self._days(yy, m)
                if days:
                    return (yy, m, days[edge], hours[edge], minutes[edge], seconds[edge])
                j += step
            yi += step
            j = edge % len(months)
        return None

    def next_after(self, dt: datetime) -> datetime | None:
        """First fire strictly after ``dt`` (aware in any zone, or naive = UTC), in UTC; None if none."""
        t, _ = utc_fields(dt)
        last = self._last
        if last is None or t >= last:
            return None
        first = self._first
        if first is not None and t < first:
            return self.first_fire
        found = self._search(t, True)
        return None if found is None else datetime(*found, tzinfo=UTC)

    def prev_before(self, dt: datetime) -> datetime | None:
        """Last fire strictly before ``dt`` (aware in any zone, or naive = UTC), in UTC; None if none."""
        t, micro = utc_fields(dt)
        first = self._first
        # With a fraction of a second, the fire at the whole second t itself lies before dt.
        inclusive = micro > 0
        if first is None or (t < first if inclusive else t <= first):
            return None
        last = self._last
        if last is not None and (t >= last if inclusive else t > last):
            return self.last_fire
        found = self._search(t, False, inclusive)
        return None if found is None else datetime(*found, tzinfo=UTC)

    def nth_before(self, dt: datetime, n: int) -> datetime | None:
        """The ``n``-th fire strictly before ``dt`` (``n=1`` is :meth:`prev_before`); None if fewer precede it. Every
        firing day fires at the same times of day, so the cost grows with the firing days crossed, not with ``n``."""
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            raise ArgumentError("n", n, f"n must be a whole number >= 1, got {n!r}")
        fire = self.prev_before(dt)
        if fire is None or n == 1:
            return fire
        hours, minutes, seconds = self.parsed.hours, self.parsed.minutes, self.parsed.seconds
        per_hour = len(minutes) * len(seconds)
        per_day = len(hours) * per_hour
        index = (
            bisect_left(hours, fire.hour) * per_hour
            + bisect_left(minutes, fire.minute) * len(seconds)
            + bisect_left(seconds, fire.second)
        )
        back = n - 1
        day = (fire.year, fire.month, fire.day)
        if back > index:
            back -= index + 1  # now at the last fire of the previous firing day
            earlier = self._firing_day_before(fire.year, fire.month, fire.day, 1 + back // per_day)
            if earlier is None:
                return None
            day = earlier
            index = per_day - 1 - back % per_day
        else:
            index -= back
        hour, rest = divmod(index, per_hour)
        minute, second = divmod(rest, len(seconds))
        return datetime(*day, hours[hour], minutes[minute], seconds[second], tzinfo=UTC)

    def count_between(self, first: datetime, last: datetime) -> int:
        """The number of fires in ``[first, last]`` (*first* a fire), exactly, in about ``2 log2(n)`` backward counts
        (each :meth:`nth_before`, whose cost is the firing days crossed): a per-second year costs milliseconds."""
        end, fire = last + timedelta(microseconds=1), first
        for n in range(1, 65):  # short stretches are walked, long ones searched
            following = self.next_after(fire)
            if following is None or following > last:
                return n
            fire = following

        def within(n: int) -> bool:
            found = self.nth_before(end, n)
            return found is not None and found >= first

        low, high = 64, 128
        while within(high):
            low, high = high, high * 2
        # The last n in [low, high) within: a bisection of the predicate, false from the first n past the count.
        return low + bisect_left(range(low + 1, high), True, key=lambda n: not within(n))

    def _firing_day_before(self, y: int, mo: int, d: int, count: int) -> tuple[int, int, int] | None:
        years, months = self._years, self.parsed.months
        while True:
            if y in self._yset and mo in self._mset:
                days = self._days(y, mo)
                k = bisect_left(days, d)  # firing days of this month before d
                if count <= k:
                    return (y, mo, days[k - count])
                count -= k
            j = bisect_left(months, mo) - 1
            if j >= 0 and y in self._yset:
                mo = months[j]
            else:
                yi = bisect_left(years, y) - 1
                if yi < 0:
                    return None
                y, mo = years[yi], months[-1]
            d = 32

    def matches(self, dt: datetime) -> bool:
        """Whether ``dt`` (aware in any zone, or naive = UTC) is exactly a fire time."""
        (y, mo, d, h, mi, s), micro = utc_fields(dt)
        at_a_time = micro == 0 and h in self.parsed.hours and mi in self.parsed.minutes and s in self.parsed.seconds
        return at_a_time and y in self._yset and mo in self._mset and d in self._days(y, mo)

    def never_fires(self) -> bool:
        """True when the expression has no fire time at all (from 1970 to the end of year 9999)."""
        return self._first is None

    def fields(self) -> list[tuple[str, str, str]]:
        """(field name, token, English meaning) for each field of the Quartz form of the expression."""
        return explain.fields(self.parsed)

    def describe(self) -> str:
        """English prose for the schedule, e.g. "At 00:00:00, on the weekday nearest day 1 of the month"."""
        return explain.describe(self.parsed)

    def lints(self, now: datetime | None = None) -> list[str]:
        """Human warnings about schedules that are valid here but surprising or refused by Hopsworks."""
        next_fire = self.next_after(now if now is not None else datetime.now(UTC))
        return explain.lints(self.parsed, last_fire=self.last_fire, next_fire=next_fire)


@functools.lru_cache(maxsize=1 << 16)
def _shared(expression: str) -> QuartzCron:
    return QuartzCron(expression)


def parse_shared(expression: str) -> QuartzCron:
    """``QuartzCron(expression)``, parsed once per distinct string and shared (at most 65,536 kept; errors are not
    cached): the scheduler deserializes a DAG's timetable for each decision, and parsing costs more than one."""
    if not isinstance(expression, str):
        return QuartzCron(expression)
    return _shared(expression)
