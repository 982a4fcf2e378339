"""``hops-timetable import``: Hopsworks job schedules, as its REST API and Python SDK export them, as DAG files:
each schedule's dag_id, ``hops_schedule`` arguments, warnings and errors."""

from __future__ import annotations

import argparse
import os
import re
import sys
from typing import Final

from hops_timetable.cli.dag_source import ImportedSchedule
from hops_timetable.cli.errors import BadInput
from hops_timetable.cli.options import PROG
from hops_timetable.cli.output import emit
from hops_timetable.core.export_schedule import read_schedule, schedule_of
from hops_timetable.core.validation import MAX_JSON_BYTES, ArgumentError, load_json

MAX_DAG_ID: Final = 200  # the longest dag_id made (Airflow allows 250): longer job names are cut and get a suffix


def _items(data: object) -> list[tuple[object, str | None]]:
    if isinstance(data, list):
        return [item for entry in data for item in _items(entry)] if data else []
    if isinstance(data, dict) and isinstance(data.get("items"), list) and "cronExpression" not in data:
        return _items(data["items"])
    return [schedule_of(data)]


def import_schedules(data: object, offset_model: str | None = None) -> list[ImportedSchedule]:
    """Every schedule in the parsed JSON *data* (one, a list, or ``{"items": [...]}``); ``ArgumentError`` only when
    it holds none. Names that sanitise to one dag_id (ignoring case, as file names may) get ``_2``, ``_3``... with a
    warning; each id remembers the next suffix to try, so the work stays linear in the number of schedules."""
    if not (items := _items(data)):
        raise ArgumentError(
            "input", data, "the input holds no schedule: expected an object with cronExpression, or a list of them"
        )
    results = []
    for index, (obj, outer_name) in enumerate(items, start=1):
        schedule = read_schedule(obj, offset_model, job_name=outer_name)
        results.append(
            ImportedSchedule(
                index,
                schedule.job_name,
                _dag_id(schedule.job_name, index),
                kwargs=schedule.arguments(),
                paused=not schedule.enabled,
                warnings=list(schedule.warnings),
                errors=[str(error) for error in schedule.errors],
            )
        )
    taken = {r.dag_id.lower() for r in results}
    first: dict[str, ImportedSchedule] = {}
    next_suffix: dict[str, int] = {}
    for result in results:
        key, wanted = result.dag_id.lower(), result.dag_id
        if first.setdefault(key, result) is result:
            continue
        n = next_suffix.get(key, 2)
        while _suffixed(key, n) in taken:  # taken holds every input's id: a suffixed id is no later input's key
            n += 1
        next_suffix[key] = n + 1
        result.dag_id = f"{wanted}_{n}"
        taken.add(result.dag_id.lower())
        result.warnings.append(
            f"dag_id {wanted!r} is already the DAG of {first[key].label}; this schedule is DAG {result.dag_id!r}"
        )
    return results


def _suffixed(key: str, n: int) -> str:
    """The *n*-th candidate id for *key* (one call per candidate tried: the test of linear growth counts them)."""
    return f"{key}_{n}"


def _dag_id(job_name: str | None, index: int) -> str:
    # Airflow's dag_id alphabet; a leading dot would hide the file from Airflow's DAG folder scan.
    dag_id = re.sub(r"[^A-Za-z0-9_.-]", "_", job_name or "").lstrip(".")
    if len(dag_id) > MAX_DAG_ID:
        dag_id = f"{dag_id[: MAX_DAG_ID - 12]}_{index}"
    return dag_id or f"hopsworks_schedule_{index}"


def write_dag_files(results: list[ImportedSchedule], output: str, *, force: bool = False) -> list[str]:
    """Write the DAG files of the schedules without errors (to *output* for one, into the directory *output* for
    several); nothing is written when a target exists without *force*, or two targets are one file."""
    ready = [r for r in results if not r.errors]
    one_file = len(results) == 1 and not os.path.isdir(output) and not output.endswith(os.sep)
    targets = [(r, output if one_file else os.path.join(output, f"{r.dag_id}.py")) for r in ready]
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
    source = "<stdin>" if args.file == "-" else args.file
    if args.file == "-":
        raw = sys.stdin.read(MAX_JSON_BYTES + 1)
    else:
        try:
            with open(args.file, encoding="utf-8") as fh:
                raw = fh.read(MAX_JSON_BYTES + 1)
        except OSError as exc:
            raise BadInput(f"cannot read {args.file!r}: {exc.strerror}") from None
        except UnicodeDecodeError as exc:
            raise BadInput(f"{args.file!r} is not UTF-8 text: {exc.reason} at byte {exc.start}") from None
    results = import_schedules(load_json(raw, source), args.offset_model)
    written = [] if args.output is None else write_dag_files(results, args.output, force=args.force)
    payload = {"schedules": [r.as_json() for r in results], "written": written}
    lines = [] if args.json else [line for r in results if not r.errors for line in [*r.text(), ""]]
    lines += [f"wrote {w}" for w in written]
    if args.json or lines:  # nothing imported, nothing written: no blank line on stdout
        emit(args, payload, lambda: lines)
    # A refused schedule is reported on stderr only, once per error: a header on stdout would read as a DAG made.
    errors = [f"{PROG}: error: {r.label}: {err}" for r in results for err in r.errors]
    for error in errors:
        print(error, file=sys.stderr)
    return 2 if errors else 0
