"""The README's install commands, run as written on a fresh copy of the checkout, are enough: Airflow finds the plugin.

The commands are read from README.md (the ``bash`` block after the ``<!-- install: ...`` marker) and run with bash
in a copy of the checkout's tracked files: ``uv build`` makes the wheel and sdist, a new virtual environment gets
the wheel, not the checkout, with every dependency taken from the pinned set of an Airflow minor
(``constraints/airflow-X.Y.txt``). The one change is the value of ``AIRFLOW_MINOR``, set to the minor this test runs
on (``.ci/run`` runs it on the oldest and the newest). That environment's ``airflow plugins`` must list the plugin,
and it must parse an example DAG. The wheel must hold the package and nothing else importable (no ``benchmarks``,
``tests``, ``dags``, ``scripts``), and the Dockerfile of docs/deployment.md must install the wheel those commands
build with a pinned set whose Airflow is the image's.
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


INSTALL_MARKER = "<!-- install:"
IMAGE_MARKER = "<!-- image:"
VENV = "airflow-venv"


def _block(document: Path, marker: str, language: str) -> str:
    """The fenced ``language`` block that follows ``marker`` in ``document``."""
    text = document.read_text()
    assert text.count(marker) == 1, f"{document.name} needs exactly one {marker!r} marker"
    after = text[text.index(marker) :]
    fence = f"```{language}\n"
    assert fence in after, f"no {language} block after {marker!r} in {document.name}"
    body = after[after.index(fence) + len(fence) :]
    return body[: body.index("```")]


def _minor() -> str:
    return f"{AIRFLOW_VERSION[0]}.{AIRFLOW_VERSION[1]}"


def install_commands() -> str:
    """README's install block, with ``AIRFLOW_MINOR`` set to the running minor (its only line that changes)."""
    block = _block(ROOT / "README.md", INSTALL_MARKER, "bash")
    lines = block.splitlines()
    assert lines[0].startswith("AIRFLOW_MINOR="), lines[0]
    return "\n".join([f"AIRFLOW_MINOR={_minor()}", *lines[1:]]) + "\n"


def _copy_checkout(target: Path) -> None:
    """The checkout's tracked files as they are now: what a fresh clone of this commit holds."""
    tracked = _run("git", "ls-files", "-z").stdout.split("\0")
    for name in filter(None, tracked):
        source = ROOT / name
        if source.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, subprocess.CompletedProcess[str]]:
    """A copy of the checkout after the README's install commands ran in it, and what they printed."""
    uv = shutil.which("uv")
    if uv is None:
        pytest.skip("uv is not on PATH; scripts/test installs it")
    clone = tmp_path_factory.mktemp("clone")
    _copy_checkout(clone)
    home = tmp_path_factory.mktemp("airflow-home")
    env = _clean_env(home, home / "plugins")
    # uv's own choice of Python would be the first on PATH; the constraints of this minor were tested on this one.
    env.update(UV_PYTHON=sys.executable, PATH=f"{Path(uv).parent}{os.pathsep}{env.get('PATH', '')}")
    done = _run("bash", "-euo", "pipefail", "-c", install_commands(), cwd=clone, env=env)
    return clone, done


@pytest.fixture(scope="module")
def wheel(installed: tuple[Path, subprocess.CompletedProcess[str]]) -> Path:
    clone, _ = installed
    (found,) = (clone / "dist").glob("hops_timetable-*.whl")
    assert list((clone / "dist").glob("hops_timetable-*.tar.gz")), "uv build made no sdist"
    return found


@pytest.fixture(scope="module")
def fresh_venv(installed: tuple[Path, subprocess.CompletedProcess[str]]) -> Path:
    clone, _ = installed
    return clone / VENV


def test_the_readme_commands_install_the_wheel_and_airflow_lists_the_plugin(
    installed: tuple[Path, subprocess.CompletedProcess[str]], fresh_venv: Path, wheel: Path
) -> None:
    _, done = installed
    # The last command is ``airflow plugins``: its table names the plugin and its timetable.
    assert "hops_timetable" in done.stdout and "HopsworksTimetable" in done.stdout, done.stdout[-3000:]
    uv = shutil.which("uv")
    assert uv is not None
    shown = _run(uv, "pip", "show", "--python", str(fresh_venv), "hops-timetable", "apache-airflow", cwd=fresh_venv)
    assert f"Version: {wheel.name.split('-')[1]}" in shown.stdout
    pins = _pins(ROOT / "constraints" / f"airflow-{_minor()}.txt")
    assert f"Version: {pins['apache-airflow']}" in shown.stdout


def _pins(constraints: Path) -> dict[str, str]:
    pins = {}
    for line in constraints.read_text().splitlines():
        name, sep, version = line.partition("==")
        if sep and not line.startswith(("#", " ")):
            pins[name.strip().lower()] = version.split(";")[0].strip()
    return pins


def test_the_wheel_installs_no_top_level_package_but_hops_timetable(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        tops = {name.split("/")[0] for name in archive.namelist()}
    assert {top for top in tops if not top.endswith(".dist-info")} == {"hops_timetable"}, sorted(tops)


def test_the_deployment_dockerfile_installs_the_wheel_the_readme_builds_with_its_airflows_pins(
    installed: tuple[Path, subprocess.CompletedProcess[str]], wheel: Path
) -> None:
    clone, _ = installed
    dockerfile = _block(ROOT / "docs" / "deployment.md", IMAGE_MARKER, "dockerfile")
    lines = dockerfile.replace("\\\n", " ").splitlines()
    (base,) = [line.split()[1] for line in lines if line.startswith("FROM ")]
    (copy,) = [line.split()[1:] for line in lines if line.startswith("COPY ")]
    (run,) = [line for line in lines if line.startswith("RUN ")]
    *sources, destination = copy
    # Every file it copies exists in the build context after the README's commands, the wheel by its exact name.
    for source in sources:
        assert (clone / source).is_file(), f"COPY {source}: not there after the README's commands"
    assert f"dist/{wheel.name}" in sources
    (constraints,) = [source for source in sources if source.startswith("constraints/")]
    image_airflow = base.split(":")[1].split("-")[0]
    assert _pins(clone / constraints)["apache-airflow"] == image_airflow, (base, constraints)
    words = run.split()
    assert words[words.index("-c") + 1] == destination + Path(constraints).name
    assert destination + wheel.name in words
    assert '"apache-airflow==${AIRFLOW_VERSION}"' in words


def test_the_wheel_holds_the_package_the_license_and_the_entry_points(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        metadata_name = next(n for n in names if n.endswith(".dist-info/METADATA"))
        metadata = archive.read(metadata_name).decode()
        entry_points = archive.read(next(n for n in names if n.endswith(".dist-info/entry_points.txt"))).decode()
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names), names
    assert "hops_timetable/_compat.py" in names
    assert "hops_timetable/py.typed" in names
    # The tab's React app, built and committed: installing needs no Node.js; its source stays out of the wheel.
    assert "hops_timetable/ui/static/hopsworks-tab.js" in names
    assert not any(n.startswith(("tests/", "dags/", "scripts/", "benchmarks/", "frontend/")) for n in names)
    assert "Requires-Dist: apache-airflow>=3.0\n" in metadata
    assert "Requires-Dist: apache-airflow-providers-standard" in metadata
    requires = [line for line in metadata.splitlines() if line.startswith("Requires-Dist:")]
    # croniter is read when a 5-field schedule is built (croniter_check), so it is declared, at Airflow 3.0's floor.
    assert "Requires-Dist: croniter>=2.0.2" in requires, requires
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
