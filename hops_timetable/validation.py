"""Checks of schedule arguments, shared by the timetable, ``hops_schedule``, the CLI and the importer.

Airflow swallows exceptions raised while it schedules, so every argument is checked when the DAG is built and the
DAG then fails to import with one of these messages: each names the argument, the value and what would be valid.
``name`` is the argument's name as the caller knows it (``max_catchup_runs``, ``--max-catchup-runs``,
``maxCatchupRuns``). Pure: no Airflow import.
"""

from __future__ import annotations

from datetime import datetime, timezone

__all__ = ["check_catchup_runs", "check_end_after_start", "check_offset", "check_utc_datetime"]

_EARLIEST = datetime(1, 1, 2, tzinfo=timezone.utc)
_LATEST = datetime(9999, 12, 30, 23, 59, 59, tzinfo=timezone.utc)


def check_offset(name: str, value: object) -> int | None:
    """A start-time offset: ``None`` or whole seconds >= 0."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be a whole number of seconds or None, got {value!r} ({type(value).__name__})")
    if value < 0:
        raise ValueError(
            f"{name}={value} is negative; the offset is a positive number of seconds that the backend subtracts "
            f"(HOPS_START_TIME = previous fire - offset), so write {name}={-value}"
        )
    return value


def check_catchup_runs(name: str, value: object) -> int | None:
    """A catch-up bound: ``None`` (unbounded) or a whole number >= 1."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be a whole number >= 1 or None, got {value!r} ({type(value).__name__})")
    if value < 1:
        raise ValueError(
            f"{name}={value} is invalid: it must be >= 1 (or None for no bound); to run only the newest fire "
            "after an outage, turn catch-up off (catchup=False)"
        )
    return value


def check_utc_datetime(name: str, value: object) -> datetime | None:
    """A date: ``None`` or a timezone-aware datetime, returned in UTC.

    Naive datetimes are refused: schedules are evaluated in UTC and a naive value is a likely mistake.
    """
    if value is None:
        return None
    if not isinstance(value, datetime):
        raise TypeError(
            f"{name} must be a timezone-aware datetime or None, got {value!r} ({type(value).__name__}); "
            "for example datetime(2026, 1, 1, tzinfo=timezone.utc)"
        )
    try:
        offset = value.utcoffset()
    except Exception as exc:
        raise ValueError(f"{name}={value!r} cannot be converted to UTC: {exc}") from exc
    if offset is None:
        raise ValueError(
            f"{name}={value.isoformat()} is naive; Hopsworks schedules are in UTC: pass "
            f"datetime({value.year}, {value.month}, {value.day}, {value.hour}, {value.minute}, tzinfo=timezone.utc)"
        )
    try:
        result = value.astimezone(timezone.utc)
    except OverflowError:
        result = None
    # A day of margin: the scheduler steps a microsecond around these dates, which must not overflow mid-schedule.
    if result is None or not _EARLIEST <= result <= _LATEST:
        raise ValueError(
            f"{name}={value.isoformat()} is out of range; it must lie between {_EARLIEST.isoformat()} and "
            f"{_LATEST.isoformat()} once converted to UTC"
        )
    return result


def check_end_after_start(start_name: str, start: datetime | None, end_name: str, end: datetime | None) -> None:
    """An end, when both are given, must lie after the start: the end is exclusive."""
    if start is not None and end is not None and end <= start:
        raise ValueError(
            f"{end_name}={end.isoformat()} is not after {start_name}={start.isoformat()}; "
            f"the schedule could never fire ({end_name} is exclusive)"
        )
