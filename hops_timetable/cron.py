"""Quartz cron engine: the Hopsworks scheduling dialect, evaluated in UTC.

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

import calendar
import re
import threading
import unicodedata
from bisect import bisect_left, bisect_right
from datetime import date, datetime, timedelta, timezone
from typing import Any, Literal

__all__ = ["CronSyntaxError", "QuartzCron"]

UTC = timezone.utc
# The year field takes 1970-2099, as in Quartz and cron-utils. An expression without a year restriction fires
# from 1970 until the end of Python's calendar.
MIN_YEAR = 1970
MAX_YEAR = 2099
LAST_YEAR = 9999

Dialect = Literal["quartz", "unix", "preset"]


class CronSyntaxError(ValueError):
    """A cron expression that is not valid in the Hopsworks dialect.

    ``field`` is the field name (``"day-of-month"``), ``token`` the offending list item, ``position`` its
    1-based character position in ``expression``; each is None when the error concerns the whole string.
    ``hint`` says how to rewrite it, when there is a rewrite. ``rewrites`` holds the rewritten expressions the
    hint proposes: each parses, and together (one schedule each) they fire where the most likely reading of
    the original does; for a 5-field expression refused as ambiguous, that reading is croniter's (Airflow's).
    """

    def __init__(
        self,
        why: str,
        *,
        expression: str,
        field: str | None = None,
        token: str | None = None,
        position: int | None = None,
        hint: str | None = None,
        message: str | None = None,
        rewrites: tuple[str, ...] = (),
    ) -> None:
        self.expression = expression
        self.field = field
        self.token = token
        self.position = position
        self.hint = hint
        self.why = why
        self.rewrites = rewrites
        if field is not None and token is not None:
            where = f"invalid {field} token {token!r} at position {position} in {expression!r}"
        else:
            where = f"invalid cron expression {expression!r}"
        if message is None:
            message = f"{where}: {why}"
            if hint:
                message += f" ({hint})"
        super().__init__(message)


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

_FIELD_NAMES = ("second", "minute", "hour", "day-of-month", "month", "day-of-week", "year")
_SEC, _MIN, _HOUR, _DOM, _MON, _DOW, _YEAR = range(7)

_MONTH_NAMES = {
    name: i + 1
    for i, name in enumerate(("JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"))
}
_QUARTZ_DOW_NAMES = {name: i + 1 for i, name in enumerate(("SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"))}
_UNIX_DOW_NAMES = {name: i - 1 for name, i in _QUARTZ_DOW_NAMES.items()}
_DAY_WORDS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_MONTH_WORDS = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)
_ORDINALS = ("first", "second", "third", "fourth", "fifth")

_PRESETS = {
    "@hourly": "0 * * * *",
    "@daily": "0 0 * * *",
    "@midnight": "0 0 * * *",
    "@weekly": "0 0 * * 0",
    "@monthly": "0 0 1 * *",
    "@quarterly": "0 0 1 */3 *",
    "@yearly": "0 0 1 1 *",
    "@annually": "0 0 1 1 *",
}

_DIGITS = re.compile(r"[0-9]+", re.ASCII)
# Quartz splits fields on spaces and tabs only; so does this engine, in every dialect.
_TOKEN = re.compile(r"[^ \t]+")

# Parsed list items, kept for describe()/fields(): ("all",) ("value", v) ("range", a, b, step)
# ("wrap", a, b) and the day specials ("L", n) ("W", n) ("LW",) ("nL", v) ("#", v, k) ("?",).
_Item = tuple[Any, ...]

# Day specs used by the evaluator. Day-of-month: ("set", frozenset) ("L", n) ("W", n) ("LW",).
# Day-of-week (Python weekday numbers, Monday = 0): ("set", frozenset) ("nL", wd) ("#", wd, k).
_DaySpec = tuple[Any, ...]


def _py_weekday(value: int, unix: bool) -> int:
    # Quartz numbers SUN=1..SAT=7, UNIX SUN=0 (or 7)..SAT=6; Python numbers MON=0..SUN=6.
    return (value + 6) % 7 if unix else (value + 5) % 7


# ---------------------------------------------------------------------------------------------------------
# Parsing


class _Parser:
    """Parses one expression; collects everything the evaluator and the describer need."""

    def __init__(self, expression: str) -> None:
        self.expression = expression
        self.unix = False

    def fail(
        self,
        why: str,
        field: int | None = None,
        token: str | None = None,
        position: int | None = None,
        hint: str | None = None,
        fix: str | None = None,
        rewrites: tuple[str, ...] = (),
    ) -> CronSyntaxError:
        """The error; ``fix`` replaces ``token`` (at ``position``) to give the single rewrite."""
        if fix is not None and token is not None and position is not None:
            rewrites = (self.replaced(position, token, fix),)
        if rewrites and not _rewrites_parse(rewrites, self.expression):
            rewrites = ()  # a rewrite is only proposed when it is itself valid
        if rewrites:
            shown = " and ".join(repr(r) for r in rewrites)
            hint = f"{hint}: {shown}" if hint else f"write {shown}"
        return CronSyntaxError(
            why,
            expression=self.expression,
            field=None if field is None else _FIELD_NAMES[field],
            token=token,
            position=position,
            hint=hint,
            rewrites=rewrites,
        )

    def replaced(self, position: int, token: str, fix: str) -> str:
        i = position - 1
        return self.expression[:i] + fix + self.expression[i + len(token) :]

    def split(self, position: int, text: str, parts: list[str]) -> tuple[str, ...]:
        """One rewrite per list item: the field ``text`` at ``position`` replaced by each part."""
        return tuple(self.replaced(position, text, part) for part in parts)

    def bounds(self, field: int) -> tuple[int, int]:
        if field == _DOW:
            return (0, 7) if self.unix else (1, 7)
        return ((0, 59), (0, 59), (0, 23), (1, 31), (1, 12), (1, 7), (MIN_YEAR, MAX_YEAR))[field]

    def names(self, field: int) -> dict[str, int] | None:
        if field == _MON:
            return _MONTH_NAMES
        if field == _DOW:
            return _UNIX_DOW_NAMES if self.unix else _QUARTZ_DOW_NAMES
        return None

    def value(self, field: int, text: str, token: str, pos: int) -> int:
        lo, hi = self.bounds(field)
        upper = text.upper()
        names = self.names(field)
        if _DIGITS.fullmatch(text):
            v = int(text)
            if not lo <= v <= hi:
                raise self.fail(f"value {v} is out of range {lo}-{hi}", field, token, pos)
            return v
        if names is not None:
            if upper in names:
                return names[upper]
            if len(upper) > 3 and upper[:3] in names and upper.isalpha():
                fix = re.sub(
                    r"[A-Z]{4,}",
                    lambda m: m.group()[:3] if m.group()[:3] in names else m.group(),
                    token.upper(),
                )
                raise self.fail(
                    f"long name {text!r} is not accepted", field, token, pos, "use the three-letter name", fix
                )
            valid = f"{lo}-{hi} or {next(iter(names))}-{list(names)[-1]}"
        else:
            valid = f"{lo}-{hi}"
        hint = None
        if "H" in upper and self.unix:
            hint = "hashed values (H) are not supported: choose the value yourself"
        elif upper.startswith("-"):
            hint = "negative numbers are not allowed"
        raise self.fail(f"{text!r} is not a valid value, expected {valid}", field, token, pos, hint)

    def step(self, field: int, text: str, token: str, pos: int) -> int:
        lo, hi = self.bounds(field)
        top = hi - lo if field == _YEAR else hi
        if not _DIGITS.fullmatch(text):
            raise self.fail(f"step {text!r} is not a whole number", field, token, pos)
        s = int(text)
        if s < 1:
            raise self.fail("step must be at least 1", field, token, pos)
        if s > top:
            raise self.fail(f"step {s} is larger than the field (at most {top})", field, token, pos)
        return s

    def span(self, field: int) -> tuple[int, int]:
        """(first value, number of values) of the field's cycle, for wrap-around ranges."""
        if field == _DOW:
            return (0, 7) if self.unix else (1, 7)
        lo, hi = self.bounds(field)
        return lo, hi - lo + 1

    def cycle(self, field: int, a: int, b: int, step: int) -> list[int]:
        """A wrap-around range read as one cycle: from a up past the field's end, on to b, every step."""
        first, n = self.span(field)
        end = b + n if b < a else b
        return sorted({first + (i - first) % n for i in range(a, end + 1, step)})

    def croniter_wrap(self, field: int, a: int, b: int, step: int) -> list[int]:
        """croniter's reading of a wrap-around range with a step: the step restarts after the field's end."""
        lo, hi = (0, 6) if field == _DOW else self.bounds(field)
        first = list(range(a, hi + 1, step))
        skip = 0
        if first:
            already = hi - first[-1]
            if first[-1] - lo + step > hi - lo + 1 and already < step:
                skip = step - already
        return sorted({*first, *range(lo + skip, b + 1, step)})

    def spelled(self, field: int, values: list[int]) -> str:
        """A list token for exactly these values in this dialect."""
        return _compress(sorted(set(values)))

    def plain_item(self, field: int, token: str, pos: int) -> tuple[_Item, list[int]]:
        """Parse ``*``, ``v``, ``a-b``, ``a/s``, ``*/s``, ``/s``, ``a-b/s`` into an item and its values."""
        lo, hi = self.bounds(field)
        if token == "*":
            return ("all",), list(range(lo, hi + 1))
        base, slash, step_text = token.partition("/")
        step = self.step(field, step_text, token, pos) if slash else 0
        if slash and field == _DOW and self.unix:
            # croniter runs a day-of-week step up to 6, never 7 (which it reads as 0, Sunday).
            hi = 6
        if slash and base in ("", "*"):
            if field == _YEAR:
                hi = LAST_YEAR  # open-ended, as above
            return ("range", lo, hi, step), list(range(lo, hi + 1, step))
        named = any(c.isalpha() for c in base)
        if "-" in base[1:]:
            cut = base.index("-", 1)
            a_text, b_text = base[:cut], base[cut + 1 :]
            if not a_text or not b_text:
                raise self.fail("incomplete range", field, token, pos, "write a range as start-end, e.g. 1-5")
            a = self.value(field, a_text, token, pos)
            b = self.value(field, b_text, token, pos)
            if self.unix:
                return self.unix_range(field, token, pos, a, b, a_text, b_text, step)
            if (_DIGITS.fullmatch(a_text) is None) != (_DIGITS.fullmatch(b_text) is None):
                raise self.fail(
                    "Quartz 2.3.2 refuses a range that mixes a number and a name",
                    field,
                    token,
                    pos,
                    "spell both ends as numbers",
                    self.quartz_spelling(field, a, b, step),
                )
            if named and slash:
                raise self.fail(
                    f"Quartz 2.3.2 ignores a step after a name and would read {token!r} as {base!r}",
                    field,
                    token,
                    pos,
                    f"for a step of {step} write the range as numbers",
                    self.quartz_spelling(field, a, b, step),
                )
            if a > b:
                if field != _DOW or slash:
                    why = (
                        "a step on a wrap-around range is not supported"
                        if field == _DOW
                        else "wrap-around ranges are only allowed in Quartz day-of-week"
                    )
                    raise self.fail(
                        why,
                        field,
                        token,
                        pos,
                        "list the values",
                        self.spelled(field, self.cycle(field, a, b, step or 1)),
                    )
                return ("wrap", a, b), [*range(a, hi + 1), *range(lo, b + 1)]
            return ("range", a, b, step or 1), list(range(a, b + 1, step or 1))
        if base.startswith("-"):
            raise self.fail("incomplete range", field, token, pos, "negative numbers are not allowed")
        v = self.value(field, base, token, pos)
        if slash:
            if named and not self.unix:
                raise self.fail(
                    f"Quartz 2.3.2 ignores a step after a name and would read {token!r} as {base!r}",
                    field,
                    token,
                    pos,
                    f"for a step of {step} from {base.upper()} write the number",
                    f"{v}/{step}",
                )
            if self.unix and field == _DOW and v == 7:
                v = 0  # croniter reads 7 as Sunday, 0
            if field == _YEAR:
                # An open-ended year step has no last year: like Quartz, it goes on past 2099.
                hi = LAST_YEAR
            return ("range", v, hi, step), list(range(v, hi + 1, step))
        return ("value", v), [v]

    def quartz_spelling(self, field: int, a: int, b: int, step: int) -> str:
        """A Quartz token, numbers only, for the range a-b every step (a wrap-around one read as a cycle)."""
        if a <= b:
            return f"{a}-{b}" + (f"/{step}" if step else "")
        if field == _DOW and not step:
            return f"{a}-{b}"
        return self.spelled(field, self.cycle(field, a, b, step or 1))

    def unix_range(
        self, field: int, token: str, pos: int, a: int, b: int, a_text: str, b_text: str, step: int
    ) -> tuple[_Item, list[int]]:
        """A 5-field range as croniter reads it, refused where that reading is not the evident one."""
        lo, hi = self.bounds(field)
        if field == _DOW:
            hi = 6
            if b == 7 and a != 7:
                # a-7 (and a-7/s) is a plain range ending on Sunday; croniter's wrap-around reading agrees.
                values = [v % 7 for v in range(a, 8, step or 1)]
                return ("range", a, 7, step or 1), values
            a, b = a % 7, b % 7
        if a == b:
            full = f"{lo}-{hi}"
            raise self.fail(
                "croniter (and so Airflow) reads an equal range as the whole field",
                field,
                token,
                pos,
                f"write {a_text} for the single value, or the whole field",
                full + (f"/{step}" if step else ""),
            )
        if a < b:
            return ("range", a, b, step or 1), list(range(a, b + 1, step or 1))
        croniter = self.croniter_wrap(field, a, b, step or 1)
        if step and croniter != self.cycle(field, a, b, step):
            spelled = ",".join(_value_word(field, v, True)[:3] if field in (_MON, _DOW) else str(v) for v in croniter)
            raise self.fail(
                f"croniter (and so Airflow) reads {token!r} as {spelled}: its step starts again after the wrap",
                field,
                token,
                pos,
                "list the values to keep that reading",
                self.spelled(field, croniter),
            )
        return ("wrap", a, b, step or 1), croniter

    def field(self, field: int, text: str, start: int) -> tuple[list[_Item], set[int]]:
        """Parse a plain field (no ``?``, no day specials) into items and the set of values."""
        items: list[_Item] = []
        values: set[int] = set()
        parts = text.split(",")
        offset = start
        for part in parts:
            if not part:
                raise self.fail(
                    "empty list item", field, text, start, "remove the extra comma", ",".join(p for p in parts if p)
                )
            if part == "*" and len(parts) > 1:
                raise self.fail("'*' cannot be combined with other values", field, part, offset)
            if part == "?":
                where = "day-of-month or day-of-week" if not self.unix else "the day fields"
                raise self.fail(
                    f"'?' is only allowed alone in {where}",
                    field,
                    part,
                    offset,
                    fix="*" if len(parts) == 1 else None,
                )
            item, vals = self.plain_item(field, part, offset)
            items.append(item)
            values.update(vals)
            offset += len(part) + 1
        return items, values

    def dom(self, text: str, start: int) -> tuple[list[_Item], _DaySpec | None]:
        """Quartz day-of-month: plain list, or one of L, L-n, nW, LW. None means every day."""
        upper = text.upper()
        if "L" in upper or "W" in upper:
            if "," in upper:
                parts = upper.split(",")
                offset = start
                for part in parts:
                    if "L" in part or "W" in part:
                        raise self.fail(
                            "L and W cannot be used in a list",
                            _DOM,
                            part,
                            offset,
                            "use a separate schedule for the special day",
                            rewrites=self.split(start, text, [p for p in parts if p not in ("", part)] + [part]),
                        )
                    offset += len(part) + 1
            if upper == "L":
                return [("L", 0)], ("L", 0)
            if upper == "LW":
                return [("LW",)], ("LW",)
            if upper.startswith("L-"):
                rest = upper[2:]
                if rest.endswith("W"):
                    raise self.fail(
                        "L-n cannot be combined with W",
                        _DOM,
                        text,
                        start,
                        "use LW for the last weekday, or L-n for a day before the last day",
                    )
                if not _DIGITS.fullmatch(rest) or not 1 <= int(rest) <= 30:
                    raise self.fail(
                        "offset after L must be 1-30",
                        _DOM,
                        text,
                        start,
                        "L-1 is the day before the last day",
                    )
                n = int(rest)
                return [("L", n)], ("L", n)
            if upper.endswith("W") and _DIGITS.fullmatch(upper[:-1]):
                n = int(upper[:-1])
                if 29 <= n <= 31:
                    raise self.fail(
                        f"{n}W is not accepted: Quartz and cron-utils disagree when day {n} does not exist",
                        _DOM,
                        text,
                        start,
                        "for the last weekday of every month" if n == 31 else "for the last weekday write LW",
                        "LW" if n == 31 else None,
                    )
                if not 1 <= n <= 28:
                    raise self.fail("day before W must be 1-28", _DOM, text, start)
                return [("W", n)], ("W", n)
            raise self.fail(
                "not a valid use of L or W",
                _DOM,
                text,
                start,
                "valid forms are L, L-n (n 1-30), nW (n 1-28) and LW",
            )
        items, values = self.field(_DOM, text, start)
        if items == [("all",)]:
            return items, None
        return items, ("set", frozenset(values))

    def dow(self, text: str, start: int) -> tuple[list[_Item], _DaySpec | None]:
        """Quartz day-of-week: plain list (wrap-around allowed), L alone, nL or n#k. None means every day."""
        upper = text.upper()
        parts = upper.split(",")
        if len(parts) > 1:
            offset = start
            for part in parts:
                if "#" in part:
                    others = [p for p in parts if p != part]
                    many = sum("#" in p for p in parts) > 1
                    raise self.fail(
                        "Quartz 2.3.2 refuses more than one # term"
                        if many
                        else "'#' cannot be used in a list: Quartz 2.3.2 would fire only on that occurrence of the "
                        "list's lowest day and ignore the rest",
                        _DOW,
                        part,
                        offset,
                        "use one schedule per term",
                        rewrites=self.split(
                            start, text, [part, ",".join(others)] if "#" not in "".join(others) else parts
                        ),
                    )
                if part.endswith("L"):
                    raise self.fail(
                        "L cannot be used in a list",
                        _DOW,
                        part,
                        offset,
                        "use one schedule per last weekday",
                        rewrites=self.split(start, text, [part, ",".join(p for p in parts if p != part)]),
                    )
                offset += len(part) + 1
        if upper == "L":
            return [("value", 7)], ("set", frozenset({_py_weekday(7, False)}))
        ranged = re.fullmatch(r"([0-9A-Z]+)-([0-9A-Z]+)(#[0-9]+|L)", upper, re.ASCII)
        if ranged:
            a = self.value(_DOW, ranged.group(1), text, start)
            b = self.value(_DOW, ranged.group(2), text, start)
            days = self.cycle(_DOW, a, b, 1) if a > b else list(range(a, b + 1))
            raise self.fail(
                f"{ranged.group(3)[0]} takes a single day, not a range",
                _DOW,
                text,
                start,
                "use one schedule per day",
                rewrites=self.split(start, text, [f"{d}{ranged.group(3)}" for d in days]),
            )
        if upper.startswith("L-"):
            raise self.fail(
                "L-n belongs in day-of-month", _DOW, text, start, "for the last day n of the month write nL"
            )
        if "#" in upper:
            day_text, _, k_text = upper.partition("#")
            v = self.value(_DOW, day_text, text, start)
            if not _DIGITS.fullmatch(k_text) or not 1 <= int(k_text) <= 5:
                raise self.fail("the number after # must be 1-5", _DOW, text, start, "6#3 is the third Friday")
            k = int(k_text)
            return [("#", v, k)], ("#", _py_weekday(v, False), k)
        if upper.endswith("L") and (_DIGITS.fullmatch(upper[:-1]) or upper[:-1] in _QUARTZ_DOW_NAMES):
            v = self.value(_DOW, upper[:-1], text, start)
            return [("nL", v)], ("nL", _py_weekday(v, False))
        items, values = self.field(_DOW, text, start)
        if items == [("all",)]:
            return items, None
        return items, ("set", frozenset(_py_weekday(v, False) for v in values))

    # -- 5-field day fields, as croniter reads them -----------------------------------------------------------

    def unix_dom(self, text: str, start: int, dow_text: str) -> tuple[list[_Item], set[int], _DaySpec | None]:
        """5-field day-of-month: a plain list, ``L`` (also in a list), ``a-L``, ``nW``/``Wn``, or ``?``.

        Returns the items, the plain days, and the day spec (None: a plain set, decided by the caller).
        """
        upper = text.upper()
        if upper == "?":
            return [("all",)], set(range(1, 32)), None
        w = re.fullmatch(r"([0-9]+)W|W([0-9]+)", upper, re.ASCII)
        if w:
            n = int(w.group(1) or w.group(2))
            if not 1 <= n <= 31:
                raise self.fail(f"day {n} before W is out of range 1-31", _DOM, text, start)
            if n >= 29:
                why = (
                    f"croniter (and so Airflow) reads {text!r} as the weekday nearest day {n}, or nearest the "
                    "last day in shorter months, which differs from Quartz"
                )
                if n == 31:
                    # Nearest weekday to the last day is always the last weekday.
                    raise self.fail(
                        why,
                        _DOM,
                        text,
                        start,
                        "for that reading, the last weekday, write Quartz cron",
                        rewrites=(self.quartz_rewrite(dom="LW"),),
                    )
                raise self.fail(why, _DOM, text, start, "write the days it should fire on, or LW in Quartz cron")
            if dow_text not in ("*", "?"):
                raise self.fail(
                    f"with {text!r} croniter (and so Airflow) does not OR the day fields: it ignores day-of-week "
                    f"{dow_text!r}",
                    _DOM,
                    text,
                    start,
                    "for either day",
                    rewrites=(self.unix_replaced(4, "*"), self.unix_replaced(2, "*")),
                )
            return [("W", n)], set(), ("W", n)
        items: list[_Item] = []
        values: set[int] = set()
        last = False
        offset = start
        for part in upper.split(","):
            raw = text[offset - start : offset - start + len(part)]
            if part == "L":
                last = True
                items.append(("L", 0))
            elif "L" in part:
                m = re.fullmatch(r"([0-9]+)-L(/([0-9]+))?", part, re.ASCII)
                if m is None:
                    raise self.fail(
                        "not a valid use of L in 5-field cron",
                        _DOM,
                        raw,
                        offset,
                        "5-field cron takes L (the last day), L in a list and a-L; for L-n write Quartz cron",
                    )
                a = self.value(_DOM, m.group(1), raw, offset)
                if m.group(2):
                    step = self.step(_DOM, m.group(3), raw, offset)
                    raise self.fail(
                        f"croniter (and so Airflow) reads {raw!r} as {a}-31/{step}, counting the step from day {a} "
                        "whatever the month's length",
                        _DOM,
                        raw,
                        offset,
                        "for that reading",
                        f"{a}-31/{step}",
                    )
                if a == 31:
                    raise self.fail(
                        "croniter (and so Airflow) reads 31-L as an equal range, the whole month",
                        _DOM,
                        raw,
                        offset,
                        "for the last day write L; for croniter's reading",
                        "1-31",
                    )
                items.append(("range", a, 31, 1))
                values.update(range(a, 32))
            elif "W" in part or "#" in part or part == "?":
                raise self.fail(
                    "W can only stand alone in day-of-month" if "W" in part else f"{part!r} is not valid here",
                    _DOM,
                    raw,
                    offset,
                )
            else:
                item_items, item_values = self.field(_DOM, raw, offset)
                items.extend(item_items)
                values.update(item_values)
            offset += len(part) + 1
        if not last:
            return items, values, None
        if len(values) == 30 and "*" in dow_text:
            raise self.fail(
                "croniter (and so Airflow) counts 31 entries here and reads the field as every day",
                _DOM,
                text,
                start,
                "for that reading",
                "*",
            )
        return items, values, ("setL", frozenset(values))

    def unix_dow(self, text: str, start: int, dom_text: str) -> tuple[list[_Item], set[int], _DaySpec | None]:
        """5-field day-of-week: a plain list, ``?``, or n#k / name#k / Ln terms (not mixed with plain days)."""
        upper = text.upper()
        if upper == "?":
            return [("all",)], set(range(0, 8)), None
        parts = upper.split(",")
        if not any("#" in p or "L" in p for p in parts):
            plain_items, values = self.field(_DOW, text, start)
            return plain_items, values, None
        items: list[_Item] = []
        nth: set[tuple[int, int]] = set()
        lasts: set[int] = set()
        offset = start
        plain: list[str] = []
        for part in parts:
            raw = text[offset - start : offset - start + len(part)]
            ranged = re.fullmatch(r"([A-Z]{3})-([A-Z]{3})#([0-9]+)", part, re.ASCII)
            m = re.fullmatch(r"([A-Z]{3}|[0-9]+)#([0-9]+)", part, re.ASCII)
            lm = re.fullmatch(r"L([0-9]+)", part, re.ASCII)
            if ranged:
                a = self.value(_DOW, ranged.group(1), raw, offset) % 7
                b = self.value(_DOW, ranged.group(2), raw, offset) % 7
                k = ranged.group(3)
                days = self.croniter_wrap(_DOW, a, b, 1) if a > b else list(range(a, b + 1))
                raise self.fail(
                    f"croniter (and so Airflow) reads {raw!r} as occurrence {k} of each of those days in the "
                    f"month, not as the {k}th of them",
                    _DOW,
                    raw,
                    offset,
                    "for that reading",
                    ",".join(f"{d}#{k}" for d in days),
                )
            if m:
                v = self.value(_DOW, m.group(1), raw, offset)
                if not _DIGITS.fullmatch(m.group(2)) or not 1 <= int(m.group(2)) <= 5:
                    raise self.fail("the number after # must be 1-5", _DOW, raw, offset, "5#3 is the third Friday")
                k = int(m.group(2))
                nth.add((_py_weekday(v % 7, True), k))
                items.append(("#", v % 7, k))
            elif lm:
                v = self.value(_DOW, lm.group(1), raw, offset)
                lasts.add(_py_weekday(v % 7, True))
                items.append(("nL", v % 7))
            elif re.fullmatch(r"([A-Z]{3}|[0-9]+)L", part, re.ASCII):
                raise self.fail(
                    "croniter (and so Airflow) writes the last such day of the month as L followed by the number",
                    _DOW,
                    raw,
                    offset,
                    "for the last of that day",
                    "L" + str(self.value(_DOW, part[:-1], raw, offset) % 7),
                )
            elif "#" in part or "L" in part:
                raise self.fail(
                    f"{raw!r} is not a valid day-of-week term",
                    _DOW,
                    raw,
                    offset,
                    "5-field cron takes n#k (the k-th day n of the month) and Ln (the last day n)",
                )
            else:
                plain.append(part)
            offset += len(part) + 1
        if plain:
            special = [p for p in parts if p not in plain]
            raise self.fail(
                "croniter (and so Airflow) refuses to mix plain days with n#k or Ln terms",
                _DOW,
                text,
                start,
                "use one schedule for each kind",
                rewrites=self.split(start, text, [",".join(special), ",".join(plain)]),
            )
        if dom_text not in ("*", "?"):
            raise self.fail(
                f"with {text!r} croniter (and so Airflow) does not OR the day fields: it ignores day-of-month "
                f"{dom_text!r}, or finds no date at all",
                _DOW,
                text,
                start,
                "for either day",
                rewrites=(self.unix_replaced(4, "*"), self.unix_replaced(2, "*")),
            )
        return items, set(), ("nth", frozenset(nth), frozenset(lasts))

    def unix_replaced(self, index: int, text: str) -> str:
        """The 5-field expression with field ``index`` (0 = minute) replaced."""
        fields = _TOKEN.findall(self.expression)
        fields[index] = text
        return " ".join(fields)

    def quartz_rewrite(self, dom: str) -> str:
        """A Quartz spelling of a 5-field expression whose day-of-week is unrestricted, with ``dom``."""
        fields = _TOKEN.findall(self.expression)
        unix = _Parser(self.expression)
        unix.unix = True
        spelled = []
        for f, i in ((_MIN, 0), (_HOUR, 1), (_MON, 3)):
            items, values = unix.field(f, fields[i], 1)
            spelled.append("*" if items == [("all",)] else _compress(sorted(values)))
        return " ".join(["0", spelled[0], spelled[1], dom, spelled[2], "?"])


