"""The coverage audit, its repair and the Hopsworks tab against a real Airflow through an induced outage.

One stack with login required (simple auth manager, users ``admin`` and ``viewer``, no all-admins shortcut) runs a
DAG with ``0/5 * * * * ?``, ``catchup=True`` and ``max_catchup_runs=2``; Airflow's scheduling side is stopped long
enough to miss at least four fires, so the bound drops some, and one run that succeeded is then marked failed
through the REST API, as an operator does when its output turns out wrong. (Stopping the scheduler also kills the
tasks its executor runs, so on a slow machine more runs may fail; each is a gap too.) The facts the audit is checked
against are the metadata database's own rows: each fire up to a cut-off either has a scheduled run, which succeeded
or failed, or it was dropped. Then ``--repair --dry-run`` must change nothing, ``--repair`` must fill every gap
without repeating a logical date, and the tab must list what the REST API lists and refuse callers without a valid
credential.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote

import httpx
import pytest
from dagfiles import DagSpec, Schedule, write_dag
from harness import AirflowStack, Run, StackError, StackFactory, floor_to, utcnow

from hops_timetable import _compat
from hops_timetable.core.cron import QuartzCron
from hops_timetable.core.simulate import Decision
from hops_timetable.core.window import format_hops_time

# every_minor on each scenario but the repair's (see there).
pytestmark = pytest.mark.e2e

DAG_ID = "audit_outage"
CRON = "0/5 * * * * ?"
STEP = timedelta(seconds=5)
BOUND = 2
DOWN_FOR = timedelta(seconds=21)
SETTLED = ("success", "failed")


@dataclass
class Outage:
    stack: AirflowStack
    start_time: datetime
    cutoff: datetime  # every fire up to here is settled: it has its run or never will
    admin_password: str
    viewer_password: str

    def token(self, user: str = "admin") -> str:
        password = self.admin_password if user == "admin" else self.viewer_password
        response = httpx.post(f"{self.stack.base_url}/auth/token", json={"username": user, "password": password})
        response.raise_for_status()
        token: str = response.json()["access_token"]
        return token


def scheduled(stack: AirflowStack) -> list[Run]:
    return [run for run in stack.runs(DAG_ID) if run.run_type == "scheduled"]


def _passwords(stack: AirflowStack) -> dict[str, str]:
    path = stack.home / "simple_auth_manager_passwords.json.generated"
    stack.wait_until(path.exists, 60, what="the simple auth manager's password file")
    passwords: dict[str, str] = json.loads(path.read_text())
    return passwords


@pytest.fixture(scope="module")
def outage(module_stacks: StackFactory, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Outage]:
    stack = module_stacks(
        "audit",
        env={
            "AIRFLOW__CORE__SIMPLE_AUTH_MANAGER_ALL_ADMINS": "False",
            "AIRFLOW__CORE__SIMPLE_AUTH_MANAGER_USERS": "admin:admin,viewer:viewer",
        },
    )
    start_time = utcnow().replace(microsecond=0) - timedelta(seconds=8)
    spec = DagSpec(
        DAG_ID, Schedule(CRON, start_time=start_time, catchup=True, max_catchup_runs=BOUND, max_active_runs=16)
    )
    write_dag(stack.dags_folder, spec, tmp_path_factory.mktemp("audit-records"))

    def live(count: int, since: datetime, what: str) -> Run:
        target = floor_to(since, 5) + count * STEP
        return stack.wait_until(
            lambda: next((r for r in scheduled(stack) if r.run_after >= target), None), 120, what=what
        )

    live(2, utcnow(), "two live runs before the outage")
    # Stopped right after a fire's run exists, so that no fire falls while the components shut down.
    stack.wait_until(
        lambda: (lambda runs: bool(runs) and utcnow() - runs[-1].run_after <= timedelta(seconds=2))(scheduled(stack)),
        60,
        interval=0.1,
        what="a fresh run",
    )
    stack.stop_component("scheduler")
    stack.stop_component("dag-processor")
    # Counted once both are down: a graceful stop can take seconds, during which the scheduler still creates runs.
    down_at = utcnow()
    stack.wait_until(lambda: utcnow() >= down_at + DOWN_FOR, 60, what="the outage")
    stack.start_component("scheduler")
    stack.start_component("dag-processor")
    stack.wait_healthy()
    last = live(2, utcnow(), "two live runs after the outage")
    passwords = _passwords(stack)
    result = Outage(stack, start_time, last.run_after, passwords["admin"], passwords["viewer"])

    def settled() -> list[Run] | None:
        runs = [r for r in scheduled(stack) if r.run_after <= result.cutoff]
        return runs if all(r.state in SETTLED for r in runs) else None

    succeeded = [
        r for r in stack.wait_until(settled, 180, what="the runs up to the cut-off to finish") if r.state == "success"
    ]
    assert succeeded, "no run succeeded"
    marked = succeeded[len(succeeded) // 2]
    response = httpx.patch(
        f"{stack.base_url}/api/v2/dags/{DAG_ID}/dagRuns/{marked.run_id}",
        json={"state": "failed"},
        headers={"Authorization": f"Bearer {result.token()}"},
        # httpx's 5 s default: a loaded machine's SQLite has taken longer.
        timeout=60,
    )
    assert response.status_code == 200, response.text
    yield result


def audit(outage: Outage, *args: str, token: bool = True) -> tuple[int, dict[str, Any]]:
    # --limit: every fire listed one by one (the JSON lists the newest --limit fires, like the text).
    command = [sys.executable, "-m", "hops_timetable.cli", "audit", "--api", outage.stack.base_url, "--json"]
    # --timeout above the harness's SQLite busy timeout (60 s): a loaded machine's write may wait that long for
    # the lock.
    command += ["--limit", "100000", "--timeout", "90", *args]
    if token:
        command += ["--token", outage.token()]
    result = subprocess.run(command, capture_output=True, text=True, timeout=600, check=False)
    assert result.returncode in (0, 3), result.stderr + result.stdout
    payload: dict[str, Any] = json.loads(result.stdout)
    return result.returncode, payload


def every_fire(start: datetime, upto: datetime) -> list[datetime]:
    cron = QuartzCron(CRON)
    out = []
    fire = cron.next_after(start)
    while fire is not None and fire <= upto:
        out.append(fire)
        fire = cron.next_after(fire)
    return out


def merged(spans: list[tuple[datetime, datetime]]) -> list[tuple[str, str]]:
    out: list[list[datetime]] = []
    for lo, hi in sorted(spans):
        if out and lo <= out[-1][1]:
            out[-1][1] = max(out[-1][1], hi)
        else:
            out.append([lo, hi])
    return [(format_hops_time(lo), format_hops_time(hi)) for lo, hi in out]


@pytest.mark.every_minor
def test_audit_marks_exactly_the_fires_the_outage_dropped_and_their_windows_as_gaps(outage: Outage) -> None:
    now = format_hops_time(outage.cutoff)
    # User and password, exchanged at /auth/token by the command itself.
    status, payload = audit(
        outage,
        "--dag-id",
        DAG_ID,
        "--now",
        now,
        "--username",
        "admin",
        "--password",
        outage.admin_password,
        token=False,
    )
    assert status == 3
    (dag,) = payload["dags"]
    real = {format_hops_time(r.run_after): r.state for r in scheduled(outage.stack) if r.run_after <= outage.cutoff}
    fires = every_fire(outage.start_time, outage.cutoff)
    dropped = [f for f in fires if format_hops_time(f) not in real]
    failed = [f for f in fires if real.get(format_hops_time(f)) == "failed"]
    assert len(dropped) >= 2, f"the outage dropped nothing: {sorted(real)}"
    assert failed, f"no run failed: {real}"
    decided = {row["fire"]: row["decision"] for row in dag["fires"]}
    assert sorted(decided) == [format_hops_time(f) for f in fires]
    for fire in fires:
        text = format_hops_time(fire)
        expected = Decision.CREATED.value if text in real else Decision.DROPPED_BOUND.value
        assert decided[text] == expected, (text, dag["fires"])

    # With no offset the HOPS window of a fire is [fire - 5 s, fire), the first one clamped to the start_time:
    # the gaps are the windows of the failed runs; the windows of the fires the bound dropped are dropped by
    # design, listed apart and not gaps.
    def window(fire: datetime) -> tuple[datetime, datetime]:
        return max(fire - STEP, outage.start_time), fire

    assert [(g["start"], g["end"]) for g in dag["gaps"]] == merged([window(f) for f in failed])
    assert all(g["reasons"] == ["failed"] for g in dag["gaps"]), dag["gaps"]
    assert [(d["start"], d["end"]) for d in dag["dropped"]] == merged([window(f) for f in dropped])
    assert all(d["reasons"] == [Decision.DROPPED_BOUND.value] for d in dag["dropped"]), dag["dropped"]
    assert dag["verdict"].startswith(
        f"gaps found: {len(failed)} of {len(fires) - len(dropped)} expected window(s) not processed"
    ), dag["verdict"]
    assert f"{len(dropped)} dropped by design" in dag["verdict"]


@pytest.mark.every_minor
def test_the_tab_lists_the_same_windows_as_the_rest_api_and_the_run_view_its_hops_values(outage: Outage) -> None:
    token = outage.token()
    headers = {"Authorization": f"Bearer {token}"}
    base = outage.stack.base_url
    _, payload = audit(outage, "--dag-id", DAG_ID)
    tab = httpx.get(f"{base}/hops/api/dags/{DAG_ID}", headers=headers).json()
    # Compared up to the cut-off: newer fires may have come into being between the two requests.
    cutoff = format_hops_time(outage.cutoff)

    def rows(fires: list[dict[str, Any]]) -> list[tuple[str, ...]]:
        keys = ("fire", "HOPS_START_TIME", "HOPS_END_TIME", "HOPS_LOGICAL_DATE", "decision")
        return [tuple(f[k] for k in keys) for f in fires if f["fire"] <= cutoff]

    assert rows(tab["coverage"]["fires"]) == rows(payload["dags"][0]["fires"])
    page = httpx.get(f"{base}/hops/dags/{DAG_ID}", headers=headers)
    assert page.status_code == 200 and 'id="verdict"' in page.text and 'id="fires"' in page.text

    run = scheduled(outage.stack)[0]
    assert run.data_interval_start is not None and run.data_interval_end is not None
    view = httpx.get(f"{base}/hops/api/dags/{DAG_ID}/runs/{run.run_id}", headers=headers).json()
    assert view["env"] == {
        "HOPS_START_TIME": format_hops_time(run.data_interval_start),
        "HOPS_END_TIME": format_hops_time(run.data_interval_end),
        "HOPS_LOGICAL_DATE": format_hops_time(run.data_interval_start),
    }
    assert view["source"] == "scheduler"
    html = httpx.get(f"{base}/hops/dags/{DAG_ID}/runs/{run.run_id}", headers=headers).text
    assert 'id="HOPS_START_TIME"' in html
    # Its task passes no legacy_args, so the run tab shows no -start_time argument.
    assert "-start_time" not in html


@pytest.mark.every_minor
@pytest.mark.parametrize(
    "path", [f"/hops/dags/{DAG_ID}", f"/hops/api/dags/{DAG_ID}", "/hops/api/dags", f"/hops/dags/{DAG_ID}/runs/x"]
)
def test_the_tab_refuses_requests_without_a_valid_credential_and_says_nothing_about_the_dag(
    outage: Outage, path: str
) -> None:
    base = outage.stack.base_url
    for headers, codes in (
        ({}, {401}),
        ({"Authorization": "Bearer not-a-token"}, {401, 403}),
        ({"Cookie": "_token=forged"}, {401, 403}),
    ):
        response = httpx.get(base + path, headers=headers)
        assert response.status_code in codes, (path, headers, response.status_code, response.text)
        assert DAG_ID not in response.text and "HOPS_" not in response.text


def _screenshot(driver: Any, name: str) -> None:
    """Saved as ``$E2E_SCREENSHOT_DIR/<name>.png`` when that variable is set (``scripts/screenshots`` sets it)."""
    folder = os.environ.get("E2E_SCREENSHOT_DIR")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        driver.save_screenshot(str(Path(folder) / f"{name}.png"))


# The luminance (0 black .. 1 white) of an element's colour or background, whatever the colour's notation
# (Airflow's theme gives oklch()): the browser itself paints it into a one-pixel canvas.
_LUMINANCE = (
    "var c=document.createElement('canvas').getContext('2d');var s=getComputedStyle(arguments[0]);"
    "c.fillStyle=arguments[1]==='text'?s.color:s.backgroundColor;c.fillRect(0,0,1,1);"
    "var d=c.getImageData(0,0,1,1).data;return (0.2126*d[0]+0.7152*d[1]+0.0722*d[2])/255;"
)
# What Airflow's colour-mode switch does (next-themes): the mode as the class and color-scheme of <html>, and stored.
_HOST_MODE = (
    "var h=document.documentElement,m=arguments[0];h.classList.remove('light','dark');h.classList.add(m);"
    "h.style.colorScheme=m;localStorage.setItem('theme',m);"
)


_FIRES = "return [...document.querySelectorAll('#fires tr[data-fire]')].map(r => [r.dataset.fire, r.dataset.status]);"
_ROWS = "return [...document.querySelectorAll(arguments[0])].map(r => r.innerText.replace(/\\s+/g, ' ').trim());"
_DATE_CELL = (
    "var c=document.querySelector('#fires tr[data-fire] td.mono'),s=getComputedStyle(c);"
    "return [s.whiteSpace, c.getBoundingClientRect().height, parseFloat(s.fontSize)];"
)


def _luminance(driver: Any, selector: str, what: str = "background") -> float:
    from selenium.webdriver.common.by import By

    value: float = driver.execute_script(_LUMINANCE, driver.find_element(By.CSS_SELECTOR, selector), what)
    return value


def _shown(tab: str) -> str:
    """Airflow's link to the plugin tab *tab*, marked as the page shown (3.3 marks the link, 3.4 what it holds)."""
    ends = f"substring(@href, string-length(@href) - {len(tab) + 7}) = '/plugin/{tab}'"
    return f"//a[{ends} and (@aria-current='page' or .//*[@aria-current='page'])]"


