"""``hops-timetable import``: a Hopsworks job schedule, as its REST API and Python SDK export it, as a DAG.

Input is the JSON of one schedule, a list of them, or a REST collection ``{"items": [...]}``; a job object holding
``jobSchedule`` is read too, its ``name`` becoming the job name. Keys (camelCase, dates in epoch milliseconds UTC):
``cronExpression``, ``startDateTime``, ``endDateTime``, ``skipToDate``, ``enabled``, ``catchup``, ``maxActiveRuns``,
``startTimeOffsetSeconds``, ``endTimeOffsetSeconds``, ``maxCatchupRuns`` and optionally ``jobName``.

What does not carry over is reported as a warning, never silently dropped: a disabled schedule (the DAG is created
paused), a negative start offset (written for the older offset model, in which the offset was added; it is turned
into the positive number of seconds subtracted now), an end offset (ignored, as in Hopsworks), unknown keys, a
dag_id shared with an earlier schedule (this one gets a suffix), and a cron expression this engine rejects (then the
schedule is an error and no DAG file is produced). Every value is checked by :mod:`hops_timetable.core.validation`.

Every field is untrusted text from another system. A generated DAG file holds names and values only as Python
literals built with ``repr`` (never pasted into code, comments or docstrings), and each file is parsed back and its
constants compared with the input before it is returned (:func:`verify_dag_file`). Dates keep their milliseconds.
A JSON document is limited to :data:`MAX_JSON_BYTES` and a nesting depth of :data:`MAX_JSON_DEPTH`. Pure: no
Airflow import; the produced DAG file imports Airflow when Airflow loads it.
"""

from __future__ import annotations

import argparse
import ast
import json
import keyword
import os
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Final

from hops_timetable.cli.errors import BadInput
from hops_timetable.cli.options import PROG
from hops_timetable.cli.output import emit
from hops_timetable.core.cron import CronSyntaxError, QuartzCron
from hops_timetable.core.validation import (
    ArgumentError,
    check_bool,
    check_catchup_runs,
    check_end_after_start,
    check_epoch_millis,
    check_max_active_runs,
    check_offset,
    check_window_start,
    short_repr,
)
from hops_timetable.core.window import format_hops_time

__all__ = [
    "MAX_JSON_BYTES",
    "MAX_JSON_DEPTH",
    "ImportedSchedule",
    "import_schedules",
    "load_json",
    "verify_dag_file",
    "write_dag_files",
]

MAX_JSON_BYTES: Final = 16 * 1024 * 1024
"""The largest JSON document read: 16 MiB, tens of thousands of schedules."""
MAX_JSON_DEPTH: Final = 32
"""The deepest nesting accepted; a Hopsworks export nests four levels."""
MAX_DAG_ID: Final = 200
"""Longest dag_id produced (Airflow allows 250); longer job names are cut and get a suffix."""

_DATE_KEYS = {"startDateTime": "start_time", "endDateTime": "end_time", "skipToDate": "skip_to_date"}
_KNOWN = {
    "cronExpression",
    *_DATE_KEYS,
    "enabled",
    "catchup",
    "maxActiveRuns",
    "startTimeOffsetSeconds",
    "endTimeOffsetSeconds",
    "maxCatchupRuns",
    "jobName",
}
# REST bookkeeping that says nothing about when the job runs.
_IGNORED = {"id", "href", "type", "nextExecutionDateTime"}


def load_json(raw: str, source: str) -> object:
    """Parse the JSON text *raw* read from *source*, refusing documents over the size or depth limits.

    Raises :class:`~hops_timetable.core.validation.ArgumentError` with one line naming *source* and the problem.
    """
    if len(raw) > MAX_JSON_BYTES:
        raise ArgumentError(
            source, None, f"{source} is larger than {MAX_JSON_BYTES:,} characters; split the export into smaller files"
        )
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as exc:
        message = f"{source} is not JSON: {exc.msg} at line {exc.lineno} column {exc.colno}"
        raise ArgumentError(source, None, message) from None
    except RecursionError:
        raise ArgumentError(source, None, _too_deep(source)) from None
    except ValueError as exc:  # a number of more digits than Python converts
        raise ArgumentError(source, None, f"{source} is not readable JSON: {exc}") from None
    stack: list[tuple[object, int]] = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, (dict, list)):
            if depth > MAX_JSON_DEPTH:
                raise ArgumentError(source, None, _too_deep(source))
            children = value.values() if isinstance(value, dict) else value
            stack.extend((child, depth + 1) for child in children if isinstance(child, (dict, list)))
    return data


