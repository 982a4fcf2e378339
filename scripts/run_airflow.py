"""Run a local Airflow 3 with the hops_timetable plugin until Ctrl-C: the body of ``scripts/run-airflow``.

Airflow home is ``.airflow/`` in the repository (git-ignored), the metadata database SQLite at
``.airflow/airflow.db``, the DAG folder ``dags/``. It starts the api-server, scheduler, dag-processor and
triggerer as child processes, each in its own process group, prints where to open the UI, and on Ctrl-C or
SIGTERM stops every one of them and waits for them. Restarting keeps the database, so runs and history persist.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from types import FrameType

ROOT = Path(__file__).resolve().parent.parent
HOME = ROOT / ".airflow"
DAGS = ROOT / "dags"
DEFAULT_PORT = 8080


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


def airflow_environment(host: str, port: int) -> dict[str, str]:
    """Environment of every Airflow command: ours override inherited ``AIRFLOW__*`` values of the same name."""
    base_url = f"http://{host}:{port}"
    env = dict(os.environ)
    env.update(
        {
            "AIRFLOW_HOME": str(HOME),
            "AIRFLOW__DATABASE__SQL_ALCHEMY_CONN": f"sqlite:///{HOME / 'airflow.db'}?timeout=15",
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
            "AIRFLOW__API_AUTH__JWT_SECRET": jwt_secret(HOME),
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


def start(name: str, command: Sequence[str], env: dict[str, str]) -> Child:
    log = HOME / "logs" / f"{name}.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("ab") as out:
        process = subprocess.Popen(
            list(command),
            env=env,
            cwd=HOME,
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


def wait_until_healthy(url: str, children: Sequence[Child], timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for child in children:
            if child.process.poll() is not None:
                return False
        try:
            with urllib.request.urlopen(f"{url}/api/v2/monitor/health", timeout=5) as response:
                if response.status == 200:
                    return True
        except OSError:
            pass
        time.sleep(1.0)
    return False


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
    return parser.parse_args(argv)


def main(argv: Sequence[str]) -> int:
    args = parse_args(argv)
    if not 0 < args.port < 65536:
        print(f"--port={args.port} is not a TCP port; use 1..65535", file=sys.stderr)
        return 2
    HOME.mkdir(exist_ok=True)
    DAGS.mkdir(exist_ok=True)
    port = pick_port(args.host, args.port, "the api-server")
    env = airflow_environment(args.host, port)
    url = f"http://{args.host}:{port}"

    print(f"Airflow home {HOME}, DAG folder {DAGS}", flush=True)
    print("migrating the metadata database (airflow db migrate) ...", flush=True)
    migrate_log = HOME / "logs" / "db-migrate.log"
    migrate_log.parent.mkdir(parents=True, exist_ok=True)
    with migrate_log.open("wb") as out:
        migrated = subprocess.run(airflow("db", "migrate"), env=env, stdout=out, stderr=subprocess.STDOUT, check=False)
    if migrated.returncode != 0:
        print(f"airflow db migrate failed:\n{tail(migrate_log)}", file=sys.stderr)
        return 1

    children: list[Child] = []

    def on_signal(signum: int, frame: FrameType | None) -> None:
        raise Shutdown(signal.Signals(signum).name)

    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)
    status = 0
    try:
        components = ["api-server", "scheduler", "dag-processor"]
        if not args.no_triggerer:
            components.append("triggerer")
        for name in components:
            children.append(start(name, airflow(name), env))
        print(f"starting {', '.join(components)} (logs in {HOME / 'logs'}) ...", flush=True)
        if not wait_until_healthy(url, children, timeout=180):
            for child in children:
                if child.process.poll() is not None:
                    print(f"{child.name} exited early:\n{tail(child.log)}", file=sys.stderr)
            print("Airflow did not become healthy within 180 s", file=sys.stderr)
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
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        if children:
            print("stopping Airflow ...", flush=True)
            stop(children)
            print("stopped.", flush=True)
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
