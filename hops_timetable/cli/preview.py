"""``hops-timetable preview``: the next runs of a schedule, with their Airflow and HOPS windows."""

from __future__ import annotations

import argparse
import itertools
from typing import Any

from hops_timetable.cli.errors import BadInput
from hops_timetable.cli.options import FILE_SETTINGS, FLAGS, MAX_COUNT, check_count, now_from_args, settings_from_args
from hops_timetable.cli.output import emit, fmt_time, render_table
from hops_timetable.core.simulate import scheduled_runs
from hops_timetable.core.window import hops_window

# The preview starts from a DAG that has not run yet; a deployed DAG may have made (or dropped) these runs already.
DUE_NOTE = [
    "* due already: created as soon as a DAG that has not run yet is scheduled; a DAG that has been running may",
    "  have made or dropped them already (hops-timetable audit reads what ran)",
]


def cmd_preview(args: argparse.Namespace) -> int:
    now = now_from_args(args)
    if args.dag_file is not None:
        if args.dag_id is None:
            raise BadInput("--dag-file needs --dag-id: the id of the DAG in that file to preview")
        if ignored := [FLAGS[k] for k in FILE_SETTINGS if getattr(args, k) not in (None, False)]:
            raise BadInput(f"{', '.join(ignored)} cannot be combined with --dag-file: the DAG file holds the schedule")
        from hops_timetable.cli.options import settings_from_dag_file

        settings = settings_from_dag_file(args.dag_file, args.dag_id)
    elif args.dag_id is not None:
        raise BadInput("--dag-id needs --dag-file: the DAG file that holds that DAG")
    else:
        settings = settings_from_args(args, now)
    check_count("-n", args.n, MAX_COUNT, "runs")
    runs: list[dict[str, Any]] = [
        {
            "fire": fmt_time(run.fire),
            "data_interval_start": fmt_time(run.interval_start),
            "data_interval_end": fmt_time(run.fire),
            **hops_window(run.interval_start, run.fire, settings.offset).as_env(),
            "due_now": run.fire <= now,
        }
        for run in itertools.islice(scheduled_runs(settings.policy(), None, now, catchup=settings.catchup), args.n)
    ]
    payload = {
        "now": fmt_time(now),
        "settings": settings.as_json(),
        "description": settings.cron.describe(),
        "runs": runs,
    }

    def text() -> list[str]:
        head = [
            f"{settings.cron.expression}  ({settings.cron.describe()})",
            f"seen at {fmt_time(now)}, catchup={settings.catchup}, max_catchup_runs={settings.max_catchup_runs}",
            "",
        ]
        env = ["HOPS_START_TIME", "HOPS_END_TIME", "HOPS_LOGICAL_DATE"]
        interval = "[{data_interval_start}, {data_interval_end})"
        rows = [(r["fire"] + (" *" if r["due_now"] else ""), interval.format(**r), *(r[k] for k in env)) for r in runs]
        table = render_table(["fire", "Airflow data interval", *env], rows)
        foot = ["", *DUE_NOTE] if any(r["due_now"] for r in runs) else []
        none = [] if runs else ["no runs: the schedule never fires again within its start/end/skip_to_date"]
        return head + table + foot + none

    emit(args, payload, text)
    return 0
