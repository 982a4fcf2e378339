"""The Airflow plugin that registers :class:`~hops_timetable.timetable.HopsworksTimetable`.

Airflow deserializes only the custom timetables a plugin registers. The package declares this plugin under the
``airflow.plugins`` entry point, so installing the package is enough: no file in the plugins folder.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Any

from airflow.plugins_manager import AirflowPlugin
from airflow.timetables.base import Timetable

from hops_timetable.timetable import HopsworksTimetable

__all__ = ["HopsTimetablePlugin"]


class _TabAttribute:
    """A plugin attribute that imports the Hopsworks tab's app when it is first read.

    Only the api-server reads the tab's app and views, but every Airflow process that loads plugins imports this
    module: the scheduler, the dag-processor and the triggerer for the timetable, and each task's process for
    macros. Importing the app (FastAPI and the tab's pages) at the top took about 1.2-1.6 s of CPU in each of them
    and 2-4% of a profiled scheduler's time (docs/performance.md).
    """

    def __init__(self, build: Callable[[], list[dict[str, Any]]]) -> None:
        self._build = build
        self._value: list[dict[str, Any]] | None = None

    def __get__(self, instance: object, owner: type | None = None) -> list[dict[str, Any]]:
        # Airflow reads plugin attributes on the class (3.1 on) or on an instance (3.0): both land here.
        if self._value is None:
            self._value = self._build()
        return self._value


def _apps() -> list[dict[str, Any]]:
    from hops_timetable.ui.app import URL_PREFIX, app

    return [{"app": app, "url_prefix": URL_PREFIX, "name": "Hopsworks"}]


def _react_apps() -> list[dict[str, Any]]:
    """The tab on each DAG's and each run's page, from Airflow 3.1 on (3.0's UI shows no plugin tab).

    One bundle (``ui/static``, built from ``frontend/``) for both: the UI keeps a loaded component under its name, so
    both entries are "Hopsworks" and the component tells the run's page by its ``runId``. The URL is a path from the
    server's root under ``[api] base_url``'s path: 3.1 and 3.2 import it relative to their own script, 3.3 on
    relative to the page, and a rooted path reads alike in both. The bundle's digest in the query makes a browser
    load a new bundle after an upgrade instead of a cached old one.
    """
    from hops_timetable import _compat
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
    """Registers the Hopsworks timetable with Airflow's scheduler, dag-processor and api-server."""

    name = "hops_timetable"
    # AirflowPlugin declares these as plain class attributes holding lists; the same shape is kept here.
    timetables: list[type[Timetable]] = [HopsworksTimetable]  # noqa: RUF012
    # The Hopsworks tab: the app served by the api-server (JSON, the bundle, 3.0's plain pages) and the React app
    # the UI shows on each DAG's and each run's page; both read as the lists AirflowPlugin declares.
    fastapi_apps = _TabAttribute(_apps)
    react_apps = _TabAttribute(_react_apps)
