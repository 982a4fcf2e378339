"""``hops-timetable parity``: did Hopsworks and Airflow process the same HOPS windows over a time range?

The comparison is :func:`hops_timetable.core.parity.sides.parity`; exit status 0 parity, 3 differences,
4 inconclusive, 2 bad input, 1 when Airflow cannot be read. The JSON format is in docs/cli.md.
"""

from __future__ import annotations

import argparse
import codecs
import hashlib
import itertools
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from datetime import datetime, timedelta
from typing import Any, Final

from hops_timetable.cli.errors import BadInput
from hops_timetable.cli.options import parse_time, time_range
from hops_timetable.cli.parity_report import payload, text_lines, write_json
from hops_timetable.core.export_schedule import OFFSET_MODELS
from hops_timetable.core.parity.compare import SideRun
from hops_timetable.core.parity.exports import (
    MAX_EXPORT_CHARS,
    Execution,
    ScheduleVersion,
    load_schedule_versions,
    read_executions,
)
from hops_timetable.core.parity.ledger import MAX_LEDGER_CHARS, LedgerRow, load_ledger
from hops_timetable.core.parity.meaning import MEANINGS
from hops_timetable.core.parity.replay import check_fires
from hops_timetable.core.parity.sides import parity
from hops_timetable.core.validation import load_json

ACCEPT_FORMAT: Final = "hops-timetable-parity-accept/1"
MAX_SCHEDULE_CHARS: Final = 16 * 1024 * 1024
MAX_GRACE_SECONDS: Final = 86_400


class _Progress:
    """Steps on stderr with the seconds since the start, when *enabled* (never stdout: ``--json`` is one document)."""

    def __init__(self, enabled: bool) -> None:
        self.enabled, self.began = enabled, time.monotonic()

    def step(self, message: str) -> None:
        if self.enabled:
            line = f"parity: {message} ({time.monotonic() - self.began:.1f} s, peak {_peak_mib()} MiB)"
            print(line, file=sys.stderr, flush=True)


def _peak_mib() -> int:
    try:
        import resource
    except ImportError:  # not on Windows
        return 0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak // 1024 if sys.platform != "darwin" else peak // 2**20  # kilobytes on Linux, bytes on macOS


class _Reader:
    """A file read in chunks as UTF-8 text, at most *limit* bytes, hashed as it is read (never held whole)."""

    CHUNK = 1 << 20

    def __init__(self, flag: str, path: str, limit: int = MAX_SCHEDULE_CHARS) -> None:
        self.flag, self.path, self.limit, self.sha256 = flag, path, limit, hashlib.sha256()
        try:
            self.file = open(path, "rb")  # noqa: SIM115 -- closed by _read(), which reads it to the end
        except OSError as exc:
            raise BadInput(f"{flag} {path!r} cannot be read: {exc.strerror}") from None
        rest = self._read()
        self.head = next(rest, "")
        self.text = itertools.chain((self.head,), rest)  # all of it, in chunks

    def _read(self) -> Iterator[str]:
        decoder, size, data = codecs.getincrementaldecoder("utf-8")(), 0, b"."
        with self.file:
            while data:  # the last read is empty: the decoder then says whether the text ended inside a character
                data = self.file.read(self.CHUNK)
                size += len(data)
                if size > self.limit:
                    raise BadInput(
                        f"{self.flag} {self.path!r} is larger than {self.limit:,} bytes; export a shorter range"
                    )
                self.sha256.update(data)
                pending = len(decoder.getstate()[0])  # the bytes of a character the previous chunk cut
                try:
                    yield decoder.decode(data, final=not data)
                except UnicodeDecodeError as exc:
                    at = size - len(data) - pending + exc.start
                    raise BadInput(f"{self.flag} {self.path!r} is not UTF-8 text: {exc.reason} at byte {at}") from None

    def whole(self) -> tuple[str, str]:
        """The whole text and the sha256 of its bytes."""
        return "".join(self.text), self.sha256.hexdigest()

    def lines(self) -> Iterator[str]:
        """The text line by line, each with its ``\n`` (a CSV field may hold other line breaks)."""
        rest = ""
        for chunk in self.text:
            *whole, rest = (rest + chunk).split("\n")
            yield from (line + "\n" for line in whole)
        if rest:
            yield rest


def read_schedule(flag: str, path: str, offset_model: str | None) -> tuple[list[ScheduleVersion], str]:
    """The schedule versions in the file *path* and the sha256 of its bytes."""
    text, digest = _Reader(flag, path).whole()
    return load_schedule_versions(load_json(text, path), path, offset_model), digest