def _compress(values: list[int]) -> str:
    """1,2,3,5 -> '1-3,5'."""
    out: list[str] = []
    i = 0
    while i < len(values):
        j = i
        while j + 1 < len(values) and values[j + 1] == values[j] + 1:
            j += 1
        out.append(str(values[i]) if j == i else f"{values[i]}-{values[j]}")
        i = j + 1
    return ",".join(out)


_checking_rewrites = threading.local()


def _rewrites_parse(rewrites: tuple[str, ...], original: str) -> bool:
    """Whether every proposed rewrite is a valid expression (checked one level deep: no recursion)."""
    if getattr(_checking_rewrites, "active", False):
        return False  # a rewrite of a rewrite is never shown
    _checking_rewrites.active = True
    try:
        for rewrite in rewrites:
            if rewrite == original:
                return False
            QuartzCron(rewrite)
    except CronSyntaxError:
        return False
    finally:
        _checking_rewrites.active = False
    return True


def _is_odd_space(ch: str) -> bool:
    """A blank or invisible character other than space and tab: no-break space, em space, NEL, newline..."""
    return ch not in " \t" and (ch.isspace() or unicodedata.category(ch) in ("Zs", "Zl", "Zp", "Cc", "Cf"))


def _same_in_quartz(items: list[_Item], token: str) -> bool:
    """Whether Quartz reads this 5-field month, time or day-of-month token as croniter does."""
    if any(item[0] == "wrap" for item in items):
        return False
    if re.fullmatch(r"[0-9*/,\-]+", token, re.ASCII):
        return True
    # Names: Quartz refuses a name mixed with numbers in a range and ignores a step after a name.
    return re.fullmatch(r"[A-Z]{3}(-[A-Z]{3})?(,[A-Z]{3}(-[A-Z]{3})?)*", token, re.ASCII) is not None


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
        parser = _Parser(source)
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
            parser = _Parser(text)
        matches = list(_TOKEN.finditer(text))
        tokens = [m.group() for m in matches]
        starts = [m.start() + 1 for m in matches]
        if len(tokens) == 5:
            if dialect == "quartz":
                dialect = "unix"
            self._parse_unix(parser, tokens, starts, dialect)
        elif len(tokens) in (6, 7):
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
        # croniter's rule, which Airflow inherits: a day field counts as unrestricted when written "*" (or "?"),
        # or when it covers every value and the *other* field's text contains a "*".
        dom: _DaySpec | None = dom_special
        if dom is None:
            dom_star = dom_raw in ("*", "?") or (len(sets[_DOM]) == 31 and "*" in dow_raw)
            dom = None if dom_star else ("set", frozenset(sets[_DOM]))
        dow: _DaySpec | None = dow_special
        if dow is None:
            dow_star = dow_raw in ("*", "?") or (len(dow_values) == 7 and "*" in dom_raw)
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
            upper[i] if _same_in_quartz(items[f], upper[i]) else _compress(sorted(sets[f]))
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

    # -- explanation --------------------------------------------------------------------------------------

    def fields(self) -> list[tuple[str, str, str]]:
        """(field name, token, English meaning) for each field of the Quartz form of the expression."""
        rows: list[tuple[str, str, str]] = []
        for f in range(7):
            token = self._tokens[f]
            rows.append((_FIELD_NAMES[f], token, _field_meaning(f, self._items[f], self.dialect != "quartz")))
        if self._dom is not None and self._dow is not None:
            rows = [
                (name, token, meaning + (" (either day field may match)" if name.startswith("day-") else ""))
                for name, token, meaning in rows
            ]
        return rows

    def describe(self) -> str:
        """English prose for the schedule, e.g. "At 00:00:00, on the weekday nearest day 1 of the month"."""
        unix = self.dialect != "quartz"
        parts = [_describe_time(self._seconds, self._minutes, self._hours, self._items)]
        dom_phrase = None if self._dom is None else _dom_phrase(self._items[_DOM])
        dow_phrase = None if self._dow is None else _dow_phrase(self._items[_DOW], unix)
        if dom_phrase and dow_phrase:
            parts.append(f"{dom_phrase} or {dow_phrase.removeprefix('only ')}")
        elif dom_phrase or dow_phrase:
            parts.append(dom_phrase or dow_phrase or "")
        if self._items[_MON] != [("all",)]:
            parts.append(_list_phrase(_MON, self._items[_MON], unix, "only in ", "in "))
        if self._items[_YEAR] != [("all",)]:
            parts.append(_list_phrase(_YEAR, self._items[_YEAR], unix, "in ", "in "))
        text = ", ".join(parts)
        if self._seconds != (0,):
            text += " (Hopsworks requires 0 in the seconds field)"
        return text

    def lints(self, now: datetime | None = None) -> list[str]:
        """Human warnings about schedules that are valid here but surprising or refused by Hopsworks."""
        out: list[str] = []
        if self._seconds != (0,):
            out.append(f"the seconds field is {self._tokens[_SEC]!r}, but Hopsworks' scheduler only accepts 0 there")
        if len(self._seconds) > 1:
            out.append(f"fires {len(self._seconds)} times a minute; Hopsworks' scheduler ticks about once a minute")
        for f, span, unit in ((_SEC, 60, "second"), (_MIN, 60, "minute"), (_HOUR, 24, "hour"), (_MON, 12, "month")):
            for item in self._items[f]:
                lo = 1 if f == _MON else 0
                if item[0] == "range" and item[3] > 1 and item[1] == lo and item[2] == lo + span - 1:
                    step = item[3]
                    if span % step:
                        gap = span - (span - 1) // step * step
                        out.append(
                            f"the {unit} step /{step} does not divide {span} evenly: the gap between the last "
                            f"fire of one cycle and the first of the next is {gap} {unit}s, not {step}"
                        )
        if self.dialect == "unix":
            if self._dom is not None and self._dow is not None:
                out.append(
                    "day-of-month and day-of-week are both restricted: UNIX cron fires when either matches, "
                    "which Quartz (and so Hopsworks) cannot express"
                )
            elif _DIGITS.search(self.source.split()[4]):
                out.append(
                    "day-of-week numbers are read as UNIX cron (0 or 7 = SUN, 1 = MON); in Quartz 1 = SUN, "
                    f"so the Quartz spelling is {self.expression!r}"
                )
        if self._first is None:
            out.append(f"never fires: no fire time in {MIN_YEAR}-{LAST_YEAR}")
        else:
            when = now if now is not None else datetime.now(UTC)
            if self.next_after(when) is None:
                out.append(f"never fires again: the last fire time was {self._last_dt}")
        return out


