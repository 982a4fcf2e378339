"""Debian's headless Chromium through its chromedriver, started under the harness's reaper.

Selenium starts chromedriver itself, as a plain child of the test process: a test process that died (SIGKILL, a
timeout) or was ended before ``quit()`` left chromedriver and every Chromium process behind. Here chromedriver runs
in a process group of its own that the reaper adopts, and carries the test process's marker in its environment,
which Chromium's processes inherit from it: whatever ends the test process, the reaper stops them all
(``tests/e2e/test_browser_cleanup.py`` checks it).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from harness import adopt_process_group, owner_environment, stop_process_group

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--window-size=1400,1300",
)


def missing() -> list[str]:
    """The browser's executables that are not installed."""
    return [path for path in (CHROMIUM, CHROMEDRIVER) if not Path(path).exists()]


def start_browser(profile: Path) -> Any:
    """A Chromium WebDriver with the empty profile ``profile``; stop it with :func:`stop_browser`."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in (*CHROMIUM_FLAGS, f"--user-data-dir={profile}"):
        options.add_argument(flag)
    service = Service(
        executable_path=CHROMEDRIVER,
        env={**os.environ, **owner_environment()},
        # Its own group, as every component the harness starts: a signal to the test's group does not reach it
        # before the reaper does, and the reaper can stop the whole group at once.
        popen_kw={"start_new_session": True},
    )
    # Selenium starts chromedriver here and stops it if the session fails; until the group is adopted below, the
    # marker alone ties it and Chromium to the reaper.
    driver = webdriver.Chrome(service=service, options=options)
    adopt_process_group(service.process.pid)
    return driver


def stop_browser(driver: Any) -> None:
    """Quit the browser, then stop whatever is left of chromedriver's process group."""
    process = driver.service.process
    try:
        driver.quit()
    finally:
        stop_process_group(process)
