"""``hops-timetable import``: Hopsworks job schedules, as its REST API and Python SDK export them, as DAG files."""

from __future__ import annotations

import argparse
import os
import sys

from hops_timetable.cli.errors import BadInput
from hops_timetable.cli.imported import ImportedSchedule, import_schedules
from hops_timetable.cli.options import PROG
from hops_timetable.cli.output import emit
from hops_timetable.core.json_input import MAX_JSON_BYTES, load_json
from hops_timetable.core.validation import ArgumentError


def write_dag_files(results: list[ImportedSchedule], output: str, *, force: bool = False) -> list[str]:
    """Write the DAG files of the schedules without errors (to *output* for one, into the directory *output* for
    several); nothing is written when a target exists without *force*, or two targets are one file."""
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
    results = import_schedules(load_json(raw, source), getattr(args, "offset_model", None))
    written: list[str] = []
    if args.output is not None:
        written = write_dag_files(results, args.output, force=args.force)
    payload = {"schedules": [r.as_json() for r in results], "written": written}

    lines: list[str] = []
    if not args.json:
        for r in results:
            report = r.text()
            lines += [*report, ""] if report else []
        lines += [f"wrote {w}" for w in written]
    if args.json or lines:  # nothing imported, nothing written: no blank line on stdout
        emit(args, payload, lambda: lines)
    failed = [r for r in results if r.errors]
    # A refused schedule is reported on stderr only, once per error: a header on stdout would read as a DAG made.
    for r in failed:
        for err in r.errors:
            print(f"{PROG}: error: {r.label}: {err}", file=sys.stderr)
    return 2 if failed else 0
