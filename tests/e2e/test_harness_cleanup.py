"""The harness stops what it started when the test process ends, however it ends.

A child Python process plays the test process: it starts a component through the harness, as a test does, and
then exits normally, or is ended with SIGTERM, SIGHUP or SIGKILL while the component still runs. The component is
a stand-in with the shapes of Airflow's and the scale test's processes: a child in its process group, a grandchild
that moved to a process group of its own (as Airflow's task processes do) and a daemon that left its session
(as ``redis-server --daemonize yes`` does, started by ``scripts/start-redis``). Every one of them must be gone
shortly after the child process is.

No Airflow component runs here (the stand-in starts in milliseconds), so this runs with the unit suites.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import psutil
import pytest

E2E = Path(__file__).resolve().parent

COMPONENT = textwrap.dedent(
    """
    import os, sys, time

    pids = sys.argv[1]

    def sleep_forever():
        while True:
            time.sleep(60)

    in_group = os.fork()
    if in_group == 0:
        sleep_forever()
    left_group = os.fork()
    if left_group == 0:
        os.setpgid(0, 0)
        sleep_forever()
    read, write = os.pipe()
    if os.fork() == 0:
        # A daemon: a new session, then a fork whose parent exits, so it is nobody's descendant any more.
        os.setsid()
        if os.fork() == 0:
            os.write(write, str(os.getpid()).encode())
            os.close(write)
            sleep_forever()
        os._exit(0)
    os.close(write)
    daemon = int(os.read(read, 32))
    with open(pids + ".tmp", "w") as out:
        out.write(" ".join(str(p) for p in (os.getpid(), in_group, left_group, daemon)))
    os.replace(pids + ".tmp", pids)
    sleep_forever()
    """
)

OWNER = textwrap.dedent(
    """
    import signal, sys, time
    from pathlib import Path

    sys.path.insert(0, sys.argv[1])
    from harness import AirflowStack

    # As in a terminal: a suite started under nohup would pass its ignored SIGHUP down, and then nothing is to stop.
    signal.signal(signal.SIGHUP, signal.SIG_DFL)

    home, how = Path(sys.argv[2]), sys.argv[3]
    stack = AirflowStack(home, home / "dags")
    stack.start_component("stand-in", [str(home / "pids")], script=home / "component.py")
    while not (home / "pids").exists():
        time.sleep(0.05)
    print("started", flush=True)
    if how == "exit":
        sys.stdin.readline()  # the test has seen the components running
        sys.exit(0)  # without stopping the stack: only atexit is left to do it
    time.sleep(600)
    """
)


def _gone(pid: int) -> bool:
    try:
        # An orphan nobody reaped yet (pid 1 of a container may not) is a zombie: it runs no more.
        return bool(psutil.Process(pid).status() == psutil.STATUS_ZOMBIE)
    except psutil.NoSuchProcess:
        return True


def _wait_gone(pids: list[int], timeout: float) -> list[int]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        alive = [pid for pid in pids if not _gone(pid)]
        if not alive:
            return []
        time.sleep(0.2)
    return [pid for pid in pids if not _gone(pid)]


@pytest.mark.parametrize("how", ["exit", "SIGTERM", "SIGHUP", "SIGKILL"])
def test_every_process_the_harness_started_is_gone_after_the_test_process(how: str, tmp_path: Path) -> None:
    (tmp_path / "component.py").write_text(COMPONENT)
    owner = subprocess.Popen(
        [sys.executable, "-c", OWNER, str(E2E), str(tmp_path), how.lower() if how == "exit" else "wait"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # The child's own group, as a pytest run in a terminal has: signals to it reach no one else.
        start_new_session=True,
    )
    pids: list[int] = []
    try:
        assert owner.stdout is not None
        line = owner.stdout.readline()
        assert line == "started\n", owner.stderr.read() if owner.stderr else line
        pids = [int(word) for word in (tmp_path / "pids").read_text().split()]
        assert len(pids) == 4 and all(not _gone(pid) for pid in pids)
        # The stand-in's three shapes: one member of its group, one that left it, one that left its session.
        component, in_group, left_group, daemon = (psutil.Process(pid) for pid in pids)
        assert os.getpgid(in_group.pid) == component.pid
        assert os.getpgid(left_group.pid) == left_group.pid
        assert os.getsid(daemon.pid) != os.getsid(component.pid) and daemon.ppid() != component.pid
        if how == "exit":
            assert owner.stdin is not None
            owner.stdin.write("go\n")
            owner.stdin.flush()
        else:
            owner.send_signal(getattr(signal, how))
        status = owner.wait(timeout=90)
        # A signal still ends the process with that signal (the handler stops the components, then re-raises).
        assert status == (0 if how == "exit" else -getattr(signal, how)), owner.stderr.read() if owner.stderr else ""
        assert _wait_gone(pids, timeout=45) == []
    finally:
        for pid in pids:
            if not _gone(pid):
                os.kill(pid, signal.SIGKILL)
        if owner.poll() is None:
            owner.kill()
            owner.wait()
