"""English for a parsed expression: the schedule in prose, each field's meaning, and lints. It reads the parsed form
only; the lints that concern fire times are handed those times."""

from __future__ import annotations

from datetime import datetime

from hops_timetable.core.cron import form
from hops_timetable.core.cron.form import ALL, ANY, Item, ItemKind, ParsedCron


def fields(cron: ParsedCron) -> list[tuple[str, str, str]]:
    """(field name, token, English meaning) for each field of the Quartz form of the expression."""
    either = " (either day field may match)" if cron.dom is not None and cron.dow is not None else ""
    unix = cron.dialect != "quartz"
    return [
        (name, token, _field_meaning(f, items, unix) + (either if f in (form.DOM, form.DOW) else ""))
        for f, (name, token, items) in enumerate(zip(form.FIELD_NAMES, cron.tokens, cron.items, strict=True))
    ]


def describe(cron: ParsedCron) -> str:
    """English prose for the schedule, e.g. "At 00:00:00, on the weekday nearest day 1 of the month"."""
    unix = cron.dialect != "quartz"
    parts = [_describe_time(cron)]
    days = [] if cron.dom is None else [_dom_phrase(cron.items[form.DOM])]
    if cron.dow is not None:
        dow_phrase = _dow_phrase(cron.items[form.DOW], unix)
        days.append(dow_phrase.removeprefix("only ") if days else dow_phrase)
    parts += [" or ".join(days)] if days else []
    if cron.items[form.MON] != (ALL,):
        parts.append(_list_phrase(form.MON, cron.items[form.MON], unix, "only in ", "in "))
    if cron.items[form.YEAR] != (ALL,):
        parts.append(_list_phrase(form.YEAR, cron.items[form.YEAR], unix, "in ", "in "))
    text = ", ".join(parts)
    if cron.seconds != (0,):
        text += " (Hopsworks requires 0 in the seconds field)"
    return text


def lints(cron: ParsedCron, *, last_fire: datetime | None, next_fire: datetime | None) -> list[str]:
    """Human warnings about schedules that are valid here but surprising or refused by Hopsworks."""
    out: list[str] = []
    if cron.seconds != (0,):
        out.append(f"the seconds field is {cron.tokens[form.SEC]!r}, but Hopsworks' scheduler only accepts 0 there")
    if len(cron.seconds) > 1:
        out.append(f"fires {len(cron.seconds)} times a minute; Hopsworks' scheduler ticks about once a minute")
    for f, span in ((form.SEC, 60), (form.MIN, 60), (form.HOUR, 24), (form.MON, 12)):
        lo, unit = (1 if f == form.MON else 0), _UNIT[f]
        out += [
            f"the {unit} step /{i.step} does not divide {span} evenly: the gap between the last fire of one cycle "
            f"and the first of the next is {span - (span - 1) // i.step * i.step} {unit}s, not {i.step}"
            for i in cron.items[f]
            if i.kind is ItemKind.RANGE and span % i.step and i.value == lo and i.end == lo + span - 1
        ]
    if cron.dialect == "unix":
        if cron.dom is not None and cron.dow is not None:
            out.append(
                "day-of-month and day-of-week are both restricted: UNIX cron fires when either matches, "
                "which Quartz (and so Hopsworks) cannot express"
            )
        elif form.DIGITS.search(cron.source.split()[4]):
            out.append(
                "day-of-week numbers are read as UNIX cron (0 or 7 = SUN, 1 = MON); in Quartz 1 = SUN, "
                f"so the Quartz spelling is {cron.expression!r}"
            )
    if last_fire is None:
        out.append(f"never fires: no fire time in {form.MIN_YEAR}-{form.LAST_YEAR}")
    elif next_fire is None:
        out.append(f"never fires again: the last fire time was {last_fire}")
    return out


def _join(words: list[str]) -> str:
    return " and ".join([", ".join(words[:-1]), words[-1]] if len(words) > 1 else words)


_UNIT = ("second", "minute", "hour", "day", "month", "day", "year")  # by field number


# What an item says: {w} is its value as a word, {v} as a number, {end} its end as a word, {nth} its ordinal.
_PHRASES = {
    ItemKind.ALL: "every value",
    ItemKind.ANY: "no specific value",
    ItemKind.VALUE: "{w}",
    ItemKind.RANGE: "{w} through {end}",
    ItemKind.WRAP: "{w} through {end}",
    ItemKind.LAST_DAY: "{v} days before the last day",
    ItemKind.NEAREST_WEEKDAY: "the weekday nearest day {v}",
    ItemKind.LAST_WEEKDAY: "the last weekday",
    ItemKind.LAST_OF_WEEKDAY: "the last {w}",
    ItemKind.NTH_WEEKDAY: "the {nth} {w}",
}


def _item_phrase(field: int, item: Item, unix: bool) -> str:
    kind, v = item.kind, item.value
    if kind is ItemKind.LAST_DAY and v <= 1:
        return "1 day before the last day" if v else "the last day"
    w, end = form.value_word(field, v, unix), form.value_word(field, item.end, unix)
    phrase = _PHRASES[kind].format(w=w, v=v, end=end, nth=form.ORDINALS[item.nth - 1])
    return f"every {item.step} {_UNIT[field]}s from {phrase}" if kind is ItemKind.RANGE and item.step > 1 else phrase


