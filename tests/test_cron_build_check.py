"""A schedule that can never fire after its start is refused when the DAG is built, not left to stall."""

from __future__ import annotations

from datetime import datetime

import pytest
from support import UTC

from hops_timetable import hops_schedule


def test_start_after_the_last_fire_of_a_year_limited_schedule_is_refused() -> None:
    with pytest.raises(
        ValueError, match=r"start_time=2031-01-01T00:00:00Z is at or after the last fire of .* start before its last"
    ):
        hops_schedule("0 0 0 1 1 ? 2025-2030", start_time=datetime(2031, 1, 1, tzinfo=UTC))


def test_start_at_the_last_fire_is_refused_and_just_before_it_accepted() -> None:
    # A run's fire lies after the start (its interval starts there), so a start at the last fire leaves none.
    with pytest.raises(ValueError, match=r"start_time=2030-01-01T00:00:00Z is at or after the last fire"):
        hops_schedule("0 0 0 1 1 ? 2025-2030", start_time=datetime(2030, 1, 1, tzinfo=UTC))
    kwargs = hops_schedule("0 0 0 1 1 ? 2025-2030", start_time=datetime(2029, 12, 31, 23, 59, 59, tzinfo=UTC))
    assert kwargs["start_date"] == datetime(2029, 12, 31, 23, 59, 59, tzinfo=UTC)


def test_schedules_without_a_year_field_accept_starts_after_2099() -> None:
    kwargs = hops_schedule("0 0 * * *", start_time=datetime(2150, 1, 1, tzinfo=UTC))
    first = kwargs["schedule"].cron.next_after(datetime(2150, 1, 1, tzinfo=UTC))
    assert first == datetime(2150, 1, 2, tzinfo=UTC)
