"""5-field day rules exactly as croniter reads them, and over-long numbers refused like any other syntax error.

croniter keeps a bare ``*`` list item as ``*`` and reads a day field whose list holds one (``*,16``, ``L,*``,
``*/2,*``) as unrestricted, so the day fields are not OR-ed: the other day field alone decides. The oracle is
croniter itself; the engine's answers are never copied into the expectations.
"""

from __future__ import annotations

import importlib.metadata
import json
import re
from datetime import datetime
from pathlib import Path

import pytest
from croniter import croniter
from croniter.croniter import CroniterBadDateError
from support import UTC

from hops_timetable import HopsworksTimetable, hops_schedule
from hops_timetable.cli import main
from hops_timetable.cli.importer import import_schedules
from hops_timetable.core.cron import CronSyntaxError, QuartzCron

STARTS = (datetime(2024, 2, 10, 13, 5, 17, tzinfo=UTC), datetime(2031, 12, 30, 23, 59, tzinfo=UTC))


def croniter_fires(expression: str, start: datetime, forward: bool, count: int) -> list[datetime | None]:
    it = croniter(expression, start.replace(tzinfo=None))
    fires: list[datetime | None] = []
    for _ in range(count):
        try:
            found = it.get_next(datetime) if forward else it.get_prev(datetime)
        except CroniterBadDateError:
            fires.append(None)
            break
        fires.append(found.replace(tzinfo=UTC))
    return fires


def engine_fires(cron: QuartzCron, start: datetime, forward: bool, count: int) -> list[datetime | None]:
    fires: list[datetime | None] = []
    at: datetime | None = start
    for _ in range(count):
        assert at is not None
        at = cron.next_after(at) if forward else cron.prev_before(at)
        fires.append(at)
        if at is None:
            break
    return fires


def assert_same_fires(expression: str, cron: QuartzCron, count: int = 12) -> None:
    for start in STARTS:
        for forward in (True, False):
            assert engine_fires(cron, start, forward, count) == croniter_fires(expression, start, forward, count)


@pytest.mark.parametrize(
    "expression",
    [
        # '*' inside a day-of-month list with a restricted day-of-week: the day-of-week alone (issue 27, item 6).
        "0 0 *,16 * 5",
        "0 0 16,* * 5",
        "0 0 L,* * 5",
        "0 0 */2,* * 5",
        "0 0 *,L,3-9 * mon-fri",
        # ... and in day-of-week with a restricted day-of-month: the day-of-month alone.
        "0 0 1 * *,1",
        "0 0 1,15 * 0,*",
        "* * * * *,0",
        # both fields unrestricted, and '*' inside the time fields and the month
        "*,5 1,* *,L * *,6",
        "*/15,* 3 * jan,* *",
        # a field covering every value counts as unrestricted only when the other field's text holds a '*'
        "0 0 1-31 * */2",
        "0 0 */1 * 5",
        "0 0 1-31 * 0-6",
        "0 0 13 * 0-6",
        "0 0 1 * */1",
        "0 0 */2 * 1-7",
        "0 0 1-30,L * 5",
    ],
)
def test_star_rule_gives_croniters_fires(expression: str) -> None:
    cron = QuartzCron(expression)
    assert_same_fires(expression, cron)
    # The normalized spelling (Quartz where it can say it) is the same schedule.
    assert_same_fires(expression, QuartzCron(cron.expression))


def test_star_in_a_day_list_is_read_as_the_other_day_field_alone() -> None:
    # Named by the issue: these fired on Tuesdays, Wednesdays and Thursdays too.
    for expression in ("0 0 *,16 * 5", "0 0 L,* * 5", "0 0 */2,* * 5"):
        assert QuartzCron(expression) == QuartzCron("0 0 * * 5")
        assert "Friday" in QuartzCron(expression).describe()
    assert QuartzCron("* * * * *,0") == QuartzCron("* * * * *")


@pytest.mark.parametrize(
    ("expression", "reason", "rewrite"),
    [
        # croniter accepts '*' beside n#k terms and then fires on those terms alone
        ("0 0 * * *,5#3", "reads '*,5#3' as '5#3' alone", "0 0 * * 5#3"),
        ("0 0 ? * L5,*", "reads 'L5,*' as 'L5' alone", "0 0 ? * L5"),
        # a step without a start: croniter refuses it (Quartz reads it from the field's start)
        ("/5 * * * *", "a step needs a start", "*/5 * * * *"),
        ("0 /2 * * *", "a step needs a start", "0 */2 * * *"),
    ],
)
def test_croniter_readings_that_drop_a_term_are_refused(expression: str, reason: str, rewrite: str) -> None:
    with pytest.raises(CronSyntaxError, match=re.escape(reason)) as caught:
        QuartzCron(expression)
    assert caught.value.rewrites == (rewrite,)
    try:
        croniter(expression)
    except ValueError:
        return  # croniter refuses it too
    # Where croniter reads it, the rewrite is croniter's reading.
    assert_same_fires(expression, QuartzCron(rewrite))


CRONITER_7 = int(importlib.metadata.version("croniter").split(".")[0]) >= 7


