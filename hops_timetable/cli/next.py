"""``hops-timetable next`` and ``explain``: a cron expression's next (or previous) fire times, and its meaning."""

from __future__ import annotations

import argparse
from datetime import datetime

from hops_timetable.cli.errors import BadInput
from hops_timetable.cli.options import MAX_COUNT, UTC, check_count, now_from_args, parse_time
from hops_timetable.cli.output import emit, fmt_time, render_table
from hops_timetable.core.cron import QuartzCron
from hops_timetable.croniter_check import check_with_croniter


def cmd_next(args: argparse.Namespace) -> int:
    cron = QuartzCron(args.expression)
    # An expression no date matches is refused, as hops_schedule refuses it, in explain's words; one that only
    # stopped firing is a list that ends early.
    if never := [lint for lint in cron.lints() if lint.startswith("never fires:")]:
        raise BadInput(f"{args.expression!r} {never[0]}")
    check_with_croniter(cron, "expression")
    after = parse_time("--after", args.after) if args.after else datetime.now(UTC)
    check_count("-n", args.n, MAX_COUNT, "fire times")
    step = cron.prev_before if args.prev else cron.next_after
    times: list[datetime] = []
    while len(times) < args.n and (fire := step(times[-1] if times else after)) is not None:
        times.append(fire)
    payload = {
        "expression": cron.source,
        "normalized": cron.expression,
        "direction": "previous" if args.prev else "next",
        "after": fmt_time(after),
        "times": [fmt_time(t) for t in times],
    }

    def text() -> list[str]:
        word = "before" if args.prev else "after"
        head = f"{cron.expression}  ({cron.describe()}); {len(times)} fire(s) {word} {fmt_time(after)}:"
        last = times[-1] if times else after
        tail = [] if len(times) == args.n else [f"(no more fire times: none {word} {fmt_time(last)})"]
        return [head, *[f"  {fmt_time(t)}" for t in times], *tail]

    emit(args, payload, text)
    return 0


def cmd_explain(args: argparse.Namespace) -> int:
    cron = QuartzCron(args.expression)
    now = now_from_args(args)
    lints = cron.lints(now)
    fields = [{"field": f, "token": t, "meaning": m} for f, t, m in cron.fields()]
    payload = {
        "expression": cron.source,
        "normalized": cron.expression,
        "dialect": cron.dialect,
        "description": cron.describe(),
        "fields": fields,
        "lints": lints,
        "next": fmt_time(cron.next_after(now)),
    }

    def text() -> list[str]:
        lines = [
            f"expression   {cron.source}",
            f"normalized   {cron.expression}  (read as {cron.dialect})",
            f"meaning      {cron.describe()} (UTC)",
            f"next fire    {fmt_time(cron.next_after(now)) or 'none'}",
            "",
            *render_table(["field", "token", "meaning"], [(f["field"], f["token"], f["meaning"]) for f in fields]),
        ]
        lines += ["", *(f"warning: {w}" for w in lints)] if lints else ["", "no warnings"]
        return lines

    emit(args, payload, text)
    return 0
