"""``hops-timetable parity``: did Hopsworks and Airflow process the same HOPS windows over a time range?

Hopsworks' side is its schedule (one or several versions) and its executions listing (or a CSV ledger); Airflow's is
the same schedule replayed (default), a DAG file's schedule replayed (``--dag-file``, read as Airflow's dag-processor
reads it), or a live Airflow's runs (``--airflow-api``, through the audit's client). The comparison itself is
:func:`hops_timetable.core.parity.parity`. Exit status: 0 parity, 3 differences, 4 inconclusive, 2 bad input, 1 when
Airflow cannot be read. The JSON format is documented in docs/cli.md (``format``: :data:`FORMAT`).
"""

from __future__ import annotations

import argparse
import hashlib
import os
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any, Final

from hops_timetable.cli.errors import BadInput
from hops_timetable.cli.options import parse_time
from hops_timetable.cli.output import emit, render_table
from hops_timetable.core.json_input import load_json
from hops_timetable.core.offset_model import OFFSET_MODELS
from hops_timetable.core.parity.compare import EXIT_INCONCLUSIVE, Report, Row, SideRun
from hops_timetable.core.parity.exports import (
    MAX_EXPORT_CHARS,
    ScheduleVersion,
    load_executions,
    load_ledger,
    load_schedule_versions,
)
from hops_timetable.core.parity.meaning import MEANINGS, Reading
from hops_timetable.core.parity.sides import Outcome, parity
from hops_timetable.core.simulate import Event
from hops_timetable.core.window import HopsWindow, format_hops_time

__all__ = ["FORMAT", "add_arguments", "airflow_side", "cmd_parity", "read_input"]

FORMAT: Final = "hops-timetable-parity/1"
ACCEPT_FORMAT: Final = "hops-timetable-parity-accept/1"
MAX_SCHEDULE_CHARS: Final = 16 * 1024 * 1024
MAX_GRACE_SECONDS: Final = 86_400


def read_input(flag: str, path: str, limit: int) -> tuple[str, str]:
    """The text of the file *path* (at most *limit* characters) and the sha256 of its bytes."""
    try:
        with open(path, "rb") as fh:
            data = fh.read(limit + 1)
    except OSError as exc:
        raise BadInput(f"{flag} {path!r} cannot be read: {exc.strerror}") from None
    if len(data) > limit:
        raise BadInput(f"{flag} {path!r} is larger than {limit:,} bytes; export a shorter range")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BadInput(f"{flag} {path!r} is not UTF-8 text: {exc.reason} at byte {exc.start}") from None
    return text, hashlib.sha256(data).hexdigest()


def _t(value: datetime | None) -> str | None:
    """A time as ``...Z``, keeping milliseconds when there are some (a clamped first window starts at one)."""
    if value is None:
        return None
    text = format_hops_time(value)
    return text if not value.microsecond else f"{text[:-1]}.{value.microsecond // 1000:03d}Z"


def _window(window: HopsWindow | None) -> dict[str, str | None] | None:
    if window is None:
        return None
    return {
        "HOPS_START_TIME": _t(window.start),
        "HOPS_END_TIME": _t(window.end),
        "HOPS_LOGICAL_DATE": _t(window.logical_date),
    }


def _outage(text: str) -> Event:
    left, sep, right = text.partition("..")
    if not sep:
        raise BadInput(
            f"--hopsworks-outage {text!r} is not a time range: expected FROM..TO, "
            "e.g. 2026-03-01T13:30..2026-03-01T16:20"
        )
    try:
        return Event("outage", parse_time("--hopsworks-outage", left), parse_time("--hopsworks-outage", right))
    except ValueError as exc:
        raise BadInput(f"--hopsworks-outage {text!r}: {exc}") from None


