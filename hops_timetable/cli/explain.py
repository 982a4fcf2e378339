"""``hops-timetable explain``: what a cron expression means, field by field, and its lints."""

from __future__ import annotations

import argparse

from hops_timetable.cli.options import now_from_args
from hops_timetable.cli.output import emit, fmt_time, render_table
from hops_timetable.core.cron import QuartzCron


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
