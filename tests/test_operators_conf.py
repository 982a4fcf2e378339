"""The pure rules of HOPS_* injection: the strict conf-window parser, the precedence, the legacy arguments."""

from __future__ import annotations

import re
import subprocess
import sys
from datetime import datetime, timedelta
from typing import Any

import pytest
from fuzzing import examples
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from support import UTC, utc

from hops_timetable.core.conf_window import (
    HopsWindowError,
    parse_conf_window,
    parse_window_time,
    resolve_hops_env,
)
from hops_timetable.core.legacy_args import check_legacy_args, legacy_arguments
from hops_timetable.core.time_text import MAX_TEXT
from hops_timetable.core.window import HopsWindow, format_hops_time

CANONICAL = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z", re.ASCII)


def window(start: object, end: object, **more: object) -> dict[str, Any]:
    return {"hops_window": {"start_time": start, "end_time": end, **more}}


# -- parse_window_time --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2026-01-01T10:00:00", utc(2026, 1, 1, 10)),
        ("2026-01-01T10:00:00Z", utc(2026, 1, 1, 10)),
        ("2026-01-01T10:00:00.5Z", utc(2026, 1, 1, 10, 0, 0, 500000)),
        ("2026-01-01T10:00:00.123456789Z", utc(2026, 1, 1, 10, 0, 0, 123456)),
        ("2026-01-01T12:30:00+02:30", utc(2026, 1, 1, 10)),
        ("2026-01-01T00:00:00-05:00", utc(2026, 1, 1, 5)),
        ("2024-02-29T23:59:59Z", utc(2024, 2, 29, 23, 59, 59)),
    ],
)
def test_parse_window_time_accepts_iso_date_times(text: str, expected: datetime) -> None:
    assert parse_window_time('["start_time"]', text) == expected


@pytest.mark.parametrize(
    "value",
    [
        "2026-01-01",  # a date without time
        "2026-01-01 10:00:00",  # space instead of T
        "2026-01-01t10:00:00z",
        "2026-01-01T10:00",
        "2026-01-01T10:00:00+0200",
        "2026-01-01T10:00:00+02",
        "2026-01-01T10:00:00Z\n",
        " 2026-01-01T10:00:00Z",
        "2026-13-01T10:00:00Z",
        "2026-02-30T10:00:00Z",
        "2026-01-01T24:00:00Z",
        "2026-01-01T10:00:60Z",
        "2026-01-01T10:00:00+24:00",
        "0000-01-01T00:00:00Z",
        "0001-01-01T00:00:00+01:00",  # before year 1 once in UTC
        "9999-12-31T23:59:59-01:00",  # after year 9999 once in UTC
        "0999-12-31T23:59:59Z",
        "٢٠٢٦-01-01T10:00:00Z",  # Arabic-Indic digits
        "yesterday",
        "2026-01-01T10:00:00Z; rm -rf /",
        "$(touch pwned)",
        "`id`",
        "2026-01-01T10:00:00." + "1" * 60,
        "",
        None,
        1767261600,
        1767261600.0,
        True,
        ["2026-01-01T10:00:00Z"],
        {"value": "2026-01-01T10:00:00Z"},
        utc(2026, 1, 1),
    ],
)
def test_parse_window_time_rejects_everything_else(value: object) -> None:
    with pytest.raises(HopsWindowError) as caught:
        parse_window_time('["start_time"]', value)
    message = str(caught.value)
    assert message.startswith('conf["hops_window"]["start_time"]=')
    assert repr(value)[:40] in message


def test_error_message_is_bounded_and_single_line_for_huge_hostile_values() -> None:
    hostile = "2026-01-01T10:00:00Z\n$(curl evil)`id`;" + "x" * 100_000
    with pytest.raises(HopsWindowError) as caught:
        parse_window_time('["end_time"]', hostile)
    message = str(caught.value)
    assert len(message) < 400
    assert "\n" not in message
    assert caught.value.key == '["end_time"]'
    assert caught.value.value is hostile


