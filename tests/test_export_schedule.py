"""core/export_schedule.py: a Hopsworks schedule export, read once for ``import`` and ``parity``."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hops_timetable.core.export_schedule import IGNORED_KEYS, KNOWN_KEYS, read_schedule, schedule_of
from hops_timetable.core.parity.exports import load_schedule_versions
from hops_timetable.core.validation import ArgumentError

UTC = timezone.utc
JAN_1_2026_MS = 1_767_225_600_000
HOURLY = "0 0 * ? * * *"

# Every key an export holds, as the REST API's JobScheduleDTO writes them, plus REST bookkeeping and a stray key.
FULL: dict[str, Any] = {
    "jobName": "feature pipeline",
    "cronExpression": HOURLY,
    "startDateTime": JAN_1_2026_MS,
    "endDateTime": JAN_1_2026_MS + 86_400_000,
    "skipToDate": JAN_1_2026_MS + 3_600_000,
    "enabled": False,
    "catchup": True,
    "maxActiveRuns": 2,
    "startTimeOffsetSeconds": -3600,
    "endTimeOffsetSeconds": 0,
    "maxCatchupRuns": 24,
    "id": 12,
    "colour": "blue",
}


def test_every_key_carries_over_or_warns() -> None:
    schedule = read_schedule(FULL, "interval-start")
    assert schedule.errors == () and schedule.schedule is not None
    assert schedule.job_name == "feature pipeline" and not schedule.enabled
    assert schedule.schedule.catchup and schedule.schedule.offset == 3600
    assert schedule.arguments() == {
        "cron_expression": HOURLY,
        "start_time": datetime(2026, 1, 1, tzinfo=UTC),
        "end_time": datetime(2026, 1, 2, tzinfo=UTC),
        "skip_to_date": datetime(2026, 1, 1, 1, tzinfo=UTC),
        "catchup": True,
        "max_active_runs": 2,
        "start_time_offset_seconds": 3600,
        "max_catchup_runs": 24,
    }
    text = " | ".join(schedule.warnings)
    assert "disabled" in text and "endTimeOffsetSeconds=0 is ignored" in text
    assert "startTimeOffsetSeconds=-3600 read as --offset-model interval-start" in text
    assert "unknown key 'colour'" in text and "'id'" not in text


def test_defaults_are_left_out_of_the_arguments() -> None:
    schedule = read_schedule({"cronExpression": f"  {HOURLY} ", "enabled": True, "catchup": False, "maxActiveRuns": 1})
    assert schedule.arguments() == {"cron_expression": HOURLY}
    assert schedule.warnings == () and schedule.errors == ()


@pytest.mark.parametrize("key", sorted(set(KNOWN_KEYS) - {"jobName"}))
def test_each_known_key_is_read(key: str) -> None:
    # A value no rule accepts: every key the reader claims to know ends as an error or a warning naming it.
    schedule = read_schedule({"cronExpression": HOURLY, key: {"not": "a value"}})
    named = [str(e) for e in schedule.errors] + list(schedule.warnings)
    assert any(message.startswith(f"{key}=") or f"{key} " in message for message in named), named
    assert not any("unknown key" in w for w in schedule.warnings)


def test_the_ignored_keys_are_neither_read_nor_warned_about() -> None:
    schedule = read_schedule({"cronExpression": HOURLY, **dict.fromkeys(IGNORED_KEYS, "x")})
    assert schedule.warnings == () and schedule.errors == ()
    assert IGNORED_KEYS.isdisjoint(KNOWN_KEYS)


@pytest.mark.parametrize(
    ("change", "key", "needle"),
    [
        ({"cronExpression": "0 0 12 * * MON"}, "cronExpression", "cronExpression is rejected by this engine"),
        ({"cronExpression": None}, "cronExpression", "cronExpression=None is invalid"),
        ({"startDateTime": "2026-01-01"}, "startDateTime", "startDateTime='2026-01-01' is invalid: expected epoch"),
        ({"maxCatchupRuns": 0}, "maxCatchupRuns", "maxCatchupRuns=0 is invalid"),
        ({"endDateTime": JAN_1_2026_MS}, "endDateTime", "is not after startDateTime"),
        ({"catchup": "yes"}, "catchup", "catchup='yes' is invalid"),
        ({"maxActiveRuns": 0}, "maxActiveRuns", "maxActiveRuns=0 is invalid"),
        ({"cronExpression": "0 0 0 1 1 ? 2020"}, "startDateTime", "is at or after the last fire of"),
        ({"skipToDate": JAN_1_2026_MS + 86_400_000}, "skipToDate", "is not before endDateTime"),
    ],
)
def test_bad_values_are_errors_naming_the_key(change: dict[str, Any], key: str, needle: str) -> None:
    schedule = read_schedule({**FULL, **change}, "interval-start")
    [error] = [e for e in schedule.errors if needle in str(e)]
    assert error.name == key
    assert schedule.schedule is None and schedule.arguments() == {}


@given(st.integers(0, 4_102_444_799_000))
def test_epoch_milliseconds_become_aware_utc(ms: int) -> None:
    schedule = read_schedule({"cronExpression": HOURLY, "startDateTime": ms}).schedule
    start = None if schedule is None else schedule.start
    assert start is not None and start.tzinfo is UTC
    assert start == datetime(1970, 1, 1, tzinfo=UTC) + timedelta(milliseconds=ms)


def test_a_job_object_names_its_schedule() -> None:
    job = {"name": "train", "jobSchedule": {"cronExpression": "@daily"}}
    assert schedule_of(job) == ({"cronExpression": "@daily"}, "train")
    schedule, name = schedule_of(job)
    assert read_schedule(schedule, job_name=name).job_name == "train"
    # jobName inside the schedule wins over the name around it; an object with cronExpression is a schedule.
    assert read_schedule({"cronExpression": HOURLY, "jobName": "inner"}, job_name="outer").job_name == "inner"
    assert schedule_of({"cronExpression": HOURLY, "jobSchedule": {}})[1] is None


def test_what_is_not_an_object_is_one_error() -> None:
    schedule = read_schedule(["cronExpression"])
    assert [str(e) for e in schedule.errors] == [
        "expected a JSON object with cronExpression, got list ['cronExpression']"
    ]
    assert schedule.arguments() == {}


# -- a negative start offset: two readings, never guessed ------------------------------------------------------


def test_a_negative_offset_without_the_model_is_an_error_naming_both_readings() -> None:
    schedule = read_schedule(FULL)
    [error] = [str(e) for e in schedule.errors if e.name == "startTimeOffsetSeconds"]
    assert "relative to the interval start" in error and "offset 3600 today" in error
    assert "relative to the fire" in error and "offset 0 today" in error
    assert "--offset-model interval-start or --offset-model fire" in error


@pytest.mark.parametrize(("model", "offset", "argument"), [("interval-start", 3600, 3600), ("fire", 0, None)])
def test_the_offset_model_says_which_reading(model: str, offset: int, argument: int | None) -> None:
    # Relative to the fire, -3600 on an hourly cron starts the window at the previous fire: today's offset 0.
    schedule = read_schedule(FULL, model)
    assert schedule.errors == () and schedule.schedule is not None
    assert schedule.schedule.offset == offset
    assert schedule.arguments().get("start_time_offset_seconds") == argument


def test_relative_to_the_fire_needs_a_window_of_one_constant_interval() -> None:
    irregular = read_schedule({**FULL, "cronExpression": "0 0 9,17 ? * * *"}, "fire")
    assert any("does not fire at one constant interval" in str(e) for e in irregular.errors)
    narrow = read_schedule({**FULL, "startTimeOffsetSeconds": -1800}, "fire")
    assert any("has no equivalent" in str(e) for e in narrow.errors)


# -- one reading for import and parity --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "change",
    [{}, {"maxCatchupRuns": 0}, {"cronExpression": "0 0 12 * * MON"}, {"endDateTime": JAN_1_2026_MS}, {"catchup": 1}],
)
def test_parity_reads_a_schedule_as_import_does(change: dict[str, Any]) -> None:
    schedule = {**FULL, **change}
    read = read_schedule(schedule, "interval-start")
    if read.errors:
        with pytest.raises(ArgumentError) as caught:
            load_schedule_versions(schedule, "s.json", "interval-start")
        assert str(caught.value) == f"s.json: {read.errors[0]}" and caught.value.name == read.errors[0].name
    else:
        [version] = load_schedule_versions({"name": "j", "jobSchedule": schedule}, "s.json", "interval-start")
        assert (version.settings, version.enabled) == (read.schedule, read.enabled)