# ---------------------------------------------------------------------------------------------------------
# Prose helpers


def _join(words: list[str]) -> str:
    if len(words) <= 1:
        return "".join(words)
    return ", ".join(words[:-1]) + " and " + words[-1]


def _value_word(field: int, v: int, unix: bool) -> str:
    if field == _MON:
        return _MONTH_WORDS[v - 1]
    if field == _DOW:
        return _DAY_WORDS[_py_weekday(v, unix)]
    return str(v)


_UNIT = {_SEC: "second", _MIN: "minute", _HOUR: "hour", _DOM: "day", _MON: "month", _DOW: "day", _YEAR: "year"}


def _item_phrase(field: int, item: _Item, unix: bool) -> str:
    def w(v: int) -> str:
        return _value_word(field, v, unix)

    kind = item[0]
    if kind == "value":
        return w(item[1])
    if kind == "wrap":
        return f"{w(item[1])} through {w(item[2])}"
    if kind == "range":
        a, b, step = item[1], item[2], item[3]
        if step == 1:
            return f"{w(a)} through {w(b)}"
        return f"every {step} {_UNIT[field]}s from {w(a)} through {w(b)}"
    return "every value"


def _list_phrase(field: int, items: list[_Item], unix: bool, single_prefix: str, multi_prefix: str) -> str:
    phrases = [_item_phrase(field, item, unix) for item in items]
    prefix = single_prefix if len(items) == 1 and items[0][0] == "value" else multi_prefix
    return prefix + _join(phrases)


