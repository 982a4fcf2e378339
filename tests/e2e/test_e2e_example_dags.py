"""The example DAGs as a real dag-processor parses them: no DAG warning recorded, one DAG version each.

The dag-processor parses every file again every ``min_file_process_interval`` (10 s here); a DAG whose constructor
arguments change between parses gets a new version each time, and Airflow 3.2+ records a DAG warning for a
constructor argument that varies at runtime. Both are read back from the metadata database after two parses.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from harness import StackFactory

pytestmark = pytest.mark.e2e

EXAMPLES = Path(__file__).resolve().parents[2] / "dags"


def test_example_dags_record_no_dag_warning_and_keep_one_version(stacks: StackFactory) -> None:
    stack = stacks("examples", start=False)
    stack.dags_folder.mkdir(parents=True, exist_ok=True)
    for path in sorted(EXAMPLES.glob("*.py")):
        shutil.copyfile(path, stack.dags_folder / path.name)
    stack.start_component("dag-processor")
    dag_ids = {"hourly_feature_pipeline", "daily_job", "offset_25h", "bounded_catchup"}
    for dag_id in sorted(dag_ids):
        stack.wait_for_dag(dag_id, timeout=120)
    first = {row["dag_id"]: row["last_parsed_time"] for row in stack.query("SELECT dag_id, last_parsed_time FROM dag")}

    def reparsed() -> bool:
        rows = stack.query("SELECT dag_id, last_parsed_time FROM dag")
        return all(row["last_parsed_time"] != first[row["dag_id"]] for row in rows if row["dag_id"] in dag_ids)

    stack.wait_until(reparsed, timeout=90, what="every example DAG parsed a second time")
    assert stack.import_errors() == []
    warnings = [dict(row) for row in stack.query("SELECT * FROM dag_warning")]
    assert warnings == []
    versions = {
        row["dag_id"]: row["n"] for row in stack.query("SELECT dag_id, COUNT(*) AS n FROM dag_version GROUP BY dag_id")
    }
    assert versions == dict.fromkeys(dag_ids, 1)
