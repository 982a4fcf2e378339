"""The vocabulary the syntax, the evaluator and the explanation share (year range, field numbers, names, presets),
and the parsed form of an expression, typed and frozen: the evaluator reads its value sets and day rules, the
explanation its items."""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass
from datetime import timezone
from typing import Literal, NamedTuple

UTC = timezone.utc
# The year field takes 1970-2099, as in Quartz and cron-utils. An expression without a year restriction fires
# from 1970 until the end of Python's calendar.
MIN_YEAR = 1970
MAX_YEAR = 2099
LAST_YEAR = 9999

Dialect = Literal["quartz", "unix", "preset"]


FIELD_NAMES = ("second", "minute", "hour", "day-of-month", "month", "day-of-week", "year")
SEC, MIN, HOUR, DOM, MON, DOW, YEAR = range(7)

_MONTH_WORDS = "January February March April May June July August September October November December".split()  # noqa: SIM905
_DAY_WORDS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
MONTH_NAMES = {word[:3].upper(): i + 1 for i, word in enumerate(_MONTH_WORDS)}
QUARTZ_DOW_NAMES = {name: i + 1 for i, name in enumerate(("SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"))}
UNIX_DOW_NAMES = {name: i - 1 for name, i in QUARTZ_DOW_NAMES.items()}
ORDINALS = ("first", "second", "third", "fourth", "fifth")

PRESETS = {
    "@hourly": "0 * * * *",
    "@daily": "0 0 * * *",
    "@midnight": "0 0 * * *",
    "@weekly": "0 0 * * 0",
    "@monthly": "0 0 1 * *",
    "@quarterly": "0 0 1 */3 *",
    "@yearly": "0 0 1 1 *",
    "@annually": "0 0 1 1 *",
}

DIGITS = re.compile(r"[0-9]+", re.ASCII)
# Quartz splits fields on spaces and tabs only; so does this engine, in every dialect.
TOKEN = re.compile(r"[^ \t]+")


def py_weekday(value: int, unix: bool) -> int:
    # Quartz numbers SUN=1..SAT=7, UNIX SUN=0 (or 7)..SAT=6; Python numbers MON=0..SUN=6.
    return (value + 6) % 7 if unix else (value + 5) % 7


def value_word(field: int, v: int, unix: bool) -> str:
    if field == MON:
        return _MONTH_WORDS[v - 1]
    if field == DOW:
        return _DAY_WORDS[py_weekday(v, unix)]
    return str(v)


class ItemKind(enum.Enum):
    """What one list item of a field says."""

    ALL = enum.auto()  # every value of the field
    ANY = enum.auto()  # no specific value: the other day field decides
    VALUE = enum.auto()  # one value
    RANGE = enum.auto()  # value through end, every step
    WRAP = enum.auto()  # value up past the field's end, on to end (every step: 5-field only)
    LAST_DAY = enum.auto()  # day-of-month: value days before the last day (L is 0)
    NEAREST_WEEKDAY = enum.auto()  # day-of-month: the weekday nearest day value
    LAST_WEEKDAY = enum.auto()  # day-of-month: the last weekday of the month
    LAST_OF_WEEKDAY = enum.auto()  # day-of-week: the last day value of the month
    NTH_WEEKDAY = enum.auto()  # day-of-week: occurrence nth of day value in the month


class Item(NamedTuple):
    """One list item of a field, in the field's own numbering (day-of-week: Quartz 1-7 = SUN-SAT, 5-field 0-7 =
    SUN-SUN). A named tuple: built and compared faster than a dataclass when the scheduler parses a new expression."""

    kind: ItemKind
    value: int = 0
    end: int = 0
    step: int = 1
    nth: int = 0


ALL = Item(ItemKind.ALL)
ANY = Item(ItemKind.ANY)


@dataclass(frozen=True, slots=True)
class MonthDays:
    """A restricted day-of-month: the days of a month that fire are the union of the parts set here."""

    days: frozenset[int] = frozenset()  # these days (those past the month's end never fire)
    before_last: int | None = None  # that many days before the month's last day (L is 0, L-3 is 3)
    nearest_weekday: int | None = None  # the weekday nearest this day, not leaving the month (nW)
    last_weekday: bool = False  # the last weekday of the month (LW)


@dataclass(frozen=True, slots=True)
class WeekDays:
    """A restricted day-of-week in Python's weekday numbers (Monday = 0): the union of the parts set here."""

    every: frozenset[int] = frozenset()  # every such weekday
    nth: frozenset[tuple[int, int]] = frozenset()  # (weekday, k): the k-th such weekday of the month (n#k)
    last: frozenset[int] = frozenset()  # the last such weekday of the month (nL, Ln)

    @classmethod
    def of_terms(cls, items: list[Item], unix: bool) -> WeekDays:
        """The rule of day-of-week items that are all n#k or last-weekday terms."""
        nth = frozenset((py_weekday(i.value, unix), i.nth) for i in items if i.kind is ItemKind.NTH_WEEKDAY)
        last = frozenset(py_weekday(i.value, unix) for i in items if i.kind is ItemKind.LAST_OF_WEEKDAY)
        return cls(nth=nth, last=last)


@dataclass(frozen=True, slots=True)
class ParsedCron:
    """A valid expression, read: ``expression`` is its Quartz spelling (single spaces, upper case; a 5-field string
    whose day fields Quartz cannot express keeps its 5-field form), ``tokens`` and ``items`` its 7 fields. ``years``
    is None when every year from 1970 on fires; ``dom`` and ``dow`` are None when the field does not restrict, and
    with both set (5-field only) a day fires when either matches."""

    source: str
    expression: str
    dialect: Dialect
    tokens: tuple[str, ...]
    items: tuple[tuple[Item, ...], ...]
    seconds: tuple[int, ...]
    minutes: tuple[int, ...]
    hours: tuple[int, ...]
    months: tuple[int, ...]
    years: tuple[int, ...] | None
    dom: MonthDays | None
    dow: WeekDays | None
