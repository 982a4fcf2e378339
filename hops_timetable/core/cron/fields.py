"""The vocabulary the syntax, the evaluator and the explanation share: year range, field names and numbers, month
and day names, presets."""

from __future__ import annotations

import re
from datetime import timezone
from typing import Literal

UTC = timezone.utc
# The year field takes 1970-2099, as in Quartz and cron-utils. An expression without a year restriction fires
# from 1970 until the end of Python's calendar.
MIN_YEAR = 1970
MAX_YEAR = 2099
LAST_YEAR = 9999

Dialect = Literal["quartz", "unix", "preset"]


_FIELD_NAMES = ("second", "minute", "hour", "day-of-month", "month", "day-of-week", "year")
_SEC, _MIN, _HOUR, _DOM, _MON, _DOW, _YEAR = range(7)

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
_DAY_WORDS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_MONTH_NAMES = {word[:3].upper(): i + 1 for i, word in enumerate(_MONTH_WORDS)}
_QUARTZ_DOW_NAMES = {name: i + 1 for i, name in enumerate(("SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"))}
_UNIX_DOW_NAMES = {name: i - 1 for name, i in _QUARTZ_DOW_NAMES.items()}
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


def _py_weekday(value: int, unix: bool) -> int:
    # Quartz numbers SUN=1..SAT=7, UNIX SUN=0 (or 7)..SAT=6; Python numbers MON=0..SUN=6.
    return (value + 6) % 7 if unix else (value + 5) % 7


def _value_word(field: int, v: int, unix: bool) -> str:
    if field == _MON:
        return _MONTH_WORDS[v - 1]
    if field == _DOW:
        return _DAY_WORDS[_py_weekday(v, unix)]
    return str(v)
