"""Installing the package is enough: Airflow finds the plugin through its entry point, with no plugins folder.

Builds the package into a new virtual environment (dependencies pinned by the lock file) and asks that
environment's ``airflow plugins`` what it loaded.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _run(*command: str) -> None:
    subprocess.run(command, check=True, cwd=ROOT, capture_output=True, text=True)


@pytest.fixture(scope="module")
def fresh_venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    uv = shutil.which("uv")
    if uv is None:
        pytest.skip("uv is not on PATH; scripts/test installs it")
    work = tmp_path_factory.mktemp("fresh")
    requirements = work / "requirements.txt"
    venv = work / "venv"
    _run(uv, "export", "--frozen", "--no-dev", "--no-emit-project", "--no-hashes", "-q", "-o", str(requirements))
    _run(uv, "venv", "-q", str(venv), "--python", sys.executable)
    _run(uv, "pip", "install", "-q", "--python", str(venv / "bin" / "python"), "-r", str(requirements), str(ROOT))
    return venv


def test_airflow_plugins_lists_the_timetable_in_a_fresh_environment(fresh_venv: Path, tmp_path: Path) -> None:
    empty = tmp_path / "no-plugins-here"
    empty.mkdir()
    env = {key: value for key, value in os.environ.items() if not key.startswith("AIRFLOW")}
    env.update(
        AIRFLOW_HOME=str(tmp_path / "home"),
        AIRFLOW__CORE__PLUGINS_FOLDER=str(empty),
        AIRFLOW__CORE__LOAD_EXAMPLES="False",
    )
    done = subprocess.run(
        [str(fresh_venv / "bin" / "airflow"), "plugins", "--output", "json"],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    )
    plugins = {plugin["name"]: plugin for plugin in json.loads(done.stdout)}
    assert "hops_timetable" in plugins, done.stdout
    assert plugins["hops_timetable"]["timetables"] == ["hops_timetable.timetable.HopsworksTimetable"]
    assert "airflow.plugins" in plugins["hops_timetable"]["source"]
    assert not any(empty.iterdir())