@pytest.mark.parametrize(
    ("expression", "alone", "croniter_6"),
    [
        ("59/15 * * * *", "59 * * * *", "*/15 * * * *"),
        ("0 23/3 * * *", "0 23 * * *", "0 */3 * * *"),
        ("0 0 31/2 * *", "0 0 31 * *", "0 0 */2 * *"),
        ("0 0 * 12/7 *", "0 0 * 12 *", "0 0 * */7 *"),
        ("0 0 * * 6/2", "0 0 * * 6", "0 0 * * */2"),
        ("0 0 * * sat/1", "0 0 * * sat", "0 0 * * */1"),
    ],
)
def test_a_step_from_the_fields_largest_value_is_refused_as_croniter_6_and_7_differ(
    expression: str, alone: str, croniter_6: str
) -> None:
    with pytest.raises(CronSyntaxError, match="croniter 6") as caught:
        QuartzCron(expression)
    assert caught.value.rewrites == (alone,)
    stepped = next(i for i, text in enumerate(expression.split()) if "/" in text)
    assert repr(croniter_6.split()[stepped]) in str(caught.value)
    # The installed croniter gives one of the two readings the message names.
    assert_same_fires(expression, QuartzCron(alone if CRONITER_7 else croniter_6))


# ---------------------------------------------------------------------------------------------------------
# Over-long numbers (issue 27, item 9): more than Python converts to an int (4,300 digits), or just too long

HUGE = "7" * 5000


@pytest.mark.parametrize(
    ("expression", "field", "token"),
    [
        (f"{HUGE} * * * *", "minute", HUGE),
        (f"0 1,{HUGE} * * *", "hour", HUGE),
        (f"0 0 {HUGE}W * *", "day-of-month", f"{HUGE}W"),
        (f"0 0 1-{HUGE} * *", "day-of-month", f"1-{HUGE}"),
        (f"0 0 * */{HUGE} *", "month", f"*/{HUGE}"),
        (f"0 0 * * 5#{HUGE}", "day-of-week", f"5#{HUGE}"),
        (f"0 0 * * 1,L{HUGE}", "day-of-week", f"L{HUGE}"),
        (f"{HUGE} 0 0 * * ?", "second", HUGE),
        (f"0 0 0 L-{HUGE} * ?", "day-of-month", f"L-{HUGE}"),
        (f"0 0 0 ? * {HUGE}#2", "day-of-week", f"{HUGE}#2"),
        (f"0 0 0 ? * 1 2024,{HUGE}", "year", HUGE),
        ("0 0 0 ? * 1 2024/" + "0" * 4400 + "5", "year", "2024/" + "0" * 4400 + "5"),
        ("0 0 0 ? * 1 " + "1" * 11, "year", "1" * 11),
    ],
)
def test_an_over_long_number_is_a_syntax_error_naming_field_and_position(
    expression: str, field: str, token: str
) -> None:
    with pytest.raises(CronSyntaxError, match="digits") as caught:
        QuartzCron(expression)
    error = caught.value
    assert (error.field, error.token) == (field, token)
    assert error.position is not None and expression[error.position - 1 :].startswith(token)
    assert len(str(error)) < 700  # the message cuts the long texts it quotes


def test_numbers_of_up_to_ten_digits_with_leading_zeros_still_read() -> None:
    assert QuartzCron("0000000005 * * * *").next_after(STARTS[0]) == datetime(2024, 2, 10, 14, 5, tzinfo=UTC)
    with pytest.raises(CronSyntaxError, match="value 5000000000 is out of range 0-59"):
        QuartzCron("5000000000 * * * *")


def test_an_over_long_number_is_reported_like_any_syntax_error_at_every_entry_point(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    expression = f"0 0 0 {HUGE} * ?"
    # The DAG-file helper and the timetable: a ValueError naming the field.
    with pytest.raises(ValueError, match="day-of-month"):
        hops_schedule(expression)
    with pytest.raises(ValueError, match="day-of-month"):
        HopsworksTimetable(expression)
    # A serialized payload: the key named, not ''.
    payload = HopsworksTimetable("0 0 0 1 * ?").serialize()
    with pytest.raises(ValueError, match="cron_expression") as caught:
        HopsworksTimetable.deserialize({**payload, "cron_expression": expression})
    assert "key ''" not in str(caught.value) and "day-of-month" in str(caught.value)
    # The importer: that schedule's error, the others imported.
    good, bad = import_schedules([{"cronExpression": "0 0 * ? * * *"}, {"cronExpression": expression}])
    assert good.errors == [] and any("day-of-month" in e for e in bad.errors)
    path = tmp_path / "schedules.json"
    path.write_text(json.dumps([{"cronExpression": expression}]))
    assert main(["import", str(path), "--output", str(tmp_path / "dags")]) == 2
    # The CLI: exit 2 with one line, never 1 ("this is a bug").
    capsys.readouterr()
    assert main(["next", expression]) == 2
    assert main(["explain", expression]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 2 and "day-of-month" in err and "this is a bug" not in err
