"""A 5-field cron is built only when the croniter installed beside Airflow reads it as the engine does.

The oracle is the installed croniter itself; CI runs this module on the croniter each Airflow minor pins (6.0.0 on
3.0 and 3.1, 6.2 on 3.2 to 3.4, the newest in the development environment), so each branch below runs somewhere.
"""

from __future__ import annotations

import importlib.metadata
from datetime import datetime

import pytest
from croniter import croniter
from croniter.croniter import CroniterBadDateError
from support import UTC

from hops_timetable import HopsworksTimetable, hops_schedule
from hops_timetable.cli import main
from hops_timetable.core.cron import QuartzCron
from hops_timetable.core.validation import ArgumentError
from hops_timetable.croniter_check import check_with_croniter

INSTALLED = tuple(int(part) for part in importlib.metadata.version("croniter").split(".")[:2])
OLD_CRONITER = INSTALLED < (6, 2)

# Where croniter 6.0 and the later releases part (docs/cron-dialect.md): refused on 6.0, read on 6.2 and later.
CRONITER_6_0_DIFFERS = ["0 0 15W * *", "0 0 1W * *", "0 0 L,31 * *", "0 0 L,30 * *", "0 0 */10 * *", "0 0 */15 * *"]
# Edge cases every croniter Airflow 3 pins reads alike.
READ_ALIKE = [
    "*/5 * * * *",
    "0 0 * * *",
    "0 0 1-31 * 1",
    "0 0 1,15 * MON",
    "0 0 * * 1#2",
    "0 0 * * L5",
    "0 12 L * *",
    "0 0 * * 5-1",
    "0 22-2 * * *",
    "0 0 1 nov-feb *",
    "0 0 * * */2",
    "0 0 ? * 1",
    "0 0 28-3 * *",
]


def croniter_fires(expression: str, start: datetime, count: int) -> list[datetime | None]:
    iterator = croniter(expression, start)
    fires: list[datetime | None] = []
    for _ in range(count):
        try:
            fires.append(iterator.get_next(datetime))
        except CroniterBadDateError:
            fires.append(None)
            break
    return fires


def engine_fires(cron: QuartzCron, start: datetime, count: int) -> list[datetime | None]:
    fires: list[datetime | None] = []
    at: datetime | None = start
    while len(fires) < count and at is not None:
        at = cron.next_after(at)
        fires.append(at)
    return fires


@pytest.mark.parametrize("expression", READ_ALIKE + CRONITER_6_0_DIFFERS)
def test_an_accepted_expression_fires_as_croniter_does_and_a_refused_one_differs(expression: str) -> None:
    cron = QuartzCron(expression)
    # Another start and a longer run than the check's own, so the check is not its own oracle.
    start = datetime(2031, 6, 15, 7, 30, tzinfo=UTC)
    agree = croniter_fires(expression, start, 300) == engine_fires(cron, start, 300) if _reads(expression) else False
    try:
        check_with_croniter(cron)
    except ArgumentError:
        assert not agree, f"{expression!r} is refused although croniter {INSTALLED} fires it alike"
    else:
        assert agree, f"{expression!r} is accepted although croniter {INSTALLED} fires it otherwise"


def _reads(expression: str) -> bool:
    try:
        croniter(expression)
    except Exception:
        return False
    return True


@pytest.mark.parametrize("expression", CRONITER_6_0_DIFFERS)
def test_croniter_6_0s_readings_are_refused_there_with_the_way_out(expression: str) -> None:
    if not OLD_CRONITER:
        HopsworksTimetable(expression)  # read as croniter 6.2 and later read it
        return
    with pytest.raises(ArgumentError, match=r"croniter 6\.0\.\d+, with which Airflow evaluates 5-field cron") as info:
        HopsworksTimetable(expression)
    message = str(info.value)
    assert message.startswith(f"cron_expression={expression!r} is refused")
    assert "install croniter 6.2 or later" in message and "Quartz expression" in message
    with pytest.raises(ArgumentError):
        hops_schedule(expression, start_time=datetime(2026, 1, 1, tzinfo=UTC))


@pytest.mark.parametrize("expression", READ_ALIKE)
def test_expressions_every_croniter_reads_alike_build_everywhere(expression: str) -> None:
    assert HopsworksTimetable(expression).cron_expression == expression


def test_quartz_expressions_are_never_checked_against_croniter() -> None:
    # croniter reads no Quartz; the W Quartz writes is Hopsworks' own.
    check_with_croniter(QuartzCron("0 0 0 15W * ?"))
    HopsworksTimetable("0 0 0 L * ?")


def test_the_command_line_refuses_what_the_timetable_refuses(capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["next", "0 0 15W * *", "-n", "3", "--after", "2026-01-01T00:00:00Z"])
    out, err = capsys.readouterr()
    if OLD_CRONITER:
        assert status == 2 and "croniter 6.0" in err
    else:
        assert status == 0 and "2026-01-15T00:00:00" in out.splitlines()[1]
