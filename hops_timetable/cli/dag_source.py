"""The DAG file ``hops-timetable import`` writes, and the check that it holds nothing else.

Every field of an export is untrusted text from another system: a generated file holds names and values only as
``repr`` literals (never pasted into code, comments or docstrings), and each file is parsed back and its constants
compared with the schedule's before it is returned (:func:`verify_dag_file`).
"""

from __future__ import annotations

import ast
import keyword
import re
from collections.abc import Mapping
from datetime import datetime, timezone
from typing import TYPE_CHECKING

from hops_timetable.core.validation import short_repr

if TYPE_CHECKING:
    from hops_timetable.cli.importer import ImportedSchedule


def function_name(dag_id: str) -> str:
    func = re.sub(r"[^A-Za-z0-9_]", "_", dag_id)
    if not func.isidentifier() or keyword.iskeyword(func):
        func = f"dag_{func}"
    return func


def call_source(kwargs: Mapping[str, object]) -> str:
    """The ``hops_schedule(...)`` call as Python source."""
    lines = ["hops_schedule("]
    lines += [f"    {key}={_literal(value)}," for key, value in kwargs.items()]
    return "\n".join([*lines, ")"])


def dag_file(schedule: ImportedSchedule) -> str:
    """A ready DAG file scheduling *schedule*, checked by :func:`verify_dag_file`."""
    func = function_name(schedule.dag_id)
    call = call_source(schedule.kwargs).replace("\n", "\n    ")
    paused = "\n    is_paused_upon_creation=True," if schedule.paused else ""
    source = f"""{_string_literal(schedule.docstring())}

import os
from datetime import datetime, timezone

from airflow.sdk import dag

from hops_timetable import hops_schedule
from hops_timetable.operators import hops_task


@dag(
    dag_id={schedule.dag_id!r},
    **{call},{paused}
)
def {func}() -> None:
    # Hopsworks appends -start_time <HOPS_LOGICAL_DATE> to a scheduled job's arguments: sys.argv holds them.
    @hops_task(legacy_args="start_time")
    def run() -> None:
        # Replace with the job's code: it reads its window as it did in Hopsworks.
        start, end = os.environ.get("HOPS_START_TIME"), os.environ.get("HOPS_END_TIME")
        print(f"processing [{{start}}, {{end}})" if start else "manual run without a window")

    run()


{func}()
"""
    verify_dag_file(source, schedule)
    return source


def _string_literal(text: str) -> str:
    """One ``repr`` per line, implicitly concatenated, so the source reads as the text does."""
    lines = text.split("\n")
    if len(lines) == 1:
        return repr(text)
    parts = [repr(line + "\n") for line in lines[:-1]] + [repr(lines[-1])]
    return "(\n    " + "\n    ".join(parts) + "\n)"


def _literal(value: object) -> str:
    if isinstance(value, datetime):
        parts = [value.year, value.month, value.day, value.hour, value.minute, value.second, value.microsecond]
        while len(parts) > 3 and parts[-1] == 0:
            parts.pop()
        return f"datetime({', '.join(map(str, parts))}, tzinfo=timezone.utc)"
    if value is None or isinstance(value, (bool, int, str)):
        return repr(value)
    raise AssertionError(f"no literal for {type(value).__name__}")  # the importer builds no other values


_TEMPLATE_STRINGS = frozenset(
    {"HOPS_START_TIME", "HOPS_END_TIME", "start_time", "processing [", ", ", ")", "manual run without a window"}
)
_TEMPLATE_NAMES = frozenset(
    {"os", "datetime", "timezone", "dag", "hops_schedule", "hops_task", "run", "start", "end", "print", "None"}
)


def verify_dag_file(source: str, schedule: ImportedSchedule) -> None:
    """Raise ``AssertionError`` unless *source* is the DAG file of *schedule* and nothing else: its docstring, dag_id
    and ``hops_schedule`` arguments the schedule's, every other string and name the template's (a name pasted into
    code would add statements, names or strings)."""
    tree = ast.parse(source)
    func = function_name(schedule.dag_id)
    if ast.get_docstring(tree, clean=False) != schedule.docstring():
        raise AssertionError("the docstring differs from the schedule's")
    kinds = [type(node).__name__ for node in tree.body]
    if kinds != ["Expr", "Import", "ImportFrom", "ImportFrom", "ImportFrom", "ImportFrom", "FunctionDef", "Expr"]:
        raise AssertionError(f"unexpected statements {kinds}")
    definition = tree.body[6]
    assert isinstance(definition, ast.FunctionDef)
    if definition.name != func or len(definition.decorator_list) != 1:
        raise AssertionError("unexpected DAG function")
    decorator = definition.decorator_list[0]
    if not (isinstance(decorator, ast.Call) and isinstance(decorator.func, ast.Name) and decorator.func.id == "dag"):
        raise AssertionError("the DAG function is not decorated by @dag(...)")
    keywords = {kw.arg: kw.value for kw in decorator.keywords}
    expected_keys = {"dag_id", None} | ({"is_paused_upon_creation"} if schedule.paused else set())
    if set(keywords) != expected_keys or len(keywords) != len(decorator.keywords) or decorator.args:
        raise AssertionError(f"unexpected @dag arguments {sorted(map(str, keywords))}")
    if _constant(keywords["dag_id"]) != schedule.dag_id:
        raise AssertionError("the dag_id differs")
    call = keywords[None]
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "hops_schedule"):
        raise AssertionError("the schedule is not a hops_schedule(...) call")
    values = {kw.arg: _constant(kw.value) for kw in call.keywords}
    if call.args or values != schedule.kwargs or list(values) != list(schedule.kwargs):
        raise AssertionError("the hops_schedule arguments differ from the input")
    allowed_strings = _TEMPLATE_STRINGS | {schedule.docstring(), schedule.dag_id}
    allowed_strings |= {v for v in schedule.kwargs.values() if isinstance(v, str)}
    allowed_names = _TEMPLATE_NAMES | {func}
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value not in allowed_strings:
            raise AssertionError(f"unexpected string {short_repr(node.value)}")
        if isinstance(node, ast.Name) and node.id not in allowed_names:
            raise AssertionError(f"unexpected name {short_repr(node.id)}")


def _constant(node: ast.expr) -> object:
    """The value of a literal or of ``datetime(<ints>, tzinfo=timezone.utc)``; anything else is refused."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "datetime":
        tz = node.keywords[0].value if len(node.keywords) == 1 and node.keywords[0].arg == "tzinfo" else None
        if not (isinstance(tz, ast.Attribute) and tz.attr == "utc" and getattr(tz.value, "id", None) == "timezone"):
            raise AssertionError("a datetime literal without tzinfo=timezone.utc")
        parts = [ast.literal_eval(arg) for arg in node.args]
        if not all(type(p) is int for p in parts):
            raise AssertionError("a datetime literal with non-integer parts")
        return datetime(*parts).replace(tzinfo=timezone.utc)
    return ast.literal_eval(node)