def _dom_phrase(items: list[_Item]) -> str:
    item = items[0]
    kind = item[0]
    if kind == "L":
        if item[1] == 0:
            return "on the last day of the month"
        n = item[1]
        return f"{n} day{'s' if n > 1 else ''} before the last day of the month"
    if kind == "W":
        return f"on the weekday nearest day {item[1]} of the month"
    if kind == "LW":
        return "on the last weekday of the month"
    if len(items) == 1 and kind == "value":
        return f"on day {item[1]} of the month"
    if len(items) == 1 and kind == "range" and item[3] > 1:
        a, b, step = item[1], item[2], item[3]
        if b == 31:
            return f"every {step} days of the month, starting on day {a}"
        return f"every {step} days from day {a} through day {b} of the month"
    if all(i[0] == "value" for i in items):
        return f"on days {_join([str(i[1]) for i in items])} of the month"
    return "on " + _join([_item_phrase(_DOM, i, False) for i in items]) + " of the month"


def _dow_phrase(items: list[_Item], unix: bool) -> str:
    item = items[0]
    kind = item[0]
    if kind == "nL":
        return f"on the last {_value_word(_DOW, item[1], unix)} of the month"
    if kind == "#":
        return f"on the {_ORDINALS[item[2] - 1]} {_value_word(_DOW, item[1], unix)} of the month"
    if len(items) == 1 and kind in ("range", "wrap") and (kind == "wrap" or item[3] == 1):
        return _item_phrase(_DOW, item, unix)
    return _list_phrase(_DOW, items, unix, "only on ", "on ")


