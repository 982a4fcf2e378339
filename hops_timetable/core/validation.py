"""Checks of schedule arguments, shared by every entry point: each rule lives here and only here.

Airflow swallows exceptions raised while it schedules, so every argument is checked when the DAG is built; each
message names the argument as its caller knows it (``--max-catchup-runs``), shows the value (shortened) and says what
would be valid. Every error the package raises derives from :class:`HopsTimetableError`. Pure: no Airflow import.

Dates lie in ``0001-01-02 .. 9999-12-30T23:59:59`` UTC: the scheduler steps a microsecond around them, which must not
overflow. The offset is at most ``MAX_OFFSET_SECONDS``: cron fires lie in 1970-2099, so a window moved by it keeps a
four-digit year (a start date before 1970 is checked against the offset by :func:`check_window_start`).
"""

from __future__ import annotations

import math
from datetime import datetime, timedelta, timezone
from typing import Final

EARLIEST_DATE: Final = datetime(1, 1, 2, tzinfo=timezone.utc)
LATEST_DATE: Final = datetime(9999, 12, 30, 23, 59, 59, tzinfo=timezone.utc)
EARLIEST_WINDOW: Final = datetime(1000, 1, 1, tzinfo=timezone.utc)  # HOPS_* values keep four-digit years
MAX_OFFSET_SECONDS: Final = 100 * 365 * 86_400  # the largest start_time_offset_seconds: 100 years of 365 days

IN_RANGE: Final = f"it must lie between {EARLIEST_DATE.isoformat()} and {LATEST_DATE.isoformat()} once converted to UTC"
_REPR_LIMIT = 80
_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


class HopsTimetableError(Exception):
    """The base of every error the package raises, so that one ``except HopsTimetableError`` catches them all."""


class ArgumentError(HopsTimetableError, ValueError):
    """An argument the caller must fix. ``name`` and ``value`` are the argument as given."""

    def __init__(self, name: str, value: object, message: str) -> None:
        self.name = name
        self.value = value
        super().__init__(message)


class ArgumentTypeError(ArgumentError, TypeError):
    """An argument of the wrong type (also a ``TypeError``, as Python's own type errors are)."""


def short_repr(value: object, limit: int = _REPR_LIMIT) -> str:
    """``repr`` capped at *limit* characters, so a huge hostile value cannot flood a message; never raises."""
    try:
        text = repr(value)
    except Exception:  # an int too long to print, a structure too deep, a broken __repr__
        text = f"<unprintable {type(value).__name__}>"
    if len(text) > limit:
        text = text[: limit - 3] + "..."
    return text


def wrong_type(name: str, value: object, valid: str) -> ArgumentTypeError:
    """The error for *value* of the wrong type; *valid* says what is expected."""
    return ArgumentTypeError(
        name, value, f"{name}={short_repr(value)} is invalid: {valid} (got {type(value).__name__})"
    )


def _whole(name: str, value: object, valid: str) -> int:
    """*value* as an int, refusing bools and every non-int (floats included: ``3.3e10`` is not a count)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise wrong_type(name, value, valid)
    return value


def check_offset(name: str, value: object) -> int | None:
    """A start-time offset: ``None`` or whole seconds in ``0 .. MAX_OFFSET_SECONDS``."""
    if value is None:
        return None
    valid = f"expected None or a whole number of seconds from 0 to {MAX_OFFSET_SECONDS:,} (100 years)"
    offset = _whole(name, value, valid)
    if offset < 0:
        fix = f"so write {name}={-offset}" if -offset <= MAX_OFFSET_SECONDS else valid
        raise ArgumentError(
            name,
            value,
            f"{name}={short_repr(offset)} is negative; the offset is a positive number of seconds that the backend "
            f"subtracts (HOPS_START_TIME = previous fire - offset), {fix}",
        )
    if offset > MAX_OFFSET_SECONDS:
        raise ArgumentError(
            name,
            value,
            f"{name}={short_repr(offset)} is too large: {valid}; a larger offset would move HOPS windows before "
            "the year 1000",
        )
    return offset


def check_catchup_runs(name: str, value: object) -> int | None:
    """A catch-up bound: ``None`` (unbounded) or a whole number >= 1."""
    if value is None:
        return None
    runs = _whole(name, value, "expected a whole number >= 1, or None for no bound")
    if runs < 1:
        raise ArgumentError(
            name,
            value,
            f"{name}={short_repr(runs)} is invalid: it must be >= 1 (or None for no bound); to run only the newest "
            "fire after an outage, turn catch-up off (catchup=False)",
        )
    return runs


def check_max_active_runs(name: str, value: object) -> int:
    """Airflow's ``max_active_runs``: a whole number >= 1."""
    valid = "expected a whole number >= 1"
    if (runs := _whole(name, value, valid)) < 1:
        raise ArgumentError(name, value, f"{name}={short_repr(runs)} is invalid: {valid}")
    return runs


