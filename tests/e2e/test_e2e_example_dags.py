"""The example DAGs: as a real dag-processor parses them, and as ``scripts/run-airflow`` runs them for a newcomer.

The dag-processor parses every file again every ``min_file_process_interval`` (10 s here); a DAG whose constructor
arguments change between parses gets a new version each time, and Airflow 3.2+ records a DAG warning for a
constructor argument that varies at runtime. Both are read back from the metadata database after two parses.

The run command (``scripts/run_airflow.py``, what ``scripts/run-airflow`` runs after ``uv sync``) is started as a
user starts it, on a fresh home: every first run of the four example DAGs (the 24 runs of the bounded catch-up and
one run of each other DAG) must succeed, no scheduler may run before the api-server answers (a task queued earlier
fails on an execution API that does not listen yet), and Ctrl-C must leave no process behind.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import sqlite3
import sys
import time
import urllib.request
from pathlib import Path

import psutil
import pytest
from harness import StackFactory, free_port, spawn, stop_process_group

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "dags"
FIRST_RUNS = {"bounded_catchup": 24, "hourly_feature_pipeline": 1, "daily_job": 1, "offset_25h": 1}
"""How many runs each example DAG gets at once on a fresh install: the catch-up bound, else the latest fire."""


def test_example_dags_record_no_dag_warning_and_keep_one_version(stacks: StackFactory) -> None:
    stack = stacks("examples", start=False)
    stack.dags_folder.mkdir(parents=True, exist_ok=True)
    for path in sorted(EXAMPLES.glob("*.py")):
        shutil.copyfile(path, stack.dags_folder / path.name)
    stack.start_component("dag-processor")
    dag_ids = {"hourly_feature_pipeline", "daily_job", "offset_25h", "bounded_catchup"}
    for dag_id in sorted(dag_ids):
        stack.wait_for_dag(dag_id, timeout=120)
    first = {row["dag_id"]: row["last_parsed_time"] for row in stack.query("SELECT dag_id, last_parsed_time FROM dag")}

    def reparsed() -> bool:
        rows = stack.query("SELECT dag_id, last_parsed_time FROM dag")
        return all(row["last_parsed_time"] != first[row["dag_id"]] for row in rows if row["dag_id"] in dag_ids)

    stack.wait_until(reparsed, timeout=90, what="every example DAG parsed a second time")
    assert stack.import_errors() == []
    warnings = [dict(row) for row in stack.query("SELECT * FROM dag_warning")]
    assert warnings == []
    versions = {
        row["dag_id"]: row["n"] for row in stack.query("SELECT dag_id, COUNT(*) AS n FROM dag_version GROUP BY dag_id")
    }
    assert versions == dict.fromkeys(dag_ids, 1)


def _descendants(pid: int) -> list[psutil.Process]:
    with contextlib.suppress(psutil.NoSuchProcess):
        return list(psutil.Process(pid).children(recursive=True))
    return []


COMPONENTS = ("api-server", "scheduler", "dag-processor", "triggerer")


def _names(processes: list[psutil.Process]) -> set[str]:
    """The Airflow components among ``processes``, by their command lines (which some of them retitle)."""
    names = set()
    for process in processes:
        with contextlib.suppress(psutil.Error):
            command = " ".join(process.cmdline()).replace("_", "-")
            names.update(name for name in COMPONENTS if name in command)
    return names


def _answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/api/v2/monitor/health", timeout=10) as response:
            return bool(response.status == 200)
    except OSError:
        return False


def _with_home(home: Path) -> list[psutil.Process]:
    """Every process whose environment names ``home`` as its Airflow home: the components and their task processes."""
    found = []
    for process in psutil.process_iter():
        with contextlib.suppress(psutil.Error):
            if process.environ().get("AIRFLOW_HOME") == str(home) and process.status() != psutil.STATUS_ZOMBIE:
                found.append(process)
    return found


def _runs(database: Path) -> list[sqlite3.Row]:
    if not database.exists():
        return []
    with contextlib.closing(sqlite3.connect(f"file:{database}?mode=ro", uri=True, timeout=30)) as conn:
        conn.row_factory = sqlite3.Row
        try:
            return list(conn.execute("SELECT dag_id, run_id, state FROM dag_run"))
        except sqlite3.OperationalError:  # not migrated yet
            return []


# scripts/run-airflow, the newcomer's command, always sets up the development environment (uv.lock): tested there only.
@pytest.mark.one_minor
def test_run_airflow_gives_every_example_dag_green_first_runs_and_ctrl_c_stops_everything(tmp_path: Path) -> None:
    home = tmp_path / "home"
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    log = tmp_path / "run-airflow.log"
    env = {key: value for key, value in os.environ.items() if not key.startswith("AIRFLOW")}
    launcher = spawn(
        [sys.executable, str(ROOT / "scripts" / "run_airflow.py"), "--home", str(home), "--port", str(port)],
        env=env,
        log=log,
        cwd=tmp_path,
    )
    try:
        deadline = time.monotonic() + 420
        early: set[str] = set()
        # Before the api-server answers, the launcher runs the api-server (and db migrate) only. The process list
        # is read before the health check, so a scheduler seen there was started before the answer seen after.
        while "Airflow is running" not in log.read_text():
            assert launcher.poll() is None, f"scripts/run-airflow exited with {launcher.returncode}:\n{log.read_text()}"
            assert time.monotonic() < deadline, f"scripts/run-airflow did not start:\n{log.read_text()}"
            names = _names(_descendants(launcher.pid))
            if not _answers(url):
                early |= names - {"api-server"}
            time.sleep(0.2)
        assert early == set(), f"started before the api-server answered: {early}"
        assert set(COMPONENTS) <= _names(_descendants(launcher.pid))

        def first_runs_done() -> bool:
            runs = _runs(home / "airflow.db")
            counts = {dag_id: sum(1 for run in runs if run["dag_id"] == dag_id) for dag_id in FIRST_RUNS}
            finished = all(run["state"] in ("success", "failed") for run in runs)
            return finished and all(counts[dag_id] >= need for dag_id, need in FIRST_RUNS.items())

        while not first_runs_done():
            assert launcher.poll() is None, f"scripts/run-airflow exited with {launcher.returncode}:\n{log.read_text()}"
            assert time.monotonic() < deadline + 480, (
                f"first runs not finished: {[dict(r) for r in _runs(home / 'airflow.db')]}"
            )
            time.sleep(2.0)
        runs = _runs(home / "airflow.db")
        failed = [f"{run['dag_id']} {run['run_id']}" for run in runs if run["state"] != "success"]
        logs = "\n".join(path.read_text(errors="replace")[-3000:] for path in sorted((home / "logs").glob("*.log")))
        assert failed == [], f"{len(failed)} of {len(runs)} first runs failed: {failed}\n{logs}"

        # Ctrl-C: the terminal sends SIGINT to the foreground process group, the launcher's.
        started = _with_home(home)
        assert len(started) >= 4
        os.killpg(launcher.pid, signal.SIGINT)
        assert launcher.wait(timeout=120) == 0, log.read_text()[-3000:]
        _, alive = psutil.wait_procs(started, timeout=10)
        assert [p.pid for p in alive if p.is_running() and p.status() != psutil.STATUS_ZOMBIE] == []
        assert _with_home(home) == []
        assert "stopped." in log.read_text()
    finally:
        if launcher.poll() is None:
            stop_process_group(launcher)
        for process in _with_home(home):
            with contextlib.suppress(psutil.Error):
                process.kill()
