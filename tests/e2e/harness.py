"""A real Airflow 3 (api-server, scheduler, dag-processor, LocalExecutor) on SQLite, for end-to-end tests.

:class:`AirflowStack` owns one Airflow home: its metadata database, its DAG folder, its free ports on 127.0.0.1
and the process groups of the components it started. Everything is configured through ``AIRFLOW__*``
environment variables so that nothing of the caller's own Airflow set-up leaks in.

Whatever the harness starts is stopped when the test process ends, however it ends: a normal exit (atexit),
SIGTERM or SIGHUP (a handler), or SIGKILL and any other death (a watchdog process, ``reaper.py``, that notices
the end of a pipe only the test process holds). Every process started through :func:`spawn` or a stack carries a
marker of this test process in its environment (``E2E_REAPER_OWNER``), so its descendants are found even when they
leave its process group: Airflow's task processes, Celery's pool, a daemonized Redis.

Timestamps read back from the metadata database are timezone-aware UTC ``datetime`` objects.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import secrets
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from types import FrameType
from typing import IO, Any, Protocol, TypeVar

import psutil

from hops_timetable._compat import AIRFLOW_VERSION

COMPONENTS = ("api-server", "control-api", "scheduler", "dag-processor")
"""``control-api`` is a second api-server, serving only the public REST API, that the tests alone call.

Airflow's audit log of REST calls commits through a blocking SQLite session inside an ``async`` dependency, which
stalls the api-server's event loop until SQLite's busy timeout when another request of the same process holds
the write lock. Keeping the tests' calls off the api-server that serves the tasks' execution API keeps such a
stall from ever reaching a task.
"""

API_SERVERS = ("api-server", "control-api")
"""Stopped last: a task that still runs calls the execution API until it ends."""

T = TypeVar("T")

UPSTREAM_SCHEDULER_CRASH = "sqlalchemy.orm.exc.StaleDataError: UPDATE statement on table 'dag_run'"
"""The one way Airflow's own scheduler is known to die in these tests, restarted as a supervisor would.

