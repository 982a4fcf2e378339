"""Every rewrite the engine proposes in a CronSyntaxError parses and means what the refused text most likely meant.

For each refused construct the intended reading is written here independently (an explicit list or a calendar
predicate), or, for a 5-field expression refused as ambiguous, it is croniter's reading of the original, croniter
being what Airflow runs. Over 2024-2032 the rewrites (one schedule each) must fire exactly there.
"""

from __future__ import annotations

import calendar
from collections.abc import Callable
from datetime import date, datetime, timedelta

import pytest
from croniter import croniter
from fuzzing import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support import UTC

from hops_timetable.core.cron import CronSyntaxError, QuartzCron

BEGIN = datetime(2024, 1, 1, tzinfo=UTC)
END = datetime(2033, 1, 1, tzinfo=UTC)

DayPredicate = Callable[[date], bool]


def fires(cron: QuartzCron, begin: datetime = BEGIN, end: datetime = END) -> set[datetime]:
    out: set[datetime] = set()
    t = cron.next_after(begin - timedelta(seconds=1))
    while t is not None and t < end:
        out.add(t)
        t = cron.next_after(t)
    return out


def croniter_fires(
    expression: str, begin: datetime = BEGIN, end: datetime = END, *, limit: int | None = None
) -> set[datetime]:
    it = croniter(expression, (begin - timedelta(seconds=1)).replace(tzinfo=None))
    out: set[datetime] = set()
    while limit is None or len(out) < limit:
        t = it.get_next(datetime).replace(tzinfo=UTC)
        if t >= end:
            return out
        out.add(t)
    return out


def midnights(predicate: DayPredicate) -> set[datetime]:
    out: set[datetime] = set()
    day = BEGIN.date()
    while day < END.date():
        if predicate(day):
            out.add(datetime(day.year, day.month, day.day, tzinfo=UTC))
        day += timedelta(days=1)
    return out


def last_day(d: date) -> int:
    return calendar.monthrange(d.year, d.month)[1]


def is_last_weekday(d: date) -> bool:
    return d.weekday() < 5 and all(date(d.year, d.month, x).weekday() >= 5 for x in range(d.day + 1, last_day(d) + 1))


def nearest_weekday(d: date, n: int) -> bool:
    candidates = [x for x in range(1, last_day(d) + 1) if date(d.year, d.month, x).weekday() < 5]
    return d.day == min(candidates, key=lambda x: abs(x - n))


def nth(d: date, weekday: int, k: int) -> bool:
    return d.weekday() == weekday and (d.day - 1) // 7 + 1 == k


def last_of(d: date, weekday: int) -> bool:
    return d.weekday() == weekday and d.day + 7 > last_day(d)


def refused(expression: str) -> CronSyntaxError:
    with pytest.raises(CronSyntaxError) as info:
        QuartzCron(expression)
    error = info.value
    assert error.rewrites, f"no rewrite proposed for {expression!r}: {error}"
    for rewrite in error.rewrites:
        assert repr(rewrite) in str(error)  # the message shows exactly what is checked here
    return error


def rewritten_fires(error: CronSyntaxError, end: datetime = END) -> set[datetime]:
    out: set[datetime] = set()
    for rewrite in error.rewrites:
        out |= fires(QuartzCron(rewrite), end=end)
    return out


MON, TUE, WED, THU, FRI, SAT, SUN = range(7)