def test_error_message_survives_values_that_cannot_be_printed() -> None:
    sys_limit = sys.get_int_max_str_digits()
    huge = 10 ** (sys_limit + 10)
    with pytest.raises(HopsWindowError, match="unprintable int"):
        parse_window_time('["start_time"]', huge)


# -- parse_conf_window --------------------------------------------------------------------------------------------


def test_conf_without_window_gives_none() -> None:
    assert parse_conf_window(None) is None
    assert parse_conf_window({}) is None
    assert parse_conf_window({"other": 1}) is None


def test_conf_window_is_canonical_and_logical_date_defaults_to_start() -> None:
    parsed = parse_conf_window(window("2026-01-01T09:00:00.999+01:00", "2026-01-01T10:00:00"))
    assert parsed == HopsWindow(start=utc(2026, 1, 1, 8), end=utc(2026, 1, 1, 10), logical_date=utc(2026, 1, 1, 8))
    assert parsed.as_env() == {
        "HOPS_START_TIME": "2026-01-01T08:00:00Z",
        "HOPS_END_TIME": "2026-01-01T10:00:00Z",
        "HOPS_LOGICAL_DATE": "2026-01-01T08:00:00Z",
    }


def test_conf_window_takes_an_explicit_logical_date() -> None:
    conf = window("2026-01-01T00:00:00Z", "2026-01-02T00:00:00Z", logical_date="2026-01-01T12:00:00")
    parsed = parse_conf_window(conf)
    assert parsed is not None
    assert parsed.as_env()["HOPS_LOGICAL_DATE"] == "2026-01-01T12:00:00Z"


@pytest.mark.parametrize(
    ("conf", "names"),
    [
        ({"hops_window": None}, 'conf["hops_window"]=None'),
        ({"hops_window": "2026-01-01T00:00:00Z"}, "is a str"),
        ({"hops_window": ["2026-01-01T00:00:00Z"]}, "is a list"),
        ({"hops_window": {"start_time": "2026-01-01T00:00:00Z"}}, '["end_time"]=None is missing'),
        ({"hops_window": {"end_time": "2026-01-01T00:00:00Z"}}, '["start_time"]=None is missing'),
        (window("2026-01-01T00:00:00Z", "2026-01-01T00:00:00Z"), "[\"end_time\"]='2026-01-01T00:00:00Z' is not after"),
        (window("2026-01-02T00:00:00Z", "2026-01-01T00:00:00Z"), "is not after start_time=2026-01-02T00:00:00Z"),
        (window("2026-01-01T00:00:00.1Z", "2026-01-01T00:00:00.9Z"), "is not after"),
        (window("2026-01-01T00:00:00Z", "2026-01-02T00:00:00Z", logical_date="soon"), "[\"logical_date\"]='soon'"),
        (window("2026-01-01T00:00:00Z", "2026-01-02T00:00:00Z", logical_date=None), '["logical_date"]=None'),
        (window("2026-01-01T00:00:00Z", "2026-01-02T00:00:00Z", cmd="$(id)"), "['cmd']='$(id)' is an unknown key"),
        ({"hops_window": {1: "x", "start_time": "a", "end_time": "b"}}, "[1]='x' is an unknown key"),
    ],
)
def test_bad_conf_windows_name_the_key_and_the_value(conf: dict[str, Any], names: str) -> None:
    with pytest.raises(HopsWindowError) as caught:
        parse_conf_window(conf)
    assert names in str(caught.value)


# -- resolve_hops_env: the precedence -----------------------------------------------------------------------------

INTERVAL = (utc(2026, 1, 1, 9), utc(2026, 1, 1, 10))
SCHEDULED_ENV = {
    "HOPS_START_TIME": "2026-01-01T09:00:00Z",
    "HOPS_END_TIME": "2026-01-01T10:00:00Z",
    "HOPS_LOGICAL_DATE": "2026-01-01T09:00:00Z",
}
CONF = window("2025-06-01T00:00:00Z", "2025-06-02T00:00:00Z")
CONF_ENV = {
    "HOPS_START_TIME": "2025-06-01T00:00:00Z",
    "HOPS_END_TIME": "2025-06-02T00:00:00Z",
    "HOPS_LOGICAL_DATE": "2025-06-01T00:00:00Z",
}


