"""hops_timetable.core.schedule: one value, one validation sequence, the same refusal at every entry point."""

from __future__ import annotations

import inspect
import json
from datetime import datetime, timedelta, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hops_timetable import hops_schedule
from hops_timetable.cli.app import main
from hops_timetable.core.cron import QuartzCron
from hops_timetable.core.schedule import PAYLOAD_KEYS, Schedule, argument_names
from hops_timetable.core.validation import ArgumentError
from hops_timetable.timetable import HopsworksTimetable

UTC = timezone.utc
NEVER_AGAIN = "0 0 0 1 1 ? 2020"
"""Fires once a year up to 2020 only: a schedule that can never run from now on."""


def test_each_setting_is_declared_once_and_every_constructor_accepts_exactly_those() -> None:
    # The payload, the timetable's constructor and hops_schedule are derived from, or checked against, the fields:
    # a setting added to Schedule and forgotten in a constructor fails here.
    assert ("version", *argument_names()) == PAYLOAD_KEYS
    timetable_args = [p for p in inspect.signature(HopsworksTimetable.__init__).parameters if p not in ("self",)]
    assert timetable_args == [*argument_names(), "timezone"]
    factory_args = set(inspect.signature(hops_schedule).parameters)
    assert set(argument_names()) <= factory_args
    timetable = HopsworksTimetable("@daily", max_catchup_runs=3)
    assert [name for name in argument_names()[1:] if not hasattr(timetable, name)] == []


def test_a_schedule_that_never_runs_again_is_refused_with_one_message_at_every_entry_point(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(ArgumentError) as built:
        Schedule.build(NEVER_AGAIN, now=datetime.now(UTC), catchup=False)
    message = str(built.value)
    assert "never fires after now" in message and built.value.name == "cron_expression"
    with pytest.raises(ArgumentError, match="never fires after now"):
        hops_schedule(NEVER_AGAIN)
    with pytest.raises(ArgumentError, match="never fires after now"):
        HopsworksTimetable(NEVER_AGAIN, catchup=False)
    assert main(["preview", "--cron", NEVER_AGAIN]) == 2
    assert "never fires after now" in capsys.readouterr().err
    # Without the clock (a stored payload loading) the clock rule does not apply: a schedule whose fires now lie in
    # the past keeps loading, and the DAG shows no runs rather than failing to load.
    assert Schedule.build(NEVER_AGAIN).cron == QuartzCron(NEVER_AGAIN)


def test_messages_name_the_argument_as_the_caller_knows_it() -> None:
    with pytest.raises(ArgumentError) as refused:
        Schedule.build("@hourly", names={"max_catchup_runs": "--max-catchup-runs"}, max_catchup_runs=0)
    assert refused.value.name == "--max-catchup-runs" and str(refused.value).startswith("--max-catchup-runs=0 ")
    with pytest.raises(ArgumentError, match="unknown schedule argument"):
        Schedule.build("@hourly", timezone="UTC")


def test_start_or_end_without_catchup_is_refused() -> None:
    with pytest.raises(ArgumentError, match="without catchup"):
        Schedule.build("@hourly", start_time=datetime(2026, 1, 1, tzinfo=UTC))


_times = st.one_of(
    st.none(),
    st.datetimes(min_value=datetime(2000, 1, 1), max_value=datetime(2090, 1, 1)).map(
        lambda d: d.replace(microsecond=0, tzinfo=UTC)
    ),
)


@given(
    cron=st.sampled_from(["0 0 * ? * * *", "@daily", "*/7 * * * *", "0 15 10 ? * MON-FRI", "0 0 12 L * ?"]),
    offset=st.one_of(st.none(), st.integers(0, 10**6)),
    bound=st.one_of(st.none(), st.integers(1, 50)),
    start=_times,
    length=st.one_of(st.none(), st.integers(1, 10**8)),
    skip=_times,
    catchup=st.booleans(),
)
def test_payload_and_json_give_back_the_same_schedule(
    cron: str,
    offset: int | None,
    bound: int | None,
    start: datetime | None,
    length: int | None,
    skip: datetime | None,
    catchup: bool,
) -> None:
    end = None if start is None or length is None else start + timedelta(seconds=length)
    try:
        schedule = Schedule.build(
            cron,
            start_time_offset_seconds=offset,
            max_catchup_runs=bound,
            start_time=start,
            end_time=end,
            skip_to_date=skip,
            catchup=catchup,
        )
    except ArgumentError:
        return  # combinations that never run (skip_to_date after the end, ...) are refused: tested elsewhere
    payload = json.loads(json.dumps(schedule.payload()))
    assert Schedule.from_payload(payload) == schedule
    assert Schedule.from_json(json.loads(json.dumps(schedule.as_json()))) == schedule
    assert HopsworksTimetable.deserialize(payload).schedule == schedule


def test_an_unbound_schedule_keeps_catchup_none_in_its_payload() -> None:
    schedule = Schedule.build("@daily")
    assert not schedule.bound and "catchup" not in schedule.payload()
    assert HopsworksTimetable("@daily").catchup is None
    bound = Schedule.build("@daily", catchup=False)
    assert bound.bound and bound.payload()["catchup"] is False


def test_a_start_at_or_after_the_last_fire_is_refused_as_the_schedule_would_never_run() -> None:
    # Fires at or before the start never run: a start at the last fire leaves none, one just before it leaves one.
    last = datetime(2026, 1, 1, tzinfo=UTC)
    assert Schedule.build("0 0 0 1 1 ? 2024-2026", start_time=last - timedelta(seconds=1), catchup=True).start
    for start in (last, last + timedelta(seconds=1)):
        with pytest.raises(ArgumentError, match="at or after the last fire") as refused:
            Schedule.build("0 0 0 1 1 ? 2024-2026", start_time=start, catchup=True)
        assert refused.value.name == "start_time"
    assert Schedule.build("0 0 * * *", start_time=datetime(2150, 1, 1, tzinfo=UTC), catchup=True).start
