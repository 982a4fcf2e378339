"""``@task.hops`` is registered through the package's ``apache_airflow_provider`` entry point."""

from __future__ import annotations

import importlib.metadata
import json
from datetime import datetime, timezone
from pathlib import Path

import airflow
import jsonschema
from airflow.sdk import DAG, task

import hops_timetable
from hops_timetable.operators.python import HopsPythonOperator, hops_task
from hops_timetable.provider import get_provider_info


def test_task_hops_is_the_hops_task_decorator() -> None:
    assert task.hops is hops_task


def test_task_hops_builds_a_hops_python_task() -> None:
    with DAG("provider_check", schedule=None, start_date=datetime(2026, 1, 1, tzinfo=timezone.utc)) as dag:

        @task.hops
        def job() -> None:
            return None

        job()
    assert isinstance(dag.get_task("job"), HopsPythonOperator)


def test_provider_info_matches_airflows_schema_and_the_installed_version() -> None:
    schema = json.loads((Path(airflow.__file__).parent / "provider_info.schema.json").read_text())
    info = get_provider_info()
    jsonschema.validate(info, schema)
    assert info["package-name"] == "hops-timetable"
    assert info["versions"][0] == hops_timetable.__version__ == importlib.metadata.version("hops-timetable")
