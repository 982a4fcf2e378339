"""The parsed form: what the syntax makes of each construct, written out by hand, and its refusals.

The fire times these forms give are tested against Java Quartz and croniter elsewhere (``tests/oracle``,
``test_cron_croniter_fuzz.py``); here the form itself, which the evaluator and the explanation read.
"""

from __future__ import annotations

import dataclasses
import threading

import pytest

from hops_timetable.core.cron import CronSyntaxError, QuartzCron
from hops_timetable.core.cron.form import ALL, ANY, Item, ItemKind, MonthDays, ParsedCron, WeekDays
from hops_timetable.core.cron.quartz import parse

K = ItemKind
# Python weekday numbers (Monday = 0), as the day rules hold them.
MON, TUE, WED, THU, FRI, SAT, SUN = range(7)


@pytest.mark.parametrize(
    ("expression", "dom_items", "dom", "dow_items", "dow"),
    [
        ("0 0 0 L * ?", (Item(K.LAST_DAY, 0),), MonthDays(before_last=0), (ANY,), None),
        ("0 0 0 L-3 * ?", (Item(K.LAST_DAY, 3),), MonthDays(before_last=3), (ANY,), None),
        ("0 0 0 15W * ?", (Item(K.NEAREST_WEEKDAY, 15),), MonthDays(nearest_weekday=15), (ANY,), None),
        ("0 0 0 LW * ?", (Item(K.LAST_WEEKDAY),), MonthDays(last_weekday=True), (ANY,), None),
        ("0 0 0 1,15 * ?", (Item(K.VALUE, 1), Item(K.VALUE, 15)), MonthDays(days=frozenset({1, 15})), (ANY,), None),
        ("0 0 0 * * ?", (ALL,), None, (ANY,), None),
        # Quartz day-of-week: 1-7 = SUN-SAT as written, Python weekdays in the rule.
        ("0 0 0 ? * 6#3", (ANY,), None, (Item(K.NTH_WEEKDAY, 6, nth=3),), WeekDays(nth=frozenset({(FRI, 3)}))),
        ("0 0 0 ? * 6L", (ANY,), None, (Item(K.LAST_OF_WEEKDAY, 6),), WeekDays(last=frozenset({FRI}))),
        ("0 0 0 ? * L", (ANY,), None, (Item(K.VALUE, 7),), WeekDays(every=frozenset({SAT}))),
        ("0 0 0 ? * FRI-MON", (ANY,), None, (Item(K.WRAP, 6, 2),), WeekDays(every=frozenset({FRI, SAT, SUN, MON}))),
        # 5-field: 0-7 = SUN-SUN as written.
        (
            "0 0 L,5 * *",
            (Item(K.LAST_DAY, 0), Item(K.VALUE, 5)),
            MonthDays(frozenset({5}), before_last=0),
            (ANY,),
            None,
        ),
        (
            "0 0 * * 1#1,L5",
            (ANY,),
            None,
            (Item(K.NTH_WEEKDAY, 1, nth=1), Item(K.LAST_OF_WEEKDAY, 5)),
            WeekDays(nth=frozenset({(MON, 1)}), last=frozenset({FRI})),
        ),
        (
            "0 0 1 * 1",
            (Item(K.VALUE, 1),),
            MonthDays(days=frozenset({1})),
            (Item(K.VALUE, 1),),
            WeekDays(every=frozenset({MON})),
        ),
        ("0 0 * * 5-7", (ANY,), None, (Item(K.RANGE, 5, 7),), WeekDays(every=frozenset({FRI, SAT, SUN}))),
    ],
)
def test_day_fields_read_as_written_out_here(
    expression: str,
    dom_items: tuple[Item, ...],
    dom: MonthDays | None,
    dow_items: tuple[Item, ...],
    dow: WeekDays | None,
) -> None:
    parsed = parse(expression)
    assert (parsed.items[3], parsed.dom, parsed.items[5], parsed.dow) == (dom_items, dom, dow_items, dow)


