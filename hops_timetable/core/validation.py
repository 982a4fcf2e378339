"""Checks of schedule arguments, shared by every entry point: each rule lives here and only here.

Airflow swallows exceptions raised while it schedules, so every argument is checked when the DAG is built; a message
names the argument as its caller knows it, shows the value (shortened) and says what would be valid. Dates lie in
``EARLIEST_DATE .. LATEST_DATE``, inside what datetime holds, so the scheduler's microsecond steps never overflow.
Untrusted JSON text (``import``, ``parity``) is read within a size and a nesting depth.
"""

from __future__ import annotations

import json
import math
from datetime import datetime, timedelta, timezone
from typing import Any, Final

EARLIEST_DATE: Final = datetime(1, 1, 2, tzinfo=timezone.utc)
LATEST_DATE: Final = datetime(9999, 12, 30, 23, 59, 59, tzinfo=timezone.utc)
EARLIEST_WINDOW: Final = datetime(1000, 1, 1, tzinfo=timezone.utc)  # HOPS_* values keep four-digit years
MAX_OFFSET_SECONDS: Final = 100 * 365 * 86_400  # the largest start_time_offset_seconds: 100 years of 365 days
MAX_JSON_BYTES: Final = 16 * 1024 * 1024  # tens of thousands of schedules
MAX_JSON_DEPTH: Final = 32  # a Hopsworks export nests four levels