def _too_deep(source: str) -> str:
    return f"{source} nests objects and lists deeper than {MAX_JSON_DEPTH} levels; a Hopsworks export nests four"


@dataclass
class ImportedSchedule:
    """One schedule read from the input: the ``hops_schedule`` keyword arguments and what did not carry over.

    ``kwargs`` holds Python values (aware UTC datetimes); ``errors`` non-empty means no DAG file is produced.
    """

    index: int
    job_name: str | None
    dag_id: str
    kwargs: dict[str, Any] = field(default_factory=dict)
    paused: bool = False
    warnings: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    @property
    def label(self) -> str:
        return f"schedule {self.index}" + (f" (job {short_repr(self.job_name)})" if self.job_name else "")

    def call(self) -> str:
        """The ``hops_schedule(...)`` call, as Python source: every value a literal."""
        lines = ["hops_schedule("]
        lines += [f"    {key}={_literal(value)}," for key, value in self.kwargs.items()]
        return "\n".join([*lines, ")"])

    @property
    def function_name(self) -> str:
        func = re.sub(r"[^A-Za-z0-9_]", "_", self.dag_id)
        if not func.isidentifier() or keyword.iskeyword(func):
            func = f"dag_{func}"
        return func

    def docstring(self) -> str:
        """The generated file's docstring: where the DAG came from and what did not carry over."""
        origin = f"job {self.job_name!r}" if self.job_name else f"schedule {self.index}"
        text = f"{self.dag_id}: scheduled as the Hopsworks {origin} was (generated by hops-timetable import)."
        if self.warnings:
            text += "\n\n" + "\n".join(f"Warning: {w}" for w in self.warnings)
        return text

    def dag_file(self) -> str | None:
        """A ready DAG file scheduling this job, or None when the schedule has errors.

        Every name and value enters the file as a ``repr`` literal; the result passes :func:`verify_dag_file`.
        """
        if self.errors:
            return None
        source = self._render()
        verify_dag_file(source, self)
        return source

    def _render(self) -> str:
        func = self.function_name
        call = self.call().replace("\n", "\n    ")
        paused = "\n    is_paused_upon_creation=True," if self.paused else ""
        return f"""{_string_literal(self.docstring())}

import os
from datetime import datetime, timezone

from airflow.sdk import dag

from hops_timetable import hops_schedule
from hops_timetable.operators import hops_task


@dag(
    dag_id={self.dag_id!r},
    **{call},{paused}
)
def {func}() -> None:
    @hops_task
    def run() -> None:
        # Replace with the job's code: it reads its window as it did in Hopsworks.
        start, end = os.environ.get("HOPS_START_TIME"), os.environ.get("HOPS_END_TIME")
        print(f"processing [{{start}}, {{end}})" if start else "manual run without a window")

    run()


{func}()
"""

    def as_json(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "job_name": self.job_name,
            "dag_id": self.dag_id,
            "kwargs": {k: _json_value(v) for k, v in self.kwargs.items()},
            "paused": self.paused,
            "call": None if self.errors else self.call(),
            "dag_file": self.dag_file(),
            "warnings": self.warnings,
            "errors": self.errors,
        }

    def text(self) -> list[str]:
        """The text report on stdout; errors are reported once, on stderr, by the command."""
        lines = [f"# {self.label} -> DAG {self.dag_id!r}"]
        lines += [f"warning: {w}" for w in self.warnings]
        if self.errors:
            lines.append(f"not imported: {len(self.errors)} error(s), see stderr")
        else:
            lines += ["", self.call(), "", f"# --- {self.dag_id}.py ---", (self.dag_file() or "").rstrip()]
        return lines


