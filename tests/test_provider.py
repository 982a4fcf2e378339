"""``@task.hops`` is registered through the package's ``apache_airflow_provider`` entry point."""

from __future__ import annotations

from datetime import datetime, timezone

from airflow.sdk import DAG, task

from hops_timetable.operators.python import HopsPythonOperator, hops_task


def test_task_hops_is_the_hops_task_decorator() -> None:
    assert task.hops is hops_task


def test_task_hops_builds_a_hops_python_task() -> None:
    with DAG("provider_check", schedule=None, start_date=datetime(2026, 1, 1, tzinfo=timezone.utc)) as dag:

        @task.hops
        def job() -> None:
            return None

        job()
    assert isinstance(dag.get_task("job"), HopsPythonOperator)