@pytest.mark.parametrize("run_type", ["scheduled", "backfill"])
def test_scheduled_and_backfill_runs_get_their_interval(run_type: str) -> None:
    got = resolve_hops_env(run_type=run_type, data_interval=INTERVAL, conf=None, offset_seconds=None)
    assert got == SCHEDULED_ENV


def test_the_offset_moves_start_and_end_but_not_the_logical_date() -> None:
    got = resolve_hops_env(run_type="scheduled", data_interval=INTERVAL, conf={}, offset_seconds=25 * 3600)
    assert got == {
        "HOPS_START_TIME": "2025-12-31T08:00:00Z",
        "HOPS_END_TIME": "2025-12-31T09:00:00Z",
        "HOPS_LOGICAL_DATE": "2026-01-01T09:00:00Z",
    }


@pytest.mark.parametrize("run_type", ["manual", "asset_triggered", "operator_triggered", "asset_materialization"])
def test_runs_from_outside_get_no_window_unless_one_is_passed(run_type: str) -> None:
    assert resolve_hops_env(run_type=run_type, data_interval=INTERVAL, conf={"x": 1}, offset_seconds=3600) == {}
    assert resolve_hops_env(run_type=run_type, data_interval=INTERVAL, conf=CONF, offset_seconds=3600) == CONF_ENV


def test_a_scheduled_run_without_data_interval_gets_no_window() -> None:
    assert resolve_hops_env(run_type="scheduled", data_interval=None, conf=None, offset_seconds=None) == {}


def test_conf_window_beats_author_values_which_beat_the_scheduler() -> None:
    explicit = {"HOPS_START_TIME": "author-start", "PATH_LIKE": "ignored"}
    scheduled = resolve_hops_env(
        run_type="scheduled", data_interval=INTERVAL, conf=None, offset_seconds=None, explicit=explicit
    )
    assert scheduled == {**SCHEDULED_ENV, "HOPS_START_TIME": "author-start"}
    passed = resolve_hops_env(
        run_type="scheduled", data_interval=INTERVAL, conf=CONF, offset_seconds=None, explicit=explicit
    )
    assert passed == CONF_ENV
    manual = resolve_hops_env(run_type="manual", data_interval=None, conf=None, offset_seconds=None, explicit=explicit)
    assert manual == {"HOPS_START_TIME": "author-start"}


def test_author_values_must_be_strings() -> None:
    with pytest.raises(TypeError, match=r"env\['HOPS_END_TIME'\]=5 must be a string"):
        resolve_hops_env(
            run_type="manual", data_interval=None, conf=None, offset_seconds=None, explicit={"HOPS_END_TIME": 5}
        )  # type: ignore[dict-item]


def test_a_bad_conf_window_fails_even_for_scheduled_runs() -> None:
    with pytest.raises(HopsWindowError):
        resolve_hops_env(run_type="scheduled", data_interval=INTERVAL, conf=window("x", "y"), offset_seconds=None)


# -- legacy arguments ---------------------------------------------------------------------------------------------


def test_legacy_arguments() -> None:
    assert legacy_arguments("start_time", SCHEDULED_ENV) == ["-start_time", "2026-01-01T09:00:00Z"]
    assert legacy_arguments("papermill", SCHEDULED_ENV) == ["-p", "start_time", "2026-01-01T09:00:00Z"]
    assert legacy_arguments(None, SCHEDULED_ENV) == []
    assert legacy_arguments("start_time", {}) == []


@pytest.mark.parametrize("value", ["start-time", "START_TIME", "", 1, True, ["start_time"]])
def test_legacy_args_setting_is_checked(value: object) -> None:
    with pytest.raises(ValueError, match=r"legacy_args=.* is not supported; use None, 'start_time'"):
        check_legacy_args(value)