def _string_literal(text: str) -> str:
    """*text* as Python source: one ``repr`` per line, implicitly concatenated, so it reads as the text does."""
    lines = text.split("\n")
    if len(lines) == 1:
        return repr(text)
    parts = [repr(line + "\n") for line in lines[:-1]] + [repr(lines[-1])]
    return "(\n    " + "\n    ".join(parts) + "\n)"


def _json_value(value: object) -> object:
    if isinstance(value, datetime):
        text = format_hops_time(value)
        return text if value.microsecond == 0 else f"{text[:-1]}.{value.microsecond // 1000:03d}Z"
    return value


def _literal(value: object) -> str:
    if isinstance(value, datetime):
        parts = [value.year, value.month, value.day, value.hour, value.minute, value.second, value.microsecond]
        while len(parts) > 3 and parts[-1] == 0:
            parts.pop()
        return f"datetime({', '.join(map(str, parts))}, tzinfo=timezone.utc)"
    if value is None or isinstance(value, (bool, int, str)):
        return repr(value)
    raise TypeError(f"no literal for {type(value).__name__}")  # only the values built in _one reach here


# -- checking a generated file ------------------------------------------------------------------------------

_TEMPLATE_STRINGS = frozenset(
    {"HOPS_START_TIME", "HOPS_END_TIME", "processing [", ", ", ")", "manual run without a window"}
)
_TEMPLATE_NAMES = frozenset(
    {"os", "datetime", "timezone", "dag", "hops_schedule", "hops_task", "run", "start", "end", "print", "None"}
)


def verify_dag_file(source: str, schedule: ImportedSchedule) -> None:
    """Check that *source* is the DAG file of *schedule* and nothing else; raise ``AssertionError`` if not.

    It must parse; its docstring, dag_id and every ``hops_schedule`` argument must equal the schedule's values; and
    every other string and name in it must come from the fixed template. A name pasted into code would add
    statements, names or strings and fail here.
    """
    tree = ast.parse(source)
    func = schedule.function_name
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
        utc = isinstance(tz, ast.Attribute) and tz.attr == "utc" and isinstance(tz.value, ast.Name)
        if not utc or not isinstance(tz, ast.Attribute) or getattr(tz.value, "id", None) != "timezone":
            raise AssertionError("a datetime literal without tzinfo=timezone.utc")
        parts = [ast.literal_eval(arg) for arg in node.args]
        if not all(type(p) is int for p in parts):
            raise AssertionError("a datetime literal with non-integer parts")
        return datetime(*parts).replace(tzinfo=timezone.utc)
    return ast.literal_eval(node)


# -- reading ------------------------------------------------------------------------------------------------


def _items(data: object) -> list[tuple[object, str | None]]:
    """The schedule objects in *data*, each with the job name found around it."""
    if isinstance(data, list):
        return [item for entry in data for item in _items(entry)] if data else []
    if isinstance(data, dict):
        if isinstance(data.get("items"), list) and "cronExpression" not in data:
            return _items(data["items"])
        if isinstance(data.get("jobSchedule"), dict):
            name = data.get("name")
            return [(data["jobSchedule"], name if isinstance(name, str) else None)]
    return [(data, None)]


def import_schedules(data: object) -> list[ImportedSchedule]:
    """Read every schedule in the parsed JSON *data*; raises ``ArgumentError`` only when it holds none at all.

    Schedules whose names sanitise to one dag_id (``a b`` and ``a_b``) get distinct ids: the first keeps it, the
    next ones get ``_2``, ``_3``... with a warning. Ids are compared ignoring case, as file names may be.
    """
    items = _items(data)
    if not items:
        raise ArgumentError(
            "input", data, "the input holds no schedule: expected an object with cronExpression, or a list of them"
        )
    results = [_one(i, obj, name) for i, (obj, name) in enumerate(items, start=1)]
    taken = {r.dag_id.lower() for r in results}
    seen: dict[str, ImportedSchedule] = {}
    for result in results:
        key = result.dag_id.lower()
        if key not in seen:
            seen[key] = result
            continue
        n = 2
        while f"{key}_{n}" in taken:
            n += 1
        wanted = result.dag_id
        result.dag_id = f"{wanted}_{n}"
        taken.add(result.dag_id.lower())
        seen[result.dag_id.lower()] = result
        result.warnings.append(
            f"dag_id {wanted!r} is already the DAG of {seen[key].label}; this schedule is DAG {result.dag_id!r}"
        )
    return results


