"""The ``hops-timetable`` console script: preview, explain, simulate, compare and import Hopsworks schedules.

Commands: ``next``, ``explain``, ``preview``, ``simulate``, ``compare`` and ``import``; each takes ``--json``.
``next``, ``explain``, ``simulate``, ``import`` and ``preview`` without ``--dag-file`` never import Airflow, so they
start in a fraction of a second; ``compare`` and ``preview --dag-file`` import it when they run.

Times on the command line are ISO-8601 (naive means UTC, a trailing ``Z`` is UTC on every Python) or ``now``;
output times are ``2026-01-01T10:00:00Z``. Every argument is checked by :mod:`hops_timetable.validation`, as
``hops_schedule`` checks it. Work is bounded so that any accepted input answers within a second: ``-n`` and
``--limit`` at most :data:`MAX_COUNT`, ``compare -n`` at most :data:`MAX_COMPARE`, a simulated timeline at most
:data:`MAX_SIMULATED_FIRES` fires of its cron.

Exit status: 0 on success (also when stdout is closed early, as by ``| head``); 2 for bad input, reported as one
line on stderr naming the argument; 1 for anything else, which is a bug: one line says so and that ``--debug``
shows the traceback. With ``--json`` the error is also printed on stdout as ``{"error": ..., "status": ...}``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, NoReturn

from hops_timetable.catchup import CatchupPolicy
from hops_timetable.cron import CronSyntaxError, QuartzCron
from hops_timetable.validation import (
    MAX_OFFSET_SECONDS,
    ArgumentError,
    check_catchup_runs,
    check_end_after_start,
    check_iso_datetime,
    check_offset,
    check_window_start,
)
from hops_timetable.window import format_hops_time, hops_window

__all__ = ["MAX_COMPARE", "MAX_COUNT", "MAX_SIMULATED_FIRES", "BadInput", "ScheduleSettings", "main", "parse_time"]

PROG = "hops-timetable"
UTC = timezone.utc

MAX_COUNT = 10_000
"""The most fire times, runs or rows a command lists (``-n``, ``--limit``)."""
MAX_COMPARE = 200
"""The most runs ``compare`` asks of each timetable: Airflow's own take about a millisecond a run."""
MAX_EXPAND = 100
"""The largest ``simulate --expand``: ranges of up to this many fires are listed fire by fire."""
MAX_EVENTS = 5
"""The most ``--outage`` and ``--pause`` events of one simulation."""
MAX_SIMULATED_FIRES = 100_000_000
"""The most fires a simulated timeline may hold (a per-second cron over three years)."""
_COUNT_BUDGET = 100_000
"""Fires counted one by one over all simulated rows, shared out evenly; beyond its share a row's count is a lower
bound (``>=``)."""


