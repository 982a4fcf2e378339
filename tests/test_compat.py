"""hops_timetable/_compat.py is the one module that touches Airflow internals or checks Airflow's version."""

from __future__ import annotations

import ast
import importlib.metadata
from pathlib import Path

import airflow_versions
import pytest

from hops_timetable import _compat

PACKAGE = Path(__file__).resolve().parents[1] / "hops_timetable"

# Airflow's public interface as this package uses it: the timetable protocol, the plugin class, the Task SDK, the
# standard provider's operators, Airflow's own cron timetables (compared against in `compare`) and cluster policies.
PUBLIC = {
    "airflow.exceptions",
    "airflow.plugins_manager",
    # The documented way for a package to register cluster policies (the airflow.policy entry point).
    "airflow.policies",
    "airflow.sdk",
    "airflow.timetables.base",
    "airflow.timetables.interval",
    "airflow.timetables.trigger",
}
PUBLIC_PACKAGES = ("airflow.providers.standard.operators.",)
# Imported for annotations only (the type of a public timetable method's argument), never at run time.
TYPE_ONLY = ("airflow.models.dag", "airflow.utils.types")


def _airflow_imports(path: Path) -> list[tuple[str, int, bool]]:
    tree = ast.parse(path.read_text())
    type_only_lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for inner in ast.walk(node):
                type_only_lines.add(getattr(inner, "lineno", -1))
    found = []
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module]
        found.extend(
            (name, node.lineno, node.lineno in type_only_lines)
            for name in names
            if name == "airflow" or name.startswith("airflow.")
        )
    return found


def _is_public(module: str) -> bool:
    return module in PUBLIC or module.startswith(PUBLIC_PACKAGES)


def test_only_compat_imports_airflow_beyond_its_public_interface() -> None:
    offending = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.name == "_compat.py":
            continue
        for module, line, type_only in _airflow_imports(path):
            if _is_public(module) or (type_only and module in TYPE_ONLY):
                continue
            offending.append(f"{path.relative_to(PACKAGE.parent)}:{line}: {module}")
    assert offending == []


def test_the_scan_sees_the_internals_compat_imports() -> None:
    """The check above can fail: _compat.py itself imports modules outside the public list."""
    internals = [m for m, _, _ in _airflow_imports(PACKAGE / "_compat.py") if not _is_public(m)]
    assert {"airflow.sdk.bases.decorator", "airflow.models.serialized_dag", "airflow.models.dagrun"} <= set(internals)


def test_no_module_but_compat_reads_airflows_version() -> None:
    readers = [
        str(path.relative_to(PACKAGE.parent))
        for path in sorted(PACKAGE.rglob("*.py"))
        if path.name != "_compat.py" and "__version__" in path.read_text() and "airflow.__version__" in path.read_text()
    ]
    assert readers == []


def test_the_version_flags_match_the_installed_airflow() -> None:
    major, minor = (int(part) for part in importlib.metadata.version("apache-airflow-core").split(".")[:2])
    assert (major, minor) == _compat.AIRFLOW_VERSION
    assert (_compat.AIRFLOW_VERSION >= (3, 2)) == _compat.HAS_DAG_MODEL_HOOK


def test_the_dag_bag_and_serializer_are_airflows_own() -> None:
    bag = _compat.dag_bag_class()
    serializer = airflow_versions.dag_serialization_class()
    assert bag.__name__ == "DagBag"
    assert callable(serializer.to_dict) and callable(serializer.from_dict)
    assert callable(serializer.serialize_dag) and callable(serializer.deserialize_dag)


@pytest.mark.parametrize("context_has_ti", [True, False])
def test_executing_task_prefers_the_task_instances_task(context_has_ti: bool) -> None:
    class TaskInstance:
        def __init__(self, task: object) -> None:
            self.task = task

    parsed, running = object(), object()
    context = {"task": parsed, "ti": TaskInstance(running)} if context_has_ti else {"task": parsed}
    assert _compat.executing_task(context) is (running if context_has_ti else parsed)


def test_the_scheduler_look_ups_answer_unknown_when_they_cannot_ask(caplog: pytest.LogCaptureFixture) -> None:
    from datetime import datetime, timezone

    from airflow.models.dag import DagModel
    from sqlalchemy import create_engine
    from sqlalchemy.orm import Session

    at = datetime(2026, 1, 1, tzinfo=timezone.utc)
    detached = DagModel(dag_id="d")
    # No session: "taken" (the caller keeps the run Airflow checked) and no restriction.
    assert _compat.logical_date_taken(detached, at) is True
    assert _compat.stored_time_restriction(detached) is None
    # A database without Airflow's tables: every query fails, and each failure is logged, never raised.
    with Session(create_engine("sqlite://")) as session:
        session.add(attached := DagModel(dag_id="d"))
        assert _compat.logical_date_taken(attached, at) is True
        session.rollback()
        session.add(attached := DagModel(dag_id="d"))
        assert _compat.stored_time_restriction(attached) is None
    logged = [r.getMessage() for r in caplog.records if r.name == _compat.__name__]
    assert logged == [
        "dag d: could not check for a run at 2026-01-01T00:00:00+00:00",
        "dag d: could not read its serialized time restriction",
    ]