Airflow's scheduler loop can lose a race over ``dag_run`` rows and exit on an unhandled ``StaleDataError``
(reported upstream as apache/airflow#63926, open; seen here a few times in several hundred stacks, all under load on
SQLite, in a scheduler loop of Airflow's own with no frame of this package). A deployment runs the scheduler under
a supervisor that starts it again, and so does the harness for this exception only, when no frame of
``hops_timetable`` is in its traceback, at most :data:`UPSTREAM_RESTARTS` times per stack. Any other exit of a
component fails the test at once.
"""

UPSTREAM_RESTARTS = 2


class StackError(RuntimeError):
    """A component did not start, died, or a condition was not reached in time."""


# Under pytest-xdist each worker takes its ports from a block of its own, below Linux's ephemeral range (32768 and
# up): a port the kernel picked for port 0 is free only until the component binds it, and in between another
# worker's kernel pick could return the same one. Serial runs let the kernel pick.
_PORT_BLOCK_START = 20000
_PORT_BLOCK_SIZE = 1000
_PORT_BLOCKS = 12  # 20000-31999: the blocks that fit below the ephemeral range
_next_port_in_block = 0


def _worker_index() -> int | None:
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    return int(worker[2:]) if worker.startswith("gw") and worker[2:].isdigit() else None


def _bindable(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now; under pytest-xdist, one this worker never gave out."""
    global _next_port_in_block
    index = _worker_index()
    if index is None:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
            sock.bind(("127.0.0.1", 0))
            return int(sock.getsockname()[1])
    block = _PORT_BLOCK_START + (index % _PORT_BLOCKS) * _PORT_BLOCK_SIZE
    while _next_port_in_block < _PORT_BLOCK_SIZE:
        port = block + _next_port_in_block
        _next_port_in_block += 1
        if _bindable(port):
            return port
    last = block + _PORT_BLOCK_SIZE - 1
    raise StackError(f"pytest-xdist worker {index} has used every port of its block {block}-{last}")


OWNER_VARIABLE = "E2E_REAPER_OWNER"
"""Not HOPS_*: the tests record every HOPS_* variable a task sees, and this one would be among them."""


class _Reaper:
    """The stop of last resort for everything this test process started (see the module docstring)."""

    def __init__(self) -> None:
        self.marker = f"{os.getpid()}-{uuid.uuid4().hex}"
        # Reentrant: the SIGTERM handler reaps on the main thread, possibly while that thread is inside _send.
        self._lock = threading.RLock()
        self._watchdog: subprocess.Popen[bytes] | None = None
        self._pipe: IO[bytes] | None = None
        self._handlers_installed = False

    def environment(self) -> dict[str, str]:
        """The variables every process the harness starts must carry; starts the watchdog on first use."""
        self._ensure_watchdog()
        return {OWNER_VARIABLE: self.marker}

    def adopt(self, group: int) -> None:
        """Stop process group ``group`` (a component started in a session of its own) with the test process."""
        self._send(f"group {group}")

    def release(self, group: int) -> None:
        """Forget a group the harness stopped itself: its id may be reused by an unrelated process later."""
        self._send(f"release {group}")

    def reap(self) -> None:
        """Stop everything now and wait for it: the watchdog reaps once its pipe is closed, then exits."""
        with self._lock:
            watchdog, pipe = self._watchdog, self._pipe
            self._watchdog = self._pipe = None
        if watchdog is None or pipe is None:
            return
        with contextlib.suppress(OSError):
            pipe.close()
        with contextlib.suppress(subprocess.TimeoutExpired):
            watchdog.wait(timeout=60)

    def _send(self, line: str) -> None:
        self._ensure_watchdog()
        with self._lock:
            if self._pipe is not None:
                with contextlib.suppress(OSError):
                    self._pipe.write(f"{line}\n".encode())
                    self._pipe.flush()

    def _ensure_watchdog(self) -> None:
        with self._lock:
            if self._watchdog is not None and self._watchdog.poll() is None:
                return
            env = {key: value for key, value in os.environ.items() if key != OWNER_VARIABLE}
            self._watchdog = subprocess.Popen(
                [sys.executable, str(Path(__file__).with_name("reaper.py")), OWNER_VARIABLE, self.marker],
                stdin=subprocess.PIPE,
                stdout=subprocess.DEVNULL,
                env=env,
                # Its own session: Ctrl-C in the terminal, or a signal to the test's process group, must not stop
                # the one process that cleans up after them.
                start_new_session=True,
            )
            self._pipe = self._watchdog.stdin
            if not self._handlers_installed:
                self._handlers_installed = True
                atexit.register(self.reap)
                self._install_signal_handlers()

    def _install_signal_handlers(self) -> None:
        # SIGINT is pytest's own (KeyboardInterrupt, then the fixtures' teardown, then atexit); SIGTERM and SIGHUP
        # end a process without running atexit. Python installs handlers from the main thread only.
        if threading.current_thread() is not threading.main_thread():
            return
        for signum in (signal.SIGTERM, signal.SIGHUP):
            previous = signal.getsignal(signum)
            if previous not in (signal.SIG_DFL, None):
                continue  # someone else handles it; atexit and the watchdog still cover the exit

            def on_signal(received: int, frame: FrameType | None) -> None:
                self.reap()
                signal.signal(received, signal.SIG_DFL)
                os.kill(os.getpid(), received)

            signal.signal(signum, on_signal)


_REAPER = _Reaper()


def owner_environment() -> dict[str, str]:
    """The environment marker that ties a process to this test process's reaper (for scripts that daemonize)."""
    return _REAPER.environment()


def adopt_process_group(group: int) -> None:
    """Stop process group ``group`` with the test process (one started in a session of its own, not by spawn)."""
    _REAPER.adopt(group)


def spawn(
    command: Sequence[str], *, env: Mapping[str, str], log: Path, cwd: Path | None = None
) -> subprocess.Popen[bytes]:
    """Start ``command`` in a process group of its own, its output in ``log``, stopped with the test process."""
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("ab") as out:
        process = subprocess.Popen(
            list(command),
            env={**env, **owner_environment()},
            cwd=cwd,
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
    _REAPER.adopt(process.pid)
    return process


def stop_process_group(
    process: subprocess.Popen[bytes], sig: signal.Signals = signal.SIGTERM, grace: float = 20.0
) -> None:
    """Send ``sig`` to a process group :func:`spawn` started, SIGKILL it after ``grace`` seconds, and reap it.

    Descendants that left the group are collected first and killed if they outlive their parent.
    """
    try:
        descendants = psutil.Process(process.pid).children(recursive=True)
    except psutil.NoSuchProcess:
        descendants = []
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, sig)
    try:
        process.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=10)
    _, alive = psutil.wait_procs(descendants, timeout=5)
    for child in alive:
        with contextlib.suppress(psutil.NoSuchProcess):
            child.kill()
    psutil.wait_procs(alive, timeout=5)
    # A group member that is neither the leader nor a descendant (re-parented early) still has the group id.
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
    _REAPER.release(process.pid)