def test_the_other_fields_and_the_whole() -> None:
    parsed = parse("  0 0/20 9-17 ? JAN,jul MON-FRI 2026/2\t")
    assert parsed == ParsedCron(
        source="0 0/20 9-17 ? JAN,jul MON-FRI 2026/2",
        expression="0 0/20 9-17 ? JAN,JUL MON-FRI 2026/2",
        dialect="quartz",
        tokens=("0", "0/20", "9-17", "?", "JAN,JUL", "MON-FRI", "2026/2"),
        items=(
            (Item(K.VALUE, 0),),
            (Item(K.RANGE, 0, 59, 20),),
            (Item(K.RANGE, 9, 17),),
            (ANY,),
            (Item(K.VALUE, 1), Item(K.VALUE, 7)),
            (Item(K.RANGE, 2, 6),),
            (Item(K.RANGE, 2026, 9999, 2),),
        ),
        seconds=(0,),
        minutes=(0, 20, 40),
        hours=(9, 10, 11, 12, 13, 14, 15, 16, 17),
        months=(1, 7),
        years=tuple(range(2026, 10000, 2)),
        dom=None,
        dow=WeekDays(every=frozenset({MON, TUE, WED, THU, FRI})),
    )


@pytest.mark.parametrize("expression", ["0 0 * ? * *", "0 0 0 ? * * 1970/1", "0 0 0 ? * * *", "@daily", "5 4 * * *"])
def test_every_year_from_1970_is_the_open_calendar(expression: str) -> None:
    assert parse(expression).years is None


def test_a_preset_reads_as_its_five_fields() -> None:
    parsed = parse("@Weekly")
    assert (parsed.source, parsed.expression, parsed.dialect) == ("@Weekly", "0 0 0 ? * 1", "preset")
    assert parsed.dow == WeekDays(every=frozenset({SUN}))


def test_the_form_is_frozen_and_hashable_and_the_evaluator_holds_it() -> None:
    parsed = parse("0 15 10 ? * 6#3")
    with pytest.raises(dataclasses.FrozenInstanceError):
        parsed.expression = "x"  # type: ignore[misc]
    assert hash(parsed) == hash(parse("0 15 10 ? * 6#3"))
    assert QuartzCron("0 15 10 ? * 6#3").parsed == parsed


@pytest.mark.parametrize(
    "expression",
    ["0 0 0 ? * MON/2", "0 0 0 * * *", "0 0 0 31W * ?", "0 0 5-5 * *", "0 0 * * *,5#3", "0\u00a00 * * *", "", 7],
)
def test_parse_refuses_as_the_evaluator_does(expression: object) -> None:
    with pytest.raises(CronSyntaxError) as by_parse:
        parse(expression)  # type: ignore[arg-type]
    with pytest.raises(CronSyntaxError) as by_evaluator:
        QuartzCron(expression)  # type: ignore[arg-type]
    first, second = by_parse.value, by_evaluator.value
    assert (str(first), first.rewrites, first.field, first.position) == (
        str(second),
        second.rewrites,
        second.field,
        second.position,
    )


def test_a_rewrite_is_proposed_only_when_it_parses() -> None:
    # '30W' has no valid rewrite; '31W' has 'LW'; a no-break space is replaced unless the result is refused too.
    assert parse_error("0 0 0 30W * ?").rewrites == ()
    assert parse_error("0 0 0 31W * ?").rewrites == ("0 0 0 LW * ?",)
    assert parse_error("0\u00a00 0 * * ?").rewrites == ("0 0 0 * * ?",)
    refused_twice = parse_error("0\u00a00 0 * * *")
    assert refused_twice.rewrites == () and refused_twice.hint == "separate the fields with spaces"


def parse_error(expression: str) -> CronSyntaxError:
    with pytest.raises(CronSyntaxError) as info:
        parse(expression)
    return info.value


def test_refusals_read_alike_from_many_threads_at_once() -> None:
    # Checking a rewrite parses again with no state shared between calls: threads cannot see each other's checks.
    refused = ["0 0 0 ? * MON/2", "0 0 0 * * *", "0 0 0 31W * ?", "0 0 5-5 * *", "0 0 * * *,5#3", "0 0 0 ? * 2-4L"]
    expected = [str(parse_error(e)) for e in refused]
    rounds: list[list[str]] = []

    def work() -> None:
        for _ in range(50):
            rounds.append([str(parse_error(e)) for e in refused])

    threads = [threading.Thread(target=work) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert rounds == [expected] * 300
