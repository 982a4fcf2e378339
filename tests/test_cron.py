"""Examples for the Quartz cron engine.

Most expressions are the examples of Quartz's CronTrigger documentation; expected fire times were worked
out on a calendar. The reference instant is Friday 2024-03-15 10:00:00 UTC.
"""

from __future__ import annotations

import pickle
import threading
from datetime import datetime, timedelta, timezone

import pendulum
import pytest
from support import UTC, utc

from hops_timetable.core.cron import CronSyntaxError, QuartzCron

T = datetime(2024, 3, 15, 10, 0, 0, tzinfo=UTC)


# (expression, next fire after T, last fire before T)
QUARTZ_EXAMPLES = [
    ("0 0 12 * * ?", utc(2024, 3, 15, 12), utc(2024, 3, 14, 12)),
    ("0 15 10 ? * *", utc(2024, 3, 15, 10, 15), utc(2024, 3, 14, 10, 15)),
    ("0 15 10 * * ?", utc(2024, 3, 15, 10, 15), utc(2024, 3, 14, 10, 15)),
    ("0 15 10 * * ? *", utc(2024, 3, 15, 10, 15), utc(2024, 3, 14, 10, 15)),
    ("0 15 10 * * ? 2005", None, utc(2005, 12, 31, 10, 15)),
    ("0 * 14 * * ?", utc(2024, 3, 15, 14, 0), utc(2024, 3, 14, 14, 59)),
    ("0 0/5 14 * * ?", utc(2024, 3, 15, 14, 0), utc(2024, 3, 14, 14, 55)),
    ("0 0/5 14,18 * * ?", utc(2024, 3, 15, 14, 0), utc(2024, 3, 14, 18, 55)),
    ("0 0-5 14 * * ?", utc(2024, 3, 15, 14, 0), utc(2024, 3, 14, 14, 5)),
    # March 2024 Wednesdays: 6, 13, 20, 27.
    ("0 10,44 14 ? 3 WED", utc(2024, 3, 20, 14, 10), utc(2024, 3, 13, 14, 44)),
    ("0 15 10 ? * MON-FRI", utc(2024, 3, 15, 10, 15), utc(2024, 3, 14, 10, 15)),
    ("0 15 10 15 * ?", utc(2024, 3, 15, 10, 15), utc(2024, 2, 15, 10, 15)),
    ("0 15 10 L * ?", utc(2024, 3, 31, 10, 15), utc(2024, 2, 29, 10, 15)),
    ("0 15 10 L-2 * ?", utc(2024, 3, 29, 10, 15), utc(2024, 2, 27, 10, 15)),
    # Last Friday: March 29; February 29, 2024 is a Thursday, so February 23.
    ("0 15 10 ? * 6L", utc(2024, 3, 29, 10, 15), utc(2024, 2, 23, 10, 15)),
    ("0 15 10 ? * FRIL", utc(2024, 3, 29, 10, 15), utc(2024, 2, 23, 10, 15)),
    # December 31, 2005 is a Saturday.
    ("0 15 10 ? * 6L 2002-2005", None, utc(2005, 12, 30, 10, 15)),
    # March 1, 2024 is a Friday (third Friday the 15th); February 2 is the first Friday of February.
    ("0 15 10 ? * 6#3", utc(2024, 3, 15, 10, 15), utc(2024, 2, 16, 10, 15)),
    ("0 15 10 ? * FRI#3", utc(2024, 3, 15, 10, 15), utc(2024, 2, 16, 10, 15)),
    ("0 0 12 1/5 * ?", utc(2024, 3, 16, 12), utc(2024, 3, 11, 12)),
    ("0 11 11 11 11 ?", utc(2024, 11, 11, 11, 11), utc(2023, 11, 11, 11, 11)),
    ("0 0 12 ? * WED", utc(2024, 3, 20, 12), utc(2024, 3, 13, 12)),
    ("0 0/5 * * * ?", utc(2024, 3, 15, 10, 5), utc(2024, 3, 15, 9, 55)),
    ("10 0/5 * * * ?", utc(2024, 3, 15, 10, 0, 10), utc(2024, 3, 15, 9, 55, 10)),
    ("0 30 10-13 ? * WED,FRI", utc(2024, 3, 15, 10, 30), utc(2024, 3, 13, 13, 30)),
    ("0 0/30 8-9 5,20 * ?", utc(2024, 3, 20, 8), utc(2024, 3, 5, 9, 30)),
    # April 1, 2024 is a Monday; March 1 a Friday.
    ("0 0 0 1W * ?", utc(2024, 4, 1), utc(2024, 3, 1)),
    # March 31, 2024 is a Sunday; February 29 a Thursday.
    ("0 0 0 LW * ?", utc(2024, 3, 29), utc(2024, 2, 29)),
    # L alone in day-of-week is Saturday.
    ("0 0 0 ? * L", utc(2024, 3, 16), utc(2024, 3, 9)),
    ("0 0 0 ? * FRI-MON", utc(2024, 3, 16), utc(2024, 3, 15)),
    # Fifth Monday: January 29 and April 29, 2024; February and March have none.
    ("0 0 0 ? * 2#5", utc(2024, 4, 29), utc(2024, 1, 29)),
    ("0 0 0 29 2 ?", utc(2028, 2, 29), utc(2024, 2, 29)),
    ("0 0 0 * * ? 1999", None, utc(1999, 12, 31)),
    ("0 0 0 1 1 ? */10", utc(2030, 1, 1), utc(2020, 1, 1)),
    ("0 0 * ? * * *", utc(2024, 3, 15, 11), utc(2024, 3, 15, 9)),
    ("0 0 0 ? * 2-6/2", utc(2024, 3, 18), utc(2024, 3, 15)),
]


