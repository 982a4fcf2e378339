"""The Airflow plugin that registers :class:`~hops_timetable.timetable.HopsworksTimetable`.

Airflow deserializes only the custom timetables a plugin registers. The package declares this plugin under the
``airflow.plugins`` entry point, so installing the package is enough: no file in the plugins folder.
"""

from __future__ import annotations

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


def _views() -> list[dict[str, Any]]:
    from hops_timetable.ui.app import URL_PREFIX

    # The hrefs are relative: the UI resolves them against its <base href>, the path of [api] base_url, so the tab
    # also loads where Airflow is served under a path prefix behind a proxy (an href starting with "/" would not).
    tab = URL_PREFIX.lstrip("/")
    return [
        {"name": "Hopsworks", "href": tab + "/dags/{DAG_ID}", "destination": "dag", "url_route": "hopsworks"},
        {
            "name": "Hopsworks",
            "href": tab + "/dags/{DAG_ID}/runs/{RUN_ID}",
            "destination": "dag_run",
            "url_route": "hopsworks-run",
        },
    ]


class HopsTimetablePlugin(AirflowPlugin):
    """Registers the Hopsworks timetable with Airflow's scheduler, dag-processor and api-server."""

    name = "hops_timetable"
    # AirflowPlugin declares these as plain class attributes holding lists; the same shape is kept here.
    timetables: list[type[Timetable]] = [HopsworksTimetable]  # noqa: RUF012
    # The Hopsworks tab: the app served by the api-server, shown by the UI on each DAG's and each run's page; both
    # read as the lists AirflowPlugin declares.
    fastapi_apps = _TabAttribute(_apps)
    external_views = _TabAttribute(_views)
