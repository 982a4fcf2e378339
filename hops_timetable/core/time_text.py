"""The one grammar of date-time text: every date-time the package reads from text is read here.

``strict=True`` (what another user may write into a run: a conf window, the tab's form) reads exactly :data:`EXPECTED`
in ASCII, from the year 1000 on; lenient (the DAG author, the command line, payloads) reads Python's ISO-8601 too.
Both read no offset as UTC, return aware UTC within ``EARLIEST_DATE .. LATEST_DATE``, raise only :class:`TimeTextError`.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone
from typing import Final

from hops_timetable.core.validation import (
    EARLIEST_DATE,
    EARLIEST_WINDOW,
    IN_RANGE,
    LATEST_DATE,
    ArgumentError,
    ArgumentTypeError,
    short_repr,
)

MAX_TEXT: Final = 64  # the longest valid form (9 fraction digits and an offset) has 35 characters

EXPECTED: Final = "an ISO-8601 date-time YYYY-MM-DDTHH:MM:SS[.fraction][Z|+HH:MM|-HH:MM] (no offset means UTC)"

# re.ASCII: else \d matches other scripts' digits, which int() reads.
_STRICT = re.compile(r"(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})?", re.ASCII)
_ZONE = re.compile(r"[+-]\d{2}:(\d{2})(?::\d{2}(?:\.\d+)?)?$", re.ASCII)
_UTC = timezone.utc


class TimeTextError(ArgumentError):
    """Date-time text that is not valid; ``problem``: the message without its leading ``name=value``."""

    def __init__(self, name: str, value: object, problem: str) -> None:
        self.problem = problem
        super().__init__(name, value, f"{name}={short_repr(value)} {problem}")


class _TimeTypeError(TimeTextError, ArgumentTypeError):
    """Not text at all (also a ``TypeError``)."""


def parse_time(name: str, text: object, *, strict: bool = False) -> datetime:
    """*text* as an aware UTC datetime; *name* names the input in the message."""
    if not isinstance(text, str):
        raise _TimeTypeError(name, text, f"is invalid: expected {EXPECTED} as a string (got {type(text).__name__})")
    if len(text) > MAX_TEXT:
        raise TimeTextError(name, text, f"is {len(text)} characters long; expected {EXPECTED}")
    parsed = _strict(name, text) if strict else _lenient(name, text)
    try:
        utc = parsed.astimezone(_UTC) if parsed.tzinfo is not None else parsed.replace(tzinfo=_UTC)
    except OverflowError:
        utc = None
    if strict and (utc is None or utc < EARLIEST_WINDOW):
        raise TimeTextError(name, text, "is before the year 1000 UTC; expected a date-time from 1000-01-01 on")
    if utc is None or not EARLIEST_DATE <= utc <= LATEST_DATE:
        raise TimeTextError(name, text, f"is out of range; {IN_RANGE}")
    return utc


def _strict(name: str, text: str) -> datetime:
    match = _STRICT.fullmatch(text)
    if match is None:
        raise TimeTextError(name, text, f"is not {EXPECTED}")
    year, month, day, hour, minute, second, fraction, zone = match.groups()
    try:
        tz = _UTC
        if zone is not None and zone != "Z":
            if int(zone[4:6]) > 59:
                raise ValueError(f"the offset {zone} has {zone[4:6]} minutes, at most 59 are valid")
            tz = timezone((-1 if zone[0] == "-" else 1) * timedelta(hours=int(zone[1:3]), minutes=int(zone[4:6])))
        micro = int((fraction or "0").ljust(6, "0")[:6])
        return datetime(int(year), int(month), int(day), int(hour), int(minute), int(second), micro, tzinfo=tz)
    except ValueError as exc:
        raise TimeTextError(name, text, f"is not a valid date-time ({exc}); expected {EXPECTED}") from None


def _lenient(name: str, text: str) -> datetime:
    if len(text) in (25, 32) and text[10] == "T" and text.endswith("+00:00"):
        # datetime.isoformat() of a UTC time, as Airflow's JSON writes every time: five times faster this way.
        try:
            return datetime.fromisoformat(text)
        except ValueError:
            pass
    stripped = text.strip()
    if stripped[-1:] == "z":
        stripped = stripped[:-1] + "Z"
    if _STRICT.fullmatch(stripped):
        # Read alike on every Python (3.10's fromisoformat takes neither "Z" nor fractions of other than 3 or 6 digits).
        return _strict(name, stripped)
    iso = stripped[:-1] + "+00:00" if stripped[-1:] == "Z" else stripped
    zone = _ZONE.search(iso)
    if zone is not None and int(zone.group(1)) > 59:
        # Python reads +01:60 as +02:00; the strict form refuses it.
        raise TimeTextError(
            name, text, f"is not a valid date-time (the offset has {zone.group(1)} minutes, at most 59)"
        )
    try:
        return datetime.fromisoformat(iso)
    except ValueError:
        raise TimeTextError(name, text, f"is not a date-time: expected {EXPECTED}") from None


def stored_time(text: str) -> datetime:
    """A timestamp as a database driver hands it back as text (SQLite's ``YYYY-MM-DD HH:MM:SS[.ffffff]``, no zone
    means UTC), aware UTC; not a date-time: ``ValueError``."""
    try:
        # Parsed with its zone: datetime.replace after would cost several times the parse (histories read millions).
        return datetime.fromisoformat(text + "+00:00")
    except ValueError:
        return datetime.fromisoformat(text).astimezone(_UTC)  # text with a zone of its own