def _accepted(path: str) -> tuple[dict[tuple[datetime, str], str], str]:
    text, digest = read_input("--accept", path, MAX_SCHEDULE_CHARS)
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
    """A live Airflow's side, read through the audit's client: the DAG's schedule as its plugin reports it, and
    every run with the window its tasks see. Credentials default to the audit's environment variables."""
    from hops_timetable.cli.audit import PASSWORD_ENV, TOKEN_ENV, USERNAME_ENV, Client, Settings
    from hops_timetable.core.coverage import run_window

    client = Client.connect(
        api,
        token=token or os.environ.get(TOKEN_ENV),
        username=username or os.environ.get(USERNAME_ENV),
        password=password or os.environ.get(PASSWORD_ENV),
    )
    by_id = {d["dag_id"]: d for d in client.hops_dags()}
    if dag_id not in by_id:
        found = ", ".join(sorted(by_id)) or "none"
        raise BadInput(f"--dag-id {dag_id!r} is not a HopsworksTimetable DAG on {api}; those are: {found}")
    settings = Settings.from_json(by_id[dag_id])
    schedule = settings.schedule
    runs = []
    for record in client.runs(dag_id):
        rw = run_window(record, settings.offset)
        scheduled = record.run_type != "manual" and record.data_interval_end is not None
        why = rw.error or ("" if scheduled else "manual" + ("" if rw.window else ": no window"))
        fire = record.data_interval_end if scheduled else None
        runs.append(SideRun(record.run_id, fire, rw.window, _OUTCOMES.get(record.state, "running"), 1, why))
    return ScheduleVersion(None, schedule), runs


_OUTCOMES: Final = {"success": "succeeded", "failed": "failed"}
"""Airflow's run states as outcomes; queued and running are in flight."""


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
    inputs: dict[str, Any] = {}
    text, digest = read_input("--hopsworks-schedule", args.hopsworks_schedule, MAX_SCHEDULE_CHARS)
    inputs["hopsworks_schedule"] = {"path": args.hopsworks_schedule, "sha256": digest}
    versions = load_schedule_versions(
        load_json(text, args.hopsworks_schedule), args.hopsworks_schedule, args.offset_model
    )
    text, digest = read_input("--hopsworks-executions", args.hopsworks_executions, MAX_EXPORT_CHARS)
    inputs["hopsworks_executions"] = {"path": args.hopsworks_executions, "sha256": digest}
    executions = ledger = None
    incomplete = None
    if text.lstrip()[:1] in ("{", "["):
        export = load_executions(
            load_json(text, args.hopsworks_executions, MAX_EXPORT_CHARS), args.hopsworks_executions
        )
        executions = export.executions
        if export.incomplete:
            incomplete = (
                f"the export holds {len(executions):,} of the {export.declared_count:,} executions its pages count"
            )
    else:
        ledger = load_ledger(text, args.hopsworks_executions)
    accepted: dict[tuple[datetime, str], str] = {}
    if args.accept:
        accepted, digest = _accepted(args.accept)
        inputs["accept"] = {"path": args.accept, "sha256": digest}
    airflow_versions: list[ScheduleVersion] | None = None
    airflow_runs: list[SideRun] | None = None
    if args.dag_file:
        from hops_timetable.cli.dagfile import settings_from_dag_file

        _, digest = read_input("--dag-file", args.dag_file, MAX_SCHEDULE_CHARS)
        inputs["airflow"] = {"dag_file": args.dag_file, "dag_id": args.dag_id, "sha256": digest}
        airflow_versions = [ScheduleVersion(None, settings_from_dag_file(args.dag_file, args.dag_id))]
    elif args.airflow_api:
        version, airflow_runs = airflow_side(
            args.airflow_api, args.dag_id, token=args.token, username=args.username, password=args.password
        )
        airflow_versions = [version]
        inputs["airflow"] = {"api": args.airflow_api, "dag_id": args.dag_id}
    else:
        inputs["airflow"] = {"replay": "the Hopsworks schedule"}
    outcome = parity(
        versions,
        start,
        end,
        executions=executions,
        ledger=ledger,
        airflow_versions=airflow_versions,
        airflow_runs=airflow_runs,
        outages=[_outage(t) for t in args.hopsworks_outage],
        meaning=args.start_time_meaning,
        grace=timedelta(seconds=args.grace),
        accepted=accepted,
        incomplete_note=incomplete,
    )
    payload = _payload(outcome, inputs, start, end)
    emit(args, payload, lambda: _text(outcome, payload, args.limit))
    return int(payload["exit"])


def _payload(outcome: Outcome, inputs: dict[str, Any], start: datetime, end: datetime) -> dict[str, Any]:
    report, reading = outcome.report, outcome.reading
    status = EXIT_INCONCLUSIVE if report is None else report.exit_status
    names = {0: "parity", 3: "differences", 4: "inconclusive"}
    outages = [{"from": _t(e.start), "to": _t(e.end), "source": "declared"} for e in outcome.outages]
    outages += [
        {"from": _t(e.start), "to": _t(e.end), "source": "inferred from a late launch"} for e in outcome.inferred
    ]
    return {
        "format": FORMAT,
        "inputs": inputs,
        "range": {"from": _t(start), "to": _t(end)},
        "start_time": None if reading is None else reading.as_json(),
        "outages": outages,
        "status": names[status],
        "exit": status,
        "verdict": _verdict(report, reading),
        "summary": {} if report is None else report.summary,
        "rows": [] if report is None else [_row(r) for r in report.rows],
        "manual": [] if report is None else [_side_run(side, run) for side, run in report.manual],
        "unplaced": [] if report is None else [_side_run(side, run) for side, run in report.unplaced],
        "notes": [] if report is None else list(report.notes),
        "unused_acceptances": []
        if report is None
        else [{"fire": f, "status": s} for f, s in report.unused_acceptances],
    }