def utc(text: str | None) -> datetime | None:
    """A metadata-database timestamp (naive UTC text) as an aware UTC datetime."""
    if text is None:
        return None
    value = datetime.fromisoformat(text)
    return value.replace(tzinfo=timezone.utc) if value.tzinfo is None else value.astimezone(timezone.utc)


def utcnow() -> datetime:
    return datetime.now(timezone.utc)


def airflow_env(home: Path, *, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The process environment for Airflow commands on ``home``, without any inherited ``AIRFLOW*`` setting."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("AIRFLOW")}
    env.update(
        {
            "AIRFLOW_HOME": str(home),
            # SQLite allows one writer at a time; five components write, so wait for the lock far longer than the
            # driver's default 5 s before giving up with "database is locked": a backfill that gives up deletes the
            # runs it made, and a scheduler holding one of them exits (ObjectDeletedError). Only the tests call the
            # control-api, whose event loop such a wait can stall (COMPONENTS).
            "AIRFLOW__DATABASE__SQL_ALCHEMY_CONN": f"sqlite:///{home / 'airflow.db'}?timeout=60",
            # A task's call to the execution API can wait that long for the lock too: past Airflow's 5 s default
            # (3.1.1 on; earlier minors ignore it) the call and its retries ran out and the task failed on a loaded
            # machine.
            "AIRFLOW__WORKERS__EXECUTION_API_TIMEOUT": "90",
            "AIRFLOW__CORE__LOAD_EXAMPLES": "False",
            "AIRFLOW__CORE__EXECUTOR": "LocalExecutor",
            # Python buffers a child's output when it is a file; the logs must be complete when a test fails.
            "PYTHONUNBUFFERED": "1",
        }
    )
    env.update(extra or {})
    return env


def run_migrate(home: Path, env: Mapping[str, str]) -> None:
    """``airflow db migrate`` with *env*, its output kept in ``home/migrate.log`` and shown when it fails."""
    home.mkdir(parents=True, exist_ok=True)
    log = home / "migrate.log"
    with log.open("wb") as out:
        result = subprocess.run(
            [sys.executable, "-m", "airflow", "db", "migrate"],
            env=dict(env),
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            check=False,
            timeout=300,
        )
    if result.returncode != 0:
        raise StackError(f"airflow db migrate failed ({result.returncode}):\n{log.read_text()[-4000:]}")


def migrate_database(home: Path) -> Path:
    """Create an Airflow home with a freshly migrated SQLite metadata database; returns the database file."""
    run_migrate(home, airflow_env(home))
    return home / "airflow.db"


def copy_database(source: Path, target: Path) -> None:
    """Copy a SQLite database consistently (the online backup API also folds in a pending WAL), in WAL mode.

    In SQLite's default rollback-journal mode a reader (the tests' queries, the api-servers' reads) keeps a writer
    from committing, and on a loaded machine a scheduler waited out the busy timeout and exited with "database is
    locked" in the middle of a repair's backfill. In WAL mode readers and the one writer do not wait for each other;
    the mode is stored in the database file, so every component opens it so.
    """
    target.parent.mkdir(parents=True, exist_ok=True)
    with contextlib.closing(sqlite3.connect(source)) as src, contextlib.closing(sqlite3.connect(target)) as dst:
        src.backup(dst)
        mode = dst.execute("PRAGMA journal_mode=WAL").fetchone()[0]
    if mode != "wal":
        raise StackError(f"{target}: SQLite kept journal mode {mode!r} where WAL was asked for")


@dataclass(frozen=True)
class Run:
    """One ``dag_run`` row."""

    dag_id: str
    run_id: str
    run_type: str
    logical_date: datetime | None
    data_interval_start: datetime | None
    data_interval_end: datetime | None
    run_after: datetime
    state: str
    queued_at: datetime | None
    start_date: datetime | None
    end_date: datetime | None
    created_at: datetime | None
    conf: str | None


@dataclass
class _Component:
    name: str
    process: subprocess.Popen[bytes]
    log: Path
    started_at: datetime
    command: Sequence[str] | None = None
    script: Path | None = None


class AirflowStack:
    """Airflow's api-server, scheduler and dag-processor on one fresh home, started and stopped by process id.

    ``env`` overrides or adds ``AIRFLOW__*`` settings (for example a shorter orphan check for a crash test).
    """

    def __init__(self, home: Path, dags_folder: Path, env: Mapping[str, str] | None = None) -> None:
        self.home = home
        self.dags_folder = dags_folder
        self.api_port = free_port()
        self.control_port = free_port()
        self.base_url = f"http://127.0.0.1:{self.api_port}"
        self.control_url = f"http://127.0.0.1:{self.control_port}"
        self.db_path = home / "airflow.db"
        self._components: dict[str, _Component] = {}
        self._admin_token: str | None = None
        self._log_generation: dict[str, int] = {}
        self.upstream_restarts: list[str] = []
        """The exception line of each scheduler exit restarted as :data:`UPSTREAM_SCHEDULER_CRASH`."""
        settings = {
            "AIRFLOW__CORE__DAGS_FOLDER": str(dags_folder),
            "AIRFLOW__CORE__SIMPLE_AUTH_MANAGER_ALL_ADMINS": "True",
            "AIRFLOW__CORE__DAGS_ARE_PAUSED_AT_CREATION": "True",
            "AIRFLOW__CORE__PARALLELISM": "6",
            "AIRFLOW__CORE__MAX_ACTIVE_RUNS_PER_DAG": "16",
            "AIRFLOW__CORE__EXECUTION_API_SERVER_URL": f"{self.base_url}/execution/",
            # One secret for every component: the scheduler signs task tokens the api-server must accept.
            "AIRFLOW__API_AUTH__JWT_SECRET": secrets.token_hex(64),
            "AIRFLOW__API__HOST": "127.0.0.1",
            "AIRFLOW__API__PORT": str(self.api_port),
            "AIRFLOW__API__BASE_URL": self.base_url,
            "AIRFLOW__API__WORKERS": "1",
            # Two stacks at once must not fight over the default log-server ports.
            "AIRFLOW__LOGGING__WORKER_LOG_SERVER_PORT": str(free_port()),
            "AIRFLOW__LOGGING__TRIGGER_LOG_SERVER_PORT": str(free_port()),
            # A fast loop: new DAG files are parsed within about a second; known ones are re-parsed every 10 s.
            "AIRFLOW__DAG_PROCESSOR__REFRESH_INTERVAL": "1",
            "AIRFLOW__DAG_PROCESSOR__BUNDLE_REFRESH_CHECK_INTERVAL": "1",
            "AIRFLOW__DAG_PROCESSOR__MIN_FILE_PROCESS_INTERVAL": "10",
            "AIRFLOW__DAG_PROCESSOR__PARSING_PROCESSES": "1",
            "AIRFLOW__DAG_PROCESSOR__PRINT_STATS_INTERVAL": "0",
            "AIRFLOW__SCHEDULER__SCHEDULER_IDLE_SLEEP_TIME": "0.2",
            "AIRFLOW__SCHEDULER__SCHEDULER_HEARTBEAT_SEC": "1",
            "AIRFLOW__SCHEDULER__SCHEDULER_HEALTH_CHECK_THRESHOLD": "10",
        }
        settings.update(env or {})
        self.env = airflow_env(home, extra=settings)

    # -- lifecycle ---------------------------------------------------------------------------------------------

    def start(self, timeout: float = 120.0) -> None:
        """Start every component and wait until the health endpoint reports them all healthy."""
        self.dags_folder.mkdir(parents=True, exist_ok=True)
        for name in COMPONENTS:
            self.start_component(name)
        self.wait_healthy(timeout=timeout)

    def stop(self) -> None:
        """Stop every running component: SIGTERM to its process group, SIGKILL to whatever outlives a grace time.

        In two waves, the components of a wave stopped at the same time: first whatever makes or runs tasks (the
        scheduler, the dag-processor and the ones started under other names: second schedulers, workers, helper
        scripts), then the api-servers, which those tasks call until they end. One component after the other, a
        stack's teardown took 30 to 57 s on a loaded 2-core machine, most of it waiting for one shutdown at a time.
        """
        servers = [name for name in self._components if name in API_SERVERS]
        # The stack is done with: a task still running (a scenario's long task) need not finish, and a scheduler
        # waits for its tasks on SIGTERM. Half the grace of a stop within a scenario.
        self.stop_components([name for name in self._components if name not in API_SERVERS], grace=10.0)
        self.stop_components(servers, grace=10.0)

    def stop_components(self, names: Sequence[str], grace: float = 20.0) -> None:
        """Stop the components ``names`` at the same time (as :meth:`stop_component` does each)."""
        if len(names) <= 1:
            for name in names:
                self.stop_component(name, grace)
            return
        with ThreadPoolExecutor(max_workers=len(names)) as pool:
            # list(): an error in one stop is raised here, after the others ran.
            list(pool.map(lambda name: self.stop_component(name, grace), names))

    def __enter__(self) -> AirflowStack:
        self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def start_component(self, name: str, command: Sequence[str] | None = None, *, script: Path | None = None) -> None:
        """Start ``airflow <name>`` in its own process group, its output in ``<home>/logs/<name>.<n>.log``.

        ``command`` (the arguments after ``airflow``) starts a component the harness does not know under ``name``,
        such as a second scheduler or a Celery worker; with ``script``, ``command`` is that Python script's
        arguments instead (a helper process such as a proxy, stopped with the stack all the same).
        """
        if script is not None and command is None:
            raise ValueError("script= needs command=, the script's arguments")
        if command is None and name not in COMPONENTS:
            raise ValueError(f"component={name!r} is not one of {COMPONENTS}")
        running = self._components.get(name)
        if running is not None and running.process.poll() is None:
            raise StackError(f"component {name!r} already runs as pid {running.process.pid}")
        generation = self._log_generation.get(name, 0) + 1
        self._log_generation[name] = generation
        log = self.home / "component-logs" / f"{name}.{generation}.log"
        program = ["-m", "airflow"] if script is None else [str(script)]
        process = spawn(
            [sys.executable, *program, *(self._command(name) if command is None else command)],
            env=self.env,
            log=log,
            cwd=self.home,
        )
        self._components[name] = _Component(name, process, log, utcnow(), command, script)

    def _command(self, name: str) -> list[str]:
        if name == "api-server":
            return ["api-server", "--apps", "all", "--port", str(self.api_port)]
        if name == "control-api":
            return ["api-server", "--apps", "core", "--port", str(self.control_port)]
        return [name]

    def stop_component(self, name: str, grace: float = 20.0) -> None:
        """Stop one component gracefully (SIGTERM), then SIGKILL what is left of it; a no-op if it is not running."""
        component = self._components.pop(name, None)
        if component is None:
            return
        self._signal_tree(component, signal.SIGTERM, grace)

    def kill_component(self, name: str, sig: signal.Signals = signal.SIGKILL) -> None:
        """Send ``sig`` to the component's whole process group (a crash, when ``sig`` is SIGKILL) and reap it."""
        component = self._components.pop(name, None)
        if component is None or component.process.poll() is not None:
            raise StackError(f"component {name!r} is not running")
        self._signal_tree(component, sig, grace=10.0)

    def _signal_tree(self, component: _Component, sig: signal.Signals, grace: float) -> None:
        stop_process_group(component.process, sig, grace)

    def restart_exited(self) -> list[str]:
        """Start again, as a process supervisor would, every component whose process has exited; their names."""
        exited = [c for c in self._components.values() if c.process.poll() is not None]
        for component in exited:
            del self._components[component.name]
            self.start_component(component.name, component.command, script=component.script)
        return [c.name for c in exited]

    def component_log(self, name: str) -> Path:
        """The log file of the running component *name*."""
        return self._components[name].log

    def pids(self) -> dict[str, int]:
        """Process ids of the components that are running now."""
        return {name: c.process.pid for name, c in self._components.items() if c.process.poll() is None}

    def _check_alive(self, names: tuple[str, ...]) -> None:
        for name in names:
            component = self._components.get(name)
            if component is None or component.process.poll() is None:
                continue
            crash = _last_traceback(component.log)
            if name == "scheduler" and len(self.upstream_restarts) < UPSTREAM_RESTARTS and _is_upstream_crash(crash):
                self.upstream_restarts.append(crash[-1])
                print(f"harness: restarting the scheduler after Airflow's own crash: {crash[-1]}", file=sys.stderr)
                del self._components[name]
                self.start_component(name, component.command, script=component.script)
                continue
            # The head of the last traceback too: the tail alone starts deep inside SQLAlchemy.
            head = "\n".join(crash[:40])
            raise StackError(
                f"component {name!r} exited with code {component.process.returncode}:\n"
                f"{head}\n...\n{_tail(component.log, 60)}"
            )

    def wait_healthy(self, timeout: float = 120.0) -> None:
        """Wait until the api-server answers and has seen a heartbeat from every running component since it started.

        Fails early, with the log, if a component process exits.
        """
        running = [name for name in COMPONENTS if name in self.pids()]

        def healthy() -> bool:
            self._check_alive(tuple(running))
            try:
                if "api-server" in running:
                    with urllib.request.urlopen(f"{self.base_url}/api/v2/monitor/health", timeout=10):
                        pass
                health = self.api("GET", "/api/v2/monitor/health", retries=0)
            except (OSError, StackError):
                return False
            if health.get("metadatabase", {}).get("status") != "healthy":
                return False
            for name, key in (("scheduler", "scheduler"), ("dag-processor", "dag_processor")):
                if name not in running:
                    continue
                beat = health.get(key, {}).get(f"latest_{key}_heartbeat")
                if beat is None or utc(beat) is None:
                    return False
                beat_at = utc(beat)
                assert beat_at is not None
                if beat_at < self._components[name].started_at:
                    return False
            return True

        self.wait_until(healthy, timeout=timeout, what="all components healthy")

    # -- observation -------------------------------------------------------------------------------------------

    def wait_until(
        self, predicate: Callable[[], T | None], timeout: float, *, interval: float = 0.25, what: str = "condition"
    ) -> T:
        """Poll ``predicate`` until it returns a truthy value, which is returned; raise :class:`StackError` on timeout.

        Also fails as soon as a component that should run has died, so a crash is not reported as a timeout.
        """
        deadline = time.monotonic() + timeout
        while True:
            self._check_alive(tuple(self._components))
            value = predicate()
            if value:
                return value
            if time.monotonic() > deadline:
                raise StackError(f"timed out after {timeout:.0f}s waiting for {what}")
            time.sleep(interval)

    def query(self, sql: str, params: tuple[Any, ...] = ()) -> list[sqlite3.Row]:
        """Rows of a read-only query on the metadata database."""
        with contextlib.closing(sqlite3.connect(f"file:{self.db_path}?mode=ro", uri=True, timeout=30)) as conn:
            conn.row_factory = sqlite3.Row
            return list(conn.execute(sql, params))

    def runs(self, dag_id: str) -> list[Run]:
        """Every DAG run of ``dag_id``, oldest ``run_after`` first."""
        # dag_run.created_at exists from Airflow 3.2; on 3.0 and 3.1 the scheduler creates scheduled runs queued, so
        # queued_at is when the row was created.
        created = "created_at" if AIRFLOW_VERSION >= (3, 2) else "queued_at AS created_at"
        rows = self.query(
            "SELECT dag_id, run_id, run_type, logical_date, data_interval_start, data_interval_end, run_after,"
            f" state, queued_at, start_date, end_date, {created}, conf FROM dag_run WHERE dag_id = ?"
            " ORDER BY run_after, id",
            (dag_id,),
        )
        result = []
        for row in rows:
            run_after = utc(row["run_after"])
            assert run_after is not None
            conf = row["conf"]
            result.append(
                Run(
                    dag_id=row["dag_id"],
                    run_id=row["run_id"],
                    run_type=row["run_type"],
                    logical_date=utc(row["logical_date"]),
                    data_interval_start=utc(row["data_interval_start"]),
                    data_interval_end=utc(row["data_interval_end"]),
                    run_after=run_after,
                    state=row["state"],
                    queued_at=utc(row["queued_at"]),
                    start_date=utc(row["start_date"]),
                    end_date=utc(row["end_date"]),
                    created_at=utc(row["created_at"]),
                    conf=conf if conf is None or isinstance(conf, str) else bytes(conf).hex(),
                )
            )
        return result

    def dag_model(self, dag_id: str) -> dict[str, Any] | None:
        """The ``dag`` row of ``dag_id`` (next_dagrun, next_dagrun_create_after, is_paused, ...), or None."""
        rows = self.query("SELECT * FROM dag WHERE dag_id = ?", (dag_id,))
        return dict(rows[0]) if rows else None

    def wait_for_dag(self, dag_id: str, timeout: float = 60.0) -> dict[str, Any]:
        """Wait until the dag-processor has parsed ``dag_id`` and stored its first next run."""

        def parsed() -> dict[str, Any] | None:
            model = self.dag_model(dag_id)
            # Airflow 3.0 and 3.1 clear next_dagrun_create_after while max_active_runs are running; next_dagrun
            # stays set once computed.
            stored = model is not None and (model.get("next_dagrun_create_after") or model.get("next_dagrun"))
            return model if stored else None

        return self.wait_until(parsed, timeout=timeout, what=f"DAG {dag_id!r} parsed")

    def import_errors(self) -> list[str]:
        """Import errors the dag-processor recorded for the DAG folder."""
        return [f"{row['filename']}: {row['stacktrace']}" for row in self.query("SELECT * FROM import_error")]

    # -- control through the REST API --------------------------------------------------------------------------

    def api(self, method: str, path: str, body: Any = None, timeout: float = 90.0, retries: int = 3) -> Any:
        """Call the REST API of ``control-api``; an HTTP error raises :class:`StackError` with the response body."""
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.control_url + path, data=data, method=method)
        request.add_header("Accept", "application/json")
        if data is not None:
            request.add_header("Content-Type", "application/json")
        if self._admin_token:
            request.add_header("Authorization", f"Bearer {self._admin_token}")
        for attempt in range(retries + 1):
            try:
                with urllib.request.urlopen(request, timeout=timeout) as response:
                    payload = response.read()
                return json.loads(payload) if payload else None
            except urllib.error.HTTPError as error:
                detail = error.read().decode(errors="replace")
                if error.code == 401 and not self._admin_token and self._fetch_admin_token():
                    return self.api(method, path, body, timeout, retries - attempt)
                # SQLite's single writer lock sometimes times out inside the api-server under load; the calls
                # retried here (pause, unpause, trigger with a fixed run id) are safe to repeat.
                if error.code >= 500 and "Database error" in detail and attempt < retries:
                    time.sleep(1.0)
                    continue
                raise StackError(f"{method} {path} -> {error.code}: {detail}") from None
        raise AssertionError("unreachable")

    def _fetch_admin_token(self) -> bool:
        """Get a token of the all-admins mode from ``GET /auth/token``; False where that mode is off.

        Airflow 3.0's and 3.3's all-admins mode admits a request without a token through a middleware that 3.1 does
        not have; 3.1 answers such a request 401, so the REST calls then carry the token this route hands out.
        """
        if self.env.get("AIRFLOW__CORE__SIMPLE_AUTH_MANAGER_ALL_ADMINS", "").lower() != "true":
            return False
        # Under a base_url path the auth manager's routes are served under it (the REST API's with it or without).
        prefix = urllib.parse.urlsplit(self.env.get("AIRFLOW__API__BASE_URL", "")).path.rstrip("/")
        with urllib.request.urlopen(f"{self.control_url}{prefix}/auth/token", timeout=30) as response:
            self._admin_token = str(json.loads(response.read())["access_token"])
        return True

    def pause(self, dag_id: str) -> None:
        self.api("PATCH", f"/api/v2/dags/{dag_id}", {"is_paused": True})

    def unpause(self, dag_id: str) -> None:
        self.api("PATCH", f"/api/v2/dags/{dag_id}", {"is_paused": False})

    def trigger(
        self,
        dag_id: str,
        conf: Mapping[str, Any] | None = None,
        *,
        logical_date: datetime | None = None,
        run_id: str | None = None,
    ) -> dict[str, Any]:
        """Trigger a manual run as the UI's plain "Trigger" does: no logical date unless one is given.

        Returns the API's DAG run; ``run_id`` defaults to a fresh unique id.
        """
        run_id = run_id or f"manual__e2e_{uuid.uuid4().hex[:12]}"
        body: dict[str, Any] = {
            "dag_run_id": run_id,
            "logical_date": None if logical_date is None else logical_date.isoformat(),
            "conf": dict(conf or {}),
        }
        for _ in range(4):
            try:
                result: dict[str, Any] = self.api("POST", f"/api/v2/dags/{dag_id}/dagRuns", body, retries=0)
                return result
            except StackError as error:
                if "Database error" not in str(error):
                    raise
                # The run may have been committed before the audit-log insert failed.
                if any(run.run_id == run_id for run in self.runs(dag_id)):
                    existing: dict[str, Any] = self.api("GET", f"/api/v2/dags/{dag_id}/dagRuns/{run_id}")
                    return existing
                time.sleep(1.0)
        raise StackError(f"could not trigger {dag_id!r}: the api-server kept failing with database errors")

    # -- diagnostics -------------------------------------------------------------------------------------------

    def logs(self, lines: int = 150) -> str:
        """The last ``lines`` lines of every component log, newest generation last, for a failure report."""
        parts = []
        for log in sorted((self.home / "component-logs").glob("*.log")):
            parts.append(f"===== {log.name} =====\n{_tail(log, lines)}")
        return "\n".join(parts)