def _dag_id(job_name: str | None, index: int) -> str:
    if not job_name:
        return f"hopsworks_schedule_{index}"
    # Airflow's dag_id alphabet; a leading dot would hide the file from Airflow's DAG folder scan.
    dag_id = re.sub(r"[^A-Za-z0-9_.-]", "_", job_name).lstrip(".")
    if len(dag_id) > MAX_DAG_ID:
        dag_id = f"{dag_id[: MAX_DAG_ID - 12]}_{index}"
    return dag_id or f"hopsworks_schedule_{index}"


def _one(index: int, obj: object, outer_name: str | None) -> ImportedSchedule:
    if not isinstance(obj, dict):
        result = ImportedSchedule(index, None, f"hopsworks_schedule_{index}")
        result.errors.append(
            f"expected a JSON object with cronExpression, got {type(obj).__name__} {short_repr(obj, 60)}"
        )
        return result
    job = obj.get("jobName", outer_name)
    job_name = job if isinstance(job, str) and job else None
    out = ImportedSchedule(index, job_name, _dag_id(job_name, index))

    def check(key: str, rule: Callable[[], object]) -> object:
        try:
            return rule()
        except ArgumentError as exc:
            out.errors.append(str(exc))
            return None

    cron = obj.get("cronExpression")
    parsed: QuartzCron | None = None
    if not isinstance(cron, str):
        out.errors.append(
            f"cronExpression={short_repr(cron)} is invalid: expected a Quartz cron expression string such as "
            "'0 0 * ? * * *'"
        )
    else:
        try:
            parsed = QuartzCron(cron)
            out.kwargs["cron_expression"] = cron.strip()
        except CronSyntaxError as exc:
            out.errors.append(f"cronExpression is rejected by this engine: {exc}")
    dates: dict[str, datetime | None] = {}
    for key, name in _DATE_KEYS.items():
        value = check(key, lambda key=key: check_epoch_millis(key, obj.get(key)))  # type: ignore[misc]
        if isinstance(value, datetime):
            out.kwargs[name] = dates[name] = value
    start = dates.get("start_time")
    if parsed is not None and start is not None:
        try:
            parsed.check_fires_from("startDateTime", start)  # else the generated DAG file would not import
        except ValueError as exc:
            out.errors.append(str(exc))
    check(
        "endDateTime",
        lambda: check_end_after_start("startDateTime", dates.get("start_time"), "endDateTime", dates.get("end_time")),
    )
    _flags(obj, out, check)
    check(
        "startTimeOffsetSeconds",
        lambda: check_window_start(
            "startDateTime",
            dates.get("start_time"),
            "startTimeOffsetSeconds",
            out.kwargs.get("start_time_offset_seconds"),
        ),
    )
    for key in sorted(str(k) for k in set(obj) - _KNOWN - _IGNORED)[:20]:
        out.warnings.append(f"unknown key {short_repr(key)} ignored")
    return out


def _flags(obj: dict[str, Any], out: ImportedSchedule, check: Callable[[str, Callable[[], object]], object]) -> None:
    enabled = obj.get("enabled")
    if enabled is not None and check("enabled", lambda: check_bool("enabled", enabled)) is False:
        out.paused = True
        out.warnings.append("the schedule is disabled in Hopsworks: the DAG is created paused")
    catchup = obj.get("catchup")
    if catchup is not None and check("catchup", lambda: check_bool("catchup", catchup)) is True:
        out.kwargs["catchup"] = True
    runs = obj.get("maxActiveRuns")
    if runs is not None:
        valid = check("maxActiveRuns", lambda: check_max_active_runs("maxActiveRuns", runs))
        if isinstance(valid, int) and valid != 1:
            out.kwargs["max_active_runs"] = valid
    offset = obj.get("startTimeOffsetSeconds")
    if isinstance(offset, int) and not isinstance(offset, bool) and offset < 0:
        # Before the legacy conversion, so that the message shows the number as the user wrote it turned around.
        out.warnings.append(
            f"startTimeOffsetSeconds={short_repr(offset)} is negative, as the older offset model wrote it (added "
            f"to the previous fire); today's model subtracts a positive offset, so it is imported as {-offset}"
        )
        offset = -offset
    seconds = check("startTimeOffsetSeconds", lambda: check_offset("startTimeOffsetSeconds", offset))
    if isinstance(seconds, int) and seconds > 0:
        out.kwargs["start_time_offset_seconds"] = seconds
    end_offset = obj.get("endTimeOffsetSeconds")
    if end_offset is not None:
        out.warnings.append(
            f"endTimeOffsetSeconds={short_repr(end_offset)} is ignored, as Hopsworks ignores it: "
            "HOPS_END_TIME is always HOPS_START_TIME plus the cron interval"
        )
    max_catchup = obj.get("maxCatchupRuns")
    valid_max = check("maxCatchupRuns", lambda: check_catchup_runs("maxCatchupRuns", max_catchup))
    if isinstance(valid_max, int):
        out.kwargs["max_catchup_runs"] = valid_max


