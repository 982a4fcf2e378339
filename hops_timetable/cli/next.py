"""``hops-timetable next``: the next (or previous) fire times of a cron expression."""

from __future__ import annotations

import argparse
from datetime import datetime

from hops_timetable.cli.errors import BadInput
from hops_timetable.cli.options import MAX_COUNT, UTC, check_count, parse_time
from hops_timetable.cli.output import emit, fmt_time
from hops_timetable.core.cron import QuartzCron
from hops_timetable.croniter_check import check_with_croniter


def cmd_next(args: argparse.Namespace) -> int:
    cron = QuartzCron(args.expression)
    # An expression no date matches is refused, as hops_schedule refuses it, in explain's words; one that only
    # stopped firing is a list that ends early.
    never = [lint for lint in cron.lints() if lint.startswith("never fires:")]
    if never:
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
