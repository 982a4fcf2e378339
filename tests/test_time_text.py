"""hops_timetable.core.time_text: one grammar, strict where another user writes the text."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hops_timetable.core.time_text import MAX_TEXT, TimeTextError, parse_time
from hops_timetable.core.validation import ArgumentError

UTC = timezone.utc
TEN = datetime(2026, 1, 1, 10, tzinfo=UTC)


@pytest.mark.parametrize(
    "text",
    ["2026-01-01T10:00:00Z", "2026-01-01T10:00:00", "2026-01-01T11:00:00+01:00", "2026-01-01T10:00:00.000000000Z"],
)
def test_both_strictnesses_read_the_canonical_forms_alike(text: str) -> None:
    assert parse_time("t", text, strict=True) == parse_time("t", text) == TEN


@pytest.mark.parametrize(
    "text",
    ["2026-01-01", "2026-01-01 10:00:00", " 2026-01-01T10:00:00Z", "2026-01-01T10:00:00z", "2026-01-01t10:00:00"],
)
def test_only_the_lenient_grammar_reads_what_an_author_or_a_shell_writes(text: str) -> None:
    with pytest.raises(TimeTextError, match=r"^t=.* is not an ISO-8601 date-time"):
        parse_time("t", text, strict=True)
    assert parse_time("t", text) in (TEN, datetime(2026, 1, 1, tzinfo=UTC))


@pytest.mark.parametrize("strict", [True, False])
@pytest.mark.parametrize(
    ("value", "problem"),
    [
        (5, "as a string (got int)"),
        ("x" * (MAX_TEXT + 1), "characters long"),
        ("9999-12-31T23:59:59Z", "out of range"),
        ("2026-02-30T00:00:00Z", "2026-02-30"),
        ("2026-01-01T00:00:00+01:60", "01:60"),
    ],
)
def test_refusals_name_the_input_and_say_what_is_valid(strict: bool, value: object, problem: str) -> None:
    with pytest.raises(ArgumentError) as refused:
        parse_time("--after", value, strict=strict)
    assert str(refused.value).startswith("--after=") and refused.value.name == "--after"
    assert problem in str(refused.value) or problem in repr(refused.value.value)


def test_the_strict_grammar_keeps_four_digit_years_for_window_values() -> None:
    with pytest.raises(TimeTextError, match="before the year 1000"):
        parse_time("t", "0999-12-31T23:59:59Z", strict=True)
    assert parse_time("t", "0999-12-31T23:59:59Z") == datetime(999, 12, 31, 23, 59, 59, tzinfo=UTC)


@given(st.datetimes(min_value=datetime(1000, 1, 2), max_value=datetime(9999, 12, 30), timezones=st.just(UTC)))
def test_isoformat_of_any_instant_reads_back_strictly(value: datetime) -> None:
    # datetime.isoformat is the independent writer: what Python prints, the strict grammar reads to the same instant.
    assert parse_time("t", value.isoformat(), strict=True) == value
    shifted = value.astimezone(timezone(timedelta(hours=-5, minutes=-30)))
    assert parse_time("t", shifted.isoformat(), strict=True) == value


@given(st.datetimes(min_value=datetime(1000, 1, 2), max_value=datetime(9999, 12, 30), timezones=st.just(UTC)))
def test_the_lenient_grammar_reads_airflows_utc_times_as_the_strict_one(value: datetime) -> None:
    # Airflow's JSON writes isoformat() of a UTC time, with or without microseconds: the lenient reading's shortcut
    # for them must land where the strict grammar does.
    for shown in (value, value.replace(microsecond=0)):
        text = shown.isoformat()
        assert parse_time("t", text) == parse_time("t", text, strict=True) == shown


def test_the_lenient_shortcut_still_refuses_what_the_grammar_refuses() -> None:
    with pytest.raises(TimeTextError, match="out of range"):
        parse_time("t", "9999-12-31T23:59:59+00:00")
    with pytest.raises(TimeTextError, match="is not a valid date-time"):
        parse_time("t", "2026-02-30T00:00:00+00:00")
