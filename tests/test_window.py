"""The HOPS_* window arithmetic, against the worked examples of the Hopsworks scheduling guide."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from hypothesis import given
from hypothesis import strategies as st
from support import UTC, utc

from hops_timetable.core.time_text import parse_time
from hops_timetable.core.window import (
    UTC_ZONE_KEYS,
    HopsWindow,
    as_utc,
    format_hops_time,
    hops_window,
)


def test_defaults_on_hourly_schedule_give_the_last_hour() -> None:
    window = hops_window(utc(2026, 1, 1, 9), utc(2026, 1, 1, 10))
    assert window == HopsWindow(start=utc(2026, 1, 1, 9), end=utc(2026, 1, 1, 10), logical_date=utc(2026, 1, 1, 9))
    assert window.as_env() == {
        "HOPS_START_TIME": "2026-01-01T09:00:00Z",
        "HOPS_END_TIME": "2026-01-01T10:00:00Z",
        "HOPS_LOGICAL_DATE": "2026-01-01T09:00:00Z",
    }


def test_25_hour_offset_follows_the_guide_numbers_not_its_prose() -> None:
    # Hourly, fire at 11:00, offset 25 h: start 09:00 and end 10:00 of the previous day.
    window = hops_window(utc(2026, 1, 2, 10), utc(2026, 1, 2, 11), 25 * 3600)
    assert window.as_env() == {
        "HOPS_START_TIME": "2026-01-01T09:00:00Z",
        "HOPS_END_TIME": "2026-01-01T10:00:00Z",
        "HOPS_LOGICAL_DATE": "2026-01-02T10:00:00Z",
    }


def test_zero_offset_is_the_same_as_none() -> None:
    assert hops_window(utc(2026, 1, 1), utc(2026, 1, 2), 0) == hops_window(utc(2026, 1, 1), utc(2026, 1, 2))


def test_other_zones_and_naive_values_are_read_as_utc_instants() -> None:
    plus_two = timezone(timedelta(hours=2))
    window = hops_window(datetime(2026, 1, 1, 11, tzinfo=plus_two), datetime(2026, 1, 1, 10))
    assert window.as_env()["HOPS_START_TIME"] == "2026-01-01T09:00:00Z"
    assert window.as_env()["HOPS_END_TIME"] == "2026-01-01T10:00:00Z"


def test_sub_second_parts_are_truncated_in_the_strings() -> None:
    assert format_hops_time(utc(2026, 1, 1, 10, 0, 0).replace(microsecond=999_999)) == "2026-01-01T10:00:00Z"


@given(
    start=st.datetimes(min_value=datetime(1971, 1, 1), max_value=datetime(2098, 1, 1), timezones=st.just(UTC)),
    width=st.integers(min_value=1, max_value=400 * 86400),
    offset=st.none() | st.integers(min_value=0, max_value=10 * 365 * 86400),
)
def test_window_is_the_interval_moved_by_the_offset(start: datetime, width: int, offset: int | None) -> None:
    start = start.replace(microsecond=0)
    end = start + timedelta(seconds=width)
    window = hops_window(start, end, offset)
    assert window.logical_date == start
    assert window.end - window.start == end - start
    assert start - window.start == timedelta(seconds=offset or 0)
    env = window.as_env()
    assert parse_time("HOPS_START_TIME", env["HOPS_START_TIME"], strict=True) == window.start
    assert parse_time("HOPS_END_TIME", env["HOPS_END_TIME"], strict=True) == window.end
    assert all(value.endswith("Z") and len(value) == 20 for value in env.values())


def test_the_zones_read_as_utc_without_asking_have_no_offset_at_any_instant_in_the_tz_database() -> None:
    """The tz database, not this module, says which names are UTC: every instant from 1850 to 2150 has offset 0."""
    found = 0
    for key in sorted(UTC_ZONE_KEYS):
        try:
            zone = ZoneInfo(key)
        except ZoneInfoNotFoundError:
            continue  # a system without that alias never hands it over either
        found += 1
        for year in range(1850, 2151, 7):
            for month in (1, 4, 7, 10):
                assert datetime(year, month, 15, 12, tzinfo=zone).utcoffset() == timedelta(0), (key, year, month)
    assert found >= 2


@given(st.datetimes(min_value=datetime(1971, 1, 1), max_value=datetime(2200, 1, 1)))
def test_pendulum_and_zoneinfo_utc_values_become_plain_utc_datetimes_of_the_same_instant(naive: datetime) -> None:
    import pendulum

    for value in (
        pendulum.instance(naive.replace(tzinfo=timezone.utc)),
        naive.replace(tzinfo=ZoneInfo("UTC")),
        pendulum.instance(naive.replace(tzinfo=timezone.utc)).in_timezone("Etc/UTC"),
    ):
        got = as_utc(value)
        assert type(got) is datetime and got.tzinfo is timezone.utc
        assert got == value and got.replace(tzinfo=None) == naive
