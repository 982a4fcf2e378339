"""The browser the ``browser`` fixture starts is stopped when the test process ends, however it ends.

As ``test_harness_cleanup.py`` does for a stack's components: a child Python process plays the test process,
starts Chromium through ``browser.start_browser`` as the fixture does, and then exits without quitting the browser,
or is ended with SIGTERM or SIGKILL. chromedriver and every Chromium process (browser, zygotes, renderer,
GPU and utility processes) must be gone shortly after it.

Marked ``e2e``: it needs Chromium, which CI installs for the end-to-end suite only.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import psutil
import pytest
from browser import missing
from harness import OWNER_VARIABLE
from test_harness_cleanup import _gone, _wait_gone

pytestmark = [pytest.mark.e2e, pytest.mark.one_minor]  # the harness, not Airflow: alike on every minor

E2E = Path(__file__).resolve().parent

OWNER = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path

    import psutil

    sys.path.insert(0, sys.argv[1])
    from browser import start_browser

    home, how = Path(sys.argv[2]), sys.argv[3]
    driver = start_browser(home / "profile")
    driver.get("data:text/html,<p>hello</p>")  # a renderer runs too
    driver_process = psutil.Process(driver.service.process.pid)
    pids = [driver_process.pid, *(child.pid for child in driver_process.children(recursive=True))]
    print(" ".join(str(pid) for pid in pids), flush=True)
    if how == "exit":
        sys.stdin.readline()  # the test has seen the browser running
        sys.exit(0)  # without quitting the browser: only atexit is left to stop it
    time.sleep(600)
    """
)


def _name(pid: int) -> str:
    try:
        return str(psutil.Process(pid).name())
    except psutil.NoSuchProcess:
        return "(exited)"  # a short-lived helper of Chromium's


# SIGHUP takes SIGTERM's path (one handler, test_harness_cleanup.py covers both): a Chromium start saved.
@pytest.mark.parametrize("how", ["exit", "SIGTERM", "SIGKILL"])
def test_the_browser_is_gone_after_the_test_process(how: str, tmp_path: Path) -> None:
    absent = missing()
    if absent:
        message = f"{' and '.join(absent)} not installed (apt-get install -y chromium chromium-driver)"
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI needs the browser: {message}")
        pytest.skip(message)
    owner = subprocess.Popen(
        [sys.executable, "-c", OWNER, str(E2E), str(tmp_path), how.lower() if how == "exit" else "wait"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    pids: list[int] = []
    try:
        assert owner.stdout is not None
        line = owner.stdout.readline()
        assert line.strip(), owner.stderr.read() if owner.stderr else line
        pids = [int(word) for word in line.split()]
        names = " ".join(_name(pid) for pid in pids)
        assert names.startswith("chromedriver chromium"), names
        assert len(pids) >= 3, names  # chromedriver, the browser and at least one of its helper processes
        # chromedriver leads a group of its own (the reaper stops it whole), not the test process's, and carries
        # the test process's marker. Chromium's helpers overwrite the memory /proc shows as their environment,
        # so the marker cannot be read back from them: they must stay in chromedriver's group.
        group = pids[0]
        assert os.getpgid(group) == group != os.getpgid(owner.pid)
        assert OWNER_VARIABLE in psutil.Process(group).environ()
        assert [pid for pid in pids if not _gone(pid) and os.getpgid(pid) != group] == [], names
        if how == "exit":
            assert owner.stdin is not None
            owner.stdin.write("go\n")
            owner.stdin.flush()
        else:
            owner.send_signal(getattr(signal, how))
        status = owner.wait(timeout=90)
        assert status == (0 if how == "exit" else -getattr(signal, how)), owner.stderr.read() if owner.stderr else ""
        assert _wait_gone(pids, timeout=45) == []
    finally:
        for pid in pids:
            if not _gone(pid):
                os.kill(pid, signal.SIGKILL)
        if owner.poll() is None:
            owner.kill()
            owner.wait()
