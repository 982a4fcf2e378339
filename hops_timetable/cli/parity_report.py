"""What ``parity`` prints: the JSON document (format ``hops-timetable-parity/1``) and the text made from it."""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any, Final, TextIO

from hops_timetable.cli.output import json_time, render_table
from hops_timetable.core.decision import Verdict
from hops_timetable.core.parity.compare import AGREE, Report, Row, SideRun
from hops_timetable.core.parity.meaning import derived_values
from hops_timetable.core.parity.sides import Outcome
from hops_timetable.core.window import HOPS_ENV_KEYS, HopsWindow

FORMAT: Final = "hops-timetable-parity/1"
STATUS: Final = {Verdict.OK: "parity", Verdict.DIFFERENCES: "differences", Verdict.INCONCLUSIVE: "inconclusive"}
DERIVED_MARK: Final = "~"
_ROWS: Final = "\x00rows\x00"


def write_json(data: dict[str, Any], report: Report | None, out: TextIO) -> None:
    """The document *data* as ``json.dumps(..., indent=2)`` would write it, its rows made and written one by one."""
    head, _, tail = json.dumps(data, indent=2).partition(json.dumps(_ROWS))
    rows = [] if report is None else report.rows
    out.write(head + "[")
    for n, row in enumerate(rows):
        out.write(("," if n else "") + "\n    " + json.dumps(_row(row), indent=2).replace("\n", "\n    "))
    out.write(("\n  ]" if rows else "]") + tail + "\n")


def _window(window: HopsWindow | None) -> dict[str, str | None] | None:
    if window is None:
        return None
    return dict(zip(HOPS_ENV_KEYS, map(json_time, (window.start, window.end, window.logical_date)), strict=True))


def payload(outcome: Outcome, inputs: dict[str, Any], start: datetime, end: datetime) -> dict[str, Any]:
    """The JSON document of *outcome* (docs/cli.md)."""
    report, reading = outcome.report, outcome.reading
    if report is None:  # no reading of -start_time: nothing compared
        status, verdict = Verdict.INCONCLUSIVE, f"inconclusive: {reading.explain() if reading else 'no reading'}"
        report = Report(start, end, (), {})
    else:
        status, verdict = report.exit_status, report.verdict()
        if report.derived and report.rows:
            verdict += f" ({' and '.join(report.derived)} of Hopsworks derived from the schedule, not observed)"
        if reading is not None and reading.contradicted:
            verdict += (
                f" (--start-time-meaning {reading.meaning} is contradicted by the data, which reads {reading.leader})"
            )
    sources = (
        (outcome.outages, "declared"),
        (outcome.inferred, "inferred from a late launch"),
        (outcome.from_gaps, "inferred from a gap in the ledger"),
    )
    outages = [{"from": json_time(e.start), "to": json_time(e.end), "source": src} for es, src in sources for e in es]
    return {
        "format": FORMAT,
        "inputs": inputs,
        "range": {"from": json_time(start), "to": json_time(end)},
        "start_time": None if reading is None else reading.as_json(),
        "outages": outages,
        "status": STATUS[status],
        "exit": int(status),
        "verdict": verdict,
        "derived": list(report.derived),
        "summary": report.summary,
        "rows": _ROWS,  # written one by one (write_json) or only those shown: a million rows as dicts take gigabytes
        "manual": [_side_run(side, run) for side, run in report.manual],
        "unplaced": [_side_run(side, run) for side, run in report.unplaced],
        "notes": [*report.incomplete, *report.notes],
        "unused_acceptances": [{"fire": f, "status": s} for f, s in report.unused_acceptances],
    }


def _row(row: Row) -> dict[str, Any]:
    return {
        "fire": json_time(row.fire),
        "status": row.status,
        "hopsworks": _window(row.hopsworks),
        "airflow": _window(row.airflow),
        "hopsworks_derived": list(row.derived),
        "hopsworks_runs": list(row.hopsworks_runs),
        "airflow_runs": list(row.airflow_runs),
        **{name: getattr(row, name) for name in ("how", "hint", "explained_by", "why", "accepted")},
    }