def read_record(
    flag: str, path: str, progress: Callable[[int], None] | None = None
) -> tuple[Sequence[Execution] | None, list[LedgerRow] | None, str | None, str]:
    """The executions listing (JSON) or CSV ledger in *path*, read piece by piece, its missing-page note and sha256."""
    reader = _Reader(flag, path, MAX_EXPORT_CHARS)
    if reader.head.lstrip()[:1] in ("{", "["):
        export = read_executions(reader.text, path, progress)
        return export.executions, None, export.note, reader.sha256.hexdigest()
    reader.limit = MAX_LEDGER_CHARS
    return None, load_ledger(reader.lines(), path), None, reader.sha256.hexdigest()


def _accepted(path: str) -> tuple[dict[tuple[datetime, str], str], str]:
    text, digest = _Reader("--accept", path).whole()
    data = load_json(text, path)
    entries = data.get("accepted") if isinstance(data, dict) and data.get("format") == ACCEPT_FORMAT else None
    if not isinstance(entries, list):
        raise BadInput(f'--accept {path!r}: expected {{"format": "{ACCEPT_FORMAT}", "accepted": [...]}}')
    out: dict[tuple[datetime, str], str] = {}
    for i, entry in enumerate(entries):
        ok = isinstance(entry, dict) and all(isinstance(entry.get(k), str) for k in ("fire", "status", "reason"))
        if not ok or not entry["reason"].strip():
            raise BadInput(
                f"--accept {path!r}: accepted[{i}] needs the strings fire, status and reason (who signed it off, why)"
            )
        out[(parse_time(f"--accept accepted[{i}].fire", entry["fire"]), entry["status"])] = entry["reason"][:500]
    return out, digest


def airflow_side(
    api: str, dag_id: str, *, token: str | None = None, username: str | None = None, password: str | None = None
) -> tuple[ScheduleVersion, list[SideRun]]:
    """A live Airflow's side (the audit's client): the DAG's schedule, and each run with the window its tasks see."""
    from hops_timetable.cli.audit_client import Client, Settings
    from hops_timetable.core.coverage import run_window

    client = Client.connect(api, token=token, username=username, password=password)
    by_id = {d["dag_id"]: d for d in client.hops_dags()}
    if dag_id not in by_id:
        found = ", ".join(sorted(by_id)) or "none"
        raise BadInput(f"--dag-id {dag_id!r} is not a HopsworksTimetable DAG on {api}; those are: {found}")
    settings = Settings.from_json(by_id[dag_id])
    runs = []
    for record in client.runs(dag_id):
        rw = run_window(record, settings.schedule.offset)
        scheduled = record.run_type != "manual" and record.data_interval_end is not None
        why = rw.error or ("" if scheduled else "manual" + ("" if rw.window else ": no window"))
        fire = record.data_interval_end if scheduled else None
        runs.append(SideRun(record.run_id, fire, rw.window, _OUTCOMES.get(record.state, "running"), 1, why))
    return ScheduleVersion(None, settings.schedule), runs


_OUTCOMES: Final = {"success": "succeeded", "failed": "failed"}  # queued and running are in flight


