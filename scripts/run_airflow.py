"""Run a local Airflow 3 with the hops_timetable plugin until Ctrl-C: the body of ``scripts/run-airflow``.

Airflow home is ``.airflow/`` in the repository (git-ignored; ``--home`` for another), the metadata database
SQLite at ``<home>/airflow.db``, the DAG folder ``dags/``. It starts the api-server first and the scheduler,
dag-processor and triggerer only once the api-server answers its health check: a task the scheduler queued earlier
would call an execution API that does not listen yet and fail. Each component is a child process in its own
process group; the launcher prints where to open the UI once the scheduler and dag-processor have sent a
heartbeat, and on Ctrl-C, SIGTERM or SIGHUP stops every group and waits for it. Restarting keeps the database, so
runs and history persist.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from types import FrameType
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_HOME = ROOT / ".airflow"
DAGS = ROOT / "dags"
DEFAULT_PORT = 8080
STARTUP_TIMEOUT = 180.0


@dataclass
class Child:
    name: str
    process: subprocess.Popen[bytes]
    log: Path


class Shutdown(Exception):
    """Raised in the main loop by the SIGINT/SIGTERM handler."""


def port_is_free(host: str, port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError:
            return False
        return True


def free_port(host: str) -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


def pick_port(host: str, wanted: int, what: str) -> int:
    if port_is_free(host, wanted):
        return wanted
    chosen = free_port(host)
    print(f"port {wanted} on {host} is busy; {what} uses port {chosen} instead", file=sys.stderr)
    return chosen


def jwt_secret(home: Path) -> str:
    """The JWT secret shared by all components, kept in the home so that a restart keeps sessions valid."""
    path = home / "jwt_secret"
    if not path.exists():
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as out:
            out.write(secrets.token_hex(64))
    return path.read_text().strip()


def airflow_environment(home: Path, host: str, port: int) -> dict[str, str]:
    """Environment of every Airflow command: ours override inherited ``AIRFLOW__*`` values of the same name."""
    base_url = f"http://{host}:{port}"
    env = dict(os.environ)
    env.update(
        {
            "AIRFLOW_HOME": str(home),
            "AIRFLOW__DATABASE__SQL_ALCHEMY_CONN": f"sqlite:///{home / 'airflow.db'}?timeout=15",
            "AIRFLOW__CORE__DAGS_FOLDER": str(DAGS),
            "AIRFLOW__CORE__EXECUTOR": "LocalExecutor",
            "AIRFLOW__CORE__LOAD_EXAMPLES": "False",
            # The example DAGs are meant to be seen scheduling (and catching up) as soon as the UI opens.
            "AIRFLOW__CORE__DAGS_ARE_PAUSED_AT_CREATION": "False",
            # A local playground: every visitor is admin, so the printed URL opens without a login.
            "AIRFLOW__CORE__SIMPLE_AUTH_MANAGER_ALL_ADMINS": "True",
            "AIRFLOW__CORE__EXECUTION_API_SERVER_URL": f"{base_url}/execution/",
            "AIRFLOW__API__HOST": host,
            "AIRFLOW__API__PORT": str(port),
            "AIRFLOW__API__BASE_URL": base_url,
            "AIRFLOW__API_AUTH__JWT_SECRET": jwt_secret(home),
            "AIRFLOW__LOGGING__WORKER_LOG_SERVER_PORT": str(pick_port(host, 8793, "the task log server")),
            "AIRFLOW__LOGGING__TRIGGER_LOG_SERVER_PORT": str(pick_port(host, 8794, "the triggerer log server")),
            # New or changed example DAGs show up within seconds instead of minutes.
            "AIRFLOW__DAG_PROCESSOR__REFRESH_INTERVAL": "5",
            "AIRFLOW__DAG_PROCESSOR__MIN_FILE_PROCESS_INTERVAL": "10",
            "PYTHONUNBUFFERED": "1",
        }
    )
    return env


def airflow(*args: str) -> list[str]:
    return [sys.executable, "-m", "airflow", *args]


def start(home: Path, name: str, command: Sequence[str], env: dict[str, str]) -> Child:
    log = home / "logs" / f"{name}.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("ab") as out:
        process = subprocess.Popen(
            list(command),
            env=env,
            cwd=home,
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            # Own process group: Ctrl-C in the terminal reaches only this launcher, which then stops each
            # group in order instead of every process dying at once.
            start_new_session=True,
        )
    return Child(name, process, log)


def stop(children: Sequence[Child], grace: float = 30.0) -> None:
    """SIGTERM every child's process group, wait up to ``grace`` seconds, then SIGKILL what is left."""
    for child in children:
        if child.process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(child.process.pid, signal.SIGTERM)
    deadline = time.monotonic() + grace
    for child in children:
        try:
            child.process.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            print(f"{child.name} did not stop within {grace:.0f}s; killing it", file=sys.stderr)
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(child.process.pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            child.process.wait(timeout=10)


def tail(path: Path, lines: int = 40) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return ""


def health(url: str) -> dict[str, Any] | None:
    """The api-server's ``/api/v2/monitor/health`` document, or None while it does not answer 200."""
    try:
        with urllib.request.urlopen(f"{url}/api/v2/monitor/health", timeout=5) as response:
            if response.status != 200:
                return None
            document: dict[str, Any] = json.loads(response.read())
            return document
    except (OSError, ValueError):
        return None


def beat_since(document: dict[str, Any], key: str, since: datetime) -> bool:
    """True if component ``key`` of a health document sent a heartbeat at or after ``since``.

    A heartbeat a previous run of the same home left in the database says nothing about the process just started.
    """
    beat = (document.get(key) or {}).get(f"latest_{key}_heartbeat")
    if not beat:
        return False
    at = datetime.fromisoformat(str(beat).replace("Z", "+00:00"))
    return (at if at.tzinfo else at.replace(tzinfo=timezone.utc)) >= since


def wait_for(
    url: str, children: Sequence[Child], timeout: float, ready: Callable[[dict[str, Any]], bool] | None = None
) -> dict[str, Any] | None:
    """Poll the health endpoint until ``ready(document)``; None on timeout or as soon as a child has exited."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if any(child.process.poll() is not None for child in children):
            return None
        document = health(url)
        if document is not None and (ready is None or ready(document)):
            return document
        time.sleep(1.0)
    return None


def report_failure(children: Sequence[Child], what: str, timeout: float) -> None:
    for child in children:
        if child.process.poll() is not None:
            print(f"{child.name} exited early:\n{tail(child.log)}", file=sys.stderr)
    print(f"{what} within {timeout:.0f} s; logs in {children[0].log.parent}", file=sys.stderr)


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="scripts/run-airflow",
        description="Run Airflow 3 locally with the hops_timetable plugin and the dags/ folder, until Ctrl-C.",
    )
    env_port = os.environ.get("HOPS_AIRFLOW_PORT")
    parser.add_argument(
        "--port",
        type=int,
        default=int(env_port) if env_port else DEFAULT_PORT,
        help="api-server (UI) port; default $HOPS_AIRFLOW_PORT or 8080; a free port is picked if it is busy",
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    parser.add_argument("--no-triggerer", action="store_true", help="do not start the triggerer")
    parser.add_argument(
        "--home", type=Path, default=DEFAULT_HOME, help="Airflow home: database, logs, secret (default .airflow/)"
    )
    return parser.parse_args(argv)


def main(argv: Sequence[str]) -> int:
    args = parse_args(argv)
    if not 0 < args.port < 65536:
        print(f"--port={args.port} is not a TCP port; use 1..65535", file=sys.stderr)
        return 2
    home: Path = args.home.resolve()
    home.mkdir(parents=True, exist_ok=True)
    DAGS.mkdir(exist_ok=True)
    port = pick_port(args.host, args.port, "the api-server")
    env = airflow_environment(home, args.host, port)
    url = f"http://{args.host}:{port}"

    print(f"Airflow home {home}, DAG folder {DAGS}", flush=True)
    print("migrating the metadata database (airflow db migrate) ...", flush=True)
    migrate_log = home / "logs" / "db-migrate.log"
    migrate_log.parent.mkdir(parents=True, exist_ok=True)
    with migrate_log.open("wb") as out:
        migrated = subprocess.run(airflow("db", "migrate"), env=env, stdout=out, stderr=subprocess.STDOUT, check=False)
    if migrated.returncode != 0:
        print(f"airflow db migrate failed:\n{tail(migrate_log)}", file=sys.stderr)
        return 1

    children: list[Child] = []

    def on_signal(signum: int, frame: FrameType | None) -> None:
        raise Shutdown(signal.Signals(signum).name)

    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, on_signal)
    status = 0
    try:
        children.append(start(home, "api-server", airflow("api-server"), env))
        print(f"starting the api-server (logs in {home / 'logs'}) ...", flush=True)
        if wait_for(url, children, STARTUP_TIMEOUT) is None:
            report_failure(children, "the api-server did not answer its health check", STARTUP_TIMEOUT)
            return 1
        others = ["scheduler", "dag-processor"] + ([] if args.no_triggerer else ["triggerer"])
        print(f"the api-server answers; starting {', '.join(others)} ...", flush=True)
        # Heartbeats are stored with the database's clock, this machine's: started_at is comparable to them.
        started_at = datetime.now(timezone.utc).replace(microsecond=0)
        for name in others:
            children.append(start(home, name, airflow(name), env))

        def running(document: dict[str, Any]) -> bool:
            return beat_since(document, "scheduler", started_at) and beat_since(document, "dag_processor", started_at)

        if wait_for(url, children, STARTUP_TIMEOUT, running) is None:
            report_failure(children, "the scheduler and dag-processor sent no heartbeat", STARTUP_TIMEOUT)
            return 1
        print(
            f"\nAirflow is running: {url}\n"
            "No login needed: every visitor is admin (simple auth manager, all_admins = True).\n"
            f"REST API: {url}/api/v2 (for example curl {url}/api/v2/dags)\n"
            f"Hopsworks tab (windows, coverage) of an example DAG: {url}/dags/offset_25h/plugin/hopsworks\n"
            "Press Ctrl-C to stop every component.\n",
            flush=True,
        )
        while True:
            for child in children:
                if child.process.poll() is not None:
                    print(
                        f"{child.name} exited with code {child.process.returncode}; stopping the others.\n"
                        f"{tail(child.log)}",
                        file=sys.stderr,
                    )
                    status = 1
                    raise Shutdown(child.name)
            time.sleep(1.0)
    except Shutdown:
        pass
    finally:
        # A second Ctrl-C must not interrupt the shutdown half-way and leave processes behind.
        for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(signum, signal.SIG_IGN)
        if children:
            print("stopping Airflow ...", flush=True)
            # The scheduler and the others first: none of them can then queue work the api-server never sees.
            stop(list(reversed(children)))
            print("stopped.", flush=True)
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