def _side_run(side: str, run: SideRun) -> dict[str, Any]:
    return {"side": side, "run_id": run.run_id, "window": _window(run.window), "why": run.why}


def _span(window: HopsWindow | None, derived: Sequence[str] = ()) -> str:
    if window is None:
        return "-"
    times = (("HOPS_START_TIME", window.start), ("HOPS_END_TIME", window.end))
    return " .. ".join(f"{DERIVED_MARK if k in derived else ''}{json_time(t)}" for k, t in times)


def detail(row: Row) -> str:
    """The DETAIL of *row* in ``parity``'s text (and in :mod:`hops_timetable.testing`'s failure messages)."""
    parts = [row.how, row.hint and f"hint: {row.hint}", row.explained_by and f"explained by {row.explained_by}"]
    parts += [row.why, row.accepted and f"accepted: {row.accepted}"]
    return "; ".join(p for p in parts if p)


def text_lines(outcome: Outcome, data: dict[str, Any], limit: int) -> list[str]:
    """The text of the JSON document *data* of *outcome*: at most *limit* rows."""
    lines, reading = [], outcome.reading
    if reading is not None:  # how -start_time was read, and the executions that read otherwise
        lines.append(reading.explain())
        if reading.contradicted:
            lines.append(
                f"warning: --start-time-meaning {reading.meaning} is contradicted by the data: "
                f"{reading.votes[reading.leader or 'fire']} of {reading.on_time} on-time execution(s) fit "
                f"{reading.leader}; the rows below read it as {reading.meaning}"
            )
        lines += [note] if (note := reading.skew_note()) else []
        lines += [
            f"outlier: execution {o.execution}, on time for {json_time(o.fire)}, has -start_time "
            f"{json_time(o.start_time)} (fits {o.fits or 'no meaning'}); compared as its argument says"
            for o in reading.outliers[:20]
        ]
        if reading.outliers_total > 20:
            lines.append(f"... {reading.outliers_total - 20} more outlier(s) (--json lists up to 1,000)")
    lines += [f"outage {o['from']} .. {o['to']} ({o['source']})" for o in data["outages"]]
    if (report := outcome.report) is None:  # nothing compared: no rows, notes or runs to list
        return [*lines, "", data["verdict"]]
    every: Iterable[Row] = report.rows
    if (rows := len(report.rows)) > limit:
        every = itertools.islice((r for r in every if r.status not in AGREE), limit)
    shown = [(json_time(r.fire), r.status, _span(r.hopsworks, r.derived), _span(r.airflow), detail(r)) for r in every]
    if rows:
        lines += ["", *render_table(("FIRE", "STATUS", "HOPSWORKS WINDOW", "AIRFLOW WINDOW", "DETAIL"), shown)]
        if len(shown) < rows:
            lines.append(f"... {rows - len(shown)} more row(s), agreeing ones first left out (--json for all)")
    if data["derived"] and reading is not None and reading.meaning is not None:
        carried = " or ".join(derived_values(reading.meaning))
        lines.append(
            f"{DERIVED_MARK} derived from the schedule, not observed: -start_time read as {reading.meaning} "
            f"carries no {carried}, and a fire without a successful run shows the schedule's window"
        )
    elif data["derived"]:
        lines.append(f"{DERIVED_MARK} derived from the schedule, not observed: no successful run shows that window")
    for side, run in report.manual:
        lines.append(f"manual run in {side}: {run.run_id} {_span(run.window)} (listed, not counted)")
    lines += [f"not placed on a fire, {side}: {run.run_id}: {run.why}" for side, run in report.unplaced]
    lines += [f"accepted difference not seen: {e['status']} at {e['fire']}" for e in data["unused_acceptances"]]
    lines += [f"note: {note}" for note in data["notes"]]
    summary = ", ".join(f"{v} {k}" for k, v in data["summary"].items() if v)
    return [*lines, "", f"summary: {summary or 'no fire in range'}", data["verdict"]]
