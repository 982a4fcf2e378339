"""Airflow provider metadata: registers ``@task.hops`` (the same decorator as :func:`hops_task`).

Airflow finds task decorators through the ``apache_airflow_provider`` entry point; this module must stay cheap to
import, as Airflow reads it in every component.
"""

from __future__ import annotations

from typing import Any

from hops_timetable import __version__

__all__ = ["get_provider_info"]


def get_provider_info() -> dict[str, Any]:
    """The provider description Airflow reads from the ``apache_airflow_provider`` entry point."""
    return {
        "package-name": "hops-timetable",
        "name": "Hopsworks timetable",
        "description": "Schedule DAGs exactly as the Hopsworks job scheduler does, with HOPS_* data windows.",
        # Released versions, newest first, as providers list them; the first is always the installed one.
        "versions": [__version__],
        "task-decorators": [{"name": "hops", "class-name": "hops_timetable.operators.python.hops_task"}],
    }
