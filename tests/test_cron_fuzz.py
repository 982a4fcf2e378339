"""Fuzzing the cron parser: any string either parses or raises CronSyntaxError, and whatever parses
answers every query at once.

6,500 generated strings per run: 2,500 free text, 2,500 token soups and 1,500 cron-shaped strings.
"""

from __future__ import annotations

from datetime import datetime

from fuzzing import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support import UTC

from hops_timetable.core.cron import CronSyntaxError, QuartzCron

PROBES = [
    datetime(1965, 6, 1, tzinfo=UTC),
    datetime(2024, 3, 15, 10, 0, 0, 500_000, tzinfo=UTC),
    datetime(2101, 1, 1, tzinfo=UTC),
]

ATOMS = [
    "*",
    "?",
    "L",
    "W",
    "LW",
    "#",
    "/",
    "-",
    ",",
    "L-",
    "|",
    "||",
    "@",
    "H",
    "0",
    "1",
    "2",
    "3",
    "5",
    "6",
    "7",
    "12",
    "15",
    "23",
    "28",
    "29",
    "30",
    "31",
    "59",
    "60",
    "99",
    "1970",
    "2024",
    "2099",
    "2100",
    "MON",
    "FRI",
    "SUN",
    "SAT",
    "SUNDAY",
    "JAN",
    "DEC",
    "JUL",
    "mon",
    "@daily",
    "@once",
    "@weekly",
    "@continuous",
    "-1",
    "\t",
    "é",
    "٣",
]


def exercise(text: str) -> None:
    try:
        cron = QuartzCron(text)
    except CronSyntaxError as error:
        assert str(error)
        assert "\n" not in str(error)
        if error.position is not None:
            assert error.token is not None and error.field is not None
            assert 1 <= error.position <= len(error.expression)
        return
    for probe in PROBES:
        nxt = cron.next_after(probe)
        prv = cron.prev_before(probe)
        assert nxt is None or (nxt > probe and cron.matches(nxt))
        assert prv is None or (prv < probe and cron.matches(prv))
    assert cron.describe()
    assert len(cron.fields()) == 7
    cron.lints(now=PROBES[1])
    assert QuartzCron(cron.expression) == cron


@settings(max_examples=examples(2500), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(alphabet=st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=40))
def test_random_text_parses_or_raises_cron_syntax_error(text: str) -> None:
    exercise(text)


@st.composite
def token_soup(draw: st.DrawFn) -> str:
    fields = []
    for _ in range(draw(st.integers(1, 8))):
        atoms = draw(st.lists(st.sampled_from(ATOMS), min_size=1, max_size=4))
        fields.append("".join(atoms))
    return " ".join(fields)


@settings(max_examples=examples(2500), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(token_soup())
def test_token_soup_parses_or_raises_cron_syntax_error(text: str) -> None:
    exercise(text)


QUARTZ_POOLS = [
    ["0", "0", "*", "*/5", "0/15", "10-50/5", "59", "1,2", "5-5"],
    ["0", "*", "*/5", "0/15", "10-50/5", "59", "1,2,3", "/20"],
    ["0", "*", "9,17", "*/6", "23", "8-18/2"],
    ["*", "L", "LW", "15W", "L-3", "1/5", "31", "1-31", "30", "28W", "L-30"],
    ["*", "*", "JAN-MAR", "2", "*/3", "jan", "FEB", "2,4"],
    ["*", "6L", "6#3", "MON-FRI", "FRI-MON", "L", "1", "2#5", "7", "SAT-SUN", "*/2"],
    ["2024", "1970-2099", "*/10", "2020-2030", "*", "2099", "2000"],
]
UNIX_POOLS = [
    ["0", "*", "*/5", "10-50/5", "59", "1,2"],
    ["0", "*", "9,17", "*/6", "23"],
    ["*", "*", "1", "15", "1-31", "*/2", "31", "30"],
    ["*", "*", "JAN-MAR", "2", "*/3"],
    ["*", "1-5", "0", "7", "SUN", "5-7", "1-7/2", "0-7", "*/2", "MON-FRI"],
]
BROKEN = ["60", "*/61", "22-2", "24", "L-0", "1,L", "29W", "NOV-FEB", "13", "SUNDAY", "2#5,3", "0", "5#3", "?"]


@st.composite
def cron_shaped(draw: st.DrawFn) -> str:
    """Mostly well-formed fields, one broken now and then, so a good share parses and gets evaluated."""
    count = draw(st.sampled_from([5, 6, 6, 7]))
    pools = UNIX_POOLS if count == 5 else QUARTZ_POOLS[:count]
    fields = [draw(st.sampled_from(pool)) for pool in pools]
    if count > 5:
        fields[3 if draw(st.booleans()) else 5] = "?"
    if draw(st.integers(0, 3)) == 0:
        fields[draw(st.integers(0, count - 1))] = draw(st.sampled_from(BROKEN + ATOMS))
    return " ".join(fields)


@settings(max_examples=examples(1500), deadline=None)
@given(cron_shaped())
def test_cron_shaped_strings(text: str) -> None:
    exercise(text)
