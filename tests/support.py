"""What many test modules share: aware UTC datetimes and the schedules they use most.

Standard library only, so that the pure core's tests can import it without loading Airflow.
"""

from __future__ import annotations

from datetime import datetime, timezone

UTC = timezone.utc

HOURLY = "0 0 * ? * * *"
"""Quartz: at minute 0 of every hour."""

DAILY = "0 0 0 * * ?"
"""Quartz: at midnight UTC."""

EVERY_5_MIN = "0 0/5 * * * ?"
"""Quartz: every five minutes, on the minute."""


def utc(*args: int) -> datetime:
    """``datetime(*args)`` in UTC: ``utc(2026, 1, 1, 10)`` is 2026-01-01T10:00:00Z."""
    return datetime(*args, tzinfo=UTC)  # type: ignore[arg-type, misc]
