"""The Airflow plugin that registers :class:`~hops_timetable.timetable.HopsworksTimetable`.

Airflow deserializes only the custom timetables a plugin registers. The package declares this plugin under the
``airflow.plugins`` entry point, so installing the package is enough: no file in the plugins folder.
"""

from __future__ import annotations

from typing import Any

from airflow.plugins_manager import AirflowPlugin
from airflow.timetables.base import Timetable

from hops_timetable.timetable import HopsworksTimetable
from hops_timetable.ui.app import URL_PREFIX
from hops_timetable.ui.app import app as hops_app

__all__ = ["HopsTimetablePlugin"]

_TAB = URL_PREFIX.lstrip("/")


class HopsTimetablePlugin(AirflowPlugin):
    """Registers the Hopsworks timetable with Airflow's scheduler, dag-processor and api-server."""

    name = "hops_timetable"
    # AirflowPlugin declares these as plain class attributes holding lists; the same shape is kept here.
    timetables: list[type[Timetable]] = [HopsworksTimetable]  # noqa: RUF012
    # The Hopsworks tab: the app served by the api-server, shown by the UI on each DAG's and each run's page.
    # The hrefs are relative: the UI resolves them against its <base href>, the path of [api] base_url, so the tab
    # also loads where Airflow is served under a path prefix behind a proxy (an href starting with "/" would not).
    fastapi_apps: list[dict[str, Any]] = [{"app": hops_app, "url_prefix": URL_PREFIX, "name": "Hopsworks"}]  # noqa: RUF012
    external_views: list[dict[str, Any]] = [  # noqa: RUF012
        {
            "name": "Hopsworks",
            "href": _TAB + "/dags/{DAG_ID}",
            "destination": "dag",
            "url_route": "hopsworks",
        },
        {
            "name": "Hopsworks",
            "href": _TAB + "/dags/{DAG_ID}/runs/{RUN_ID}",
            "destination": "dag_run",
            "url_route": "hopsworks-run",
        },
    ]
