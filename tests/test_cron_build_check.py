"""A schedule that can never fire after its start is refused when the DAG is built, not left to stall."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from hops_timetable import hops_schedule

UTC = timezone.utc


def test_start_after_the_last_fire_of_a_year_limited_schedule_is_refused() -> None:
    with pytest.raises(ValueError, match=r"this schedule never fires after 2030-01-01T00:00:00\+00:00"):
        hops_schedule("0 0 0 1 1 ? 2025-2030", start_time=datetime(2031, 1, 1, tzinfo=UTC))


def test_start_at_the_last_fire_is_accepted() -> None:
    kwargs = hops_schedule("0 0 0 1 1 ? 2025-2030", start_time=datetime(2030, 1, 1, tzinfo=UTC))
    assert kwargs["start_date"] == datetime(2030, 1, 1, tzinfo=UTC)


def test_schedules_without_a_year_field_accept_starts_after_2099() -> None:
    kwargs = hops_schedule("0 0 * * *", start_time=datetime(2150, 1, 1, tzinfo=UTC))
    first = kwargs["schedule"].cron.next_after(datetime(2150, 1, 1, tzinfo=UTC))
    assert first == datetime(2150, 1, 2, tzinfo=UTC)