class _Tab:
    """The Hopsworks tab in the browser: in Airflow's own page (3.1 on), or 3.0's plain page by its URL."""

    def __init__(self, browser: Any, base: str) -> None:
        from selenium.webdriver.support.ui import WebDriverWait

        self.browser, self.base, self.wait = browser, base, WebDriverWait(browser, 60)
        self.hosted = _compat.HAS_REACT_APPS

    def open(self, airflow_path: str, plain_path: str, tab: str) -> None:
        """Airflow's page *airflow_path*, then its Hopsworks tab (*tab*: hopsworks or hopsworks-run) by a click."""
        from selenium.webdriver.common.by import By
        from selenium.webdriver.support import expected_conditions as ec

        if not self.hosted:
            self.browser.get(f"{self.base}/hops/{plain_path}")
            return
        self.browser.get(f"{self.base}/{airflow_path}")
        link = (By.XPATH, f"//a[substring(@href, string-length(@href) - {len(tab) + 7}) = '/plugin/{tab}']")
        self.wait.until(ec.element_to_be_clickable(link)).click()
        self.wait.until(ec.presence_of_element_located((By.CSS_SELECTOR, ".hops-tab table")))
        assert self.browser.find_elements(By.XPATH, _shown(tab)), f"the {tab} tab is not marked as the page shown"

    def mode(self, mode: str) -> None:
        """Switch the host (or, without one, the browser's preferred scheme) to *mode*; the tab follows at once."""
        if self.hosted:
            self.browser.execute_script(_HOST_MODE, mode)
            host = _luminance(self.browser, "html")
            assert (host < 0.3) == (mode == "dark"), (mode, host)
        else:
            feature = {"name": "prefers-color-scheme", "value": mode}
            self.browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [feature]})
        # Light text on the dark page, dark text on the light one: the tab's colours are the host's (or the browser's).
        text = "body" if not self.hosted else ".hops-tab"
        self.wait.until(lambda _: (_luminance(self.browser, text, "text") > 0.6) == (mode == "dark"))

    def shoot(self, name: str) -> None:
        _screenshot(self.browser, name)