def cmd_parity(args: argparse.Namespace) -> int:
    start, end = parse_time("--from", args.since), parse_time("--to", args.to)
    if end <= start:
        raise BadInput(f"--to {args.to!r} is not after --from {args.since!r}: the range is empty")
    if (args.dag_file or args.airflow_api) and not args.dag_id:
        raise BadInput("--dag-file and --airflow-api need --dag-id: the DAG to compare")
    if args.limit < 1:
        raise BadInput(f"--limit {args.limit} is invalid: give a row count of at least 1")
    if not 0 <= args.grace <= MAX_GRACE_SECONDS:
        raise BadInput(f"--grace {args.grace} is invalid: give seconds from 0 to {MAX_GRACE_SECONDS:,}")
    # The outages declared; "none" alone declares that Hopsworks was up throughout.
    ranges = [t for t in args.hopsworks_outage if t.strip().lower() != "none"]
    if len(ranges) < len(args.hopsworks_outage) > 1:
        raise BadInput("--hopsworks-outage none says there was no outage: give it alone, or only FROM..TO ranges")
    outages = [
        time_range("--hopsworks-outage", t, "outage", "2026-03-01T13:30..2026-03-01T16:20, or none") for t in ranges
    ]
    progress = _Progress(args.progress or sys.stderr.isatty())
    versions, digest = read_schedule("--hopsworks-schedule", args.hopsworks_schedule, args.offset_model)
    inputs: dict[str, Any] = {"hopsworks_schedule": {"path": args.hopsworks_schedule, "sha256": digest}}
    check_fires(versions, start, end)  # the limits before the work: the executions may be a million
    progress.step(f"reading {args.hopsworks_executions}")
    counted = (lambda n: progress.step(f"{n:,} executions read")) if progress.enabled else None
    executions, ledger, incomplete, digest = read_record("--hopsworks-executions", args.hopsworks_executions, counted)
    inputs["hopsworks_executions"] = {"path": args.hopsworks_executions, "sha256": digest}
    progress.step(f"read {len(executions if executions is not None else ledger or ()):,} record(s); comparing")
    accepted: dict[tuple[datetime, str], str] = {}
    if args.accept:
        accepted, digest = _accepted(args.accept)
        inputs["accept"] = {"path": args.accept, "sha256": digest}
    airflow_versions: list[ScheduleVersion] | None = None
    airflow_runs: list[SideRun] | None = None
    inputs["airflow"] = {"replay": "the Hopsworks schedule"}  # unless Airflow's side is given
    if args.dag_file:
        from hops_timetable.cli.options import settings_from_dag_file

        _, digest = _Reader("--dag-file", args.dag_file).whole()
        inputs["airflow"] = {"dag_file": args.dag_file, "dag_id": args.dag_id, "sha256": digest}
        airflow_versions = [ScheduleVersion(None, settings_from_dag_file(args.dag_file, args.dag_id))]
    elif args.airflow_api:
        version, airflow_runs = airflow_side(
            args.airflow_api, args.dag_id, token=args.token, username=args.username, password=args.password
        )
        airflow_versions = [version]
        inputs["airflow"] = {"api": args.airflow_api, "dag_id": args.dag_id}
    outcome = parity(
        versions,
        start,
        end,
        executions=executions,
        ledger=ledger,
        airflow_versions=airflow_versions,
        airflow_runs=airflow_runs,
        outages=outages,
        outages_known=bool(args.hopsworks_outage),
        meaning=args.start_time_meaning,
        grace=timedelta(seconds=args.grace),
        accepted=accepted,
        incomplete_note=incomplete,
    )
    progress.step("done")
    data = payload(outcome, inputs, start, end)
    if args.json:
        write_json(data, outcome.report, sys.stdout)
    else:
        print("\n".join(text_lines(outcome, data, args.limit)))
    return int(data["exit"])


def add_arguments(p: argparse.ArgumentParser) -> None:
    """Declare ``parity``'s options on its parser (``hops_timetable.cli.app`` reads them when ``parity`` is parsed)."""
    for flag, what in (
        ("--hopsworks-schedule", "the schedule JSON (REST or to_dict(); several versions allowed)"),
        ("--hopsworks-executions", "the executions listing JSON, or a CSV ledger of windows"),
    ):
        p.add_argument(flag, required=True, metavar="FILE", help=what)
    airflow = p.add_mutually_exclusive_group()
    airflow.add_argument(
        "--dag-file", metavar="PATH", help="Airflow's side: this DAG file's schedule replayed (imports Airflow)"
    )
    airflow.add_argument(
        "--airflow-api", metavar="URL", help="Airflow's side: the runs of a live Airflow, e.g. http://127.0.0.1:8080"
    )
    p.add_argument("--dag-id", help="the DAG in --dag-file or on --airflow-api")
    p.add_argument("--from", dest="since", required=True, metavar="T", help="compare fires at or after this time")
    p.add_argument("--to", required=True, metavar="T", help="... and before this time (exclusive)")
    p.add_argument("--accept", metavar="FILE", help="known, signed-off differences (JSON)")
    p.add_argument(
        "--hopsworks-outage",
        action="append",
        default=[],
        metavar="A..B",
        help="Hopsworks down from A to B (repeatable); 'none': it was up throughout",
    )
    p.add_argument("--start-time-meaning", choices=MEANINGS, help="what -start_time means, when the data cannot tell")
    p.add_argument("--offset-model", choices=OFFSET_MODELS, help="how to read a negative startTimeOffsetSeconds")
    p.add_argument(
        "--grace",
        type=int,
        default=120,
        help="seconds after its fire an execution still counts as on time (default 120)",
    )
    p.add_argument(
        "--limit", type=int, default=200, help="with more rows, the text lists only the differing ones (default 200)"
    )
    p.add_argument(
        "--progress", action="store_true", help="show progress on stderr (the default when stderr is a terminal)"
    )
    p.add_argument("--token", help="with --airflow-api: API token (default $AIRFLOW_API_TOKEN)")
    p.add_argument("--username", help="with --airflow-api: log in at /auth/token")
    p.add_argument("--password", help="with --username")
    p.set_defaults(func=cmd_parity)
