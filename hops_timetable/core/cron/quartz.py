"""Text to the parsed form: :func:`parse` checks the whole string and reads the presets; a field's text is
:mod:`.reader`'s, a 5-field expression :mod:`.unix`'s, and a 6 or 7-field Quartz one is read here: its day fields
(``?``, ``L``, ``L-n``, ``nW``, ``LW``; ``L``, ``nL``, ``n#k``) and the whole, with what Quartz 2.3.2 and cron-utils
9.2.1 read differently refused. A rewrite is proposed only if it parses."""

from __future__ import annotations

import re
import unicodedata

from hops_timetable.core.cron import form
from hops_timetable.core.cron.form import ALL, ANY, Item, ItemKind, MonthDays, ParsedCron, WeekDays
from hops_timetable.core.cron.reader import CronSyntaxError, FieldReader, Place, listed
from hops_timetable.core.cron.unix import parse_unix

_YEAR_COUNT = form.LAST_YEAR - form.MIN_YEAR + 1


def parse(expression: str) -> ParsedCron:
    """The parsed form of ``expression`` (surrounding spaces and tabs ignored), or :class:`CronSyntaxError`."""
    if not isinstance(expression, str):
        why = f"a cron expression must be a string, got {type(expression).__name__} {expression!r}"
        raise CronSyntaxError(why, repr(expression), message=why)
    try:
        return _read(expression.strip(" \t"))
    except CronSyntaxError as error:
        if all(r != error.expression and _parses(r) for r in error.rewrites):
            raise
        raise error.unproposed() from None


def _parses(rewrite: str) -> bool:
    try:
        _read(rewrite.strip(" \t"))  # as parse() reads it
    except CronSyntaxError:
        return False
    return True


def _read(source: str) -> ParsedCron:
    reader = FieldReader(source)
    if not source:
        raise reader.fail("the expression is empty", hint="an hourly Quartz schedule is '0 0 * ? * *'")
    if "|" in source:
        raise reader.fail(
            "composite expressions joined with '|' are not supported", hint="schedule one cron expression per DAG"
        )
    # Printable ASCII (tabs aside) holds no odd space; only other text is scanned character by character.
    plain = source.isascii() and source.replace("\t", " ").isprintable()
    odd = None if plain else next((i for i, ch in enumerate(source) if _is_odd_space(ch)), None)
    if odd is not None:
        ch = source[odd]
        spaced = "".join(" " if _is_odd_space(c) else c for c in source)
        why = (
            f"character U+{ord(ch):04X} ({unicodedata.name(ch, 'control character')}) at position {odd + 1} "
            "is not a field separator: fields are separated by spaces and tabs only"
        )
        raise CronSyntaxError(why, source, rewrites=(spaced,), hint_alone="separate the fields with spaces")
    if source.startswith("@"):
        preset = source.lower()
        if preset in ("@once", "@continuous"):
            raise reader.fail(
                f"{source!r} is not periodic, so it has no cron fire times", hint="use Airflow's own schedule for it"
            )
        if preset not in form.PRESETS:
            why = f"unknown preset {source!r}, expected one of {', '.join(form.PRESETS)}"
            raise reader.fail(why, hint="or write the schedule as a cron expression")
        reader = FieldReader(form.PRESETS[preset])
    matches = list(form.TOKEN.finditer(reader.expression))
    if len(matches) not in (5, 6, 7):
        why = f"expected 6 or 7 Quartz fields (or 5 UNIX cron fields), got {len(matches)}"
        raise reader.fail(why, hint="Quartz fields are: second minute hour day-of-month month day-of-week [year]")
    reader.unix = len(matches) == 5
    fields = (form.MIN, form.HOUR, form.DOM, form.MON, form.DOW) if reader.unix else range(len(matches))
    places = [Place(f, m.group(), m.start() + 1) for f, m in zip(fields, matches, strict=True)]
    reader.refuse_long_numbers(places)
    if reader.unix:
        return parse_unix(reader, source, places, "preset" if source.startswith("@") else "unix")
    return parse_quartz(reader, source, places)


def _is_odd_space(ch: str) -> bool:
    """A blank or invisible character other than space and tab: no-break space, em space, NEL, newline..."""
    return ch not in " \t" and (ch.isspace() or unicodedata.category(ch) in ("Zs", "Zl", "Zp", "Cc", "Cf"))


def parse_quartz(reader: FieldReader, source: str, places: list[Place]) -> ParsedCron:
    """The parsed form of a Quartz expression whose fields (second first) are ``places`` in ``reader``'s text."""
    dom_at, dow_at = places[form.DOM], places[form.DOW]
    if dom_at.token == "?" and dow_at.token == "?":
        raise reader.fail(
            "'?' may be used in only one of day-of-month and day-of-week",
            dow_at,
            "use * in day-of-month and ? in day-of-week for every day",
            rewrites=(reader.replaced(dom_at, "*"),),
        )
    if dom_at.token != "?" and dow_at.token != "?":
        # With one field "*", the other one is evidently the restriction meant.
        star = dow_at if dow_at.token == "*" else dom_at if dom_at.token == "*" else None
        raise reader.fail(
            "exactly one of day-of-month and day-of-week must be '?'",
            dom_at,
            "use ? in day-of-month when restricting day-of-week, or ? in day-of-week otherwise",
            rewrites=() if star is None else (reader.replaced(star, "?"),),
        )
    sets: dict[int, set[int]] = {}
    items: list[list[Item]] = [[], [], [], [], [], [], [ALL]]
    for f in (form.SEC, form.MIN, form.HOUR, form.MON):
        items[f], sets[f] = reader.field(places[f])
    items[form.DOM], dom = _dom(reader, dom_at)
    items[form.DOW], dow = _dow(reader, dow_at)
    years: tuple[int, ...] | None = None
    if len(places) == 7:
        if places[form.YEAR].token == "?":
            raise reader.fail("'?' is not allowed in year", places[form.YEAR], fix="*")
        items[form.YEAR], year_values = reader.field(places[form.YEAR])
        # Every year from 1970 on, however written ('*', '1970/1'), is the open calendar.
        if items[form.YEAR] != [ALL] and len(year_values) != _YEAR_COUNT:
            years = tuple(sorted(year_values))
    upper = [at.token.upper() for at in places]
    seconds, minutes, hours, months = (tuple(sorted(sets[f])) for f in (form.SEC, form.MIN, form.HOUR, form.MON))
    tokens, field_items = tuple([*upper, "*"][:7]), tuple(map(tuple, items))
    return ParsedCron(
        source, " ".join(upper), "quartz", tokens, field_items, seconds, minutes, hours, months, years, dom, dow
    )