@pytest.mark.every_minor
def test_browser_shows_the_tab_with_the_rest_apis_windows_the_gap_and_a_runs_hops_values_light_and_dark(
    outage: Outage, browser: Any
) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ec

    started = time.monotonic()
    base = outage.stack.base_url
    # Logged in as a user of the UI is: Airflow's session cookie holding a token from /auth/token.
    browser.get(f"{base}/api/v2/monitor/health")
    browser.add_cookie({"name": "_token", "value": outage.token(), "path": "/"})
    tab = _Tab(browser, base)
    tab.open(f"dags/{DAG_ID}", f"dags/{DAG_ID}", "hopsworks")
    tab.wait.until(ec.presence_of_element_located((By.CSS_SELECTOR, "#fires tr[data-fire]")))
    tab.wait.until(ec.presence_of_element_located((By.CSS_SELECTOR, "#gaps tr td")))
    # Read at once by the page itself: the tab refreshes while it is read, and may be mounted afresh by the host.
    shown = dict(browser.execute_script(_FIRES))
    # Gaps up to the cut-off: after it, the newest fire may be due and not created yet. The tab lists them newest
    # first, the audit oldest first.
    gaps = [row for row in browser.execute_script(_ROWS, "#gaps tr:has(td)")][::-1]
    gaps = [row for row in dict.fromkeys(gaps) if row.split()[0] <= format_hops_time(outage.cutoff)]
    verdict = browser.execute_script("return document.getElementById('verdict').innerText")
    # A date is one line, whatever the width of the tab: its cell does not wrap and is one line high.
    white_space, height, font_size = browser.execute_script(_DATE_CELL)
    assert white_space == "nowrap"
    assert height < 2.5 * font_size
    tab.mode("light")
    tab.shoot("hopsworks-tab")
    tab.mode("dark")
    tab.shoot("hopsworks-tab-dark")

    _, payload = audit(outage, "--dag-id", DAG_ID, "--now", format_hops_time(outage.cutoff))
    listed = {f["fire"]: f["status"] for f in payload["dags"][0]["fires"]}
    # The page was rendered at its own "now": every fire up to the cut-off is settled and must read alike.
    assert {k: v for k, v in shown.items() if k is not None and k <= format_hops_time(outage.cutoff)} == listed
    # Each gap row of the page: its span and the reasons the REST API gives for it.
    expected_gaps = [g for g in payload["dags"][0]["gaps"] if g["start"] <= format_hops_time(outage.cutoff)]
    assert len(gaps) == len(expected_gaps) >= 1, (gaps, expected_gaps)
    for row, gap in zip(gaps, expected_gaps, strict=True):
        assert row.startswith(f"{gap['start']} {gap['end']}") and all(r in row for r in gap["reasons"]), (row, gap)
    assert verdict.startswith("gaps found"), verdict

    # The run tab, reached by the run's link in the tab: Airflow's own URL moves to the run's page and its tab.
    run = scheduled(outage.stack)[1]
    assert run.data_interval_start is not None and run.data_interval_end is not None
    if tab.hosted:
        link = f"#fires tr[data-fire='{format_hops_time(run.data_interval_end)}'] a"
        browser.execute_script("document.querySelector(arguments[0]).click()", link)
        run_page = f"{base}/dags/{DAG_ID}/runs/{quote(run.run_id, safe=':+')}/plugin/hopsworks-run"
        tab.wait.until(lambda _: unquote(browser.current_url) == unquote(run_page))
        tab.wait.until(ec.presence_of_element_located((By.ID, "HOPS_START_TIME")))
        assert browser.find_elements(By.XPATH, _shown("hopsworks-run")), "the run's tab is not marked as shown"
    else:
        tab.open("", f"dags/{DAG_ID}/runs/{quote(run.run_id, safe='')}", "hopsworks-run")
    tab.wait.until(ec.presence_of_element_located((By.ID, "source")))
    keys = ("HOPS_START_TIME", "HOPS_END_TIME", "HOPS_LOGICAL_DATE", "source")
    *shown_values, source, legacy = browser.execute_script(
        "return [...arguments[0].map(k => document.getElementById(k).innerText),"
        " document.querySelectorAll('code.legacy').length]",
        keys,
    )
    values = dict(zip(keys[:3], shown_values, strict=True))
    tab.shoot("hopsworks-run-tab-dark")
    tab.mode("light")
    tab.shoot("hopsworks-run-tab")
    assert values == {
        "HOPS_START_TIME": format_hops_time(run.data_interval_start),
        "HOPS_END_TIME": format_hops_time(run.data_interval_end),
        "HOPS_LOGICAL_DATE": format_hops_time(run.data_interval_start),
    }
    assert source.startswith("scheduler: the run's data interval"), source
    # The DAG's one task is a plain PythonOperator (tests/e2e/dagfiles.py): no legacy argument to show.
    assert legacy == 0
    print(f"browser test: {time.monotonic() - started:.1f} s")


