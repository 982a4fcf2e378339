"""English for a parsed expression: the schedule in prose, each field's meaning, and lints.

Kept apart from the evaluator, as cronsim keeps its explanation: nothing here decides a fire time."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from hops_timetable.core.cron.fields import (
    _DIGITS,
    _DOM,
    _DOW,
    _FIELD_NAMES,
    _HOUR,
    _MIN,
    _MON,
    _ORDINALS,
    _SEC,
    _YEAR,
    LAST_YEAR,
    MIN_YEAR,
    UTC,
    _Item,
    _value_word,
)

if TYPE_CHECKING:
    from hops_timetable.core.cron.engine import QuartzCron


def fields(self: QuartzCron) -> list[tuple[str, str, str]]:
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


def describe(self: QuartzCron) -> str:
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


def lints(self: QuartzCron, now: datetime | None = None) -> list[str]:
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
