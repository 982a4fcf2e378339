"""The Airflow plugin (entry point ``airflow.plugins``) that registers the timetable and the Hopsworks tab."""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable
from typing import Any

from airflow.plugins_manager import AirflowPlugin
from airflow.timetables.base import Timetable

from hops_timetable import _compat
from hops_timetable.timetable import HopsworksTimetable


class _TabAttribute:
    """A plugin attribute that imports the tab's app when first read: only the api-server reads it, and importing it
    in every process that loads plugins cost 1.2-1.6 s of CPU each (docs/performance.md)."""

    def __init__(self, build: Callable[[], list[dict[str, Any]]]) -> None:
        self._build = functools.cache(build)

    def __get__(self, instance: object, owner: type | None = None) -> list[dict[str, Any]]:
        # Airflow reads plugin attributes on the class (3.1 on) or on an instance (3.0): both land here.
        return self._build()


def _apps() -> list[dict[str, Any]]:
    from hops_timetable.ui.app import URL_PREFIX, app

    return [{"app": app, "url_prefix": URL_PREFIX, "name": "Hopsworks"}]


def _react_apps() -> list[dict[str, Any]]:
    """The tab on each DAG's and each run's page, from Airflow 3.1 on: one bundle at a rooted URL (3.1-3.2 resolve it
    against their script, 3.3 on against the page), with its digest so that a browser loads a new one on upgrade."""
    from hops_timetable.ui.app import BUNDLE, URL_PREFIX

    if not _compat.HAS_REACT_APPS:
        return []
    digest = hashlib.sha256(BUNDLE.read_bytes()).hexdigest()[:12]
    bundle = f"{_compat.api_base_path()}{URL_PREFIX}/static/{BUNDLE.name}?v={digest}"
    return [
        {"name": "Hopsworks", "bundle_url": bundle, "destination": "dag", "url_route": "hopsworks"},
        {"name": "Hopsworks", "bundle_url": bundle, "destination": "dag_run", "url_route": "hopsworks-run"},
    ]


class HopsTimetablePlugin(AirflowPlugin):
    """Registers the Hopsworks timetable (Airflow deserializes only those a plugin registers) and the tab."""

    name = "hops_timetable"
    timetables: list[type[Timetable]] = [HopsworksTimetable]  # noqa: RUF012
    fastapi_apps = _TabAttribute(_apps)
    react_apps = _TabAttribute(_react_apps)