# -- the tab's "Run with time window" form, on the same Airflow: a DAG of its own, the same users ------------------

WINDOW_DAG = "window_form"
TYPED_WINDOW = {"start_time": "2026-01-01T14:30:00+05:30", "end_time": "2026-01-01T10:30:00"}
WINDOW_ENV = {
    "HOPS_START_TIME": "2026-01-01T09:00:00Z",
    "HOPS_END_TIME": "2026-01-01T10:30:00Z",
    "HOPS_LOGICAL_DATE": "2026-01-01T09:00:00Z",
}


@pytest.fixture(scope="module")
def window_dag(outage: Outage, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A daily DAG that started a month ago (catchup=False: the scheduler makes one run, of the newest fire), as a
    deployed DAG is; unpaused, so that the form's runs run. Its tasks record their HOPS_* values in the folder
    returned."""
    out = tmp_path_factory.mktemp("window-form-records")
    today = utcnow().replace(hour=0, minute=0, second=0, microsecond=0)
    spec = DagSpec(WINDOW_DAG, Schedule("0 0 0 * * ?", start_time=today - timedelta(days=30)), tasks="hops")
    write_dag(outage.stack.dags_folder, spec, out)
    outage.stack.wait_for_dag(WINDOW_DAG, timeout=120)
    return out


@pytest.mark.every_minor
@pytest.mark.skipif(not _compat.HAS_REACT_APPS, reason="Airflow 3.0's UI shows no plugin tab, so no form")
def test_browser_runs_the_dag_with_a_window_from_the_tab_and_the_task_gets_exactly_it(
    outage: Outage, window_dag: Path, browser: Any
) -> None:
    from dagfiles import records
    from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support import expected_conditions as ec

    stack = outage.stack
    base = stack.base_url
    # The plugin's own endpoint checks windows and makes nothing; it answers nobody without a login.
    url = f"{base}/hops/api/dags/{WINDOW_DAG}/window-run"
    assert httpx.post(url, json=TYPED_WINDOW).status_code == 401
    browser.get(f"{base}/api/v2/monitor/health")
    browser.add_cookie({"name": "_token", "value": outage.token(), "path": "/"})
    tab = _Tab(browser, base)
    tab.open(f"dags/{WINDOW_DAG}", "", "hopsworks")
    wait = tab.wait

    def type_into(name: str, value: str) -> bool:
        # Typed over the selection, as a user does: each keystroke is an input event the form's state follows. The
        # host may mount the tab afresh once after loading it (the form keeps what was typed): then type again.
        try:
            field = browser.find_element(By.ID, f"hops-{name}")
            field.send_keys(Keys.CONTROL, "a")
            field.send_keys(value)
            return field.get_attribute("value") == value
        except (StaleElementReferenceException, NoSuchElementException):
            return False

    def submit(start: str, end: str) -> None:
        for name, value in (("start_time", start), ("end_time", end)):
            wait.until(lambda _, name=name, value=value: type_into(name, value))
        browser.execute_script("document.getElementById('window-form-submit').click()")

    def made() -> Any:
        rows = browser.find_elements(By.CSS_SELECTOR, "#window-runs tr.new[data-run-id]")
        failed = browser.find_elements(By.CSS_SELECTOR, "#window-form-status.bad")
        assert not failed, failed[0].text
        return rows[0] if rows else None

    # An end before the start: the tab says which field, its value and what is valid; no run is made.
    wait.until(ec.presence_of_element_located((By.ID, "window-runs-none")))
    submit(TYPED_WINDOW["end_time"], TYPED_WINDOW["start_time"])
    said = "var e=document.getElementById(arguments[0]);return e===null?'':e.innerText;"
    status = wait.until(lambda _: "end_time=" in browser.execute_script(said, "window-form-status") and said)
    status = browser.execute_script(said, "window-form-status")
    assert "'2026-01-01T14:30:00+05:30' is not after start_time=2026-01-01T10:30:00Z" in status, status
    invalid = "return document.getElementById('hops-end_time').getAttribute('aria-invalid')"
    assert browser.execute_script(invalid) == "true"

    def manual() -> list[Run]:
        return [r for r in stack.runs(WINDOW_DAG) if r.run_type == "manual"]

    assert manual() == []

    # A valid one: the browser asks Airflow's REST API for the run, and the tab's list shows it at once.
    submit(TYPED_WINDOW["start_time"], TYPED_WINDOW["end_time"])
    run_id = wait.until(lambda _: made()).get_attribute("data-run-id")
    cells = browser.execute_script(
        "return [...document.querySelectorAll('#window-runs tr.new td')].map(c => c.innerText)"
    )
    assert cells[3:] == list(WINDOW_ENV.values()), cells
    assert "created" in browser.execute_script(said, "window-form-status")

    (run,) = manual()
    assert run.run_id == run_id
    assert json.loads(run.conf or "{}") == {
        "hops_window": {"start_time": WINDOW_ENV["HOPS_START_TIME"], "end_time": WINDOW_ENV["HOPS_END_TIME"]}
    }
    # Airflow's REST API shows the window as the run's data interval (a run without a logical date has none).
    rest = httpx.get(
        f"{base}/api/v2/dags/{WINDOW_DAG}/dagRuns/{run_id}", headers={"Authorization": f"Bearer {outage.token()}"}
    ).json()
    assert (rest["data_interval_start"], rest["data_interval_end"]) == (
        "2026-01-01T09:00:00Z",
        "2026-01-01T10:30:00Z",
    ), rest

    def recorded() -> tuple[dict[str, Any], dict[str, Any]] | None:
        python, bash = records(window_dag, WINDOW_DAG, "python"), records(window_dag, WINDOW_DAG, "bash")
        if run_id in python and run_id in bash:
            return python[run_id], bash[run_id]
        assert next(r for r in stack.runs(WINDOW_DAG) if r.run_id == run_id).state != "failed"
        return None

    python, bash = stack.wait_until(recorded, 300, what="the form's run's task records")
    assert python["env"] == WINDOW_ENV and bash["env"] == WINDOW_ENV
    # Live: the tab's list shows the run's new state without a reload.
    done = f"#window-runs tr[data-run-id='{run_id}']"
    wait.until(lambda _: "success" in browser.find_element(By.CSS_SELECTOR, done).text)


# Last: it fills the gaps the tests above look at. On the development minor only: on 3.0 it failed 1 of 5 runs here
# (the repair's runs not all successful within 180 s, after an outage that had also killed the first runs' tasks;
# cause not found, the timeout now lists the runs), and on 3.4 once in CI (Airflow's own scheduler crash, since
# restarted by the harness); a failure there costs a whole CI run.
def test_repair_dry_run_changes_nothing_and_repair_fills_every_gap_without_repeating_a_logical_date(
    outage: Outage,
) -> None:
    stack = outage.stack
    now = format_hops_time(outage.cutoff)
    before = stack.runs(DAG_ID)
    # --include-dropped: the windows the bound dropped are filled too, so every window ends up processed.
    status, payload = audit(outage, "--dag-id", DAG_ID, "--now", now, "--repair", "--include-dropped", "--dry-run")
    assert status == 3
    plan = payload["dags"][0]["repair"]
    gaps = payload["dags"][0]["gaps"]
    planned = sorted(w["HOPS_START_TIME"] for step in plan for w in step["windows"])
    missing = sorted(f["HOPS_START_TIME"] for f in payload["dags"][0]["fires"] if not f["covered"])
    assert planned == missing and planned, plan
    assert payload["dags"][0]["applied"] == []
    # Live scheduled runs keep coming; the dry run must not have added any other.
    assert [r.run_id for r in stack.runs(DAG_ID) if r.run_type != "scheduled"] == [
        r.run_id for r in before if r.run_type != "scheduled"
    ]

    status, payload = audit(outage, "--dag-id", DAG_ID, "--now", now, "--repair", "--include-dropped")
    assert status == 3  # what was found; the repair runs come after
    applied = payload["dags"][0]["applied"]
    assert len(applied) == len(payload["dags"][0]["repair"]) >= 1

    # A repair run is new (a backfill or a conf-window run) or a failed run Airflow's backfill cleared and re-ran
    # (same run id, its run type now backfill).
    def repaired() -> list[Run] | None:
        runs = stack.runs(DAG_ID)
        fresh = [r for r in runs if r.run_type != "scheduled" and r.run_id not in manual_before]
        done = len(fresh) >= len(planned) and all(r.state == "success" for r in fresh)
        return runs if done else None

    manual_before = {r.run_id for r in before if r.run_type != "scheduled"}

    try:
        runs = stack.wait_until(repaired, 180, what="the repair runs to succeed")
    except StackError as error:
        fresh = [
            (r.run_id, r.run_type, r.state, str(r.data_interval_start), str(r.data_interval_end))
            for r in stack.runs(DAG_ID)
            if r.run_type != "scheduled" and r.run_id not in manual_before
        ]
        found = f"{len(planned)} window(s) planned {planned}, applied {applied}, runs {fresh}"
        raise AssertionError(f"{error}: {found}") from None
    logical = [r.logical_date for r in runs if r.logical_date is not None]
    assert len(logical) == len(set(logical)), f"a logical date repeats: {sorted(map(str, logical))}"
    status, payload = audit(outage, "--dag-id", DAG_ID, "--now", now)
    assert status == 0, payload["dags"][0]["verdict"]
    assert payload["dags"][0]["complete"] and payload["dags"][0]["gaps"] == []
    assert payload["dags"][0]["dropped_by_design"] == 0
    assert gaps
    # A second repair finds nothing to do.
    status, payload = audit(outage, "--dag-id", DAG_ID, "--now", now, "--repair", "--include-dropped")
    assert status == 0 and payload["dags"][0]["repair"] == []
