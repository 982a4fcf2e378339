"""Airflow provider metadata (entry point ``apache_airflow_provider``): registers ``@task.hops``. Cheap to import:
Airflow reads it in every component."""

from __future__ import annotations

from typing import Any

from hops_timetable import __version__


def get_provider_info() -> dict[str, Any]:
    return {
        "package-name": "hops-timetable",
        "name": "Hopsworks timetable",
        "description": "Schedule DAGs exactly as the Hopsworks job scheduler does, with HOPS_* data windows.",
        # Released versions, newest first, as providers list them; the first is always the installed one.
        "versions": [__version__],
        "task-decorators": [{"name": "hops", "class-name": "hops_timetable.operators.python.hops_task"}],
    }