def check_bool(name: str, value: object) -> bool:
    """A flag: exactly ``True`` or ``False`` (not 0/1, not a string)."""
    if not isinstance(value, bool):
        raise wrong_type(name, value, "expected True or False")
    return value


def check_utc_datetime(name: str, value: object) -> datetime | None:
    """A date: ``None`` or an aware datetime in ``EARLIEST_DATE .. LATEST_DATE``, returned in UTC (naive is refused:
    schedules are in UTC and a naive value is a likely mistake)."""
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
        raise ArgumentError(
            name,
            value,
            f"{name}={value.isoformat()} is naive; Hopsworks schedules are in UTC: pass "
            f"datetime({value.year}, {value.month}, {value.day}, {value.hour}, {value.minute}, tzinfo=timezone.utc)",
        )
    try:
        result: datetime | None = value.astimezone(timezone.utc)
    except OverflowError:
        result = None
    if result is None or not EARLIEST_DATE <= result <= LATEST_DATE:
        raise ArgumentError(name, value, f"{name}={value.isoformat()} is out of range; {IN_RANGE}")
    return result


def check_end_after_start(start_name: str, start: datetime | None, end_name: str, end: datetime | None) -> None:
    """An end, when both are given, must lie after the start: the end is exclusive."""
    if start is not None and end is not None and end <= start:
        raise ArgumentError(
            end_name,
            end,
            f"{end_name}={end.isoformat()} is not after {start_name}={start.isoformat()}; "
            f"the schedule could never fire ({end_name} is exclusive)",
        )


def check_window_start(start_name: str, start: datetime | None, offset_name: str, offset: int | None) -> None:
    """The first HOPS window, clamped to the start, begins at ``start - offset``: not before ``EARLIEST_WINDOW``
    (``HOPS_*`` values keep a four-digit year; before the year 1 every task's arithmetic would overflow)."""
    if start is None or not offset:
        return
    shift = timedelta(seconds=offset)
    if start - EARLIEST_WINDOW < shift:
        raise ArgumentError(
            start_name,
            start,
            f"{start_name}={start.isoformat()} with {offset_name}={offset} would start the first HOPS window before "
            f"{EARLIEST_WINDOW.isoformat()}; give a {start_name} from {(EARLIEST_WINDOW + shift).isoformat()} on, "
            "or a smaller offset",
        )


def check_epoch_millis(name: str, value: object) -> datetime | None:
    """Epoch milliseconds, as Hopsworks' REST API writes dates (an int or an integral float such as ``1.7e12``;
    ``None`` gives ``None``), as an aware UTC datetime keeping the milliseconds."""
    if value is None:
        return None
    valid = (
        f"expected epoch milliseconds (a whole number from {_millis(EARLIEST_DATE)} to {_millis(LATEST_DATE)}), "
        "as the REST API returns"
    )
    given = value
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise ArgumentTypeError(name, given, f"{name}={short_repr(given)} is invalid: {valid}")
    if not _millis(EARLIEST_DATE) <= value <= _millis(LATEST_DATE):
        raise ArgumentError(name, given, f"{name}={short_repr(given)} is out of range: {valid}")
    return check_utc_datetime(name, _EPOCH + timedelta(milliseconds=value))


def _millis(value: datetime) -> int:
    return (value - _EPOCH) // timedelta(milliseconds=1)