def traceback_blocks(text: str) -> list[list[str]]:
    """Each ``Traceback (most recent call last):`` block of a log, up to and with its exception line (the first
    line after it that is not indented)."""
    blocks: list[list[str]] = []
    current: list[str] | None = None
    for line in text.splitlines():
        if line.startswith("Traceback (most recent call last):"):
            current = [line]
            blocks.append(current)
        elif current is not None:
            current.append(line)
            if line and not line[0].isspace():
                current = None
    return blocks


def _last_traceback(path: Path) -> list[str]:
    """The last of :func:`traceback_blocks` of a log; empty if none."""
    try:
        blocks = traceback_blocks(path.read_text(errors="replace"))
    except OSError:
        return []
    return blocks[-1] if blocks else []


def _is_upstream_crash(block: list[str]) -> bool:
    return (
        bool(block)
        and block[-1].startswith(UPSTREAM_SCHEDULER_CRASH)
        and not any("hops_timetable" in line for line in block)
    )


def _tail(path: Path, lines: int) -> str:
    try:
        text = path.read_text(errors="replace")
    except OSError as error:
        return f"<cannot read {path.name}: {error}>"
    return "\n".join(text.splitlines()[-lines:])


def floor_to(value: datetime, step_seconds: int) -> datetime:
    """The latest fire of an every-``step_seconds`` cron (aligned to the epoch, as ``0/5 * * * * ?`` is) <= value."""
    seconds = int(value.timestamp()) // step_seconds * step_seconds
    return datetime.fromtimestamp(seconds, timezone.utc)


def ceil_to(value: datetime, step_seconds: int) -> datetime:
    """The earliest fire of an every-``step_seconds`` cron >= value."""
    floor = floor_to(value, step_seconds)
    return floor if floor == value else datetime.fromtimestamp(floor.timestamp() + step_seconds, timezone.utc)


class StackFactory(Protocol):
    """Starts a fresh stack named ``name`` (with extra ``AIRFLOW__*`` settings); the fixture stops it afterwards."""

    def __call__(self, name: str, env: Mapping[str, str] | None = None, start: bool = True) -> AirflowStack: ...
