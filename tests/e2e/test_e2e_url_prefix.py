"""The Hopsworks tab where Airflow is published under a path prefix, behind a proxy that forwards only that path.

Deployments often serve Airflow at ``https://host/<prefix>/`` with ``[api] base_url`` set to it, behind a reverse
proxy whose only route is that prefix. Here the proxy is ``prefix_proxy.py``: a request outside the prefix is
refused and logged. A real browser, talking to the proxy alone, opens a DAG's Hopsworks tab (the plugin's bundle,
loaded by Airflow's UI), follows the tab's link to a scheduled run's tab and back, and makes a run with the tab's
"Run with time window" form; every page must show its content, every URL must stay under the prefix, and the proxy
must have refused nothing the tab asked for.
"""

from __future__ import annotations

import time
from datetime import timedelta
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote

import pytest
from dagfiles import DagSpec, Schedule, write_dag
from harness import Run, StackFactory, free_port, utcnow

from hops_timetable import _compat
from hops_timetable.core.window import format_hops_time

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(
        not _compat.HAS_REACT_APPS, reason="Airflow 3.0's UI shows no plugin tabs (react_apps came in 3.1)"
    ),
]

DAG_ID = "behind_a_proxy"
PREFIX = "/data/airflow"
PROXY = Path(__file__).with_name("prefix_proxy.py")


def test_the_tabs_and_their_run_link_load_through_a_proxy_that_forwards_only_airflows_prefix(
    stacks: StackFactory, tmp_path: Path, browser: Any
) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ec
    from selenium.webdriver.support.ui import WebDriverWait

    stack = stacks("prefix", start=False)
    proxy_port = free_port()
    public = f"http://127.0.0.1:{proxy_port}{PREFIX}"
    # What the UI, its links and the auth cookie's path are built from. The api-server then serves everything
    # under the prefix, the execution API too, which the tasks reach directly, as workers inside a cluster do.
    stack.env["AIRFLOW__API__BASE_URL"] = public
    stack.env["AIRFLOW__CORE__EXECUTION_API_SERVER_URL"] = f"{stack.base_url}{PREFIX}/execution/"
    stack.start_component("proxy", [str(proxy_port), PREFIX, stack.base_url], script=PROXY)
    write_dag(
        stack.dags_folder,
        DagSpec(DAG_ID, Schedule("0/10 * * * * ?", start_time=utcnow() - timedelta(hours=1))),
        tmp_path,
    )
    stack.start()
    stack.wait_for_dag(DAG_ID, timeout=120)
    stack.unpause(DAG_ID)

    def scheduled() -> Run | None:
        runs = [run for run in stack.runs(DAG_ID) if run.run_type == "scheduled"]
        return runs[0] if runs else None

    run = stack.wait_until(scheduled, 90, what="a scheduled run")
    stack.pause(DAG_ID)
    assert run.data_interval_start is not None and run.data_interval_end is not None

    started = time.monotonic()
    wait = WebDriverWait(browser, 60)
    # The all-admins login sets the UI's cookie; on Airflow 3.1 it then lands on the home page whatever was asked.
    browser.get(f"{public}/")
    wait.until(ec.presence_of_element_located((By.XPATH, "//a[contains(@href, 'dags')]")))
    browser.get(f"{public}/dags/{DAG_ID}")
    tab = wait.until(ec.element_to_be_clickable((By.XPATH, "//a[contains(@href, '/plugin/hopsworks')]")))
    tab.click()
    wait.until(ec.presence_of_element_located((By.CSS_SELECTOR, "#fires tr[data-fire]")))
    assert browser.current_url == f"{public}/dags/{DAG_ID}/plugin/hopsworks"
    link = wait.until(ec.element_to_be_clickable((By.LINK_TEXT, run.run_id)))
    expected = {
        "HOPS_START_TIME": format_hops_time(run.data_interval_start),
        "HOPS_END_TIME": format_hops_time(run.data_interval_end),
        "HOPS_LOGICAL_DATE": format_hops_time(run.data_interval_start),
    }

    def hops_values() -> dict[str, str]:
        return {key: wait.until(ec.presence_of_element_located((By.ID, key))).text for key in expected}

    # The run's link moves Airflow's own URL (its router, under the prefix) to the run's page and its tab, and back.
    link.click()
    assert hops_values() == expected
    run_tab = f"{public}/dags/{DAG_ID}/runs/{quote(run.run_id, safe='')}/plugin/hopsworks-run"
    assert unquote(browser.current_url) == unquote(run_tab)
    wait.until(ec.element_to_be_clickable((By.ID, "back"))).click()
    wait.until(ec.presence_of_element_located((By.CSS_SELECTOR, "#fires tr[data-fire]")))
    assert browser.current_url == f"{public}/dags/{DAG_ID}/plugin/hopsworks"
    # The tab's "Run with time window" form: the window checked by the plugin under the prefix, the run made by the
    # browser's own call to Airflow's REST API under the prefix.
    for name, value in (("start_time", "2026-01-01T09:00:00Z"), ("end_time", "2026-01-01T10:00:00Z")):
        browser.find_element(By.ID, f"hops-{name}").send_keys(value)
    browser.find_element(By.ID, "window-form-submit").click()
    made = wait.until(ec.presence_of_element_located((By.CSS_SELECTOR, "#window-runs tr.new[data-run-id]")))
    assert [r.run_id for r in stack.runs(DAG_ID) if r.run_type == "manual"] == [made.get_attribute("data-run-id")]
    refused = [line for line in stack.component_log("proxy").read_text().splitlines() if line.startswith("refused")]
    # A browser asks any origin for its icon on its own; everything else must have stayed under the prefix.
    assert [line for line in refused if line != "refused GET /favicon.ico"] == []
    print(f"browser test behind the proxy: {time.monotonic() - started:.1f} s")