@pytest.mark.parametrize(("expression", "after", "before"), QUARTZ_EXAMPLES)
def test_quartz_documentation_examples(expression: str, after: datetime | None, before: datetime | None) -> None:
    cron = QuartzCron(expression)
    assert cron.dialect == "quartz"
    assert cron.next_after(T) == after
    assert cron.prev_before(T) == before
    for fire in (after, before):
        if fire is not None:
            assert cron.matches(fire)
            assert fire.tzinfo is UTC


@pytest.mark.parametrize(
    ("expression", "start", "fire"),
    [
        # June 1, 2024 is a Saturday: 1W moves forward to Monday the 3rd, never into May.
        ("0 0 0 1W * ?", utc(2024, 5, 15), utc(2024, 6, 3)),
        # June 15, 2024 is a Saturday: the Friday before.
        ("0 0 0 15W * ?", utc(2024, 6, 2), utc(2024, 6, 14)),
        # September 15, 2024 is a Sunday: the Monday after.
        ("0 0 0 15W * ?", utc(2024, 9, 2), utc(2024, 9, 16)),
        # February 28, 2021 is a Sunday and the month's last day: back to Friday the 26th.
        ("0 0 0 28W * ?", utc(2021, 2, 2), utc(2021, 2, 26)),
        # August 31, 2024 is a Saturday.
        ("0 0 0 LW * ?", utc(2024, 8, 2), utc(2024, 8, 30)),
        # L-30 only exists in 31-day months.
        ("0 0 0 L-30 * ?", utc(2024, 2, 1), utc(2024, 3, 1)),
        ("0 0 0 L-28 * ?", utc(2023, 2, 1), utc(2023, 3, 3)),
        ("0 0 0 31 * ?", utc(2024, 4, 1), utc(2024, 5, 31)),
    ],
)
def test_day_specials(expression: str, start: datetime, fire: datetime) -> None:
    cron = QuartzCron(expression)
    assert cron.next_after(start) == fire
    assert cron.prev_before(fire + timedelta(seconds=1)) == fire


