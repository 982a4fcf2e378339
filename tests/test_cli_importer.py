"""``hops-timetable import``: Hopsworks schedule JSON to hops_schedule(...) and a DAG file."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import given
from hypothesis import strategies as st

from hops_timetable.cli import main
from hops_timetable.cli.importer import import_schedules

UTC = timezone.utc
JAN_1_2026_MS = 1_767_225_600_000

SCHEDULE = {
    "type": "object",
    "required": ["index", "job_name", "dag_id", "kwargs", "paused", "call", "dag_file", "warnings", "errors"],
    "properties": {
        "index": {"type": "integer", "minimum": 1},
        "job_name": {"type": ["string", "null"]},
        "dag_id": {"type": "string", "pattern": r"^[A-Za-z0-9_.-]+$"},
        "kwargs": {"type": "object"},
        "paused": {"type": "boolean"},
        "call": {"type": ["string", "null"]},
        "dag_file": {"type": ["string", "null"]},
        "warnings": {"type": "array", "items": {"type": "string"}},
        "errors": {"type": "array", "items": {"type": "string"}},
    },
}
IMPORT_SCHEMA = {
    "type": "object",
    "required": ["schedules", "written"],
    "properties": {"schedules": {"type": "array", "items": SCHEDULE}, "written": {"type": "array"}},
}

FULL = {
    "jobName": "feature pipeline",
    "cronExpression": "0 0 * ? * * *",
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


def test_every_field_carries_over_or_warns() -> None:
    [result] = import_schedules(FULL, "interval-start")
    assert result.errors == []
    assert result.dag_id == "feature_pipeline"
    assert result.kwargs == {
        "cron_expression": "0 0 * ? * * *",
        "start_time": datetime(2026, 1, 1, tzinfo=UTC),
        "end_time": datetime(2026, 1, 2, tzinfo=UTC),
        "skip_to_date": datetime(2026, 1, 1, 1, tzinfo=UTC),
        "catchup": True,
        "max_active_runs": 2,
        "start_time_offset_seconds": 3600,
        "max_catchup_runs": 24,
    }
    assert result.paused
    text = " | ".join(result.warnings)
    assert "disabled" in text and "endTimeOffsetSeconds=0 is ignored" in text
    assert "startTimeOffsetSeconds=-3600 read as --offset-model interval-start" in text
    assert "unknown key 'colour'" in text and "'id'" not in text
    assert "start_time=datetime(2026, 1, 1, tzinfo=timezone.utc)" in result.call()
    assert "is_paused_upon_creation=True" in (result.dag_file() or "")


def test_the_produced_call_builds_the_same_schedule_as_written_by_hand() -> None:
    from hops_timetable.schedule import hops_schedule

    [result] = import_schedules({k: v for k, v in FULL.items() if k != "endTimeOffsetSeconds"}, "interval-start")
    namespace: dict[str, Any] = {"hops_schedule": hops_schedule, "datetime": datetime, "timezone": timezone}
    built = eval(result.call(), namespace)
    expected = hops_schedule(
        "0 0 * ? * * *",
        start_time=datetime(2026, 1, 1, tzinfo=UTC),
        end_time=datetime(2026, 1, 2, tzinfo=UTC),
        start_time_offset_seconds=3600,
        catchup=True,
        max_active_runs=2,
        max_catchup_runs=24,
        skip_to_date=datetime(2026, 1, 1, 1, tzinfo=UTC),
    )
    assert built == expected


@pytest.mark.parametrize(
    ("change", "needle"),
    [
        ({"cronExpression": "0 0 12 * * MON"}, "cronExpression is rejected by this engine"),
        ({"cronExpression": None}, "cronExpression=None is invalid"),
        ({"startDateTime": "2026-01-01"}, "startDateTime='2026-01-01' is invalid: expected epoch milliseconds"),
        ({"maxCatchupRuns": 0}, "maxCatchupRuns=0 is invalid"),
        ({"endDateTime": JAN_1_2026_MS}, "is not after startDateTime"),
        ({"catchup": "yes"}, "catchup='yes' is invalid"),
    ],
)
def test_bad_fields_are_errors_naming_the_field(change: dict[str, Any], needle: str) -> None:
    [result] = import_schedules({**FULL, **change})
    assert any(needle in e for e in result.errors), result.errors
    assert result.dag_file() is None


@given(st.integers(0, 4_102_444_799_000))
def test_epoch_milliseconds_become_aware_utc(ms: int) -> None:
    [result] = import_schedules({"cronExpression": "0 0 * ? * * *", "startDateTime": ms})
    start = result.kwargs["start_time"]
    assert start.tzinfo is UTC
    assert start == datetime(1970, 1, 1, tzinfo=UTC) + timedelta(milliseconds=ms)


def test_lists_collections_and_job_objects() -> None:
    data = {
        "items": [{"cronExpression": "0 0 * ? * * *"}, {"name": "train", "jobSchedule": {"cronExpression": "@daily"}}]
    }
    first, second = import_schedules(data)
    assert (first.dag_id, second.dag_id, second.job_name) == ("hopsworks_schedule_1", "train", "train")
    with pytest.raises(ValueError, match="holds no schedule"):
        import_schedules([])


def test_cli_import_json_output_and_exit_status(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "schedules.json"
    path.write_text(json.dumps([FULL, {"cronExpression": "0 0 12 * * MON"}]))
    status = main(["import", str(path), "--json", "--offset-model", "interval-start"])
    out, err = capsys.readouterr()
    data = json.loads(out)
    jsonschema.validate(data, IMPORT_SCHEMA)
    assert status == 2
    assert [s["errors"] == [] for s in data["schedules"]] == [True, False]
    assert err.count("\n") == 1 and "schedule 2" in err


def test_cli_import_bad_json_and_missing_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "broken.json"
    path.write_text("{not json")
    assert main(["import", str(path)]) == 2
    assert "is not JSON" in capsys.readouterr().err
    assert main(["import", str(tmp_path / "missing.json")]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_imported_dag_file_loads_in_airflow_and_previews_the_same(tmp_path: Path) -> None:
    """The console script end to end: import writes a DAG file, Airflow parses it, preview reads it back."""
    exe = shutil.which("hops-timetable", path=str(Path(sys.executable).parent))
    assert exe is not None
    schedule = {k: v for k, v in FULL.items() if k not in ("endDateTime",)}
    dag_file = tmp_path / "feature_pipeline.py"
    done = subprocess.run(
        [exe, "import", "-", "--offset-model", "interval-start", "--output", str(dag_file)],
        input=json.dumps(schedule),
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    assert dag_file.exists()
    common = ["--now", "2026-01-01T03:30", "-n", "3", "--json"]
    # Airflow reads and writes its home while loading DAG files; keep it inside the test's directory.
    env = {**os.environ, "AIRFLOW_HOME": str(tmp_path / "airflow_home")}
    from_file = subprocess.run(
        [exe, "preview", "--dag-file", str(dag_file), "--dag-id", "feature_pipeline", *common],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )
    assert from_file.returncode == 0, from_file.stderr
    settings = ["--cron", "0 0 * ? * * *", "--start-time", "2026-01-01", "--skip-to-date", "2026-01-01T01:00"]
    settings += ["--catchup", "--max-catchup-runs", "24", "--start-time-offset-seconds", "3600"]
    by_hand = subprocess.run(
        [exe, "preview", *settings, *common],
        capture_output=True,
        text=True,
    )
    assert json.loads(from_file.stdout)["runs"] == json.loads(by_hand.stdout)["runs"]
    assert [r["fire"] for r in json.loads(by_hand.stdout)["runs"]] == [
        "2026-01-01T01:00:00Z",
        "2026-01-01T02:00:00Z",
        "2026-01-01T03:00:00Z",
    ]
    wrong = subprocess.run(
        [exe, "preview", "--dag-file", str(dag_file), "--dag-id", "other"],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )
    assert wrong.returncode == 2 and "the DAGs there are: feature_pipeline" in wrong.stderr


# -- a negative start offset: two readings, never guessed ------------------------------------------------------


def test_a_negative_offset_without_the_model_is_an_error_naming_both_readings() -> None:
    [result] = import_schedules(FULL)
    assert result.dag_file() is None
    [error] = [e for e in result.errors if "startTimeOffsetSeconds" in e]
    assert "relative to the interval start" in error and "offset 3600 today" in error
    assert "relative to the fire" in error and "offset 0 today" in error
    assert "--offset-model interval-start or --offset-model fire" in error


@pytest.mark.parametrize(("model", "offset"), [("interval-start", 3600), ("fire", None)])
def test_the_offset_model_says_which_reading(model: str, offset: int | None) -> None:
    # Relative to the fire, -3600 on an hourly cron starts the window at the previous fire: today's offset 0.
    [result] = import_schedules(FULL, model)
    assert result.errors == []
    assert result.kwargs.get("start_time_offset_seconds") == offset


def test_relative_to_the_fire_needs_a_window_of_one_constant_interval() -> None:
    [irregular] = import_schedules({**FULL, "cronExpression": "0 0 9,17 ? * * *"}, "fire")
    assert any("does not fire at one constant interval" in e for e in irregular.errors)
    [narrow] = import_schedules({**FULL, "startTimeOffsetSeconds": -1800}, "fire")
    assert any("has no equivalent" in e for e in narrow.errors)


def test_the_command_refuses_then_imports_with_the_model(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "schedule.json"
    path.write_text(json.dumps(FULL))
    assert main(["import", str(path)]) == 2
    assert "relative to the fire" in capsys.readouterr().err
    assert main(["import", str(path), "--offset-model", "fire", "--json"]) == 0
    assert "start_time_offset_seconds" not in json.loads(capsys.readouterr().out)["schedules"][0]["kwargs"]


def test_repeated_job_names_cost_a_bounded_number_of_candidates(monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 30: 8,000 schedules of one job took 10.9 s, trying _2 .. _n again for each. Counted, not timed."""
    from hops_timetable.cli import importer

    tried = 0
    real = importer._suffixed

    def counting(key: str, n: int) -> str:
        nonlocal tried
        tried += 1
        return real(key, n)

    monkeypatch.setattr(importer, "_suffixed", counting)
    n = 2_000
    schedules = [{"jobName": "job", "cronExpression": "0 0 * ? * * *"} for _ in range(n)]
    schedules += [{"jobName": f"job_{k}", "cronExpression": "0 0 * ? * * *"} for k in (3, 5)]
    results = import_schedules(schedules)
    ids = [r.dag_id for r in results]
    assert len(set(ids)) == len(ids) and ids[:4] == ["job", "job_2", "job_4", "job_6"]
    assert tried <= 2 * n  # the quadratic version tried about n * n / 2 = 2,000,000