# (refused expression, its intended reading: an explicit expression, or a predicate for fires at midnight)
QUARTZ_CASES: list[tuple[str, str | DayPredicate]] = [
    # A name followed by a step: the step counted from the name (Quartz would drop it).
    ("0 0 0 ? * MON/2", "0 0 0 ? * 2,4,6"),
    ("0 0 0 1 JAN/3 ?", "0 0 0 1 1,4,7,10 ?"),
    ("0 0 0 1 MAY-JUN/6 ?", "0 0 0 1 5 ?"),
    ("0 0 0 ? * SUN-THU/7", "0 0 0 ? * 1"),
    ("0 0 0 1 FEB-AUG/8 ?", "0 0 0 1 2 ?"),
    ("0 0 0 1 APR-MAR/2 ?", "0 0 0 1 2,4,6,8,10,12 ?"),  # April, June, ... December, February
    ("0 0 0 ? * THU-TUE/2", "0 0 0 ? * 2,5,7"),  # Thursday, Saturday, Monday
    ("0 0 0 ? * FRI-MON/2", "0 0 0 ? * 1,6"),  # Friday, Sunday
    # A range mixing a number and a name (Quartz refuses it): the range it spells.
    ("0 0 0 1 2-SEP ?", "0 0 0 1 2,3,4,5,6,7,8,9 ?"),
    ("0 0 0 ? * SUN-2", "0 0 0 ? * 1,2"),
    ("0 0 0 ? * FRI-7", "0 0 0 ? * 6,7"),
    ("0 0 0 1 1-OCT ?", "0 0 0 1 1,2,3,4,5,6,7,8,9,10 ?"),
    ("0 0 0 1 JUN-9 ?", "0 0 0 1 6,7,8,9 ?"),
    ("0 0 0 1 3-APR ?", "0 0 0 1 3,4 ?"),
    # Wrap-around ranges outside day-of-week, and with a step in day-of-week: one cycle through the field.
    ("0 0 22-2 * * ?", "0 0 0,1,2,22,23 * * ?"),
    ("0 50-10 3 1 * ?", "0 0,1,2,3,4,5,6,7,8,9,10,50,51,52,53,54,55,56,57,58,59 3 1 * ?"),
    ("0 0 0 28-3 * ?", "0 0 0 1,2,3,28,29,30,31 * ?"),
    ("0 0 0 1 NOV-FEB ?", "0 0 0 1 1,2,11,12 ?"),
    ("0 0 0 1 11-2/2 ?", "0 0 0 1 1,11 ?"),
    ("0 0 0 ? * 5-3/2", "0 0 0 ? * 2,5,7"),
    # Lists with a special day: each term on its own.
    ("0 0 0 ? * 2#1,3", lambda d: nth(d, MON, 1) or d.weekday() == TUE),
    ("0 0 0 ? * 3,2#1", lambda d: nth(d, MON, 1) or d.weekday() == TUE),
    ("0 0 0 ? * 6L,2", lambda d: last_of(d, FRI) or d.weekday() == MON),
    ("0 0 0 L,15 * ?", lambda d: d.day in (15, last_day(d))),
    ("0 0 0 LW,1 * ?", lambda d: d.day == 1 or is_last_weekday(d)),
    ("0 0 0 1,15W * ?", lambda d: d.day == 1 or nearest_weekday(d, 15)),
    ("0 0 0 ? * 1-3#2", lambda d: d.weekday() in (SUN, MON, TUE) and (d.day - 1) // 7 == 1),
    ("0 0 0 ? * 1-3L", lambda d: any(last_of(d, w) for w in (SUN, MON, TUE))),
    ("0 0 0 ? * FRI-MON#2", lambda d: d.weekday() in (FRI, SAT, SUN, MON) and (d.day - 1) // 7 == 1),
    # The last weekday of the month, for 31W.
    ("0 0 0 31W * ?", is_last_weekday),
    # Spelling.
    ("0 0 0 ? * SUNDAY", lambda d: d.weekday() == SUN),
    ("0 0 0 * JANUARY ?", lambda d: d.month == 1),
    ("0 0 0 1,,2 * ?", lambda d: d.day in (1, 2)),
    ("0 0 0 ? * 2,", lambda d: d.weekday() == MON),
    ("0 0 0 * * ? ?", lambda d: True),
    ("0 0 0 ? * ?", lambda d: True),
    ("0 0 0 * * *", lambda d: True),
    ("0 0 0 15 * *", lambda d: d.day == 15),
    ("0 0 0 * * MON", lambda d: d.weekday() == MON),
    ("0 0 0\xa0* * ?", lambda d: True),
    ("0\u20030 0 * * ?", lambda d: True),
    ("0 0 0 * * ?\x85", lambda d: True),
    # 5-field strings croniter refuses, with the reading their text evidently means.
    ("0 0 * * 1,5#3", lambda d: d.weekday() == MON or nth(d, FRI, 3)),
    ("0 0 * * 5L", lambda d: last_of(d, FRI)),
    # Both day fields with W or # (croniter does not OR them): the usual cron OR, one schedule per field.
    ("0 0 15W * 1", lambda d: nearest_weekday(d, 15) or d.weekday() == MON),
    ("0 0 1 * 5#3", lambda d: d.day == 1 or nth(d, FRI, 3)),
    ("0 0 1 * L5", lambda d: d.day == 1 or last_of(d, FRI)),
    ("0 0 * * fri#3,1", lambda d: d.weekday() == MON or nth(d, FRI, 3)),
]


@pytest.mark.parametrize(("expression", "intended"), QUARTZ_CASES)
def test_rewrite_fires_where_the_intended_reading_does(expression: str, intended: str | DayPredicate) -> None:
    error = refused(expression)
    expected = fires(QuartzCron(intended)) if isinstance(intended, str) else midnights(intended)
    assert expected
    assert rewritten_fires(error) == expected


# 5-field expressions croniter accepts but reads in a way the text does not evidently say: refused, and the
# rewrite spells croniter's reading unambiguously.
CRONITER_CASES = [
    "0 0 1-L/8 * *",  # croniter: 1,9,17,25 whatever the month's length
    "0 0 31-L * *",  # croniter: an equal range, the whole month
    "0 0 * * mon-fri#2",  # croniter: the second Monday, the second Tuesday, ...
    "0 0 * * thu-tue/2",  # croniter: Tue, Thu, Sat
    "0 22-2/3 * * *",  # croniter: 22:00 and 02:00
    "0 0 31W * *",  # croniter: the weekday nearest the last day
    "5-5 0 * * *",  # croniter: an equal range, the whole field
    "0 0 * * 1-1",
    "0 0 * * 7-7",
    "0 0 5-5 * 1",  # the whole month OR-ed with Monday: every day
    "0 0 2-31,L * *",  # 31 entries: croniter reads every day
]


@pytest.mark.parametrize("expression", CRONITER_CASES)
def test_ambiguous_five_field_rewrite_is_croniters_reading(expression: str) -> None:
    if "W" in expression:
        try:
            croniter(expression)
        except ValueError:
            pytest.skip("croniter 6.0 (Airflow 3.0 and 3.1) does not read W; 6.2 and later do")
    error = refused(expression)
    assert "croniter" in error.why
    # Nine years, or the first 20,000 fires of a dense schedule (5-5 0 * * * fires 60 times a day).
    theirs = croniter_fires(expression, limit=20_000)
    end = END if len(theirs) < 20_000 else max(theirs) + timedelta(seconds=1)
    assert rewritten_fires(error, end) == theirs


def test_croniters_wrap_around_step_is_accepted_where_it_continues_the_cycle() -> None:
    # 28-3/2: croniter's 28,30,1,3 is also the evident reading, so it is accepted with croniter's fires.
    assert fires(QuartzCron("0 0 28-3/2 * *")) == croniter_fires("0 0 28-3/2 * *")


def test_29w_and_30w_are_refused_without_a_rewrite() -> None:
    # croniter's 29W/30W (nearest the 29th, or the last day in shorter months) has no single spelling.
    for expression in ("0 0 29W * *", "0 0 30W * *", "0 0 0 29W * ?", "0 0 0 30W * ?"):
        with pytest.raises(CronSyntaxError) as info:
            QuartzCron(expression)
        assert info.value.rewrites == ()
        assert "LW" in str(info.value)


# Any refusal, anywhere: whatever rewrite it proposes parses; for 5-field strings croniter accepts, a single
# rewrite fires as croniter does.
ATOMS = ["*", "?", "L", "W", "#", "/", "-", ",", "LW", "L-", "0", "1", "2", "3", "5", "6", "7", "8"]
ATOMS += ["12", "15", "22", "23", "28", "29", "30", "31", "59", "MON", "FRI", "SUN", "JAN", "NOV", "FEB", "2099"]


@st.composite
def cron_shaped(draw: st.DrawFn) -> str:
    fields = draw(st.integers(5, 7))
    return " ".join("".join(draw(st.lists(st.sampled_from(ATOMS), min_size=1, max_size=4))) for _ in range(fields))


@settings(max_examples=examples(1500), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cron_shaped())
def test_every_proposed_rewrite_parses(text: str) -> None:
    try:
        QuartzCron(text)
    except CronSyntaxError as error:
        for rewrite in error.rewrites:
            QuartzCron(rewrite)
        if len(error.rewrites) == 1 and len(text.split()) == 5 and "croniter" in error.why:
            begin, end = datetime(2024, 1, 1, tzinfo=UTC), datetime(2024, 4, 1, tzinfo=UTC)
            try:
                expected = croniter_fires(text, begin, end)
            except Exception:  # croniter refuses it too (or finds no date): nothing to compare with
                return
            assert fires(QuartzCron(error.rewrites[0]), begin, end) == expected