class BadInput(ValueError):
    """Input the user must fix; reported as one line with exit status 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        # argparse prints the whole usage block; one line says the same and points to --help.
        raise BadInput(f"{message} (see {self.prog} --help)")


def parse_time(flag: str, text: str, now: datetime | None = None) -> datetime:
    """An ISO-8601 command-line time as aware UTC; naive means UTC, ``now`` means *now* (the real clock if None).

    The accepted range is that of :func:`~hops_timetable.validation.check_utc_datetime`; anything else raises
    :class:`BadInput` naming *flag*.
    """
    if text.strip().lower() == "now":
        return now if now is not None else datetime.now(UTC)
    try:
        value = check_iso_datetime(flag, text)
    except ArgumentError as exc:
        raise BadInput(f"{exc} or 'now'" if "not a date-time" in str(exc) else str(exc)) from None
    assert value is not None
    return value


def _fmt(value: datetime | None) -> str | None:
    return None if value is None else format_hops_time(value)


@dataclass(frozen=True)
class ScheduleSettings:
    """The arguments of ``hops_schedule`` as read from the command line or a DAG file; dates aware UTC."""

    cron: QuartzCron
    start: datetime | None = None
    end: datetime | None = None
    offset: int | None = None
    catchup: bool = False
    max_catchup_runs: int | None = None
    skip_to: datetime | None = None

    def policy(self) -> CatchupPolicy:
        return CatchupPolicy(self.cron, self.start, self.end, self.skip_to, self.max_catchup_runs)

    def as_json(self) -> dict[str, Any]:
        return {
            "cron_expression": self.cron.source,
            "start_time": _fmt(self.start),
            "end_time": _fmt(self.end),
            "start_time_offset_seconds": self.offset,
            "catchup": self.catchup,
            "max_catchup_runs": self.max_catchup_runs,
            "skip_to_date": _fmt(self.skip_to),
        }


def _settings(args: argparse.Namespace, now: datetime) -> ScheduleSettings:
    """Validated settings from the shared schedule options, with the messages ``hops_schedule`` gives."""
    start = None if args.start_time is None else parse_time("--start-time", args.start_time, now)
    end = None if args.end_time is None else parse_time("--end-time", args.end_time, now)
    skip = None if args.skip_to_date is None else parse_time("--skip-to-date", args.skip_to_date, now)
    check_end_after_start("--start-time", start, "--end-time", end)
    offset = check_offset("--start-time-offset-seconds", args.start_time_offset_seconds)
    check_window_start("--start-time", start, "--start-time-offset-seconds", offset)
    check_catchup_runs("--max-catchup-runs", args.max_catchup_runs)
    return ScheduleSettings(
        cron=QuartzCron(args.cron),
        start=start,
        end=end,
        offset=offset,
        catchup=args.catchup,
        max_catchup_runs=args.max_catchup_runs,
        skip_to=skip,
    )


_FILE_SETTINGS = ("start_time", "end_time", "start_time_offset_seconds", "catchup", "max_catchup_runs", "skip_to_date")
"""The schedule options a ``--dag-file`` replaces (``--now`` still applies)."""


def _count(flag: str, value: int, maximum: int, what: str) -> int:
    if not 1 <= value <= maximum:
        raise BadInput(f"{flag} {value} is invalid: give a count of {what} from 1 to {maximum:,}")
    return value


def _now(args: argparse.Namespace) -> datetime:
    real = datetime.now(UTC)
    return real if args.now is None else parse_time("--now", args.now, real)


def _emit(args: argparse.Namespace, payload: dict[str, Any], text: Callable[[], list[str]]) -> None:
    if args.json:
        print(json.dumps(payload, indent=2))
    else:
        print("\n".join(text()))


def _table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> list[str]:
    cells = [[str(h) for h in headers], *[["" if c is None else str(c) for c in row] for row in rows]]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return lines


# -- next ---------------------------------------------------------------------------------------------------


def cmd_next(args: argparse.Namespace) -> int:
    cron = QuartzCron(args.expression)
    after = parse_time("--after", args.after) if args.after else datetime.now(UTC)
    _count("-n", args.n, MAX_COUNT, "fire times")
    times: list[datetime] = []
    moment = after
    while len(times) < args.n:
        fire = cron.prev_before(moment) if args.prev else cron.next_after(moment)
        if fire is None:
            break
        times.append(fire)
        moment = fire
    payload = {
        "expression": cron.source,
        "normalized": cron.expression,
        "direction": "previous" if args.prev else "next",
        "after": _fmt(after),
        "times": [_fmt(t) for t in times],
    }

    def text() -> list[str]:
        word = "before" if args.prev else "after"
        head = f"{cron.expression}  ({cron.describe()}); {len(times)} fire(s) {word} {_fmt(after)}:"
        tail = [] if len(times) == args.n else ["(no more fire times: the schedule never fires again)"]
        return [head, *[f"  {_fmt(t)}" for t in times], *tail]

    _emit(args, payload, text)
    return 0


# -- explain ------------------------------------------------------------------------------------------------


def cmd_explain(args: argparse.Namespace) -> int:
    cron = QuartzCron(args.expression)
    now = _now(args)
    lints = cron.lints(now)
    fields = [{"field": f, "token": t, "meaning": m} for f, t, m in cron.fields()]
    payload = {
        "expression": cron.source,
        "normalized": cron.expression,
        "dialect": cron.dialect,
        "description": cron.describe(),
        "fields": fields,
        "lints": lints,
        "next": _fmt(cron.next_after(now)),
    }

    def text() -> list[str]:
        lines = [
            f"expression   {cron.source}",
            f"normalized   {cron.expression}  (read as {cron.dialect})",
            f"meaning      {cron.describe()} (UTC)",
            f"next fire    {_fmt(cron.next_after(now)) or 'none'}",
            "",
            *_table(["field", "token", "meaning"], [(f["field"], f["token"], f["meaning"]) for f in fields]),
        ]
        lines += ["", *(f"warning: {w}" for w in lints)] if lints else ["", "no warnings"]
        return lines

    _emit(args, payload, text)
    return 0


# -- preview ------------------------------------------------------------------------------------------------


def cmd_preview(args: argparse.Namespace) -> int:
    now = _now(args)
    if args.dag_file is not None:
        if args.dag_id is None:
            raise BadInput("--dag-file needs --dag-id: the id of the DAG in that file to preview")
        ignored = [f"--{k.replace('_', '-')}" for k in _FILE_SETTINGS if getattr(args, k) not in (None, False)]
        if ignored:
            raise BadInput(f"{', '.join(ignored)} cannot be combined with --dag-file: the DAG file holds the schedule")
        from hops_timetable.dagfile import settings_from_dag_file

        settings = settings_from_dag_file(args.dag_file, args.dag_id)
    elif args.dag_id is not None:
        raise BadInput("--dag-id needs --dag-file: the DAG file that holds that DAG")
    else:
        settings = _settings(args, now)
    _count("-n", args.n, MAX_COUNT, "runs")
    policy = settings.policy()
    runs: list[dict[str, Any]] = []
    last: datetime | None = None
    while len(runs) < args.n:
        # Later runs are asked with the same now: with the last run at or after it, the policy just steps on.
        run = policy.next_run(last, now, catchup=settings.catchup)
        if run is None:
            break
        window = hops_window(run.interval_start, run.fire, settings.offset).as_env()
        runs.append(
            {
                "fire": _fmt(run.fire),
                "data_interval_start": _fmt(run.interval_start),
                "data_interval_end": _fmt(run.fire),
                **window,
                "due_now": run.fire <= now,
            }
        )
        last = run.fire
    payload = {"now": _fmt(now), "settings": settings.as_json(), "description": settings.cron.describe(), "runs": runs}

    def text() -> list[str]:
        head = [
            f"{settings.cron.expression}  ({settings.cron.describe()})",
            f"seen at {_fmt(now)}, catchup={settings.catchup}, max_catchup_runs={settings.max_catchup_runs}",
            "",
        ]
        rows = [
            (
                f"{r['fire']}{' *' if r['due_now'] else ''}",
                f"[{r['data_interval_start']}, {r['data_interval_end']})",
                r["HOPS_START_TIME"],
                r["HOPS_END_TIME"],
                r["HOPS_LOGICAL_DATE"],
            )
            for r in runs
        ]
        table = _table(["fire", "Airflow data interval", "HOPS_START_TIME", "HOPS_END_TIME", "HOPS_LOGICAL_DATE"], rows)
        foot = ["", "* due already: created as soon as the DAG is scheduled"] if any(r["due_now"] for r in runs) else []
        none = [] if runs else ["no runs: the schedule never fires again within its start/end/skip_to_date"]
        return head + table + foot + none

    _emit(args, payload, text)
    return 0


# -- simulate -----------------------------------------------------------------------------------------------


def _event(kind: str, text: str) -> Any:
    from hops_timetable.simulate import Event

    flag = f"--{kind}"
    left, sep, right = text.partition("..")
    if not sep:
        raise BadInput(
            f"{flag} {text!r} is not a time range: expected FROM..TO, e.g. 2026-01-01T05:00..2026-01-01T09:00"
        )
    try:
        return Event(kind, parse_time(flag, left), parse_time(flag, right))
    except BadInput:
        raise
    except ValueError as exc:
        raise BadInput(f"{flag} {text!r}: {exc}") from None


def cmd_simulate(args: argparse.Namespace) -> int:
    from hops_timetable.simulate import Decision, expand, simulate

    now = _now(args)
    settings = _settings(args, now)
    if len(args.outage) + len(args.pause) > MAX_EVENTS:
        raise BadInput(f"{len(args.outage) + len(args.pause)} --outage/--pause events: give at most {MAX_EVENTS}")
    events = [_event("outage", t) for t in args.outage] + [_event("pause", t) for t in args.pause]
    until = parse_time("--until", args.until, now)
    begins = [t for t in (settings.start, *(e.start for e in events)) if t is not None]
    if not begins:
        raise BadInput("simulate needs --start-time or at least one --outage/--pause to know where the timeline begins")
    start = min(begins)
    if until <= start:
        raise BadInput(
            f"--until {args.until!r} is not after the start of the timeline ({_fmt(start)}, the earliest of "
            "--start-time and the events): give a later --until"
        )
    _count("--limit", args.limit, MAX_COUNT, "rows")
    if not 0 <= args.expand <= MAX_EXPAND:
        raise BadInput(f"--expand {args.expand} is invalid: give a number of fires from 0 to {MAX_EXPAND:,}")
    _check_span(settings.cron, start, until, args.until)
    # Ranges of fires are cut at each event's ends and at start, skip_to_date and end_time, each cut making at most
    # a few rows to count: the budget is shared out over that many.
    cap = _COUNT_BUDGET // (4 * (len(events) + 4))
    timeline = simulate(settings.policy(), settings.catchup, start, until, events, count_cap=cap)
    rows = expand(timeline, settings.cron, args.expand)
    shown = rows[: args.limit]
    runs = sum(r.count for r in rows if r.decision is Decision.CREATED)
    exact = all(r.count_exact for r in rows)
    payload = {
        "settings": settings.as_json(),
        "timeline": {"from": _fmt(start), "until": _fmt(until)},
        "events": [{"kind": e.kind, "from": _fmt(e.start), "to": _fmt(e.end)} for e in events],
        "rows": [
            {
                "first": _fmt(r.first),
                "last": _fmt(r.last),
                "count": r.count,
                "count_exact": r.count_exact,
                "decision": r.decision.value,
                "created_at": _fmt(r.created_at),
                "event": r.event,
            }
            for r in shown
        ],
        "rows_total": len(rows),
        "rows_elided": len(rows) - len(shown),
        "runs_created": runs,
        "runs_created_exact": exact,
    }

    def text() -> list[str]:
        table_rows = []
        for r in shown:
            fires = _fmt(r.first) if r.count == 1 else f"{_fmt(r.first)} .. {_fmt(r.last)}"
            count = f"{r.count}" if r.count_exact else f">={r.count}"
            if r.decision is Decision.CREATED:
                what = "created at each fire" if r.created_at is None else f"created at {_fmt(r.created_at)}"
            else:
                what = r.decision.value
            table_rows.append((fires, count, what, f"({r.event})" if r.event else ""))
        lines = [
            f"{settings.cron.expression}  ({settings.cron.describe()}), catchup={settings.catchup}, "
            f"max_catchup_runs={settings.max_catchup_runs}",
            f"timeline {_fmt(start)} .. {_fmt(until)}; "
            + ("; ".join(f"{e.kind} {_fmt(e.start)}..{_fmt(e.end)}" for e in events) or "no events"),
            "",
            *_table(["fire(s)", "n", "decision", "during"], table_rows),
        ]
        if len(rows) > len(shown):
            lines.append(f"... {len(rows) - len(shown)} more row(s) elided (raise --limit to see them)")
        lines += ["", f"runs created: {'' if exact else 'at least '}{runs}"]
        return lines

    _emit(args, payload, text)
    return 0


def _check_span(cron: QuartzCron, start: datetime, until: datetime, text: str) -> None:
    """Refuse a timeline holding more than :data:`MAX_SIMULATED_FIRES` fires, estimated from the cron's rate.

    The rate is read from the first fires after *start*: a cheap estimate that is exact for regular crons and, for
    irregular ones, a generous one (their early fires are as dense as any).
    """
    sample = 1_000
    first = cron.next_after(start)
    if first is None or first > until:
        return
    fire, n = first, 1
    while n < sample:
        nxt = cron.next_after(fire)
        if nxt is None or nxt > until:
            return
        fire, n = nxt, n + 1
    per_second = (n - 1) / max((fire - first).total_seconds(), 1.0)
    estimate = (until - start).total_seconds() * per_second
    if estimate > MAX_SIMULATED_FIRES:
        span_days = MAX_SIMULATED_FIRES / per_second / 86_400
        raise BadInput(
            f"--until {text!r}: the timeline {_fmt(start)} .. {_fmt(until)} holds about {estimate:,.0f} fires of "
            f"{cron.source!r}; simulate at most {MAX_SIMULATED_FIRES:,}, a timeline of at most {span_days:,.0f} "
            "day(s) for this cron"
        )


# -- compare ------------------------------------------------------------------------------------------------


def cmd_compare(args: argparse.Namespace) -> int:
    from hops_timetable.compare import compare

    frozen = args.now is not None
    now = _now(args)
    settings = _settings(args, now)
    _count("-n", args.n, MAX_COMPARE, "runs (Airflow's own timetables take milliseconds a run)")
    result = compare(settings, now, args.n, freeze_clock=frozen)
    _emit(args, result.as_json(), result.text)
    return 0


# -- import -------------------------------------------------------------------------------------------------


def cmd_import(args: argparse.Namespace) -> int:
    from hops_timetable.importer import MAX_JSON_BYTES, import_schedules, load_json, write_dag_files

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

    _emit(args, payload, text)
    failed = [r for r in results if r.errors]
    # Errors go to stderr only, once each; the text on stdout names the failed schedules without repeating them.
    for r in failed:
        for err in r.errors:
            print(f"{PROG} import: error: {r.label}: {err}", file=sys.stderr)
    return 2 if failed else 0


# -- wiring -------------------------------------------------------------------------------------------------


def _schedule_options(*, cron_or_dag_file: bool) -> _Parser:
    """The arguments of ``hops_schedule``; ``--cron`` is required, or with *cron_or_dag_file* it or ``--dag-file``."""
    schedule = _Parser(add_help=False)
    g = schedule.add_argument_group("schedule (the arguments of hops_schedule)")
    cron_help = "Quartz cron expression in UTC, a 5-field cron or an @preset"
    if cron_or_dag_file:
        source = g.add_mutually_exclusive_group(required=True)
        source.add_argument("--cron", help=cron_help)
        source.add_argument("--dag-file", help="read the schedule from this DAG file instead (imports Airflow)")
    else:
        g.add_argument("--cron", required=True, help=cron_help)
    g.add_argument("--start-time", help="start_time (ISO-8601, naive = UTC); fires at or before it never run")
    g.add_argument("--end-time", help="end_time (exclusive)")
    g.add_argument(
        "--start-time-offset-seconds",
        type=int,
        help=f"seconds the HOPS window is moved earlier (0 to {MAX_OFFSET_SECONDS:,})",
    )
    g.add_argument("--catchup", action=argparse.BooleanOptionalAction, default=False, help="replay missed fires")
    g.add_argument("--max-catchup-runs", type=int, help="the most missed fires replayed (default: no bound)")
    g.add_argument("--skip-to-date", help="fires before this time never run")
    g.add_argument("--now", help="the present moment (default: the real clock)")
    return schedule


def _parser() -> _Parser:
    common = _Parser(add_help=False)
    common.add_argument("--json", action="store_true", help="print machine-readable JSON")
    common.add_argument("--debug", action="store_true", help="show the traceback of an error")
    schedule = _schedule_options(cron_or_dag_file=False)
    expression = "a Quartz cron expression in UTC (quote it), a 5-field cron or an @preset"

    parser = _Parser(prog=PROG, description="Preview, explain, simulate and import Hopsworks job schedules.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    p = sub.add_parser("next", parents=[common], help="the next (or previous) fire times of a cron expression")
    p.add_argument("expression", help=expression)
    p.add_argument("--after", help="count from this time (default: now)")
    p.add_argument("-n", type=int, default=5, help=f"how many fire times (default 5, at most {MAX_COUNT:,})")
    p.add_argument("--prev", action="store_true", help="previous fire times instead, newest first")
    p.set_defaults(func=cmd_next)

    p = sub.add_parser("explain", parents=[common], help="what a cron expression means, field by field, and lints")
    p.add_argument("expression", help=expression)
    p.add_argument("--now", help="the present moment for 'never fires again' (default: the real clock)")
    p.set_defaults(func=cmd_explain)

    p = sub.add_parser(
        "preview",
        parents=[common, _schedule_options(cron_or_dag_file=True)],
        help="the next runs with Airflow and HOPS_* windows",
    )
    p.add_argument("-n", type=int, default=5, help=f"how many runs (default 5, at most {MAX_COUNT:,})")
    p.add_argument("--dag-id", help="the DAG in --dag-file")
    p.set_defaults(func=cmd_preview)

    p = sub.add_parser("simulate", parents=[common, schedule], help="replay scheduling through outages and pauses")
    p.add_argument("--outage", action="append", default=[], metavar="FROM..TO", help="Airflow down (repeatable)")
    p.add_argument("--pause", action="append", default=[], metavar="FROM..TO", help="the DAG paused (repeatable)")
    p.add_argument("--until", required=True, help="the end of the simulated timeline (inclusive)")
    p.add_argument("--limit", type=int, default=200, help=f"the most rows printed (default 200, at most {MAX_COUNT:,})")
    p.add_argument(
        "--expand", type=int, default=24, help=f"list ranges of up to this many fires one by one (at most {MAX_EXPAND})"
    )
    p.set_defaults(func=cmd_simulate)

    p = sub.add_parser("compare", parents=[common, schedule], help="side by side with Airflow's cron timetables")
    p.add_argument("-n", type=int, default=6, help=f"how many runs of each (default 6, at most {MAX_COMPARE})")
    p.set_defaults(func=cmd_compare)

    p = sub.add_parser("import", parents=[common], help="turn a Hopsworks job schedule (JSON) into a DAG")
    p.add_argument("file", help="a JSON file as the Hopsworks REST API or Python SDK exports it, or - for stdin")
    p.add_argument("--output", help="write the DAG file there (a directory when there are several schedules)")
    p.add_argument("--force", action="store_true", help="overwrite DAG files that exist already")
    p.set_defaults(func=cmd_import)

    from hops_timetable.audit import add_parser as add_audit

    add_audit(sub, common)
    return parser


_BAD_INPUT = (BadInput, CronSyntaxError, ArgumentError)
"""What the user must fix (exit 2). Every other exception is a bug (exit 1), even a ValueError."""


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line *argv* (default ``sys.argv[1:]``); returns the exit status (see the module docstring)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in argv
    json_out = "--json" in argv
    command = next((a for a in argv if not a.startswith("-")), "")
    prefix = f"{PROG} {command}".strip() if command in _COMMANDS else PROG
    try:
        args = _parser().parse_args(argv)
        status: int = args.func(args)
        sys.stdout.flush()
        return status
    except SystemExit as exc:  # --help
        return exc.code if isinstance(exc.code, int) else 0
    except BrokenPipeError:
        # The reader went away (| head): what it wanted is printed. Quiet, and no second error at exit's flush.
        _silence_stdout()
        return 0
    except Exception as exc:
        if debug:
            raise
        bad = isinstance(exc, _BAD_INPUT)
        text = str(exc).splitlines()[0] if str(exc) else ""
        if bad:
            message = text or type(exc).__name__
        elif _is_airflow_refusal(exc):
            # Airflow unreachable or refusing a request is the environment's answer, not a bug of this tool.
            message = text
        else:
            message = (
                f"unexpected {type(exc).__name__}: {text[:200]} -- this is a bug in hops-timetable; run the "
                "same command with --debug to see the traceback, and report it"
            )
        print(f"{prefix}: error: {message}", file=sys.stderr)
        if json_out:
            try:
                print(json.dumps({"error": message, "status": 2 if bad else 1, **_error_details(exc)}))
            except BrokenPipeError:
                _silence_stdout()
        return 2 if bad else 1


def _is_airflow_refusal(exc: BaseException) -> bool:
    # Imported here: audit is loaded only when its subcommand is registered, and pure commands stay light.
    from hops_timetable.audit import AuditError

    return isinstance(exc, AuditError)


_COMMANDS = ("next", "explain", "preview", "simulate", "compare", "import")


def _silence_stdout() -> None:
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass  # not a real file (a test's capture): nothing will flush into a closed pipe


def _error_details(exc: Exception) -> dict[str, Any]:
    if isinstance(exc, CronSyntaxError):
        return {"field": exc.field, "token": exc.token, "position": exc.position, "hint": exc.hint}
    return {}


if __name__ == "__main__":
    sys.exit(main())
