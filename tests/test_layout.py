"""The layers on disk, checked over the package's import graph (every import, also those inside functions).

* ``hops_timetable.core``: the pure core. Standard library and the core only: never Airflow, pendulum, the
  adapters or the tools.
* the Airflow adapters (``timetable``, ``schedule``, ``plugin``, ``provider``, ``_compat``, ``operators``, ``ui``
  and the documented re-export ``cron``): the core and Airflow, never the tools.
* ``hops_timetable.cli``: the tools. Anything.
* no cycles between modules, imports under ``if TYPE_CHECKING:`` included: a cycle hidden from the interpreter is
  still two modules that cannot be read apart. For the layers those imports are left out: they never run.
* no module over 400 lines.
* ``core/cron``: the syntax (text to the parsed form) builds no evaluator, the explanation reads the parsed form
  only, and the evaluator raises no syntax error.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
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


def _walk(node: ast.AST, type_checking: bool) -> Iterator[ast.AST]:
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.If) and _is_type_checking(child) and not type_checking:
            yield from (n for body in child.orelse for n in [body, *_walk(body, type_checking)])
            continue
        yield child
        yield from _walk(child, type_checking)


def imports(module: str, type_checking: bool = False) -> set[str]:
    """The modules *module* imports, resolved: ``from hops_timetable.cli import audit`` names ``...cli.audit``.

    With ``type_checking``, also those under ``if TYPE_CHECKING:``.
    """
    tree = ast.parse(MODULES[module].read_text(encoding="utf-8"))
    package = module if MODULES[module].name == "__init__.py" else module.rpartition(".")[0]
    out: set[str] = set()
    for node in _walk(tree, type_checking):
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
# What a module needs to be read, type checking included: the graph that must have no cycles.
TYPED_GRAPH = {module: imports(module, type_checking=True) for module in MODULES}


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
    internal = {m: {n for n in names if n in MODULES and n != m} for m, names in TYPED_GRAPH.items()}
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
    # counts for the cycles only, and a relative import resolves to the module it names.
    source = (
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    import airflow\n    from hops_timetable.core.cron.engine import QuartzCron\n"
        "def f():\n    import pendulum\n"
        "from . import window\n"
        "from hops_timetable.core.catchup import CatchupPolicy\n"
    )
    path = PACKAGE / "core" / "_layout_probe.py"
    MODULES["hops_timetable.core._layout_probe"] = path
    try:
        path.write_text(source, encoding="utf-8")
        found = imports("hops_timetable.core._layout_probe")
        typed = imports("hops_timetable.core._layout_probe", type_checking=True)
    finally:
        path.unlink()
        del MODULES["hops_timetable.core._layout_probe"]
    assert "pendulum" in found and "airflow" not in found and "hops_timetable.core.window" in found
    assert "hops_timetable.core.catchup" in found and "hops_timetable.core" not in found
    assert "hops_timetable.core.cron.engine" not in found
    assert typed == found | {"airflow", "hops_timetable.core.cron.engine"}


# ---------------------------------------------------------------------------------------------------------
# Module size

MAX_LINES = 400


def lines(module: str) -> int:
    return len(MODULES[module].read_text(encoding="utf-8").splitlines())


def test_no_module_is_over_400_lines() -> None:
    over = [f"{module}: {lines(module)} lines" for module in sorted(MODULES) if lines(module) > MAX_LINES]
    assert over == [], f"split these modules (at most {MAX_LINES} lines each): " + "; ".join(over)


# ---------------------------------------------------------------------------------------------------------
# core/cron: the syntax, the evaluator and the explanation apart

CRON = f"{ROOT}.core.cron"
CRON_SYNTAX = {f"{CRON}.{name}" for name in ("form", "reader", "quartz", "unix")}
CRON_EVALUATOR = {f"{CRON}.engine"}


def reached(module: str) -> set[str]:
    """Every package module *module* needs, directly or through others, type checking included."""
    seen: set[str] = set()
    todo = [module]
    while todo:
        for name in TYPED_GRAPH[todo.pop()]:
            if name in MODULES and name not in seen:
                seen.add(name)
                todo.append(name)
    return seen


def test_cron_modules_are_the_ones_named_here() -> None:
    cron = {m for m in MODULES if m.startswith(f"{CRON}.")}
    assert cron == CRON_SYNTAX | CRON_EVALUATOR | {f"{CRON}.explain"}, "place a new core/cron module in a group"


@pytest.mark.parametrize("module", sorted(CRON_SYNTAX))
def test_the_cron_syntax_builds_no_evaluator_and_no_explanation(module: str) -> None:
    found = reached(module) & (CRON_EVALUATOR | {f"{CRON}.explain", CRON})
    assert found == set(), f"{module} needs {sorted(found)}"


def test_the_cron_explanation_reads_the_parsed_form_only() -> None:
    assert reached(f"{CRON}.explain") == {f"{CRON}.form"}


@pytest.mark.parametrize("module", sorted(CRON_EVALUATOR))
def test_the_cron_evaluator_raises_no_syntax_error(module: str) -> None:
    # It parses through quartz.parse, which raises every refusal; the evaluator itself neither builds nor raises one.
    assert GRAPH[module] & {f"{CRON}.reader"} == set()
    tree = ast.parse(MODULES[module].read_text(encoding="utf-8"))
    named = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}
    named |= {node.attr for node in ast.walk(tree) if isinstance(node, ast.Attribute)}
    assert named & {"CronSyntaxError", "Refusal", "fail"} == set()


# ---------------------------------------------------------------------------------------------------------
# Each command imports only what it runs

# The audit's client, report and repair, the coverage, the simulator and parity: none of them is what `next` runs.
NOT_FOR_NEXT = (
    f"{ROOT}.cli.audit",
    f"{ROOT}.cli.parity",
    f"{ROOT}.core.coverage",
    f"{ROOT}.core.repair",
    f"{ROOT}.core.simulate",
    f"{ROOT}.core.parity",
)


def test_next_loads_no_audit_coverage_or_simulator_module() -> None:
    # The modules loaded by the end of the run, not `-X importtime`'s list: that times `import` statements only, and
    # the command module itself comes through importlib.import_module.
    script = (
        "import json, sys\n"
        "from hops_timetable.cli.app import main\n"
        "status = main(['next', '0 0 * ? * * *', '-n', '1'])\n"
        "print(json.dumps([status, sorted(sys.modules)]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    status, loaded = json.loads(done.stdout.splitlines()[-1])
    assert status == 0 and f"{ROOT}.cli.next" in loaded and f"{ROOT}.core.cron.engine" in loaded
    assert [m for m in loaded if m.startswith(NOT_FOR_NEXT)] == []


@pytest.mark.parametrize(
    ("command", "option", "required"), [("audit", "--repair", "--api"), ("parity", "--grace", "--hopsworks-schedule")]
)
def test_a_command_whose_module_declares_its_options_has_them_when_parsed(
    command: str, option: str, required: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # The parser of every command is built without importing audit or parity; their options come with the command.
    from hops_timetable.cli.app import main

    assert main([command, "--help"]) == 0
    assert option in capsys.readouterr().out
    assert main([command]) == 2
    assert f"the following arguments are required: {required}" in capsys.readouterr().err


def test_every_error_class_of_the_package_derives_from_its_base() -> None:
    """One exception family: ``except HopsTimetableError`` catches whatever the package raises on purpose."""
    import importlib
    import pkgutil

    import hops_timetable
    from hops_timetable import HopsTimetableError

    found = []
    for info in pkgutil.walk_packages(hops_timetable.__path__, "hops_timetable."):
        if info.name.endswith("__main__"):  # runs the command line when imported
            continue
        module = importlib.import_module(info.name)
        for value in vars(module).values():
            is_error = isinstance(value, type) and issubclass(value, Exception) and not issubclass(value, Warning)
            if is_error and value.__module__ == info.name:
                found.append(f"{value.__module__}.{value.__qualname__}")
                assert issubclass(value, HopsTimetableError), found[-1]
    assert (
        "hops_timetable.core.legacy_args.LegacyArgsError" in found and "hops_timetable.cli.errors.AuditError" in found
    )


def test_the_package_raises_only_its_own_errors_and_protocol_ones() -> None:
    """No ``raise ValueError(...)`` and the like: a caller's ``except HopsTimetableError`` must see every refusal.

    Python's and the frameworks' protocols keep their own types: ``AttributeError`` from a module ``__getattr__``,
    FastAPI's ``HTTPException`` from a route, ``AssertionError`` for what cannot happen, ``IndexError`` and
    ``KeyError`` from a sequence's or a mapping's ``__getitem__`` only. A builtin raised and caught in the same
    function (to be turned into a package error there) is listed by name.
    """
    import builtins

    protocol = {"AttributeError", "HTTPException", "AssertionError", "NotImplementedError", "StopIteration"}
    caught_where_raised = {("core/time_text.py", "ValueError")}
    builtin_errors = {
        name for name, value in vars(builtins).items() if isinstance(value, type) and issubclass(value, Exception)
    }
    wrong = []
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(PACKAGE).as_posix()
        tree = ast.parse(path.read_text(encoding="utf-8"))
        lookups = {
            id(node)
            for function in ast.walk(tree)
            if isinstance(function, ast.FunctionDef) and function.name == "__getitem__"
            for node in ast.walk(function)
        }
        for node in ast.walk(tree):
            if not isinstance(node, ast.Raise) or not isinstance(node.exc, ast.Call):
                continue
            func = node.exc.func
            name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
            if name in protocol or (relative, name) in caught_where_raised:
                continue
            if name in ("IndexError", "KeyError") and id(node) in lookups:
                continue
            if name in builtin_errors:
                wrong.append(f"{relative}:{node.lineno} raises {name}")
    assert not wrong, wrong


def test_date_time_text_is_read_only_by_the_time_text_module() -> None:
    """One grammar of date-time text: no ``fromisoformat`` or ``strptime`` outside ``core/time_text.py``."""
    wrong = [
        f"{path.relative_to(PACKAGE).as_posix()}:{node.lineno} calls {node.attr}"
        for path in sorted(PACKAGE.rglob("*.py"))
        if path.relative_to(PACKAGE).as_posix() != "core/time_text.py"
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Attribute) and node.attr in ("fromisoformat", "strptime")
    ]
    assert not wrong, wrong