@pytest.mark.parametrize(
    ("source", "expression", "dialect"),
    [
        ("@hourly", "0 0 * * * ?", "preset"),
        ("@daily", "0 0 0 * * ?", "preset"),
        ("@midnight", "0 0 0 * * ?", "preset"),
        ("@weekly", "0 0 0 ? * 1", "preset"),
        ("@monthly", "0 0 0 1 * ?", "preset"),
        ("@quarterly", "0 0 0 1 */3 ?", "preset"),
        ("@yearly", "0 0 0 1 1 ?", "preset"),
        ("@ANNUALLY", "0 0 0 1 1 ?", "preset"),
        ("*/5 * * * 1-5", "0 */5 * ? * 2-6", "unix"),
        ("30 6 * * mon-fri", "0 30 6 ? * MON-FRI", "unix"),
        ("0 9,17 * * *", "0 0 9,17 * * ?", "unix"),
        ("0 0 * * 0,7", "0 0 0 ? * 1", "unix"),
        ("0 0 * * */2", "0 0 0 ? * 1,3,5,7", "unix"),
        ("0 0 1 * 1", "0 0 1 * 1", "unix"),
        ("  0   0 12  * * ? ", "0 0 12 * * ?", "quartz"),
        ("0 0 12 ? jan,jul wed", "0 0 12 ? JAN,JUL WED", "quartz"),
    ],
)
def test_normalized_expression(source: str, expression: str, dialect: str) -> None:
    cron = QuartzCron(source)
    assert cron.expression == expression
    assert cron.source == source.strip()
    assert cron.dialect == dialect


def test_weekly_preset_is_sunday_midnight() -> None:
    cron = QuartzCron("@weekly")
    assert cron.expression == "0 0 0 ? * 1"
    assert cron.next_after(T) == utc(2024, 3, 17)


def test_quarterly_preset() -> None:
    assert QuartzCron("@quarterly").next_after(T) == utc(2024, 4, 1)
    assert QuartzCron("@quarterly").prev_before(T) == utc(2024, 1, 1)


def test_unix_or_semantics_when_both_day_fields_restricted() -> None:
    cron = QuartzCron("0 0 1 * 1")  # the 1st, or any Monday
    assert cron.next_after(T) == utc(2024, 3, 18)
    assert cron.next_after(utc(2024, 3, 25, 1)) == utc(2024, 4, 1)
    assert cron.prev_before(T) == utc(2024, 3, 11)
    assert cron.matches(utc(2024, 5, 1))  # a Wednesday, but the 1st


def test_unix_day_fields_follow_croniter_star_rule() -> None:
    # croniter treats a full day-of-month list as restricted when day-of-week has no "*": OR, so every day.
    assert QuartzCron("0 0 1-31 * 1").next_after(T) == utc(2024, 3, 16)
    # ... but as "*" when day-of-week contains one: AND with the step, so only SUN, TUE, THU and SAT.
    cron = QuartzCron("0 0 1-31 * */2")
    assert [cron.next_after(T + timedelta(days=i)) for i in range(3)] == [
        utc(2024, 3, 16),
        utc(2024, 3, 17),
        utc(2024, 3, 19),
    ]


def test_unix_dow_numbers_differ_from_quartz() -> None:
    unix = QuartzCron("0 0 * * 1")
    quartz = QuartzCron("0 0 0 ? * 1")
    assert unix.next_after(T) == utc(2024, 3, 18)  # Monday
    assert quartz.next_after(T) == utc(2024, 3, 17)  # Sunday


def test_never_firing_expression_answers_at_once() -> None:
    cron = QuartzCron("0 0 0 30 2 ?")
    assert cron.never_fires()
    assert cron.next_after(T) is None
    assert cron.prev_before(T) is None
    assert not cron.matches(utc(2024, 2, 29))
    assert "never fires: no fire time in 1970-9999" in cron.lints()


def test_search_range_is_1970_to_the_end_of_year_9999() -> None:
    hourly = QuartzCron("0 0 * ? * *")
    assert hourly.next_after(datetime(1960, 5, 1, tzinfo=UTC)) == utc(1970, 1, 1)
    assert hourly.prev_before(datetime(1960, 5, 1, tzinfo=UTC)) is None
    assert hourly.next_after(utc(2099, 12, 31, 23)) == utc(2100, 1, 1)
    assert hourly.prev_before(datetime(2150, 1, 1, tzinfo=UTC)) == utc(2149, 12, 31, 23)
    assert hourly.matches(datetime(2100, 1, 1, tzinfo=UTC))
    assert hourly.first_fire == utc(1970, 1, 1)
    assert hourly.last_fire == utc(9999, 12, 31, 23)
    assert hourly.next_after(utc(9999, 12, 31, 23)) is None


