"""The HOPS window of an Airflow data interval ``[start, end)`` and an offset: ``HOPS_LOGICAL_DATE = start``,
``HOPS_START_TIME = start - offset``, ``HOPS_END_TIME = end - offset``, so consecutive runs tile the timeline, also
for irregular crons. The offset moves the HOPS window only, never the Airflow interval (docs/rules.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from zoneinfo import ZoneInfo

HOPS_ENV_KEYS = ("HOPS_START_TIME", "HOPS_END_TIME", "HOPS_LOGICAL_DATE")

TICK = timedelta(microseconds=1)  # "just before" a fire, to find the fire itself with a strict search

# IANA names of the zones whose offset is zero at every instant (the tz database's UTC and its aliases).
UTC_ZONE_KEYS = frozenset({"UTC", "Etc/UTC", "Etc/UCT", "UCT", "Universal", "Etc/Universal", "Zulu", "Etc/Zulu"})


def as_utc(value: datetime) -> datetime:
    """*value* as a plain aware UTC ``datetime`` (naive is read as UTC, as Airflow and Hopsworks do); pendulum's
    DateTime comes back plain, since its arithmetic drops a standard library tzinfo the core relies on."""
    zone = value.tzinfo
    # Asking pendulum's UTC (a ZoneInfo) for its offset, or calling its astimezone, costs more than the rest.
    if zone is not timezone.utc and not (isinstance(zone, ZoneInfo) and zone.key in UTC_ZONE_KEYS):
        offset = None if zone is None else value.utcoffset()
        if offset is None:
            value = value.replace(tzinfo=timezone.utc)
        elif offset:
            value = value.astimezone(timezone.utc)
    if type(value) is datetime and value.tzinfo is timezone.utc:
        return value
    return datetime(
        value.year, value.month, value.day, value.hour, value.minute, value.second, value.microsecond, timezone.utc
    )


def format_hops_time(value: datetime) -> str:
    """*value* as Hopsworks injects it: ``2026-01-01T10:00:00Z``, truncated, four year digits (unlike some
    platforms' ``strftime("%Y")``)."""
    v = as_utc(value)
    return f"{v.year:04d}-{v.month:02d}-{v.day:02d}T{v.hour:02d}:{v.minute:02d}:{v.second:02d}Z"


@dataclass(frozen=True)
class HopsWindow:
    """The data window of one run; all three values aware UTC."""

    start: datetime
    end: datetime
    logical_date: datetime

    def as_env(self) -> dict[str, str]:
        """The ``HOPS_*`` environment variables of this window, formatted as Hopsworks injects them."""
        return dict(zip(HOPS_ENV_KEYS, map(format_hops_time, (self.start, self.end, self.logical_date)), strict=True))


def hops_window(interval_start: datetime, interval_end: datetime, offset_seconds: int | None = None) -> HopsWindow:
    """The HOPS window of ``[interval_start, interval_end)``, moved *offset_seconds* (``None``: 0) earlier."""
    start, shift = as_utc(interval_start), timedelta(seconds=offset_seconds or 0)
    return HopsWindow(start=start - shift, end=as_utc(interval_end) - shift, logical_date=start)


def duration_text(seconds: int) -> str:
    """Whole seconds in words: ``3600`` is ``1 h``, ``5430`` is ``1 h 30 min 30 s``."""
    hours, rest = divmod(seconds, 3600)
    parts = zip((hours, *divmod(rest, 60)), ("h", "min", "s"), strict=True)
    return " ".join(f"{n} {unit}" for n, unit in parts if n) or "0 s"


def window_rule(offset_seconds: int | None) -> str:
    """The rule of :func:`hops_window` in words."""
    shift = f" - {duration_text(offset_seconds)}" if offset_seconds else ""
    return (
        "HOPS_LOGICAL_DATE = previous fire (the start date, for a first window clamped to it), "
        f"HOPS_START_TIME = HOPS_LOGICAL_DATE{shift}, HOPS_END_TIME = fire{shift}"
    )
