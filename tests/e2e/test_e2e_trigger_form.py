"""The Trigger form's HOPS window fields in a real browser, with the UI set to a time zone other than UTC.

``hops_schedule(..., trigger_form=True)`` gives a DAG two date-time params (off by default), and Airflow's Trigger
form renders them as date pickers.
A user types the window there as in Hopsworks' ``job.run(start_time=..., end_time=...)``; the pickers read the
typed time in the UI's time zone (the user's setting) and pass it on in UTC. This test types 14:30 and 15:30 with
the UI on India Standard Time (UTC+05:30 all year, so the expectation does not depend on the date) and checks that
the run Airflow creates carries 09:00Z and 10:00Z, and that its tasks see exactly that window in HOPS_* and argv.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from dagfiles import DagSpec, Schedule, records, write_dag
from harness import StackFactory, utcnow

from hops_timetable import _compat
from hops_timetable.core.conf_window import END_PARAM, START_PARAM

pytestmark = [pytest.mark.e2e, pytest.mark.every_minor]

DAG_ID = "typed_window"
UI_TIME_ZONE = "Asia/Kolkata"
# What the user types (in UI_TIME_ZONE) and what the task must get (UTC).
TYPED = {START_PARAM: ("2026/01/01", "14:30"), END_PARAM: ("2026/01/01", "15:30")}
EXPECTED = {
    "HOPS_START_TIME": "2026-01-01T09:00:00Z",
    "HOPS_END_TIME": "2026-01-01T10:00:00Z",
    "HOPS_LOGICAL_DATE": "2026-01-01T09:00:00Z",
}


@dataclass(frozen=True)
class FormSchedule(Schedule):
    """The scenario's ``hops_schedule`` arguments with the Trigger form's params turned on."""

    def kwargs_source(self) -> str:
        return super().kwargs_source() + ", trigger_form=True"


def _fill(browser: Any, name: str, day: str, clock: str) -> None:
    """Type one date-time into the form's field for the param *name*, as a user does."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    native = browser.find_elements(By.ID, f"element_{name}")
    if native and native[0].get_attribute("type") == "datetime-local":
        # Up to Airflow 3.1 the field is the browser's own datetime-local input; its text entry depends on the
        # browser's locale, so the value is set the way the browser sets it after a pick, which React then reads.
        browser.execute_script(
            "const setter = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value').set;"
            "setter.call(arguments[0], arguments[1]);"
            "arguments[0].dispatchEvent(new Event('input', {bubbles: true}));",
            native[0],
            f"{day.replace('/', '-')}T{clock}",
        )
        return
    # Later releases show a picker: a button that opens a date field and a time field (filled with 00:00 once a
    # date is typed). The fields still empty come in the form's order, start before end.
    browser.find_elements(By.XPATH, "//*[normalize-space(text())='Select date and time']")[0].click()
    date_field = browser.find_element(By.XPATH, "//input[@placeholder='YYYY/MM/DD']")
    date_field.send_keys(day)
    time_field = browser.find_element(By.XPATH, "//input[@placeholder='HH:mm']")
    time_field.click()
    time_field.send_keys(Keys.CONTROL, "a")
    time_field.send_keys(clock)
    time_field.send_keys(Keys.TAB)
    browser.find_element(By.TAG_NAME, "body").send_keys(Keys.ESCAPE)


def test_a_window_typed_into_the_trigger_form_reaches_the_task_in_utc(
    stacks: StackFactory, tmp_path: Path, browser: Any
) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ec
    from selenium.webdriver.support.ui import WebDriverWait

    stack = stacks("trigger-form")
    out = tmp_path / "records"
    # Hourly, so that no fire falls during the test; the form unpauses the DAG, which then makes one scheduled run.
    spec = DagSpec(
        DAG_ID, FormSchedule("0 0 * * * ?", start_time=utcnow() - timedelta(hours=3)), paused=True, tasks="hops"
    )
    write_dag(stack.dags_folder, spec, out)
    stack.wait_for_dag(DAG_ID, timeout=120)

    wait = WebDriverWait(browser, 60)
    # The all-admins login sets the UI's cookie (and lands on the home page on 3.1); then the user's time zone.
    browser.get(f"{stack.base_url}/")
    wait.until(ec.presence_of_element_located((By.XPATH, "//a[contains(@href, 'dags')]")))
    browser.execute_script("window.localStorage.setItem('timezone', arguments[0])", json.dumps(UI_TIME_ZONE))
    browser.get(f"{stack.base_url}/dags/{DAG_ID}")
    wait.until(ec.element_to_be_clickable((By.XPATH, "//button[normalize-space()='Trigger']"))).click()
    label = (By.XPATH, "//*[normalize-space(text())='HOPS window start']")
    if not browser.find_elements(*label):
        wait.until(ec.element_to_be_clickable((By.XPATH, "//*[normalize-space(text())='Run Parameters']"))).click()
    wait.until(ec.visibility_of_element_located(label))
    for name, (day, clock) in TYPED.items():
        _fill(browser, name, day, clock)
    # The dialog's own button is the last "Trigger" on the page (the first opened the dialog).
    browser.find_elements(By.XPATH, "//button[normalize-space()='Trigger']")[-1].click()

    def manual_run() -> Any:
        return next((run for run in stack.runs(DAG_ID) if run.run_type == "manual"), None)

    run = stack.wait_until(manual_run, 60, what="the run the form triggered")
    conf = json.loads(run.conf or "{}")
    # Airflow 3.0's form appends ":00+00:00" to the picker's UTC instant; the package reads it as meant.
    garbled = ":00+00:00" if _compat.AIRFLOW_VERSION < (3, 1) else ""
    sent = {name: conf.get(name) for name in TYPED}
    assert sent == {
        START_PARAM: f"2026-01-01T09:00:00.000Z{garbled}",
        END_PARAM: f"2026-01-01T10:00:00.000Z{garbled}",
    }, conf

    def recorded() -> tuple[dict[str, Any], dict[str, Any]] | None:
        python, bash = records(out, DAG_ID, "python"), records(out, DAG_ID, "bash")
        if run.run_id in python and run.run_id in bash:
            return python[run.run_id], bash[run.run_id]
        now = next(r for r in stack.runs(DAG_ID) if r.run_id == run.run_id)
        # A window the package rejects fails the tasks before they record anything.
        assert now.state != "failed", f"the triggered run failed; conf {conf}"
        return None

    python, bash = stack.wait_until(recorded, 120, what="the triggered run's task records")
    assert python["env"] == EXPECTED and bash["env"] == EXPECTED
    assert python["argv"] == ["-start_time", EXPECTED["HOPS_LOGICAL_DATE"]]
    assert bash["argv"] == ["--table", "events", "-start_time", EXPECTED["HOPS_LOGICAL_DATE"]]
