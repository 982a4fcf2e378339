"""``hops-timetable simulate``: the scheduler's decisions through outages and pauses, as a timeline."""

from __future__ import annotations

import argparse
from datetime import datetime

from hops_timetable.cli.errors import BadInput
from hops_timetable.cli.options import MAX_COUNT, check_count, now_from_args, parse_time, settings_from_args, time_range
from hops_timetable.cli.output import emit, fmt_time, render_table
from hops_timetable.core.cron import QuartzCron

MAX_EXPAND = 100
"""The largest ``--expand``: ranges of up to this many fires are listed fire by fire."""
MAX_EVENTS = 5  # the most --outage and --pause events of one simulation
MAX_SIMULATED_FIRES = 100_000_000
"""The most fires a simulated timeline may hold (a per-second cron over three years)."""


def cmd_simulate(args: argparse.Namespace) -> int:
    from hops_timetable.core.decision import Decision
    from hops_timetable.core.simulate import expand, simulate

    now = now_from_args(args)
    settings = settings_from_args(args, now)
    if len(args.outage) + len(args.pause) > MAX_EVENTS:
        raise BadInput(f"{len(args.outage) + len(args.pause)} --outage/--pause events: give at most {MAX_EVENTS}")
    example = "2026-01-01T05:00..2026-01-01T09:00"
    events = [
        time_range(f"--{k}", t, k, example) for k, ts in (("outage", args.outage), ("pause", args.pause)) for t in ts
    ]
    until = parse_time("--until", args.until, now)
    if not (begins := [t for t in (settings.start, *(e.start for e in events)) if t is not None]):
        raise BadInput("simulate needs --start-time or at least one --outage/--pause to know where the timeline begins")
    start = min(begins)
    if until <= start:
        raise BadInput(
            f"--until {args.until!r} is not after the start of the timeline ({fmt_time(start)}, the earliest of "
            "--start-time and the events): give a later --until"
        )
    check_count("--limit", args.limit, MAX_COUNT, "rows")
    if not 0 <= args.expand <= MAX_EXPAND:
        raise BadInput(f"--expand {args.expand} is invalid: give a number of fires from 0 to {MAX_EXPAND:,}")
    _check_span(settings.cron, start, until, args.until)
    rows = expand(simulate(settings.policy(), settings.catchup, start, until, events), settings.cron, args.expand)
    shown = rows[: args.limit]
    runs = sum(r.count for r in rows if r.decision is Decision.CREATED)
    payload = {
        "settings": settings.as_json(),
        "timeline": {"from": fmt_time(start), "until": fmt_time(until)},
        "events": [{"kind": e.kind, "from": fmt_time(e.start), "to": fmt_time(e.end)} for e in events],
        "rows": [
            {
                "first": fmt_time(r.first),
                "last": fmt_time(r.last),
                "count": r.count,
                "count_exact": True,
                "decision": r.decision.value,
                "created_at": fmt_time(r.created_at),
                "event": r.event,
            }
            for r in shown
        ],
        "rows_total": len(rows),
        "rows_elided": len(rows) - len(shown),
        "runs_created": runs,
        "runs_created_exact": True,
    }

    def text() -> list[str]:
        table_rows = []
        for r in shown:
            fires = fmt_time(r.first) if r.count == 1 else f"{fmt_time(r.first)} .. {fmt_time(r.last)}"
            what = r.decision.value
            if r.decision is Decision.CREATED:
                what = "created at each fire" if r.created_at is None else f"created at {fmt_time(r.created_at)}"
            table_rows.append((fires, f"{r.count}", what, f"({r.event})" if r.event else ""))
        lines = [
            f"{settings.cron.expression}  ({settings.cron.describe()}), catchup={settings.catchup}, "
            f"max_catchup_runs={settings.max_catchup_runs}",
            f"timeline {fmt_time(start)} .. {fmt_time(until)}; "
            + ("; ".join(f"{e.kind} {fmt_time(e.start)}..{fmt_time(e.end)}" for e in events) or "no events"),
            "",
            *render_table(["fire(s)", "n", "decision", "during"], table_rows),
        ]
        if len(rows) > len(shown):
            lines.append(f"... {len(rows) - len(shown)} more row(s) elided (raise --limit to see them)")
        lines += ["", f"runs created: {runs}"]
        return lines

    emit(args, payload, text)
    return 0


def _check_span(cron: QuartzCron, start: datetime, until: datetime, text: str) -> None:
    """Refuse a timeline holding more than :data:`MAX_SIMULATED_FIRES` fires, estimated from the rate of the first
    fires after *start*: exact for regular crons, generous for irregular ones (their early fires are as dense)."""
    fires: list[datetime] = []
    while len(fires) < 1_000:
        fire = cron.next_after(fires[-1] if fires else start)
        if fire is None or fire > until:
            return
        fires.append(fire)
    per_second = (len(fires) - 1) / max((fires[-1] - fires[0]).total_seconds(), 1.0)
    estimate = (until - start).total_seconds() * per_second
    if estimate > MAX_SIMULATED_FIRES:
        span_days = MAX_SIMULATED_FIRES / per_second / 86_400
        raise BadInput(
            f"--until {text!r}: the timeline {fmt_time(start)} .. {fmt_time(until)} holds about {estimate:,.0f} fires "
            f"of {cron.source!r}; simulate at most {MAX_SIMULATED_FIRES:,}, a timeline of at most {span_days:,.0f} "
            "day(s) for this cron"
        )
