"""What the plugin registers with Airflow: the timetable, the tab's app and the tab's React app on two pages."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from urllib.parse import urlsplit

import pytest

from hops_timetable.plugin import HopsTimetablePlugin
from hops_timetable.timetable import HopsworksTimetable
from hops_timetable.ui.app import URL_PREFIX, app


def test_the_plugin_registers_the_timetable_and_mounts_the_tabs_app_at_its_prefix() -> None:
    assert HopsTimetablePlugin.timetables == [HopsworksTimetable]
    assert [(a["app"], a["url_prefix"]) for a in HopsTimetablePlugin.fastapi_apps] == [(app, URL_PREFIX)]
    routes = {getattr(route, "path", None) for route in app.routes}
    assert {"/dags/{dag_id}", "/dags/{dag_id}/runs/{run_id}"} <= routes


@pytest.mark.parametrize("base_url", ["", "http://host.test:8080", "https://host.test/teams/data/airflow/"])
def test_both_tabs_load_the_one_bundle_the_app_serves_under_whatever_path_airflow_is_served_at(
    base_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from fastapi import FastAPI
    from fastapi.testclient import TestClient

    from hops_timetable import _compat, plugin

    monkeypatch.setenv("AIRFLOW__API__BASE_URL", base_url)
    apps = plugin._react_apps()
    if not _compat.HAS_REACT_APPS:
        assert apps == []  # 3.0's UI shows no plugin tab
        return
    path = urlsplit(base_url).path.rstrip("/")
    assert {(a["name"], a["destination"], a["url_route"]) for a in apps} == {
        ("Hopsworks", "dag", "hopsworks"),
        ("Hopsworks", "dag_run", "hopsworks-run"),
    }
    (bundle,) = {a["bundle_url"] for a in apps}
    # A path from the server's root: 3.1 and 3.2 import it relative to their own script, 3.3 on to the page.
    assert bundle.startswith(f"{path}{URL_PREFIX}/static/hopsworks-tab.js?v=")
    # The api-server mounts the app at the prefix under the same path: the bundle is there.
    server = FastAPI()
    server.mount(f"{path}{URL_PREFIX}", app)
    served = TestClient(server).get(bundle)
    assert served.status_code == 200 and "javascript" in served.headers["content-type"]
    assert "AirflowPlugin" in served.text


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
