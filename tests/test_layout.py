"""The layers on disk, checked over the package's import graph (every import, also those inside functions).

* ``hops_timetable.core``: the pure core. Standard library and the core only: never Airflow, pendulum, the
  adapters or the tools.
* the Airflow adapters (``timetable``, ``schedule``, ``plugin``, ``provider``, ``_compat``, ``operators``, ``ui``
  and the documented re-export ``cron``): the core and Airflow, never the tools.
* ``hops_timetable.cli``: the tools. Anything.
* no cycles between modules. Imports under ``if TYPE_CHECKING:`` are left out: they never run.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import hops_timetable

PACKAGE = Path(hops_timetable.__file__).parent
ROOT = "hops_timetable"


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _walk(node: ast.AST) -> Iterator[ast.AST]:
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.If) and _is_type_checking(child):
            yield from (n for body in child.orelse for n in [body, *_walk(body)])
            continue
        yield child
        yield from _walk(child)


def imports(module: str) -> set[str]:
    """The modules *module* imports, resolved: ``from hops_timetable.cli import audit`` names ``...cli.audit``."""
    tree = ast.parse(MODULES[module].read_text(encoding="utf-8"))
    package = module if MODULES[module].name == "__init__.py" else module.rpartition(".")[0]
    out: set[str] = set()
    for node in _walk(tree):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            submodules = {f"{base}.{alias.name}" for alias in node.names} & MODULES.keys()
            out.update(submodules)
            # Names that are not submodules come from the package itself (its __init__).
            if len(submodules) < len(node.names):
                out.add(base)
    return out


def layer(module: str) -> str:
    if module == f"{ROOT}.core" or module.startswith(f"{ROOT}.core."):
        return "core"
    if module == f"{ROOT}.cli" or module.startswith(f"{ROOT}.cli.") or module == f"{ROOT}.testing":
        return "tools"
    return "adapters"


GRAPH = {module: imports(module) for module in MODULES}


def test_the_package_has_the_three_layers() -> None:
    assert {layer(m) for m in MODULES} == {"core", "adapters", "tools"}
    assert f"{ROOT}.core.cron.engine" in MODULES and f"{ROOT}.cli.app" in MODULES


@pytest.mark.parametrize("module", sorted(m for m in MODULES if layer(m) == "core"))
def test_the_core_imports_only_the_standard_library_and_itself(module: str) -> None:
    outside = sorted(
        name
        for name in GRAPH[module]
        if not (
            name.split(".")[0] in sys.stdlib_module_names or name == f"{ROOT}.core" or name.startswith(f"{ROOT}.core.")
        )
    )
    assert outside == [], f"{module} imports {outside}"


@pytest.mark.parametrize("module", sorted(m for m in MODULES if layer(m) == "adapters"))
def test_an_adapter_imports_no_tool(module: str) -> None:
    tools = sorted(name for name in GRAPH[module] if name.startswith(ROOT) and layer(name) == "tools")
    assert tools == [], f"{module} imports {tools}"


def test_no_module_imports_itself_back_through_others() -> None:
    internal = {m: {n for n in names if n in MODULES and n != m} for m, names in GRAPH.items()}
    cycles: list[list[str]] = []
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(internal[node]):
            if state.get(nxt) == 1:
                cycles.append([*stack[stack.index(nxt) :], nxt])
            elif nxt not in state:
                visit(nxt)
        stack.pop()
        state[node] = 2

    for module in sorted(internal):
        if module not in state:
            visit(module)
    assert cycles == [], " ; ".join(" -> ".join(c) for c in cycles)


def test_the_checker_sees_what_it_must_refuse() -> None:
    # The checker itself, on the shapes it must catch: a lazy import inside a function counts, a TYPE_CHECKING one
    # does not, and a relative import resolves to the module it names.
    source = (
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    import airflow\n"
        "def f():\n    import pendulum\n"
        "from . import window\n"
        "from hops_timetable.core.catchup import CatchupPolicy\n"
    )
    path = PACKAGE / "core" / "_layout_probe.py"
    MODULES["hops_timetable.core._layout_probe"] = path
    try:
        path.write_text(source, encoding="utf-8")
        found = imports("hops_timetable.core._layout_probe")
    finally:
        path.unlink()
        del MODULES["hops_timetable.core._layout_probe"]
    assert "pendulum" in found and "airflow" not in found and "hops_timetable.core.window" in found
    assert "hops_timetable.core.catchup" in found and "hops_timetable.core" not in found