def _verdict(report: Report | None, reading: Reading | None) -> str:
    if report is None:
        return f"inconclusive: {reading.explain() if reading else 'no reading'}"
    return report.verdict()


def _row(row: Row) -> dict[str, Any]:
    return {
        "fire": _t(row.fire),
        "status": row.status,
        "hopsworks": _window(row.hopsworks),
        "airflow": _window(row.airflow),
        "hopsworks_runs": list(row.hopsworks_runs),
        "airflow_runs": list(row.airflow_runs),
        "how": row.how,
        "hint": row.hint,
        "explained_by": row.explained_by,
        "why": row.why,
        "accepted": row.accepted,
    }


def _side_run(side: str, run: SideRun) -> dict[str, Any]:
    return {"side": side, "run_id": run.run_id, "window": _window(run.window), "why": run.why}


def _span(window: dict[str, str | None] | None) -> str:
    return "-" if window is None else f"{window['HOPS_START_TIME']} .. {window['HOPS_END_TIME']}"


def _detail(row: dict[str, Any]) -> str:
    parts = [
        row["how"],
        row["hint"] and f"hint: {row['hint']}",
        row["explained_by"] and f"explained by {row['explained_by']}",
        row["why"],
        row["accepted"] and f"accepted: {row['accepted']}",
    ]
    return "; ".join(p for p in parts if p)


def _text(outcome: Outcome, payload: dict[str, Any], limit: int) -> list[str]:
    lines = []
    if outcome.reading is not None:
        lines.append(outcome.reading.explain())
    lines += [f"outage {o['from']} .. {o['to']} ({o['source']})" for o in payload["outages"]]
    rows: Sequence[dict[str, Any]] = payload["rows"]
    shown = rows if len(rows) <= limit else [r for r in rows if r["status"] not in ("match", "match_retried")][:limit]
    if rows:
        table = [(r["fire"], r["status"], _span(r["hopsworks"]), _span(r["airflow"]), _detail(r)) for r in shown]
        lines += ["", *render_table(("FIRE", "STATUS", "HOPSWORKS WINDOW", "AIRFLOW WINDOW", "DETAIL"), table)]
        if len(shown) < len(rows):
            lines.append(f"... {len(rows) - len(shown)} more row(s), agreeing ones first left out (--json for all)")
    for entry in payload["manual"]:
        lines.append(f"manual run in {entry['side']}: {entry['run_id']} {_span(entry['window'])} (listed, not counted)")
    for entry in payload["unplaced"]:
        lines.append(f"not placed on a fire, {entry['side']}: {entry['run_id']}: {entry['why']}")
    for entry in payload["unused_acceptances"]:
        lines.append(f"accepted difference not seen: {entry['status']} at {entry['fire']}")
    if outcome.report is None:
        return [*lines, "", payload["verdict"]]
    summary = ", ".join(f"{v} {k}" for k, v in payload["summary"].items() if v)
    lines += ["", f"summary: {summary or 'no fire in range'}", payload["verdict"]]
    return lines


def add_arguments(p: argparse.ArgumentParser) -> None:
    """Declare ``parity``'s options on its parser (``hops_timetable.cli.app`` reads them when ``parity`` is parsed)."""
    p.add_argument(
        "--hopsworks-schedule",
        required=True,
        metavar="FILE",
        help="the schedule JSON (REST or to_dict(); several versions allowed)",
    )
    p.add_argument(
        "--hopsworks-executions",
        required=True,
        metavar="FILE",
        help="the executions listing JSON, or a CSV ledger of windows",
    )
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
        "--hopsworks-outage", action="append", default=[], metavar="A..B", help="Hopsworks down (repeatable)"
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
    p.add_argument("--token", help="with --airflow-api: API token (default $AIRFLOW_API_TOKEN)")
    p.add_argument("--username", help="with --airflow-api: log in at /auth/token")
    p.add_argument("--password", help="with --username")
    p.set_defaults(func=cmd_parity)
