"""The ``hops-timetable`` console script: every command through ``main`` and through the installed entry point."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from datetime import datetime
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from hops_timetable.cli import main

TIME = {"type": "string", "pattern": r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$"}
OPT_TIME = {"anyOf": [TIME, {"type": "null"}]}


def obj(props: dict[str, Any], required: list[str] | None = None) -> dict[str, Any]:
    return {"type": "object", "properties": props, "required": required or list(props)}


ERROR_SCHEMA = obj({"error": {"type": "string"}, "status": {"enum": [1, 2]}})
NEXT_SCHEMA = obj(
    {
        "expression": {"type": "string"},
        "normalized": {"type": "string"},
        "direction": {"enum": ["next", "previous"]},
        "after": TIME,
        "times": {"type": "array", "items": TIME},
    }
)
EXPLAIN_SCHEMA = obj(
    {
        "expression": {"type": "string"},
        "normalized": {"type": "string"},
        "dialect": {"enum": ["quartz", "unix", "preset"]},
        "description": {"type": "string"},
        "fields": {"type": "array", "items": obj({k: {"type": "string"} for k in ("field", "token", "meaning")})},
        "lints": {"type": "array", "items": {"type": "string"}},
        "next": OPT_TIME,
    }
)
SETTINGS = obj(
    {
        "cron_expression": {"type": "string"},
        "start_time": OPT_TIME,
        "end_time": OPT_TIME,
        "start_time_offset_seconds": {"type": ["integer", "null"]},
        "catchup": {"type": "boolean"},
        "max_catchup_runs": {"type": ["integer", "null"]},
        "skip_to_date": OPT_TIME,
    }
)
PREVIEW_SCHEMA = obj(
    {
        "now": TIME,
        "settings": SETTINGS,
        "description": {"type": "string"},
        "runs": {
            "type": "array",
            "items": obj(
                {
                    **{
                        k: TIME
                        for k in (
                            "fire",
                            "data_interval_start",
                            "data_interval_end",
                            "HOPS_START_TIME",
                            "HOPS_END_TIME",
                            "HOPS_LOGICAL_DATE",
                        )
                    },
                    "due_now": {"type": "boolean"},
                }
            ),
        },
    }
)
SIMULATE_SCHEMA = obj(
    {
        "settings": SETTINGS,
        "timeline": obj({"from": TIME, "until": TIME}),
        "events": {"type": "array", "items": obj({"kind": {"enum": ["outage", "pause"]}, "from": TIME, "to": TIME})},
        "rows": {
            "type": "array",
            "items": obj(
                {
                    "first": TIME,
                    "last": TIME,
                    "count": {"type": "integer", "minimum": 1},
                    "count_exact": {"type": "boolean"},
                    "decision": {"type": "string"},
                    "created_at": OPT_TIME,
                    "event": {"type": ["string", "null"]},
                }
            ),
        },
        "rows_total": {"type": "integer"},
        "rows_elided": {"type": "integer"},
        "runs_created": {"type": "integer"},
        "runs_created_exact": {"type": "boolean"},
    }
)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def run_json(capsys: pytest.CaptureFixture[str], schema: dict[str, Any], *argv: str) -> Any:
    status, out, err = run(capsys, *argv, "--json")
    assert status == 0, err
    data = json.loads(out)
    jsonschema.validate(data, schema)
    return data


def entry_point() -> list[str]:
    found = shutil.which("hops-timetable", path=str(Path(sys.executable).parent))
    assert found is not None, "the console script is not installed next to the interpreter"
    return [found]


def console(*argv: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*entry_point(), *argv], capture_output=True, text=True, input=stdin, timeout=120)


# -- next ---------------------------------------------------------------------------------------------------


def test_next_lists_fire_times_after_a_moment(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "next", "0 0 * ? * * *", "--after", "2026-01-01T10:30", "-n", "3")
    assert status == 0
    assert out.splitlines()[1:] == ["  2026-01-01T11:00:00Z", "  2026-01-01T12:00:00Z", "  2026-01-01T13:00:00Z"]


def test_next_prev_and_json(capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(
        capsys, NEXT_SCHEMA, "next", "0 0 0 L * ?", "--after", "2026-03-15T00:00:00+02:00", "--prev", "-n", "2"
    )
    assert data["direction"] == "previous"
    assert data["times"] == ["2026-02-28T00:00:00Z", "2026-01-31T00:00:00Z"]


def test_next_stops_when_the_schedule_ends(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "next", "0 0 0 1 1 ? 2030", "--after", "2026-01-01", "-n", "3")
    assert status == 0
    assert "2030-01-01T00:00:00Z" in out and "(no more fire times: none after 2030-01-01T00:00:00Z)" in out
    status, out, _ = run(capsys, "next", "0 0 0 1 1 ? 2030", "--after", "2026-01-01", "--prev")
    assert status == 0 and "(no more fire times: none before 2026-01-01T00:00:00Z)" in out


def test_next_refuses_an_expression_that_never_fires_as_explain_warns(capsys: pytest.CaptureFixture[str]) -> None:
    # February 30th: no date matches. explain warns; next has nothing to list and says so with status 2.
    _, explained, _ = run(capsys, "explain", "0 0 0 30 2 ?")
    (warning,) = [line for line in explained.splitlines() if "never fires" in line]
    status, out, err = run(capsys, "next", "0 0 0 30 2 ?")
    assert (status, out) == (2, "")
    assert err == f"hops-timetable: error: '0 0 0 30 2 ?' {warning.removeprefix('warning: ')}\n"


# -- explain ------------------------------------------------------------------------------------------------


def test_explain_shows_fields_and_lints(capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(capsys, EXPLAIN_SCHEMA, "explain", "5/30 */7 * ? * * *", "--now", "2026-01-01")
    assert data["normalized"] == "5/30 */7 * ? * * *"
    assert [f["field"] for f in data["fields"]][:2] == ["second", "minute"]
    lints = " ".join(data["lints"])
    assert "seconds field" in lints and "2 times a minute" in lints and "/7 does not divide 60" in lints


def test_explain_warns_about_five_fields_and_never_firing(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "explain", "0 9 * * 1")
    assert status == 0 and "read as unix" in out and "Quartz spelling is '0 0 9 ? * 2'" in out
    data = run_json(capsys, EXPLAIN_SCHEMA, "explain", "0 0 0 1 1 ? 2020", "--now", "2026-01-01")
    assert any("never fires again" in lint for lint in data["lints"])
    assert data["next"] is None


def test_explain_invalid_expression_is_one_line_and_status_2(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(capsys, "explain", "0 0 * * * MON")
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("hops-timetable: error: invalid day-of-month token")
    status, out, _ = run(capsys, "explain", "0 0 * * * MON", "--json")
    data = json.loads(out)
    jsonschema.validate(data, ERROR_SCHEMA)
    assert (status, data["field"], data["token"]) == (2, "day-of-month", "*")


# -- preview ------------------------------------------------------------------------------------------------


def test_preview_clamps_the_first_interval_and_shifts_the_hops_window(capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(
        capsys,
        PREVIEW_SCHEMA,
        "preview",
        "--cron",
        "0 0 * ? * * *",
        "--start-time",
        "2026-01-01T10:05",
        "--start-time-offset-seconds",
        "3600",
        "--catchup",
        "--now",
        "2026-01-01T12:30",
        "-n",
        "3",
    )
    first, second, third = data["runs"]
    assert (first["fire"], first["data_interval_start"]) == ("2026-01-01T11:00:00Z", "2026-01-01T10:05:00Z")
    assert (first["HOPS_START_TIME"], first["HOPS_END_TIME"]) == ("2026-01-01T09:05:00Z", "2026-01-01T10:00:00Z")
    assert [r["due_now"] for r in (first, second, third)] == [True, True, False]


def test_preview_without_catchup_starts_at_the_newest_due_fire(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(
        capsys, "preview", "--cron", "@hourly", "--start-time", "2026-01-01", "--now", "2026-01-01T12:30", "-n", "2"
    )
    assert status == 0
    lines = [line for line in out.splitlines() if line.startswith("2026")]
    assert lines[0].startswith("2026-01-01T12:00:00Z *") and lines[1].startswith("2026-01-01T13:00:00Z ")


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["--start-time", "2026-01-01"], "one of the arguments --cron --dag-file is required"),
        (["--cron", "@daily", "--start-time", "yesterday"], "--start-time='yesterday' is not a date-time"),
        (["--cron", "@daily", "--max-catchup-runs", "0"], "--max-catchup-runs=0 is invalid"),
        (["--cron", "@daily", "--start-time-offset-seconds", "-60"], "so write --start-time-offset-seconds=60"),
        (["--cron", "@daily", "--start-time", "2026-02-01", "--end-time", "2026-01-01"], "is not after --start-time"),
        (["--cron", "@daily", "-n", "x"], "invalid int value: 'x'"),
        (["--dag-file", "nowhere.py"], "--dag-file needs --dag-id"),
        (["--cron", "@daily", "--dag-file", "nowhere.py"], "--dag-file: not allowed with argument --cron"),
        # Schedules that can never run are refused, as when a DAG is built, not previewed as "no runs".
        (["--cron", "0 0 0 30 2 ?"], "--cron='0 0 0 30 2 ?' never fires"),
        (["--cron", "0 0 0 1 1 ? 2020"], "--cron='0 0 0 1 1 ? 2020' never fires after now"),
        (
            ["--cron", "0 0 0 1 1 ? 2027", "--start-time", "2026-01-01", "--end-time", "2026-01-31"],
            "--end-time=2026-01-31T00:00:00Z leaves no run",
        ),
    ],
)
def test_preview_bad_input_names_the_flag(capsys: pytest.CaptureFixture[str], argv: list[str], needle: str) -> None:
    status, out, err = run(capsys, "preview", *argv)
    assert status == 2 and out == ""
    assert needle in err and err.count("\n") == 1


def test_debug_shows_the_traceback(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(ValueError, match="max-catchup-runs"):
        main(["preview", "--cron", "@daily", "--max-catchup-runs", "0", "--debug"])


# -- simulate -----------------------------------------------------------------------------------------------


def test_simulate_lists_every_fire_with_its_decision(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["simulate", "--cron", "0 0 * ? * * *", "--start-time", "2026-01-01", "--catchup", "--max-catchup-runs"]
    argv += ["2", "--outage", "2026-01-01T03:30..2026-01-01T07:10", "--until", "2026-01-01T09:00"]
    data = run_json(capsys, SIMULATE_SCHEMA, *argv)
    decisions = [(r["first"][11:16], r["decision"], r["created_at"] and r["created_at"][11:16]) for r in data["rows"]]
    assert decisions == [
        ("01:00", "created", "01:00"),
        ("02:00", "created", "02:00"),
        ("03:00", "created", "03:00"),
        ("04:00", "dropped beyond max_catchup_runs", None),
        ("05:00", "dropped beyond max_catchup_runs", None),
        ("06:00", "created", "07:10"),
        ("07:00", "created", "07:10"),
        ("08:00", "created", "08:00"),
        ("09:00", "created", "09:00"),
    ]
    assert data["runs_created"] == 7
    status, out, _ = run(capsys, *argv[:-2], "--until", "2026-01-01T09:00", "--limit", "3", "--expand", "1")
    assert status == 0 and "more row(s) elided" in out and "runs created: 7" in out


def test_simulate_summarises_a_year_of_seconds(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["simulate", "--cron", "* * * ? * * *", "--start-time", "2025-01-01", "--no-catchup"]
    argv += ["--pause", "2025-06-01..2025-06-01T01:00", "--until", "2026-01-01"]
    data = run_json(capsys, SIMULATE_SCHEMA, *argv)
    assert data["rows_total"] == 4
    assert [r["decision"] for r in data["rows"]] == ["created", "dropped: catchup=False", "created", "created"]
    assert data["rows"][1]["count"] == 3_600 and data["rows"][1]["count_exact"]
    # Every count is exact, the months of seconds around the pause too: a per-second cron has one fire a second.
    for row in data["rows"]:
        first, last = (datetime.strptime(row[key], "%Y-%m-%dT%H:%M:%SZ") for key in ("first", "last"))
        span = last - first
        assert row["count_exact"] and row["count"] == span.total_seconds() + 1
    assert data["runs_created"] == 365 * 86_400 - 3_600 and data["runs_created_exact"]


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["--outage", "2026-01-01"], "expected FROM..TO"),
        (["--outage", "2026-01-02..2026-01-01"], "its end must be after its start"),
        (["--start-time", "2026-01-01"], "the following arguments are required: --until"),
        ([], "needs --start-time or at least one"),
    ],
)
def test_simulate_bad_events(capsys: pytest.CaptureFixture[str], argv: list[str], needle: str) -> None:
    until = [] if "--start-time" in argv else ["--until", "2026-01-05"]
    status, _, err = run(capsys, "simulate", "--cron", "@daily", *argv, *until)
    assert status == 2 and needle in err


# -- the console script and the import-time promise ---------------------------------------------------------


def test_console_script_next_and_explain_and_errors() -> None:
    done = console("next", "0 0 12 ? * MON-FRI *", "--after", "2026-01-02T13:00Z", "-n", "1", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["times"] == ["2026-01-05T12:00:00Z"]
    done = console("explain", "0 0 * ? * * *")
    assert done.returncode == 0 and "Every hour" in done.stdout
    done = console("explain", "61 0 * ? * * *")
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    done = console("nonsense")
    assert done.returncode == 2 and "invalid choice" in done.stderr and done.stderr.count("\n") == 1


def test_console_script_preview_and_simulate() -> None:
    done = console("preview", "--cron", "@daily", "--start-time", "2026-01-01", "--now", "2026-01-03T01:00", "-n", "1")
    assert done.returncode == 0 and "2026-01-03T00:00:00Z *" in done.stdout
    done = console("simulate", "--cron", "@daily", "--start-time", "2026-01-01", "--until", "2026-01-02", "--json")
    assert done.returncode == 0 and json.loads(done.stdout)["runs_created"] == 1


_NO_AIRFLOW = """
import sys
from hops_timetable.cli import main
status = main(sys.argv[1:])
loaded = sorted(m for m in sys.modules if m == "airflow" or m.startswith("airflow."))
print("AIRFLOW", loaded, file=sys.stderr)
sys.exit(status)
"""


@pytest.mark.parametrize(
    "argv",
    [
        ["next", "0 0 * ? * * *"],
        ["explain", "0 0 * ? * * *"],
        ["preview", "--cron", "@hourly", "--start-time", "2026-01-01"],
        ["simulate", "--cron", "@hourly", "--start-time", "2026-01-01", "--until", "2026-01-02", "--catchup"],
        ["import", "-"],
    ],
)
def test_pure_commands_never_import_airflow(argv: list[str]) -> None:
    done = subprocess.run(
        [sys.executable, "-c", _NO_AIRFLOW, *argv],
        capture_output=True,
        text=True,
        input='{"cronExpression": "0 0 * ? * * *"}',
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "AIRFLOW []" in done.stderr


def test_importtime_of_next_shows_no_airflow_module() -> None:
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "hops_timetable.cli", "next", "0 0 * ? * * *"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert done.returncode == 0
    imported = [line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines() if line.startswith("import time:")]
    assert "hops_timetable.core.cron" in imported
    assert not [m for m in imported if m == "airflow" or m.startswith("airflow.")]
