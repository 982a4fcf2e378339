"""What the plugin registers with Airflow: the timetable, the tab's app and the tab's two views."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from urllib.parse import urljoin

import pytest

from hops_timetable.plugin import HopsTimetablePlugin
from hops_timetable.timetable import HopsworksTimetable
from hops_timetable.ui.app import URL_PREFIX, app


def test_the_plugin_registers_the_timetable_and_mounts_the_tabs_app_at_its_prefix() -> None:
    assert HopsTimetablePlugin.timetables == [HopsworksTimetable]
    assert [(a["app"], a["url_prefix"]) for a in HopsTimetablePlugin.fastapi_apps] == [(app, URL_PREFIX)]
    routes = {getattr(route, "path", None) for route in app.routes}
    assert {"/dags/{dag_id}", "/dags/{dag_id}/runs/{run_id}"} <= routes


@pytest.mark.parametrize("base_href", ["/", "/airflow/", "/teams/data/airflow/"])
def test_each_tab_loads_the_apps_page_under_whatever_path_airflow_is_served_at(base_href: str) -> None:
    # The UI substitutes the ids into the href and loads it in an iframe, relative to its <base href>: the path
    # of [api] base_url. Behind a proxy that forwards only that path, anything outside it never arrives.
    pages = {}
    for view in HopsTimetablePlugin.external_views:
        href = view["href"].replace("{DAG_ID}", "d").replace("{RUN_ID}", "r")
        pages[view["destination"]] = urljoin(f"https://host.test{base_href}", href)
    assert pages == {
        "dag": f"https://host.test{base_href}{URL_PREFIX.strip('/')}/dags/d",
        "dag_run": f"https://host.test{base_href}{URL_PREFIX.strip('/')}/dags/d/runs/r",
    }


def test_loading_the_plugin_for_its_timetable_does_not_import_the_tabs_app() -> None:
    # The scheduler, the dag-processor, the triggerer and every task's process load plugins; only the api-server
    # serves the tab. A fresh interpreter, as each of those processes is, loading plugins as the scheduler does.
    code = textwrap.dedent(
        """
        import sys
        from airflow import plugins_manager as pm
        if hasattr(pm, "get_timetables_plugins"):
            classes = pm.get_timetables_plugins()
        else:  # Airflow 3.0
            pm.initialize_timetables_plugins()
            classes = pm.timetable_classes
        assert "hops_timetable.timetable.HopsworksTimetable" in classes, classes
        assert "hops_timetable.ui.app" not in sys.modules
        from hops_timetable.plugin import HopsTimetablePlugin
        apps = HopsTimetablePlugin().fastapi_apps
        assert "hops_timetable.ui.app" in sys.modules
        print(type(apps[0]["app"]).__name__, apps[0]["url_prefix"])
        """
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.split()[-2:] == ["FastAPI", URL_PREFIX]