@pytest.mark.parametrize("expression", ["0 0 * * *", "@hourly", "0 0 0 * * ?", "0 0 0 * * ? *", "0 0 12 ? * 2#1"])
def test_expressions_without_a_year_limit_keep_firing_after_2099(expression: str) -> None:
    cron = QuartzCron(expression)
    fire = cron.next_after(utc(2099, 12, 31, 23, 59, 59))
    assert fire is not None and fire.year == 2100
    assert cron.next_after(utc(2150, 6, 1)) is not None
    assert cron.prev_before(utc(9000, 1, 1)) is not None
    last = cron.last_fire
    assert last is not None and last.year == 9999


def test_year_field_values_stay_1970_to_2099() -> None:
    cron = QuartzCron("0 0 0 1 1 ? 2090-2099")
    assert cron.last_fire == utc(2099, 1, 1)
    assert cron.next_after(utc(2099, 1, 1)) is None
    assert QuartzCron("0 0 0 1 1 ? 2000-2099/10").last_fire == utc(2090, 1, 1)
    # An open-ended step names no last year: as in Quartz, it goes on past 2099.
    assert QuartzCron("0 0 0 1 1 ? */10").next_after(utc(2095, 1, 1)) == utc(2100, 1, 1)
    assert QuartzCron("0 0 0 1 1 ? 2024/50").next_after(utc(2095, 1, 1)) == utc(2124, 1, 1)
    with pytest.raises(CronSyntaxError, match="out of range 1970-2099"):
        QuartzCron("0 0 0 1 1 ? 2100")


def test_never_firing_calendar_is_found_without_scanning_to_9999() -> None:
    # The Gregorian calendar repeats every 400 years: one cycle without a firing day decides "never".
    for expression in ("0 0 0 30 2 ?", "0 0 0 31 4,6,9,11 ?", "0 0 0 L-30 2 ?"):
        cron = QuartzCron(expression)
        assert cron.never_fires() and cron.first_fire is None and cron.last_fire is None


def test_extreme_datetimes_do_not_overflow() -> None:
    hourly = QuartzCron("0 0 * ? * *")
    plus14 = timezone(timedelta(hours=14))
    minus14 = timezone(timedelta(hours=-14))
    assert hourly.next_after(datetime.min.replace(tzinfo=plus14)) == utc(1970, 1, 1)
    assert hourly.prev_before(datetime.max.replace(tzinfo=minus14)) == utc(9999, 12, 31, 23)
    assert hourly.next_after(datetime.max.replace(tzinfo=UTC)) is None


def test_microseconds_are_honoured() -> None:
    cron = QuartzCron("0 0 10 * * ?")
    half = utc(2024, 3, 15, 10, 0, 0).replace(microsecond=500_000)
    assert cron.prev_before(half) == utc(2024, 3, 15, 10)
    assert cron.next_after(half) == utc(2024, 3, 16, 10)
    assert cron.prev_before(utc(2024, 3, 15, 10)) == utc(2024, 3, 14, 10)
    assert cron.next_after(utc(2024, 3, 15, 9, 59, 59).replace(microsecond=999_999)) == utc(2024, 3, 15, 10)
    assert cron.matches(utc(2024, 3, 15, 10))
    assert not cron.matches(half)


def test_time_zones_and_naive_input() -> None:
    cron = QuartzCron("0 0 10 * * ?")
    naive = datetime(2024, 3, 15, 9, 30)
    assert cron.next_after(naive) == utc(2024, 3, 15, 10)
    plus2 = timezone(timedelta(hours=2))
    # 11:30+02:00 is 09:30 UTC.
    assert cron.next_after(datetime(2024, 3, 15, 11, 30, tzinfo=plus2)) == utc(2024, 3, 15, 10)
    assert cron.matches(datetime(2024, 3, 15, 12, 0, tzinfo=plus2))
    berlin = pendulum.datetime(2024, 7, 1, 11, 0, tz="Europe/Berlin")  # 09:00 UTC in summer time
    fire = cron.next_after(berlin)
    assert fire == utc(2024, 7, 1, 10)
    assert fire is not None and fire.tzinfo is UTC and type(fire) is datetime
    assert cron.prev_before(pendulum.datetime(2024, 7, 1, 10, 0, tz="UTC")) == utc(2024, 6, 30, 10)


def test_non_datetime_input_is_rejected() -> None:
    with pytest.raises(TypeError, match="expected a datetime, got str"):
        QuartzCron("0 0 10 * * ?").next_after("2024-03-15")  # type: ignore[arg-type]


