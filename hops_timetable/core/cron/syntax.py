"""Text to the parsed form: the checks on the whole string and the presets; a field's text is :mod:`.reader`'s, the
day fields and the whole per dialect :mod:`.quartz`'s and :mod:`.unix`'s. A rewrite is proposed only if it parses."""

from __future__ import annotations

import unicodedata

from hops_timetable.core.cron.form import DOM, DOW, HOUR, MIN, MON, PRESETS, TOKEN, Dialect, ParsedCron
from hops_timetable.core.cron.quartz import parse_quartz
from hops_timetable.core.cron.reader import CronSyntaxError, FieldReader, Place
from hops_timetable.core.cron.unix import parse_unix


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
        raise CronSyntaxError(
            f"character U+{ord(ch):04X} ({unicodedata.name(ch, 'control character')}) at position {odd + 1} "
            "is not a field separator: fields are separated by spaces and tabs only",
            source,
            rewrites=(spaced,),
            hint_alone="separate the fields with spaces",
        )
    dialect: Dialect = "quartz"
    if source.startswith("@"):
        preset = source.lower()
        if preset in ("@once", "@continuous"):
            raise reader.fail(
                f"{source!r} is not periodic, so it has no cron fire times", hint="use Airflow's own schedule for it"
            )
        if preset not in PRESETS:
            raise reader.fail(
                f"unknown preset {source!r}, expected one of {', '.join(PRESETS)}",
                hint="or write the schedule as a cron expression",
            )
        dialect = "preset"
        reader = FieldReader(PRESETS[preset])
    matches = list(TOKEN.finditer(reader.expression))
    if len(matches) not in (5, 6, 7):
        raise reader.fail(
            f"expected 6 or 7 Quartz fields (or 5 UNIX cron fields), got {len(matches)}",
            hint="Quartz fields are: second minute hour day-of-month month day-of-week [year]",
        )
    reader.unix = len(matches) == 5
    fields = (MIN, HOUR, DOM, MON, DOW) if reader.unix else range(len(matches))
    places = [Place(f, m.group(), m.start() + 1) for f, m in zip(fields, matches, strict=True)]
    reader.refuse_long_numbers(places)
    if reader.unix:
        return parse_unix(reader, source, places, "unix" if dialect == "quartz" else dialect)
    return parse_quartz(reader, source, places)


def _is_odd_space(ch: str) -> bool:
    """A blank or invisible character other than space and tab: no-break space, em space, NEL, newline..."""
    return ch not in " \t" and (ch.isspace() or unicodedata.category(ch) in ("Zs", "Zl", "Zp", "Cc", "Cf"))
