"""The Quartz cron evaluator: the Hopsworks scheduling dialect, evaluated in UTC.

The dialect is the common ground of Quartz 2.3.2 and cron-utils 9.2.1 (``CronType.QUARTZ``), which is what
the Hopsworks job scheduler runs: 6 or 7 fields (seconds first, optional year), exactly one of the day
fields is ``?``, day-of-week 1-7 = SUN-SAT, and the specials ``L``, ``L-n``, ``nW``, ``LW`` (day-of-month)
and ``L``, ``nL``, ``n#k`` (day-of-week). Constructs on which those engines disagree are rejected.

For Airflow users it also reads 5-field UNIX cron and Airflow's ``@`` presets, giving the fire times that
Airflow (through croniter) gives the same string, including croniter's reading of when day-of-month and
day-of-week are OR-ed.

The module is pure: standard library only, never Airflow. A ``QuartzCron`` is parsed once, immutable,
hashable, picklable and safe to share between threads.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from bisect import bisect_left, bisect_right
from datetime import datetime, timedelta

from hops_timetable.core.cron import explain
from hops_timetable.core.cron.days import _CYCLE, _MONTH_SHAPE, _day_set
from hops_timetable.core.cron.errors import CronSyntaxError
from hops_timetable.core.cron.fields import (
    _DOM,
    _DOW,
    _HOUR,
    _MIN,
    _MON,
    _PRESETS,
    _SEC,
    _TOKEN,
    _YEAR,
    LAST_YEAR,
    MIN_YEAR,
    UTC,
    Dialect,
    _DaySpec,
    _Item,
    _py_weekday,
)
from hops_timetable.core.cron.parse import _compress, _has_star, _is_odd_space, _Parser, _same_in_quartz

__all__ = ["QuartzCron", "parse_shared"]

# ---------------------------------------------------------------------------------------------------------
# The public class

_Fields = tuple[int, int, int, int, int, int]
_ALL_YEARS = frozenset(range(MIN_YEAR, LAST_YEAR + 1))
_ALL_YEARS_TUPLE = tuple(range(MIN_YEAR, LAST_YEAR + 1))


class QuartzCron:
    """A parsed cron expression with UTC fire-time arithmetic.

    ``expression`` is the normalized Quartz string (single spaces, upper case; 5-field cron and presets
    rewritten as Quartz, except UNIX strings with both day fields restricted, which keep their 5-field
    form because Quartz cannot express their OR). ``source`` is the string as given, stripped.
    Fire times are whole seconds in UTC from 1970 to the end of year 9999 (year-field values 1970-2099).
    """

    __slots__ = (
        "_cache",
        "_dom",
        "_dow",
        "_first",
        "_first_dt",
        "_hours",
        "_items",
        "_last",
        "_last_dt",
        "_minutes",
        "_months",
        "_mset",
        "_open",
        "_seconds",
        "_tokens",
        "_years",
        "_yset",
        "dialect",
        "expression",
        "source",
    )

    expression: str
    source: str
    dialect: Dialect
    _seconds: tuple[int, ...]
    _minutes: tuple[int, ...]
    _hours: tuple[int, ...]
    _months: tuple[int, ...]
    _years: tuple[int, ...]
    _mset: frozenset[int]
    _yset: frozenset[int]
    _open: bool
    _dom: _DaySpec | None
    _dow: _DaySpec | None
    _cache: dict[int, tuple[int, ...]]
    _items: tuple[list[_Item], ...]
    _tokens: tuple[str, ...]
    _first: _Fields | None
    _last: _Fields | None
    _first_dt: datetime | None
    _last_dt: datetime | None

    def __init__(self, expression: str) -> None:
        if not isinstance(expression, str):
            why = f"a cron expression must be a string, got {type(expression).__name__} {expression!r}"
            raise CronSyntaxError(why, expression=repr(expression), message=why)
        source = expression.strip(" \t")
        setattr_ = object.__setattr__
        setattr_(self, "source", source)
        setattr_(self, "_cache", {})
        self._parse(source)
        first: _Fields | None = None
        last: _Fields | None = None
        if not self._open or any(self._fires_in_shape(shape) for shape in self._shapes()):
            first = self._search_next((MIN_YEAR - 1, 12, 31, 23, 59, 59))
            last = self._search_prev((LAST_YEAR + 1, 1, 1, 0, 0, 0), inclusive=False)
        setattr_(self, "_first", first)
        setattr_(self, "_last", last)
        setattr_(self, "_first_dt", None if first is None else datetime(*first, tzinfo=UTC))
        setattr_(self, "_last_dt", None if last is None else datetime(*last, tzinfo=UTC))

    # -- parsing ------------------------------------------------------------------------------------------

    def _parse(self, source: str) -> None:
        setattr_ = object.__setattr__
        parser = _Parser(source, QuartzCron)
        if not source:
            raise parser.fail("the expression is empty", hint="an hourly Quartz schedule is '0 0 * ? * *'")
        if "|" in source:
            raise parser.fail(
                "composite expressions joined with '|' are not supported",
                hint="schedule one cron expression per DAG",
            )
        odd = next((i for i, ch in enumerate(source) if _is_odd_space(ch)), None)
        if odd is not None:
            ch = source[odd]
            spaced = "".join(" " if _is_odd_space(c) else c for c in source)
            try:
                QuartzCron(spaced)
                rewrites: tuple[str, ...] = (spaced,)
            except CronSyntaxError:
                rewrites = ()
            raise CronSyntaxError(
                f"character U+{ord(ch):04X} ({unicodedata.name(ch, 'control character')}) at position {odd + 1} "
                "is not a field separator: fields are separated by spaces and tabs only",
                expression=source,
                hint=f"write {spaced!r}" if rewrites else "separate the fields with spaces",
                rewrites=rewrites,
            )
        dialect: Dialect = "quartz"
        text = source
        if source.startswith("@"):
            preset = source.lower()
            if preset in ("@once", "@continuous"):
                raise parser.fail(
                    f"{source!r} is not periodic, so it has no cron fire times",
                    hint="use Airflow's own schedule for it",
                )
            if preset not in _PRESETS:
                raise parser.fail(
                    f"unknown preset {source!r}, expected one of {', '.join(_PRESETS)}",
                    hint="or write the schedule as a cron expression",
                )
            dialect = "preset"
            text = _PRESETS[preset]
            parser = _Parser(text, QuartzCron)
        matches = list(_TOKEN.finditer(text))
        tokens = [m.group() for m in matches]
        starts = [m.start() + 1 for m in matches]
        if len(tokens) == 5:
            if dialect == "quartz":
                dialect = "unix"
            parser.unix = True
            parser.refuse_long_numbers(tokens, starts, (_MIN, _HOUR, _DOM, _MON, _DOW))
            self._parse_unix(parser, tokens, starts, dialect)
        elif len(tokens) in (6, 7):
            parser.refuse_long_numbers(tokens, starts, tuple(range(len(tokens))))
            self._parse_quartz(parser, tokens, starts)
        else:
            raise parser.fail(
                f"expected 6 or 7 Quartz fields (or 5 UNIX cron fields), got {len(tokens)}",
                hint="Quartz fields are: second minute hour day-of-month month day-of-week [year]",
            )
        setattr_(self, "dialect", dialect)

    def _store_common(self, sets: list[set[int]], items: list[list[_Item]], years: set[int] | frozenset[int]) -> None:
        setattr_ = object.__setattr__
        setattr_(self, "_seconds", tuple(sorted(sets[_SEC])))
        setattr_(self, "_minutes", tuple(sorted(sets[_MIN])))
        setattr_(self, "_hours", tuple(sorted(sets[_HOUR])))
        setattr_(self, "_months", tuple(sorted(sets[_MON])))
        setattr_(self, "_mset", frozenset(sets[_MON]))
        # Every year from 1970 on (the year field is absent or "*") shares one tuple and one set.
        is_open = len(years) == len(_ALL_YEARS)
        setattr_(self, "_years", _ALL_YEARS_TUPLE if is_open else tuple(sorted(years)))
        setattr_(self, "_yset", _ALL_YEARS if is_open else frozenset(years))
        setattr_(self, "_open", is_open)
        setattr_(self, "_items", tuple(items))

    def _parse_quartz(self, parser: _Parser, tokens: list[str], starts: list[int]) -> None:
        setattr_ = object.__setattr__
        dom_text, dow_text = tokens[_DOM], tokens[_DOW]
        if dom_text == "?" and dow_text == "?":
            raise parser.fail(
                "'?' may be used in only one of day-of-month and day-of-week",
                _DOW,
                dow_text,
                starts[_DOW],
                "use * in day-of-month and ? in day-of-week for every day",
                rewrites=(parser.replaced(starts[_DOM], dom_text, "*"),),
            )
        if dom_text != "?" and dow_text != "?":
            # With one field "*", the other one is evidently the restriction meant.
            if dow_text == "*":
                evident: tuple[str, ...] = (parser.replaced(starts[_DOW], dow_text, "?"),)
            elif dom_text == "*":
                evident = (parser.replaced(starts[_DOM], dom_text, "?"),)
            else:
                evident = ()
            raise parser.fail(
                "exactly one of day-of-month and day-of-week must be '?'",
                _DOM,
                dom_text,
                starts[_DOM],
                "use ? in day-of-month when restricting day-of-week, or ? in day-of-week otherwise",
                rewrites=evident,
            )
        sets: list[set[int]] = [set() for _ in range(7)]
        items: list[list[_Item]] = [[] for _ in range(7)]
        for f in (_SEC, _MIN, _HOUR, _MON):
            items[f], sets[f] = parser.field(f, tokens[f], starts[f])
        dom: _DaySpec | None = None
        dow: _DaySpec | None = None
        if dom_text == "?":
            items[_DOM] = [("?",)]
            items[_DOW], dow = parser.dow(dow_text, starts[_DOW])
        else:
            items[_DOW] = [("?",)]
            items[_DOM], dom = parser.dom(dom_text, starts[_DOM])
        if len(tokens) == 7:
            if tokens[_YEAR] == "?":
                raise parser.fail("'?' is not allowed in year", _YEAR, "?", starts[_YEAR], fix="*")
            items[_YEAR], year_values = parser.field(_YEAR, tokens[_YEAR], starts[_YEAR])
            years = _ALL_YEARS if items[_YEAR] == [("all",)] else frozenset(year_values)
        else:
            items[_YEAR], years = [("all",)], _ALL_YEARS
        self._store_common(sets, items, years)
        setattr_(self, "_dom", dom)
        setattr_(self, "_dow", dow)
        upper = [t.upper() for t in tokens]
        setattr_(self, "expression", " ".join(upper))
        setattr_(self, "_tokens", tuple(upper if len(upper) == 7 else [*upper, "*"]))

    def _parse_unix(self, parser: _Parser, tokens: list[str], starts: list[int], dialect: Dialect) -> None:
        setattr_ = object.__setattr__
        parser.unix = True
        sets: list[set[int]] = [set() for _ in range(7)]
        items: list[list[_Item]] = [[] for _ in range(7)]
        sets[_SEC], items[_SEC] = {0}, [("value", 0)]
        # UNIX order: minute hour day-of-month month day-of-week
        for f, i in ((_MIN, 0), (_HOUR, 1), (_MON, 3)):
            items[f], sets[f] = parser.field(f, tokens[i], starts[i])
        dom_raw, dow_raw = tokens[2], tokens[4]
        items[_DOM], sets[_DOM], dom_special = parser.unix_dom(dom_raw, starts[2], dow_raw)
        items[_DOW], sets[_DOW], dow_special = parser.unix_dow(dow_raw, starts[4], dom_raw)
        dow_values = {v % 7 for v in sets[_DOW]}
        # croniter's rule, which Airflow inherits: a day field counts as unrestricted when written "?", when its
        # list holds a bare "*" ("*", "*,16", "L,*"), or when it covers every value and the *other* field's text
        # contains a "*" anywhere ("*/2" too). Only two restricted fields are OR-ed.
        dom: _DaySpec | None = dom_special
        if dom is None:
            dom_star = dom_raw == "?" or _has_star(dom_raw) or (len(sets[_DOM]) == 31 and "*" in dow_raw)
            dom = None if dom_star else ("set", frozenset(sets[_DOM]))
        dow: _DaySpec | None = dow_special
        if dow is None:
            dow_star = dow_raw == "?" or _has_star(dow_raw) or (len(dow_values) == 7 and "*" in dom_raw)
            dow = None if dow_star else ("set", frozenset(_py_weekday(v, True) for v in dow_values))
        items[_YEAR] = [("all",)]
        if dom is None and dow is not None:
            items[_DOM] = [("?",)]
        elif dow is None:
            items[_DOW] = [("?",)]
        self._store_common(sets, items, _ALL_YEARS)
        setattr_(self, "_dom", dom)
        setattr_(self, "_dow", dow)
        upper = [t.upper() for t in tokens]
        # The Quartz spelling: the user's token where Quartz reads it the same, else the values it denotes.
        time_q = [
            "*"
            if items[f] == [("all",)]
            else upper[i]
            if _same_in_quartz(items[f], upper[i])
            else _compress(sorted(sets[f]))
            for f, i in ((_MIN, 0), (_HOUR, 1), (_MON, 3))
        ]
        expressible = True
        dom_q = upper[2] if dom_raw != "?" and _same_in_quartz(items[_DOM], upper[2]) else "*"
        if dom is not None:
            if dom[0] == "setL":
                dom_q = "L"
                expressible = not dom[1]
            elif dom[0] == "set" and not _same_in_quartz(items[_DOM], upper[2]):
                dom_q = _compress(sorted(sets[_DOM]))
            elif dom[0] == "W":
                dom_q = f"{dom[1]}W"
        if dow is not None and dow[0] == "nth":
            terms = [f"{v + 1}#{k}" for kind, v, k in (i for i in items[_DOW] if i[0] == "#")]
            terms += [f"{i[1] + 1}L" for i in items[_DOW] if i[0] == "nL"]
            expressible = len(terms) == 1
            dow_q = terms[0]
        elif dow_raw in ("*", "?") or (
            re.fullmatch(r"[A-Z,\-]+", upper[4])
            and not any(i[0] == "wrap" and len(i) > 3 and i[3] > 1 for i in items[_DOW])
        ):
            dow_q = "*" if dow_raw == "?" else upper[4]
        else:
            dow_q = _compress(sorted({v % 7 + 1 for v in sets[_DOW]}))
        if (dom is not None and dow is not None) or not expressible:
            expression = " ".join(upper)
            quartz = ["0", upper[0], upper[1], upper[2], upper[3], upper[4] if not expressible else dow_q, "*"]
        elif dow is not None:
            quartz = ["0", time_q[0], time_q[1], "?", time_q[2], dow_q]
            expression = " ".join(quartz)
        else:
            quartz = ["0", time_q[0], time_q[1], dom_q, time_q[2], "?"]
            expression = " ".join(quartz)
        setattr_(self, "expression", expression)
        setattr_(self, "_tokens", tuple(quartz if len(quartz) == 7 else [*quartz, "*"]))

    # -- immutability, equality, pickling -----------------------------------------------------------------

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"QuartzCron is immutable; cannot set {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"QuartzCron is immutable; cannot delete {name!r}")

    def __eq__(self, other: object) -> bool:
        if isinstance(other, QuartzCron):
            return self.expression == other.expression
        return NotImplemented

    def __hash__(self) -> int:
        return hash(("QuartzCron", self.expression))

    def __repr__(self) -> str:
        return f"QuartzCron({self.source!r})"

    def __reduce__(self) -> tuple[type[QuartzCron], tuple[str]]:
        return (QuartzCron, (self.source,))

    # -- evaluation ---------------------------------------------------------------------------------------

    def _days(self, year: int, month: int) -> tuple[int, ...]:
        shape = _MONTH_SHAPE[(year % _CYCLE) * 12 + month - 1]
        days = self._cache.get(shape)
        if days is None:
            days = _day_set(self._dom, self._dow, shape)
            self._cache[shape] = days
        return days

    def _shapes(self) -> list[int]:
        # The month shapes that occur in the chosen months; only February has leap shapes.
        return [
            (m - 1) * 14 + wd * 2 + leap
            for m in self._months
            for wd in range(7)
            for leap in ((0, 1) if m == 2 else (0,))
        ]

    def _fires_in_shape(self, shape: int) -> bool:
        days = self._cache.get(shape)
        if days is None:
            days = _day_set(self._dom, self._dow, shape)
            self._cache[shape] = days
        return bool(days)

    def _search_next(self, t: _Fields) -> _Fields | None:
        """Smallest fire strictly after ``t`` (no range guards: used to find them)."""
        y, mo, d, h, mi, s = t
        hours, minutes, seconds = self._hours, self._minutes, self._seconds
        if y in self._yset and mo in self._mset:
            days = self._days(y, mo)
            k = bisect_left(days, d)
            if k < len(days) and days[k] == d:
                i = bisect_left(hours, h)
                if i < len(hours) and hours[i] == h:
                    j = bisect_left(minutes, mi)
                    if j < len(minutes) and minutes[j] == mi:
                        n = bisect_right(seconds, s)
                        if n < len(seconds):
                            return (y, mo, d, h, mi, seconds[n])
                        j += 1
                    if j < len(minutes):
                        return (y, mo, d, h, minutes[j], seconds[0])
                    i += 1
                if i < len(hours):
                    return (y, mo, d, hours[i], minutes[0], seconds[0])
                k += 1
            if k < len(days):
                return (y, mo, days[k], hours[0], minutes[0], seconds[0])
        years, months = self._years, self._months
        yi = bisect_left(years, y)
        j = bisect_right(months, mo) if yi < len(years) and years[yi] == y else 0
        # Consecutive years repeat every 400: a whole cycle without a firing day means there is none.
        give_up = y + _CYCLE + 1 if self._open else LAST_YEAR + 1
        while yi < len(years):
            yy = years[yi]
            if yy > give_up:
                return None
            while j < len(months):
                m = months[j]
                days = self._days(yy, m)
                if days:
                    return (yy, m, days[0], hours[0], minutes[0], seconds[0])
                j += 1
            yi += 1
            j = 0
        return None

    def _search_prev(self, t: _Fields, inclusive: bool) -> _Fields | None:
        """Largest fire before ``t`` (or at it, when ``inclusive``)."""
        y, mo, d, h, mi, s = t
        hours, minutes, seconds = self._hours, self._minutes, self._seconds
        if y in self._yset and mo in self._mset:
            days = self._days(y, mo)
            k = bisect_right(days, d) - 1
            if k >= 0 and days[k] == d:
                i = bisect_right(hours, h) - 1
                if i >= 0 and hours[i] == h:
                    j = bisect_right(minutes, mi) - 1
                    if j >= 0 and minutes[j] == mi:
                        n = (bisect_right(seconds, s) if inclusive else bisect_left(seconds, s)) - 1
                        if n >= 0:
                            return (y, mo, d, h, mi, seconds[n])
                        j -= 1
                    if j >= 0:
                        return (y, mo, d, h, minutes[j], seconds[-1])
                    i -= 1
                if i >= 0:
                    return (y, mo, d, hours[i], minutes[-1], seconds[-1])
                k -= 1
            if k >= 0:
                return (y, mo, days[k], hours[-1], minutes[-1], seconds[-1])
        years, months = self._years, self._months
        yi = bisect_right(years, y) - 1
        j = bisect_left(months, mo) - 1 if yi >= 0 and years[yi] == y else len(months) - 1
        give_up = y - _CYCLE - 1 if self._open else 0
        while yi >= 0:
            yy = years[yi]
            if yy < give_up:
                return None
            while j >= 0:
                m = months[j]
                days = self._days(yy, m)
                if days:
                    return (yy, m, days[-1], hours[-1], minutes[-1], seconds[-1])
                j -= 1
            yi -= 1
            j = len(months) - 1
        return None

    @staticmethod
    def _utc_fields(dt: datetime) -> tuple[_Fields, int]:
        if not isinstance(dt, datetime):
            raise TypeError(f"expected a datetime, got {type(dt).__name__} {dt!r}")
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

    def next_after(self, dt: datetime) -> datetime | None:
        """First fire strictly after ``dt`` (aware in any zone, or naive = UTC), in UTC; None if none."""
        t, _ = self._utc_fields(dt)
        last = self._last
        if last is None or t >= last:
            return None
        first = self._first
        if first is not None and t < first:
            return self._first_dt
        found = self._search_next(t)
        return None if found is None else datetime(*found, tzinfo=UTC)

    def prev_before(self, dt: datetime) -> datetime | None:
        """Last fire strictly before ``dt`` (aware in any zone, or naive = UTC), in UTC; None if none."""
        t, micro = self._utc_fields(dt)
        first = self._first
        # With a fraction of a second, the fire at the whole second t itself lies before dt.
        inclusive = micro > 0
        if first is None or (t < first if inclusive else t <= first):
            return None
        last = self._last
        if last is not None and (t >= last if inclusive else t > last):
            return self._last_dt
        found = self._search_prev(t, inclusive)
        return None if found is None else datetime(*found, tzinfo=UTC)

    def nth_before(self, dt: datetime, n: int) -> datetime | None:
        """The ``n``-th fire strictly before ``dt`` (``n=1`` is :meth:`prev_before`); None if fewer precede it.

        Every firing day fires at the same times of day, so the walk counts whole days at a time: the cost grows
        with the number of firing days crossed, not with ``n``. This keeps a bounded catch-up after a long outage
        as cheap as the steady state.
        """
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            raise ValueError(f"n must be a whole number >= 1, got {n!r}")
        fire = self.prev_before(dt)
        if fire is None or n == 1:
            return fire
        hours, minutes, seconds = self._hours, self._minutes, self._seconds
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

    def _firing_day_before(self, y: int, mo: int, d: int, count: int) -> tuple[int, int, int] | None:
        """The ``count``-th firing day strictly before day ``d`` of ``y``-``mo``."""
        years, months = self._years, self._months
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
        (y, mo, d, h, mi, s), micro = self._utc_fields(dt)
        return (
            micro == 0
            and y in self._yset
            and mo in self._mset
            and h in self._hours
            and mi in self._minutes
            and s in self._seconds
            and d in self._days(y, mo)
        )

    def never_fires(self) -> bool:
        """True when the expression has no fire time at all (from 1970 to the end of year 9999)."""
        return self._first is None

    @property
    def first_fire(self) -> datetime | None:
        """The earliest fire time (none precede 1970), or None."""
        return self._first_dt

    @property
    def last_fire(self) -> datetime | None:
        """The latest fire time, or None. Without a year restriction it lies in year 9999."""
        return self._last_dt

    def check_fires_from(self, name: str, start: datetime) -> None:
        """Raise ValueError naming ``name`` when no fire time lies at or after ``start``.

        Meant for build-time validation: a year-limited schedule started after its last fire would never run.
        """
        last = self._last_dt
        if last is None:
            raise ValueError(f"{self.source!r} never fires, so {name}={start.isoformat()} can never run it")
        if self.next_after(start - timedelta(microseconds=1)) is None:
            raise ValueError(
                f"{name}={start.isoformat()} is after the last fire time of {self.source!r}: this schedule never "
                f"fires after {last.isoformat()}; start before it or extend the year field"
            )

    # -- explanation (hops_timetable.core.cron.explain) ----------------------------------------------------

    def fields(self) -> list[tuple[str, str, str]]:
        """(field name, token, English meaning) for each field of the Quartz form of the expression."""
        return explain.fields(self)

    def describe(self) -> str:
        """English prose for the schedule, e.g. "At 00:00:00, on the weekday nearest day 1 of the month"."""
        return explain.describe(self)

    def lints(self, now: datetime | None = None) -> list[str]:
        """Human warnings about schedules that are valid here but surprising or refused by Hopsworks."""
        return explain.lints(self, now)


@functools.lru_cache(maxsize=4096)
def _shared(expression: str) -> QuartzCron:
    return QuartzCron(expression)


def parse_shared(expression: str) -> QuartzCron:
    """``QuartzCron(expression)``, parsed once per distinct string and then shared (at most 4,096 kept).

    Safe because a ``QuartzCron`` is immutable: the scheduler deserializes a DAG's timetable for each decision, and
    parsing again each time would cost more than the decision. A refused expression raises every time (errors are
    not cached), as the constructor does.
    """
    if not isinstance(expression, str):
        return QuartzCron(expression)
    return _shared(expression)
