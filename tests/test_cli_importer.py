"""cli/importer.py, ``hops-timetable import``: reading the file, writing the DAG files, the report and the exit
status."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
from test_export_schedule import FULL

from hops_timetable.cli import main

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


def test_the_command_refuses_then_imports_with_the_model(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "schedule.json"
    path.write_text(json.dumps(FULL))
    assert main(["import", str(path)]) == 2
    assert "relative to the fire" in capsys.readouterr().err
    assert main(["import", str(path), "--offset-model", "fire", "--json"]) == 0
    assert "start_time_offset_seconds" not in json.loads(capsys.readouterr().out)["schedules"][0]["kwargs"]


def test_a_refused_schedule_gets_no_header_on_stdout(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 31: the text report printed "# schedule 2 ... -> DAG ..." for a schedule it then refused."""
    path = tmp_path / "schedules.json"
    refused = {"jobName": "refused", "cronExpression": "0 0 12 * * MON"}
    path.write_text(json.dumps([{"jobName": "kept", "cronExpression": "0 0 * ? * * *"}, refused]))
    assert main(["import", str(path)]) == 2
    out, err = capsys.readouterr()
    assert "# schedule 1 (job 'kept') -> DAG 'kept'" in out and "hops_schedule(" in out
    assert "refused" not in out and "schedule 2" not in out
    assert err.count("\n") == 1 and err.startswith("hops-timetable: error: schedule 2 (job 'refused'): ")
    path.write_text(json.dumps(refused))
    assert main(["import", str(path)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1