def _dom(reader: FieldReader, at: Place) -> tuple[list[Item], MonthDays | None]:
    """Quartz day-of-month: ``?``, plain list, or one of L, L-n, nW, LW. None means every day."""
    upper = at.token.upper()
    if upper == "?":
        return [ANY], None
    if "L" not in upper and "W" not in upper:
        items, values = reader.field(at)
        return items, None if items == [ALL] else MonthDays(days=frozenset(values))
    parts = upper.split(",")
    for part in listed(at._replace(token=upper)) if len(parts) > 1 else ():
        if "L" in part.token or "W" in part.token:
            raise reader.fail(
                "L and W cannot be used in a list",
                part,
                "use a separate schedule for the special day",
                rewrites=reader.split(at, [p for p in parts if p not in ("", part.token)] + [part.token]),
            )
    if upper == "L":
        return [Item(ItemKind.LAST_DAY, 0)], MonthDays(before_last=0)
    if upper == "LW":
        return [Item(ItemKind.LAST_WEEKDAY)], MonthDays(last_weekday=True)
    if upper.startswith("L-"):
        rest = upper[2:]
        if rest.endswith("W"):
            raise reader.fail(
                "L-n cannot be combined with W", at, "use LW for the last weekday, or L-n for a day before the last day"
            )
        if not form.DIGITS.fullmatch(rest) or not 1 <= int(rest) <= 30:
            raise reader.fail("offset after L must be 1-30", at, "L-1 is the day before the last day")
        return [Item(ItemKind.LAST_DAY, int(rest))], MonthDays(before_last=int(rest))
    if upper.endswith("W") and form.DIGITS.fullmatch(upper[:-1]):
        n = int(upper[:-1])
        if 29 <= n <= 31:
            raise reader.fail(
                f"{n}W is not accepted: Quartz and cron-utils disagree when day {n} does not exist",
                at,
                "for the last weekday of every month" if n == 31 else "for the last weekday write LW",
                "LW" if n == 31 else None,
            )
        if not 1 <= n <= 28:
            raise reader.fail("day before W must be 1-28", at)
        return [Item(ItemKind.NEAREST_WEEKDAY, n)], MonthDays(nearest_weekday=n)
    raise reader.fail("not a valid use of L or W", at, "valid forms are L, L-n (n 1-30), nW (n 1-28) and LW")


def _dow(reader: FieldReader, at: Place) -> tuple[list[Item], WeekDays | None]:
    """Quartz day-of-week: ``?``, plain list (wrap-around allowed), L alone, nL or n#k. None means every day."""
    upper = at.token.upper()
    if upper == "?":
        return [ANY], None
    parts = upper.split(",")
    for part in listed(at._replace(token=upper)) if len(parts) > 1 else ():
        others = [p for p in parts if p != part.token]
        if "#" in part.token:
            raise reader.fail(
                "Quartz 2.3.2 refuses more than one # term"
                if sum("#" in p for p in parts) > 1
                else "'#' cannot be used in a list: Quartz 2.3.2 would fire only on that occurrence of the "
                "list's lowest day and ignore the rest",
                part,
                "use one schedule per term",
                rewrites=reader.split(at, [part.token, ",".join(others)] if "#" not in "".join(others) else parts),
            )
        if part.token.endswith("L"):
            raise reader.fail(
                "L cannot be used in a list",
                part,
                "use one schedule per last weekday",
                rewrites=reader.split(at, [part.token, ",".join(others)]),
            )
    if upper == "L":
        return [Item(ItemKind.VALUE, 7)], WeekDays(every=frozenset({form.py_weekday(7, False)}))
    ranged = re.fullmatch(r"([0-9A-Z]+)-([0-9A-Z]+)(#[0-9]+|L)", upper, re.ASCII)
    if ranged:
        a, b = reader.value(ranged.group(1), at), reader.value(ranged.group(2), at)
        days = reader.cycle(form.DOW, a, b, 1) if a > b else list(range(a, b + 1))
        why = f"{ranged.group(3)[0]} takes a single day, not a range"
        raise reader.fail(
            why, at, "use one schedule per day", rewrites=reader.split(at, [f"{d}{ranged.group(3)}" for d in days])
        )
    if upper.startswith("L-"):
        raise reader.fail("L-n belongs in day-of-month", at, "for the last day n of the month write nL")
    day, _, nth = upper.partition("#")
    if "#" in upper:
        items = [reader.weekday_term(at, day, nth)]
    elif upper.endswith("L") and (form.DIGITS.fullmatch(upper[:-1]) or upper[:-1] in form.QUARTZ_DOW_NAMES):
        items = [reader.weekday_term(at, upper[:-1], None)]
    else:
        items, values = reader.field(at)
        return items, None if items == [ALL] else WeekDays(every=frozenset(form.py_weekday(v, False) for v in values))
    return items, WeekDays.of_terms(items, False)