def test_value_semantics() -> None:
    a = QuartzCron("0 0 12 ? * wed")
    b = QuartzCron("0  0 12 ? * WED")
    assert a == b and hash(a) == hash(b)
    assert a != QuartzCron("0 0 12 ? * THU")
    assert QuartzCron("@daily") == QuartzCron("0 0 * * *") == QuartzCron("0 0 0 * * ?")
    assert len({a, b}) == 1
    clone = pickle.loads(pickle.dumps(a))
    assert clone == a and clone.source == a.source and clone.next_after(T) == a.next_after(T)
    assert repr(a) == "QuartzCron('0 0 12 ? * wed')"
    with pytest.raises(AttributeError):
        a.expression = "0 0 0 * * ?"  # type: ignore[misc]


def test_shared_between_threads() -> None:
    cron = QuartzCron("0 15 10 ? * 6#3")
    starts = [T + timedelta(days=37 * i) for i in range(200)]
    expected = [cron.next_after(t) for t in starts]
    results: list[list[datetime | None]] = []

    def work() -> None:
        results.append([cron.next_after(t) for t in starts])

    threads = [threading.Thread(target=work) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results == [expected] * 4


@pytest.mark.parametrize(
    ("expression", "text"),
    [
        ("0 0 0 1W * ?", "At 00:00:00, on the weekday nearest day 1 of the month"),
        ("0 0/5 * * * ?", "Every 5 minutes"),
        ("*/5 * * * *", "Every 5 minutes"),
        ("0 9,17 * * *", "At 09:00:00 and 17:00:00"),
        ("0 15 10 ? * 6L", "At 10:15:00, on the last Friday of the month"),
        ("0 15 10 ? * 6#3", "At 10:15:00, on the third Friday of the month"),
        ("0 0 0 L * ?", "At 00:00:00, on the last day of the month"),
        ("0 15 10 L-2 * ?", "At 10:15:00, 2 days before the last day of the month"),
        ("0 0 0 LW * ?", "At 00:00:00, on the last weekday of the month"),
        ("30 6 * * 1-5", "At 06:30:00, Monday through Friday"),
        ("0 15 10 ? * MON-FRI", "At 10:15:00, Monday through Friday"),
        ("0 0 12 ? * WED", "At 12:00:00, only on Wednesday"),
        ("0 15 10 * * ? 2026", "At 10:15:00, in 2026"),
        ("0 11 11 11 11 ?", "At 11:11:00, on day 11 of the month, only in November"),
        ("0 0 * ? * * *", "Every hour"),
        ("0 0/5 14,18 * * ?", "Every 5 minutes, during hours 14 and 18"),
        ("0 0/5 14 * * ?", "Every 5 minutes, from 14:00 through 14:59"),
        ("0 0 1 * 1", "At 00:00:00, on day 1 of the month or on Monday"),
        ("0 0-5 14 * * ?", "At second 0, minutes 0 through 5, hour 14"),
        ("30 0/5 * * * ?", "Every 5 minutes, at second 30 (Hopsworks requires 0 in the seconds field)"),
        ("@weekly", "At 00:00:00, only on Sunday"),
        # 5-field lists with day specials: every term is named, not only the first.
        ("0 0 L,5 * *", "At 00:00:00, on 5 and the last day of the month"),
        ("0 0 * * 1#1,L5", "At 00:00:00, on the first Monday and the last Friday of the month"),
    ],
)
def test_describe(expression: str, text: str) -> None:
    assert QuartzCron(expression).describe() == text


def test_fields_explain_each_token() -> None:
    rows = QuartzCron("0 15 10 ? * 6#3").fields()
    assert [name for name, _, _ in rows] == [
        "second",
        "minute",
        "hour",
        "day-of-month",
        "month",
        "day-of-week",
        "year",
    ]
    assert rows[3] == ("day-of-month", "?", "no specific value (the other day field decides)")
    assert rows[5] == ("day-of-week", "6#3", "on the third Friday of the month")
    assert rows[6] == ("year", "*", "every year")
    assert QuartzCron("*/5 * * * 1-5").fields()[5] == ("day-of-week", "2-6", "Monday through Friday")


def test_lints() -> None:
    now = utc(2024, 3, 15)
    assert QuartzCron("0 0 * ? * *").lints(now=now) == []
    seconds = QuartzCron("*/10 * * ? * *").lints(now=now)
    assert any("Hopsworks' scheduler only accepts 0" in w for w in seconds)
    assert any("fires 6 times a minute" in w for w in seconds)
    uneven = QuartzCron("0 */7 * ? * *").lints(now=now)
    assert uneven == [
        "the minute step /7 does not divide 60 evenly: the gap between the last fire of one cycle and the "
        "first of the next is 4 minutes, not 7"
    ]
    assert any("in Quartz 1 = SUN" in w and "'0 0 0 ? * 2'" in w for w in QuartzCron("0 0 * * 1").lints(now=now))
    assert any("fires when either matches" in w for w in QuartzCron("0 0 1 * 1").lints(now=now))
    assert QuartzCron("0 0 0 * * ? 2020").lints(now=now) == [
        "never fires again: the last fire time was 2020-12-31 00:00:00+00:00"
    ]


# (expression, field, token, 1-based position, words the message must contain)
ERRORS = [
    ("0 0 22-2 * * ?", "hour", "22-2", 5, "wrap-around ranges are only allowed in Quartz day-of-week"),
    ("0 0 0 ? NOV-FEB *", "month", "NOV-FEB", 9, "list the values: '0 0 0 ? 1-2,11-12 *'"),
    ("0 0 0 L,15 * ?", "day-of-month", "L", 7, "L and W cannot be used in a list"),
    ("0 0 0 1,15W * ?", "day-of-month", "15W", 9, "L and W cannot be used in a list"),
    ("0 0 0 LW,1 * ?", "day-of-month", "LW", 7, "L and W cannot be used in a list"),
    ("0 0 0 L-2W * ?", "day-of-month", "L-2W", 7, "L-n cannot be combined with W"),
    ("0 0 0 L-0 * ?", "day-of-month", "L-0", 7, "offset after L must be 1-30 (L-1 is the day before the last day)"),
    ("0 0 0 L-31 * ?", "day-of-month", "L-31", 7, "offset after L must be 1-30"),
    ("0 0 0 29W * ?", "day-of-month", "29W", 7, "Quartz and cron-utils disagree"),
    ("0 0 0 31W * ?", "day-of-month", "31W", 7, "for the last weekday of every month: '0 0 0 LW * ?'"),
    ("0 0 0 0W * ?", "day-of-month", "0W", 7, "day before W must be 1-28"),
    ("0 0 0 W * ?", "day-of-month", "W", 7, "valid forms are L, L-n (n 1-30), nW (n 1-28) and LW"),
    ("0 0 0 ? * 6#3,2#1", "day-of-week", "6#3", 11, "Quartz 2.3.2 refuses more than one # term"),
    ("0 0 0 ? * 2#1,3", "day-of-week", "2#1", 11, "'0 0 0 ? * 2#1' and '0 0 0 ? * 3'"),
    ("0 0 0 ? * 2,6#3", "day-of-week", "6#3", 13, "'#' cannot be used in a list"),
    ("0 0 0 ? * 6L,2", "day-of-week", "6L", 11, "L cannot be used in a list"),
    ("0 0 0 ? * 6#6", "day-of-week", "6#6", 11, "the number after # must be 1-5"),
    ("0 0 0 ? * FRI-MON/2", "day-of-week", "FRI-MON/2", 11, "Quartz 2.3.2 ignores a step after a name"),
    ("0 0 0 ? * 6-2/2", "day-of-week", "6-2/2", 11, "a step on a wrap-around range is not supported"),
    ("0 0 0 ? * MON/2", "day-of-week", "MON/2", 11, "would read 'MON/2' as 'MON'"),
    ("0 0 0 1 JAN/3 ?", "month", "JAN/3", 9, "write the number: '0 0 0 1 1/3 ?'"),
    ("0 0 0 1 MAY-JUN/6 ?", "month", "MAY-JUN/6", 9, "'0 0 0 1 5-6/6 ?'"),
    ("0 0 0 1 2-SEP ?", "month", "2-SEP", 9, "refuses a range that mixes a number and a name"),
    ("0 0 0 ? * SUN-2", "day-of-week", "SUN-2", 11, "spell both ends as numbers: '0 0 0 ? * 1-2'"),
    ("0 0 0 * * ? 1969", "year", "1969", 13, "value 1969 is out of range 1970-2099"),
    ("0 0 0 * * ? 2100", "year", "2100", 13, "value 2100 is out of range 1970-2099"),
    ("0 0 0 * * ? ?", "year", "?", 13, "'?' is not allowed in year"),
    (
        "0 0 0 ? * SUNDAY",
        "day-of-week",
        "SUNDAY",
        11,
        "long name 'SUNDAY' is not accepted (use the three-letter name: '0 0 0 ? * SUN')",
    ),
    ("0 0 0 * JANUARY ?", "month", "JANUARY", 9, "use the three-letter name: '0 0 0 * JAN ?'"),
    ("0 0 0 ? * ?", "day-of-week", "?", 11, "'?' may be used in only one of day-of-month and day-of-week"),
    ("0 0 0 * * *", "day-of-month", "*", 7, "use ? in day-of-month when restricting day-of-week"),
    ("0 0 0 1 * MON", "day-of-month", "1", 7, "exactly one of day-of-month and day-of-week must be '?'"),
    ("0 */60 * * * ?", "minute", "*/60", 3, "step 60 is larger than the field (at most 59)"),
    ("0 0 */24 * * ?", "hour", "*/24", 5, "step 24 is larger than the field (at most 23)"),
    ("0 0 0 ? * */8", "day-of-week", "*/8", 11, "step 8 is larger than the field (at most 7)"),
    ("0 0/0 * * * ?", "minute", "0/0", 3, "step must be at least 1"),
    ("0 0 0 32 * ?", "day-of-month", "32", 7, "value 32 is out of range 1-31"),
    ("60 0 0 * * ?", "second", "60", 1, "value 60 is out of range 0-59"),
    ("0 0 0 ? * 8", "day-of-week", "8", 11, "value 8 is out of range 1-7"),
    ("0 0 0 ? * 0", "day-of-week", "0", 11, "value 0 is out of range 1-7"),
    ("0 0 0 * 13 ?", "month", "13", 9, "value 13 is out of range 1-12"),
    ("0 0 0 1,,2 * ?", "day-of-month", "1,,2", 7, "empty list item"),
    ("0 0 0 *,1 * ?", "day-of-month", "*", 7, "'*' cannot be combined with other values"),
    ("0 0 0 5- * ?", "day-of-month", "5-", 7, "incomplete range"),
    ("0 x 0 * * ?", "minute", "x", 3, "'x' is not a valid value, expected 0-59"),
    ("0 0 ? * * ?", "hour", "?", 5, "'?' is only allowed alone in day-of-month or day-of-week"),
    ("0 0 0 ? * JUL", "day-of-week", "JUL", 11, "expected 1-7 or SUN-SAT"),
    # 5-field UNIX cron: croniter's constructs whose reading is ambiguous are refused.
    ("0 0 L-2 * *", "day-of-month", "L-2", 5, "not a valid use of L in 5-field cron"),
    ("0 0 1-L/8 * *", "day-of-month", "1-L/8", 5, "reads '1-L/8' as 1-31/8"),
    ("0 0 31-L * *", "day-of-month", "31-L", 5, "reads 31-L as an equal range"),
    ("0 0 31W * *", "day-of-month", "31W", 5, "'0 0 0 LW * ?'"),
    ("0 0 29W * *", "day-of-month", "29W", 5, "nearest the last day in shorter months"),
    ("0 0 15W * 1", "day-of-month", "15W", 5, "ignores day-of-week '1'"),
    ("0 0 1 * 5#3", "day-of-week", "5#3", 9, "ignores day-of-month '1'"),
    ("0 0 * * mon-fri#2", "day-of-week", "mon-fri#2", 9, "'0 0 * * 1#2,2#2,3#2,4#2,5#2'"),
    ("0 0 * * 5L", "day-of-week", "5L", 9, "'0 0 * * L5'"),
    ("0 0 * * 1,5#3", "day-of-week", "1,5#3", 9, "refuses to mix plain days"),
    ("0 0 * * thu-tue/2", "day-of-week", "thu-tue/2", 9, "reads 'thu-tue/2' as Tue,Thu,Sat"),
    ("0 22-2/3 * * *", "hour", "22-2/3", 3, "its step starts again after the wrap"),
    ("0 ? * * *", "hour", "?", 3, "'?' is only allowed alone in the day fields"),
    ("H 0 * * *", "minute", "H", 1, "hashed values (H) are not supported"),
    ("0 0 * * 1-1", "day-of-week", "1-1", 9, "reads an equal range as the whole field"),
    ("5-5 0 * * *", "minute", "5-5", 1, "write 5 for the single value"),
    ("0 0 * * 7-7", "day-of-week", "7-7", 9, "reads an equal range as the whole field"),
    ("0 0 * * 8", "day-of-week", "8", 9, "value 8 is out of range 0-7"),
]


@pytest.mark.parametrize(("expression", "field", "token", "position", "words"), ERRORS)
def test_errors_name_field_token_and_position(
    expression: str, field: str, token: str, position: int, words: str
) -> None:
    with pytest.raises(CronSyntaxError) as info:
        QuartzCron(expression)
    error = info.value
    assert isinstance(error, ValueError)
    assert (error.field, error.token, error.position) == (field, token, position)
    assert expression[position - 1 : position - 1 + len(token)].upper() == token.upper()
    message = str(error)
    assert message.startswith(f"invalid {field} token {token!r} at position {position} in {expression!r}: ")
    assert words in message
    assert "\n" not in message


def test_error_message_format_is_exact() -> None:
    with pytest.raises(CronSyntaxError) as info:
        QuartzCron("0 0 0 L-0 * ?")
    assert str(info.value) == (
        "invalid day-of-month token 'L-0' at position 7 in '0 0 0 L-0 * ?': "
        "offset after L must be 1-30 (L-1 is the day before the last day)"
    )
    assert info.value.hint == "L-1 is the day before the last day"


@pytest.mark.parametrize(
    ("expression", "words"),
    [
        ("", "the expression is empty"),
        ("   ", "the expression is empty"),
        ("0 0 0 * * ? | 0 0 12 * * ?", "composite expressions joined with '|' are not supported"),
        ("0 0 0 * * ? || 0 0 12 * * ?", "composite expressions joined with '|' are not supported"),
        ("@once", "'@once' is not periodic"),
        ("@continuous", "'@continuous' is not periodic"),
        ("@fortnightly", "unknown preset '@fortnightly', expected one of @hourly"),
        ("0 0 0 *", "expected 6 or 7 Quartz fields (or 5 UNIX cron fields), got 4"),
        ("0 0 0 * * ? 2024 1", "got 8"),
    ],
)
def test_whole_expression_errors(expression: str, words: str) -> None:
    with pytest.raises(CronSyntaxError) as info:
        QuartzCron(expression)
    assert info.value.field is None and info.value.token is None and info.value.position is None
    assert str(info.value).startswith(f"invalid cron expression {expression.strip()!r}: ")
    assert words in str(info.value)


@pytest.mark.parametrize("value", [None, 5, b"0 0 * ? * *", ["0", "0"]])
def test_non_string_is_a_cron_syntax_error(value: object) -> None:
    with pytest.raises(CronSyntaxError, match=f"must be a string, got {type(value).__name__}"):
        QuartzCron(value)  # type: ignore[arg-type]


def test_module_never_imports_airflow() -> None:
    import subprocess
    import sys

    code = "import sys, hops_timetable.core.cron; print(any(m.split('.')[0] == 'airflow' for m in sys.modules))"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "False"


@pytest.mark.parametrize("expression", ["0 * * ? * * *", "0 0/7 9-17 ? * MON-FRI", "0 0 0 L * ?", "15 30 2 ? 2 6#5"])
def test_count_between_counts_what_a_walk_counts(expression: str) -> None:
    cron = QuartzCron(expression)
    first = cron.next_after(utc(2025, 1, 1))
    assert first is not None
    walked, fire = [first], first
    while len(walked) < 3_000:
        following = cron.next_after(fire)
        if following is None or following.year > 2040:
            break
        walked.append(following)
        fire = following
    for n in (1, 2, 63, 64, 65, 128, 129, 1_000, len(walked)):
        if n <= len(walked):
            assert cron.count_between(first, walked[n - 1]) == n
            # A last instant between two fires counts the fires before it.
            assert cron.count_between(first, walked[n - 1] + timedelta(microseconds=500)) == n
