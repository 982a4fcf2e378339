"""What many test modules share: aware UTC datetimes and the schedules they use most.

The standard library and the pure core only, so that the pure core's tests can import it without loading Airflow.
"""

from __future__ import annotations

from datetime import datetime, timezone

from hops_timetable.core.cron import QuartzCron

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


class CountingCron(QuartzCron):
    """A ``QuartzCron`` that counts its searches (``next_after``, ``prev_before``, ``nth_before``) in ``calls``, to
    check that an answer costs a bounded number of cron steps. Reset ``calls`` before the call measured."""

    calls = 0

    def next_after(self, dt: datetime) -> datetime | None:
        CountingCron.calls += 1
        return super().next_after(dt)

    def prev_before(self, dt: datetime) -> datetime | None:
        CountingCron.calls += 1
        return super().prev_before(dt)

    def nth_before(self, dt: datetime, n: int) -> datetime | None:
        CountingCron.calls += 1
        return super().nth_before(dt, n)
