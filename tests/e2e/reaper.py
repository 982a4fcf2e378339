"""The watchdog of one end-to-end test process: stops what that process started once it is gone, however it went.

Started by ``harness.py`` in a session of its own, with a pipe on its stdin whose only writer is the test process.
It reads ``group PID`` and ``release PID`` lines (the process groups of the components that run now) until the
pipe reaches its end, which happens when the test process closes it at exit or when the kernel closes it because
that process died, SIGKILL included. Then it stops every process group it was told of and every process that
carries the owner's marker in its environment (``VARIABLE=MARKER``): the components' descendants inherit it even
when they leave the group, as Airflow's task processes and a daemonized Redis do. SIGTERM first, SIGKILL to what
is left after a grace time.

    python reaper.py VARIABLE MARKER
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys

import psutil

GRACE_SECONDS = 10.0


def marked(variable: str, marker: str) -> list[psutil.Process]:
    """Every process of this user whose environment holds ``variable=marker``."""
    found = []
    for process in psutil.process_iter():
        if process.pid == os.getpid():
            continue
        # Other users' processes are not readable, and a process may exit while this looks.
        with contextlib.suppress(psutil.Error):
            if process.environ().get(variable) == marker:
                found.append(process)
    return found


def signal_groups(groups: set[int], sig: signal.Signals) -> None:
    for group in groups:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(group, sig)


def reap(variable: str, marker: str, groups: set[int]) -> None:
    signal_groups(groups, signal.SIGTERM)
    processes = marked(variable, marker)
    for process in processes:
        with contextlib.suppress(psutil.Error):
            process.terminate()
    _, alive = psutil.wait_procs(processes, timeout=GRACE_SECONDS)
    signal_groups(groups, signal.SIGKILL)
    # Looked up again: a process may have forked a child while it was shutting down.
    for process in [*alive, *marked(variable, marker)]:
        with contextlib.suppress(psutil.Error):
            process.kill()


def main(argv: list[str]) -> int:
    if len(argv) != 2 or not all(argv):
        print("usage: reaper.py VARIABLE MARKER", file=sys.stderr)
        return 2
    variable, marker = argv
    # The test process's terminal and its Ctrl-C are not this process's (its own session), but be sure.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    groups: set[int] = set()
    for line in sys.stdin:
        word, _, value = line.strip().partition(" ")
        if value.isdigit() and word == "group":
            groups.add(int(value))
        elif value.isdigit() and word == "release":
            groups.discard(int(value))
    reap(variable, marker, groups)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
