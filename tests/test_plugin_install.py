"""The built wheel, installed into a fresh environment, is enough: Airflow finds the plugin and parses the examples.

Builds the wheel and sdist with ``uv build`` (or takes the wheel in ``TEST_WHEEL``, as ``.ci/run`` builds it once),
installs the wheel, not the checkout, into a new virtual environment on this interpreter's Python, with every
dependency taken from the pinned set of the Airflow minor this test runs on (``constraints/airflow-X.Y.txt``), then
asks that environment's ``airflow plugins`` what it loaded and has it parse an example DAG. ``.ci/run`` runs this
on the oldest and the newest Airflow minor.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import pytest

from hops_timetable._compat import AIRFLOW_VERSION

pytestmark = pytest.mark.wheel

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "dags"


def _run(*command: str, cwd: Path = ROOT, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, env=env, check=False)
    if done.returncode != 0:
        raise AssertionError(f"{' '.join(command)} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
    return done


def _clean_env(home: Path, plugins: Path) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if not key.startswith(("AIRFLOW", "VIRTUAL_ENV"))}
    env.update(
        AIRFLOW_HOME=str(home),
        AIRFLOW__CORE__PLUGINS_FOLDER=str(plugins),
        AIRFLOW__CORE__LOAD_EXAMPLES="False",
        # Nothing of the checkout may be importable: the installed wheel must stand alone.
        PYTHONPATH="",
    )
    return env


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    given = os.environ.get("TEST_WHEEL")
    if given:
        return Path(given)
    uv = shutil.which("uv")
    if uv is None:
        pytest.skip("uv is not on PATH; scripts/test installs it")
    out = tmp_path_factory.mktemp("dist")
    _run(uv, "build", "-q", "--out-dir", str(out))
    (found,) = out.glob("hops_timetable-*.whl")
    assert list(out.glob("hops_timetable-*.tar.gz")), "uv build made no sdist"
    return found


@pytest.fixture(scope="module")
def fresh_venv(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    uv = shutil.which("uv")
    if uv is None:
        pytest.skip("uv is not on PATH; scripts/test installs it")
    constraints = ROOT / "constraints" / f"airflow-{AIRFLOW_VERSION[0]}.{AIRFLOW_VERSION[1]}.txt"
    assert constraints.is_file(), f"no pinned set for the Airflow this runs on: {constraints}"
    venv = tmp_path_factory.mktemp("fresh") / "venv"
    _run(uv, "venv", "-q", str(venv), "--python", sys.executable)
    _run(
        uv,
        "pip",
        "install",
        "-q",
        "--compile-bytecode",
        "--python",
        str(venv / "bin" / "python"),
        "-c",
        str(constraints),
        str(wheel),
    )
    return venv


def test_the_wheel_holds_the_package_the_license_and_the_entry_points(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        metadata_name = next(n for n in names if n.endswith(".dist-info/METADATA"))
        metadata = archive.read(metadata_name).decode()
        entry_points = archive.read(next(n for n in names if n.endswith(".dist-info/entry_points.txt"))).decode()
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names), names
    assert "hops_timetable/_compat.py" in names
    assert "hops_timetable/py.typed" in names
    assert not any(n.startswith(("tests/", "dags/", "scripts/")) for n in names)
    assert "Requires-Dist: apache-airflow>=3.0\n" in metadata
    assert "Requires-Dist: apache-airflow-providers-standard" in metadata
    requires = [line for line in metadata.splitlines() if line.startswith("Requires-Dist:")]
    assert not any("croniter" in line for line in requires), requires
    assert "Classifier: Framework :: Apache Airflow :: Provider" in metadata
    assert "License-Expression: Apache-2.0" in metadata
    assert "hops_timetable = hops_timetable.plugin:HopsTimetablePlugin" in entry_points
    assert "provider_info = hops_timetable.provider:get_provider_info" in entry_points


def _json_document(stdout: str) -> Any:
    """The JSON a command printed: Airflow 3.0's CLI writes its log lines to stdout too, before the document."""
    for start in range(len(stdout)):
        if stdout[start] in "[{" and (start == 0 or stdout[start - 1] == "\n"):
            try:
                return json.loads(stdout[start:])
            except json.JSONDecodeError:
                continue
    raise AssertionError(f"no JSON document in {stdout[-2000:]!r}")


def test_airflow_plugins_lists_the_timetable_in_a_fresh_environment(fresh_venv: Path, tmp_path: Path) -> None:
    empty = tmp_path / "no-plugins-here"
    empty.mkdir()
    done = _run(
        str(fresh_venv / "bin" / "airflow"),
        "plugins",
        "--output",
        "json",
        cwd=tmp_path,
        env=_clean_env(tmp_path / "home", empty),
    )
    plugins = {plugin["name"]: plugin for plugin in _json_document(done.stdout)}
    assert "hops_timetable" in plugins, done.stdout
    assert plugins["hops_timetable"]["timetables"] == ["hops_timetable.timetable.HopsworksTimetable"]
    assert "airflow.plugins" in plugins["hops_timetable"]["source"]
    assert not any(empty.iterdir())


PARSE = """
import json, sys
import hops_timetable
from hops_timetable._compat import dag_bag_class
bag = dag_bag_class()(dag_folder=sys.argv[1])
dag = bag.dags["offset_25h"]
print(json.dumps({
    "package": hops_timetable.__file__,
    "errors": {str(k): v for k, v in bag.import_errors.items()},
    "timetable": type(dag.timetable).__module__ + "." + type(dag.timetable).__qualname__,
    "offset": dag.timetable.start_time_offset_seconds,
}))
"""


def test_the_installed_wheel_parses_an_example_dag(fresh_venv: Path, tmp_path: Path) -> None:
    folder = tmp_path / "dags"
    folder.mkdir()
    shutil.copyfile(EXAMPLES / "offset_25h.py", folder / "offset_25h.py")
    done = _run(
        str(fresh_venv / "bin" / "python"),
        "-c",
        PARSE,
        str(folder),
        cwd=tmp_path,
        env=_clean_env(tmp_path / "home", tmp_path / "plugins"),
    )
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["errors"] == {}
    assert Path(result["package"]).is_relative_to(fresh_venv), result["package"]
    assert result["timetable"] == "hops_timetable.timetable.HopsworksTimetable"
    assert result["offset"] == 25 * 3600
