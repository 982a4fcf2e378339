"""``hops-timetable compare``: this timetable beside Airflow's own cron timetables (imports Airflow)."""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest
import time_machine

from hops_timetable.cli import main

TIME = {"type": "string", "pattern": r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$"}
INTERVAL = {"anyOf": [{"type": "null"}, {"type": "object", "required": ["start", "end"]}]}
NAMES = ["HopsworksTimetable", "CronDataIntervalTimetable", "CronTriggerTimetable"]
COMPARE_SCHEMA = {
    "type": "object",
    "required": ["settings", "now", "timetables", "rows", "notes"],
    "properties": {
        "now": TIME,
        "timetables": {"const": NAMES},
        "rows": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["fire", "intervals", "hops_window", "differs", "reasons"],
                "properties": {
                    "fire": TIME,
                    "intervals": {"type": "object", "required": NAMES, "properties": dict.fromkeys(NAMES, INTERVAL)},
                    "differs": {"type": "boolean"},
                    "reasons": {"type": "array", "items": {"type": "string"}},
                },
            },
        },
    },
}


def compare(capsys: pytest.CaptureFixture[str], *argv: str) -> Any:
    status = main(["compare", *argv, "--json"])
    out, err = capsys.readouterr()
    assert status == 0, err
    data = json.loads(out)
    jsonschema.validate(data, COMPARE_SCHEMA)
    return data


def test_first_interval_is_clamped_only_by_hopsworks(capsys: pytest.CaptureFixture[str]) -> None:
    data = compare(
        capsys,
        "--cron",
        "@hourly",
        "--start-time",
        "2026-01-01T10:05",
        "--catchup",
        "--now",
        "2026-01-01T14:30",
        "-n",
        "3",
    )
    first, second = data["rows"][:2]
    assert first["fire"] == "2026-01-01T11:00:00Z"
    assert first["intervals"]["HopsworksTimetable"] == {"start": "2026-01-01T10:05:00Z", "end": "2026-01-01T11:00:00Z"}
    assert first["intervals"]["CronDataIntervalTimetable"] is None
    assert first["differs"] and "first interval" in first["reasons"][0]
    assert not second["differs"]
    assert second["intervals"]["CronTriggerTimetable"] == {
        "start": "2026-01-01T12:00:00Z",
        "end": "2026-01-01T12:00:00Z",
    }


def test_catchup_false_picks_and_the_frozen_clock_agree_with_a_real_clock(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["--cron", "0 * * * *", "--start-time", "2026-01-01", "-n", "3"]
    frozen = compare(capsys, *argv, "--now", "2026-01-01T14:30")
    with time_machine.travel("2026-01-01T14:30:00Z", tick=False):
        real = compare(capsys, *argv)
    assert frozen["rows"] == real["rows"]
    # Hopsworks runs the newest due fire (14:00); Airflow's CronDataInterval also ends at 14:00, the trigger
    # timetable runs the fire at or before now, and from there all three step on.
    fires = {r["fire"]: [n for n in NAMES if r["intervals"][n]] for r in frozen["rows"]}
    assert fires["2026-01-01T14:00:00Z"] == NAMES


def test_end_is_exclusive_in_hopsworks_and_offsets_are_marked(capsys: pytest.CaptureFixture[str]) -> None:
    data = compare(
        capsys,
        "--cron",
        "@hourly",
        "--start-time",
        "2026-01-01",
        "--end-time",
        "2026-01-01T03:00",
        "--catchup",
        "--start-time-offset-seconds",
        "600",
        "--now",
        "2026-01-02",
    )
    last = data["rows"][-1]
    assert last["intervals"]["HopsworksTimetable"] is None and "end" in " ".join(last["reasons"])
    hops_rows = [r for r in data["rows"] if r["hops_window"]]
    assert all(any(x.startswith("offset") for x in r["reasons"]) for r in hops_rows)
    assert hops_rows[0]["hops_window"]["HOPS_START_TIME"] == "2025-12-31T23:50:00Z"


def test_quartz_is_refused_with_status_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["compare", "--cron", "0 0 * ? * * *"]) == 2
    assert "compare needs a cron Airflow's own timetables read" in capsys.readouterr().err


def test_console_script_compare_text() -> None:
    from tests.test_cli import console

    done = console(
        "compare", "--cron", "@daily", "--start-time", "2026-01-01T06:00", "--catchup", "--now", "2026-01-04"
    )
    assert done.returncode == 0, done.stderr
    assert "! " in done.stdout and "first interval" in done.stdout


def test_a_builtin_that_cannot_step_before_the_year_1_is_named_not_reported_as_a_bug(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # Airflow's croniter looks for the fire before a start in the year 1 and raises; Hopsworks' interval is clamped.
    data = compare(capsys, "--cron", "0 0 29 2 *", "--start-time", "0001-01-02", "--now", "0001-06-01", "-n", "2")
    assert data["rows"][0]["intervals"]["HopsworksTimetable"] == {
        "start": "0001-01-02T00:00:00Z",
        "end": "1972-02-29T00:00:00Z",
    }
    stopped = [note for note in data["notes"] if "stopped" in note]
    assert len(stopped) == 2 and all("year 0 is out of range" in note for note in stopped)