IN_RANGE: Final = f"it must lie between {EARLIEST_DATE.isoformat()} and {LATEST_DATE.isoformat()} once converted to UTC"
_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
_MILLIS: Final = tuple((limit - _EPOCH) // timedelta(milliseconds=1) for limit in (EARLIEST_DATE, LATEST_DATE))


class HopsTimetableError(Exception):
    """The base of every error the package raises, so that one ``except HopsTimetableError`` catches them all."""


class ArgumentError(HopsTimetableError, ValueError):
    """An argument the caller must fix, ``name`` and ``value`` as given."""

    def __init__(self, name: str, value: object, message: str) -> None:
        self.name = name
        self.value = value
        super().__init__(message)


class ArgumentTypeError(ArgumentError, TypeError):
    """An argument of the wrong type (also a ``TypeError``)."""


def short_repr(value: object, limit: int = 80) -> str:
    """``repr`` capped at *limit* characters, so a hostile value cannot flood a message; never raises."""
    try:
        text = repr(value)
    except Exception:  # an int too long to print, a structure too deep, a broken __repr__
        text = f"<unprintable {type(value).__name__}>"
    return text if len(text) <= limit else text[: limit - 3] + "..."


def wrong_type(name: str, value: object, valid: str) -> ArgumentTypeError:
    return ArgumentTypeError(
        name, value, f"{name}={short_repr(value)} is invalid: {valid} (got {type(value).__name__})"
    )


def _whole(name: str, value: object, valid: str) -> int:
    """*value* as an int, refusing bools and floats (``3.3e10`` is not a count)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise wrong_type(name, value, valid)
    return value


def check_offset(name: str, value: object) -> int | None:
    """``None`` or whole seconds in ``0 .. MAX_OFFSET_SECONDS`` (so a window moved by it keeps a four-digit year)."""
    if value is None:
        return None
    valid = f"expected None or a whole number of seconds from 0 to {MAX_OFFSET_SECONDS:,} (100 years)"
    offset = _whole(name, value, valid)
    if offset < 0:
        fix = f"so write {name}={-offset}" if -offset <= MAX_OFFSET_SECONDS else valid
        problem = "is negative; the offset is a positive number of seconds that the backend subtracts "
        problem += f"(HOPS_START_TIME = previous fire - offset), {fix}"
    elif offset > MAX_OFFSET_SECONDS:
        problem = f"is too large: {valid}; a larger offset would move HOPS windows before the year 1000"
    else:
        return offset
    raise ArgumentError(name, value, f"{name}={short_repr(offset)} {problem}")


def check_catchup_runs(name: str, value: object) -> int | None:
    if value is None:
        return None
    if (runs := _whole(name, value, "expected a whole number >= 1, or None for no bound")) < 1:
        hint = "to run only the newest fire after an outage, turn catch-up off (catchup=False)"
        raise ArgumentError(
            name, value, f"{name}={short_repr(runs)} is invalid: it must be >= 1 (or None for no bound); {hint}"
        )
    return runs


def check_max_active_runs(name: str, value: object) -> int:
    valid = "expected a whole number >= 1"
    if (runs := _whole(name, value, valid)) < 1:
        raise ArgumentError(name, value, f"{name}={short_repr(runs)} is invalid: {valid}")
    return runs


def check_bool(name: str, value: object) -> bool:
    if not isinstance(value, bool):
        raise wrong_type(name, value, "expected True or False")
    return value


def check_utc_datetime(name: str, value: object) -> datetime | None:
    """``None`` or an aware datetime in ``EARLIEST_DATE .. LATEST_DATE``, in UTC (naive is a likely mistake)."""
    if value is None:
        return None
    if not isinstance(value, datetime):
        valid = "expected a timezone-aware datetime or None, for example datetime(2026, 1, 1, tzinfo=timezone.utc)"
        raise wrong_type(name, value, valid)
    try:
        offset = value.utcoffset()
    except Exception as exc:
        raise ArgumentError(name, value, f"{name}={short_repr(value)} cannot be converted to UTC: {exc}") from None
    if offset is None:
        fix = f"datetime({value.year}, {value.month}, {value.day}, {value.hour}, {value.minute}, tzinfo=timezone.utc)"
        raise ArgumentError(
            name, value, f"{name}={value.isoformat()} is naive; Hopsworks schedules are in UTC: pass {fix}"
        )
    try:
        result: datetime | None = value.astimezone(timezone.utc)
    except OverflowError:
        result = None
    if result is None or not EARLIEST_DATE <= result <= LATEST_DATE:
        raise ArgumentError(name, value, f"{name}={value.isoformat()} is out of range; {IN_RANGE}")
    return result


def check_epoch_millis(name: str, value: object) -> datetime | None:
    """Epoch milliseconds as Hopsworks' REST API writes dates (also an integral float such as ``1.7e12``), in UTC."""
    if value is None:
        return None
    valid = f"expected epoch milliseconds (a whole number from {_MILLIS[0]} to {_MILLIS[1]}), as the REST API returns"
    given = value
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise ArgumentTypeError(name, given, f"{name}={short_repr(given)} is invalid: {valid}")
    if not _MILLIS[0] <= value <= _MILLIS[1]:
        raise ArgumentError(name, given, f"{name}={short_repr(given)} is out of range: {valid}")
    return check_utc_datetime(name, _EPOCH + timedelta(milliseconds=value))


def load_json(raw: str, source: str, max_chars: int = MAX_JSON_BYTES) -> object:
    """The JSON text *raw* read from *source*; over *max_chars*, too deep or not JSON: an ``ArgumentError``."""
    too_deep = f"{source} nests objects and lists deeper than {MAX_JSON_DEPTH} levels; a Hopsworks export nests four"
    if len(raw) > max_chars:
        raise ArgumentError(
            source, None, f"{source} is larger than {max_chars:,} characters; split the export into smaller files"
        )
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as exc:
        message = f"{source} is not JSON: {exc.msg} at line {exc.lineno} column {exc.colno}"
        raise ArgumentError(source, None, message) from None
    except RecursionError:
        raise ArgumentError(source, None, too_deep) from None
    except ValueError as exc:  # a number of more digits than Python converts
        raise ArgumentError(source, None, f"{source} is not readable JSON: {exc}") from None
    stack: list[tuple[Any, int]] = [(data, 1)] if isinstance(data, (dict, list)) else []
    while stack:
        value, depth = stack.pop()
        if depth > MAX_JSON_DEPTH:
            raise ArgumentError(source, None, too_deep)
        children = value.values() if isinstance(value, dict) else value
        stack.extend((child, depth + 1) for child in children if isinstance(child, (dict, list)))
    return data