def _hms(h: int, m: int, s: int) -> str:
    return f"{h:02d}:{m:02d}:{s:02d}"


def _every_step(values: tuple[int, ...], span: int) -> int | None:
    """The n for which values are exactly 0, n, 2n, ... below span (n == 1: every value)."""
    if len(values) < 2 or values[0] != 0:
        return None
    n = values[1]
    return n if values == tuple(range(0, span, n)) else None


def _describe_time(
    seconds: tuple[int, ...], minutes: tuple[int, ...], hours: tuple[int, ...], items: tuple[list[_Item], ...]
) -> str:
    all_hours = len(hours) == 24
    if len(seconds) == 1 and len(minutes) == 1 and len(hours) * len(minutes) <= 6 and not all_hours:
        s, m = seconds[0], minutes[0]
        return "At " + _join([_hms(h, m, s) for h in hours])
    sec_step = _every_step(seconds, 60)
    min_step = _every_step(minutes, 60)
    hour_phrase = "" if all_hours else _hour_window(hours, items[_HOUR])
    if len(seconds) == 1:
        s = seconds[0]
        at_second = f", at second {s}" if s else ""
        if len(minutes) == 1 and all_hours:
            m = minutes[0]
            if m == 0 and s == 0:
                return "Every hour"
            return f"Every hour, at {m:02d}:{s:02d} past the hour"
        if min_step == 1:
            return f"Every minute{at_second}{hour_phrase}"
        if min_step is not None:
            return f"Every {min_step} minutes{at_second}{hour_phrase}"
    if sec_step is not None and len(minutes) == 60:
        text = "Every second" if sec_step == 1 else f"Every {sec_step} seconds"
        return text + hour_phrase
    sec = _list_phrase(_SEC, items[_SEC], False, "second ", "seconds ")
    mins = _list_phrase(_MIN, items[_MIN], False, "minute ", "minutes ")
    hrs = "every hour" if all_hours else _list_phrase(_HOUR, items[_HOUR], False, "hour ", "hours ")
    return f"At {sec}, {mins}, {hrs}"


def _hour_window(hours: tuple[int, ...], items: list[_Item]) -> str:
    if hours == tuple(range(hours[0], hours[-1] + 1)):
        return f", from {hours[0]:02d}:00 through {hours[-1]:02d}:59"
    return ", during hours " + _join([_item_phrase(_HOUR, i, False) for i in items])


def _field_meaning(field: int, items: list[_Item], unix: bool) -> str:
    if items == [("?",)]:
        return "no specific value (the other day field decides)"
    if items == [("all",)]:
        return f"every {_UNIT[field]}" if field != _DOW else "every day of the week"
    if field == _DOM:
        return _dom_phrase(items)
    if field == _DOW:
        return _dow_phrase(items, unix)
    single = {_SEC: "second ", _MIN: "minute ", _HOUR: "hour ", _MON: "", _YEAR: ""}[field]
    multi = {_SEC: "seconds ", _MIN: "minutes ", _HOUR: "hours ", _MON: "", _YEAR: ""}[field]
    return _list_phrase(field, items, unix, single, multi)