_DAY_SPECIALS = frozenset(ItemKind) - {ItemKind.ALL, ItemKind.ANY, ItemKind.VALUE, ItemKind.RANGE, ItemKind.WRAP}


def _list_phrase(field: int, items: tuple[Item, ...], unix: bool, single_prefix: str, multi_prefix: str) -> str:
    prefix = single_prefix if len(items) == 1 and items[0].kind is ItemKind.VALUE else multi_prefix
    return prefix + _join([_item_phrase(field, item, unix) for item in items])


def _dom_phrase(items: tuple[Item, ...]) -> str:
    item = items[0]
    if len(items) == 1 and item.kind is ItemKind.LAST_DAY and item.value:
        return _item_phrase(form.DOM, item, False) + " of the month"
    if len(items) == 1 and item.kind is ItemKind.VALUE:
        return f"on day {item.value} of the month"
    if len(items) == 1 and item.kind is ItemKind.RANGE and item.step > 1:
        if item.end == 31:
            return f"every {item.step} days of the month, starting on day {item.value}"
        return f"every {item.step} days from day {item.value} through day {item.end} of the month"
    if all(i.kind is ItemKind.VALUE for i in items):
        return f"on days {_join([str(i.value) for i in items])} of the month"
    # The specials (5-field: L in a list) after the plain days, each named once.
    plain = [i for i in items if i.kind not in _DAY_SPECIALS]
    specials = dict.fromkeys(i for i in items if i.kind in _DAY_SPECIALS)
    return "on " + _join([_item_phrase(form.DOM, i, False) for i in [*plain, *specials]]) + " of the month"


def _dow_phrase(items: tuple[Item, ...], unix: bool) -> str:
    if all(i.kind in _DAY_SPECIALS for i in items):
        return "on " + _join([_item_phrase(form.DOW, i, unix) for i in dict.fromkeys(items)]) + " of the month"
    item = items[0]
    if len(items) == 1 and (item.kind is ItemKind.WRAP or (item.kind is ItemKind.RANGE and item.step == 1)):
        return _item_phrase(form.DOW, item, unix)
    return _list_phrase(form.DOW, items, unix, "only on ", "on ")


def _every_step(values: tuple[int, ...], span: int) -> int | None:
    """The n for which values are exactly 0, n, 2n, ... below span (n == 1: every value)."""
    return values[1] if len(values) > 1 and values == tuple(range(0, span, values[1])) else None


def _describe_time(cron: ParsedCron) -> str:
    seconds, minutes, hours, items = cron.seconds, cron.minutes, cron.hours, cron.items
    all_hours = len(hours) == 24
    if len(seconds) == 1 and len(minutes) == 1 and len(hours) * len(minutes) <= 6 and not all_hours:
        s, m = seconds[0], minutes[0]
        return "At " + _join([f"{h:02d}:{m:02d}:{s:02d}" for h in hours])
    sec_step = _every_step(seconds, 60)
    min_step = _every_step(minutes, 60)
    hour_phrase = ""
    if not all_hours and hours == tuple(range(hours[0], hours[-1] + 1)):
        hour_phrase = f", from {hours[0]:02d}:00 through {hours[-1]:02d}:59"
    elif not all_hours:
        hour_phrase = ", during hours " + _join([_item_phrase(form.HOUR, i, False) for i in items[form.HOUR]])
    if len(seconds) == 1:
        s = seconds[0]
        at_second = f", at second {s}" if s else ""
        if len(minutes) == 1 and all_hours:
            m = minutes[0]
            return "Every hour" if m == s == 0 else f"Every hour, at {m:02d}:{s:02d} past the hour"
        if min_step == 1:
            return f"Every minute{at_second}{hour_phrase}"
        if min_step is not None:
            return f"Every {min_step} minutes{at_second}{hour_phrase}"
    if sec_step is not None and len(minutes) == 60:
        text = "Every second" if sec_step == 1 else f"Every {sec_step} seconds"
        return text + hour_phrase
    sec = _list_phrase(form.SEC, items[form.SEC], False, "second ", "seconds ")
    mins = _list_phrase(form.MIN, items[form.MIN], False, "minute ", "minutes ")
    hrs = "every hour" if all_hours else _list_phrase(form.HOUR, items[form.HOUR], False, "hour ", "hours ")
    return f"At {sec}, {mins}, {hrs}"


def _field_meaning(field: int, items: tuple[Item, ...], unix: bool) -> str:
    if items == (ANY,):
        return "no specific value (the other day field decides)"
    if items == (ALL,):
        return f"every {_UNIT[field]}" if field != form.DOW else "every day of the week"
    if field == form.DOM:
        return _dom_phrase(items)
    if field == form.DOW:
        return _dow_phrase(items, unix)
    single = f"{_UNIT[field]} " if field in (form.SEC, form.MIN, form.HOUR) else ""
    return _list_phrase(field, items, unix, single, single.replace(" ", "s "))