# -- writing ------------------------------------------------------------------------------------------------


def write_dag_files(results: list[ImportedSchedule], output: str, *, force: bool = False) -> list[str]:
    """Write the DAG files: to *output* for one schedule, into the directory *output* for several.

    Schedules with errors are skipped. Nothing is written when a target exists already and *force* is false, or
    when two targets are one file: the whole import fails first with :class:`ArgumentError`. Returns the paths.
    """
    ready = [r for r in results if not r.errors]
    one_file = len(results) == 1 and not os.path.isdir(output) and not output.endswith(os.sep)
    if one_file:
        targets = [(ready[0], output)] if ready else []
    else:
        targets = [(r, os.path.join(output, f"{r.dag_id}.py")) for r in ready]
    files = [(path, result.dag_file() or "") for result, path in targets]
    folded = [os.path.normcase(os.path.abspath(path)).lower() for path, _ in files]
    if len(set(folded)) != len(folded):
        raise ArgumentError("--output", output, f"--output {output!r}: two schedules would write the same file")
    existing = [path for path, _ in files if os.path.lexists(path)]
    if existing and not force:
        raise ArgumentError(
            "--output",
            output,
            f"{len(existing)} DAG file(s) exist already, e.g. {existing[0]!r}; nothing was written. "
            "Pass --force to overwrite them",
        )
    try:
        if not one_file:
            os.makedirs(output, exist_ok=True)
        for path, text in files:
            with open(path, "w" if force else "x", encoding="utf-8") as fh:
                fh.write(text)
    except OSError as exc:
        raise ArgumentError("--output", output, f"cannot write under --output {output!r}: {exc}") from None
    return [path for path, _ in files]


def cmd_import(args: argparse.Namespace) -> int:
    from hops_timetable.cli.importer import MAX_JSON_BYTES, import_schedules, load_json, write_dag_files

    if args.file == "-":
        raw = sys.stdin.read(MAX_JSON_BYTES + 1)
        source = "<stdin>"
    else:
        try:
            with open(args.file, encoding="utf-8") as fh:
                raw = fh.read(MAX_JSON_BYTES + 1)
        except OSError as exc:
            raise BadInput(f"cannot read {args.file!r}: {exc.strerror}") from None
        except UnicodeDecodeError as exc:
            raise BadInput(f"{args.file!r} is not UTF-8 text: {exc.reason} at byte {exc.start}") from None
        source = args.file
    results = import_schedules(load_json(raw, source))
    written: list[str] = []
    if args.output is not None:
        written = write_dag_files(results, args.output, force=args.force)
    payload = {"schedules": [r.as_json() for r in results], "written": written}

    def text() -> list[str]:
        lines: list[str] = []
        for r in results:
            lines += r.text()
            lines.append("")
        lines += [f"wrote {w}" for w in written]
        return lines

    emit(args, payload, text)
    failed = [r for r in results if r.errors]
    # Errors go to stderr only, once each; the text on stdout names the failed schedules without repeating them.
    for r in failed:
        for err in r.errors:
            print(f"{PROG} import: error: {r.label}: {err}", file=sys.stderr)
    return 2 if failed else 0