# -- properties ---------------------------------------------------------------------------------------------------

aware = st.datetimes(min_value=datetime(1000, 1, 2), max_value=datetime(9999, 12, 30), timezones=st.just(UTC)).map(
    lambda value: value.replace(microsecond=0)
)

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=80),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=12), children, max_size=4),
    max_leaves=12,
)

near_iso = st.from_regex(
    r"\A[0-9]{4}-[0-9]{2}-[0-9]{2}[T ][0-9]{2}:[0-9]{2}(:[0-9]{2})?(\.[0-9]{1,12})?(Z|z|[+-][0-9]{2}:?[0-9]{2})?\Z"
)


@given(aware)
def test_canonical_strings_round_trip(value: datetime) -> None:
    text = format_hops_time(value)
    assert parse_window_time("[k]", text) == value


@given(st.one_of(st.text(max_size=80), near_iso, json_values))
def test_parser_raises_only_window_errors_and_accepts_only_what_python_reads_the_same(value: object) -> None:
    try:
        parsed = parse_window_time("[k]", value)
    except HopsWindowError:
        return
    assert isinstance(value, str)
    assert len(value) <= MAX_TEXT
    assert value.isascii() and "T" in value and " " not in value
    # The standard library reads an accepted text as the same instant (naive meaning UTC).
    reference = datetime.fromisoformat(value)
    if reference.tzinfo is None:
        reference = reference.replace(tzinfo=UTC)
    assert abs(parsed - reference) < timedelta(microseconds=1)
    assert CANONICAL.fullmatch(format_hops_time(parsed))


@settings(max_examples=examples(1000), deadline=None)
@given(st.dictionaries(st.sampled_from(["start_time", "end_time", "logical_date", "other"]), near_iso | json_values))
def test_conf_windows_are_either_rejected_or_emitted_canonically(raw: dict[str, Any]) -> None:
    try:
        parsed = parse_conf_window({"hops_window": raw})
    except HopsWindowError:
        return
    assert parsed is not None
    assert set(raw) <= {"start_time", "end_time", "logical_date"}
    env = parsed.as_env()
    assert all(CANONICAL.fullmatch(value) for value in env.values())
    assert env["HOPS_START_TIME"] < env["HOPS_END_TIME"]
    # Re-parsing the emitted values is a fixed point.
    again = parse_conf_window(
        {
            "hops_window": {
                "start_time": env["HOPS_START_TIME"],
                "end_time": env["HOPS_END_TIME"],
                "logical_date": env["HOPS_LOGICAL_DATE"],
            }
        }
    )
    assert again == parsed


def _hops_time(value: str) -> datetime:
    # Python 3.10's fromisoformat does not read a "Z" suffix.
    return datetime.fromisoformat(value.removesuffix("Z") + "+00:00")


@given(aware, st.integers(min_value=1, max_value=10**7), st.integers(min_value=0, max_value=48 * 3600))
def test_scheduled_windows_keep_their_width_under_any_offset(start: datetime, width: int, offset: int) -> None:
    assume(start <= datetime.max.replace(tzinfo=UTC) - timedelta(seconds=width))  # else the end overflows
    end = start + timedelta(seconds=width)
    assume(end.year < 10000 and (start - timedelta(seconds=offset)).year >= 1000)
    env = resolve_hops_env(run_type="scheduled", data_interval=(start, end), conf=None, offset_seconds=offset)
    got_start = _hops_time(env["HOPS_START_TIME"])
    got_end = _hops_time(env["HOPS_END_TIME"])
    assert got_end - got_start == timedelta(seconds=width)
    assert _hops_time(env["HOPS_LOGICAL_DATE"]) - got_start == timedelta(seconds=offset)


def test_the_rules_module_imports_no_airflow() -> None:
    code = (
        "import sys, hops_timetable.core.conf_window; "
        "bad = sorted(m for m in sys.modules if m == 'airflow' or m.startswith('airflow.')); "
        "print(bad); sys.exit(1 if bad else 0)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
