"""``hops-timetable audit``: the coverage of HopsworksTimetable DAGs on a live Airflow, and ``--repair``.

Reads through HTTP only: the DAGs' settings from the plugin's ``/hops/api/dags`` (the plugin must be installed on
the api-server, as it is wherever the DAGs run) and the runs from Airflow's public REST API
(``/api/v2/dags/{dag_id}/dagRuns``). The coverage itself is :func:`hops_timetable.core.coverage.coverage`.

Credentials: ``--token`` or ``$AIRFLOW_API_TOKEN``; else ``--username``/``--password`` (or ``$AIRFLOW_API_USERNAME``
/ ``$AIRFLOW_API_PASSWORD``), exchanged for a token at ``/auth/token``. Exit status 0 when every audited DAG is
complete, 3 when any has windows that should have been processed and were not (or were processed twice), 2 for
bad input, 1 for other failures (Airflow unreachable, 401/403, a paged answer that does not add up). Windows the
schedule drops by design (catch-up bound, ``catchup=False``, ``skip_to_date``) are reported apart and make the
status 3 only with ``--strict``.

``--repair`` fills the gaps (``--include-dropped``: also the windows the catch-up rule dropped): the windows of
scheduled fires through Airflow's backfill API, once its dry run has confirmed it would create exactly the missing
logical dates and no other; every other missing window as a manual run with ``conf["hops_window"]`` and no logical
date. A logical date that already has a run is never backfilled, so no logical date is ever duplicated. A plan of
more than ``--max-runs`` runs (default 100) is refused before anything is written. ``--dry-run`` prints the plan
and changes nothing.
"""

from __future__ import annotations

import argparse
from typing import Any

from hops_timetable.cli.audit_client import (
    DEFAULT_TIMEOUT,
    PASSWORD_ENV,
    TOKEN_ENV,
    USERNAME_ENV,
    AuditError,
    Client,
    Settings,
)
from hops_timetable.cli.audit_repair import apply_step, check_backfills
from hops_timetable.cli.audit_report import SHOWN_PLAN, Audited, text_lines
from hops_timetable.cli.errors import BadInput
from hops_timetable.cli.options import now_from_args
from hops_timetable.cli.output import emit
from hops_timetable.core.coverage import Blocks, history
from hops_timetable.core.repair import plan_repair, repair_view, to_repair
from hops_timetable.core.validation import short_repr
from hops_timetable.core.verdict import Verdict

# AuditError, Client, Settings and the variables' names are the client's; named here too for the parity command.
__all__ = [
    "PASSWORD_ENV",
    "TOKEN_ENV",
    "USERNAME_ENV",
    "AuditError",
    "Client",
    "Settings",
    "add_arguments",
    "cmd_audit",
]

DEFAULT_MAX_RUNS = 100
"""The most runs ``--repair`` creates without ``--max-runs``."""


def cmd_audit(args: argparse.Namespace) -> int:
    """Run ``audit`` (see the module docstring); returns the exit status."""
    if args.limit < 1:
        raise BadInput(f"--limit {args.limit} is invalid: give a row count of at least 1")
    if args.dry_run and not args.repair:
        raise BadInput("--dry-run needs --repair: it prints the repair plan without applying it")
    if args.include_dropped and not args.repair:
        raise BadInput("--include-dropped needs --repair: it also fills the windows the catch-up rule dropped")
    if not 0 < args.timeout <= 3600:
        raise BadInput(f"--timeout {args.timeout:g} is invalid: give seconds above 0 and at most 3600")
    if args.max_runs is not None and args.max_runs < 1:
        raise BadInput(f"--max-runs {args.max_runs} is invalid: give a number of runs of at least 1")
    client = _client(args)
    now = now_from_args(args)
    chosen = _chosen(args, client.hops_dags())
    limit = DEFAULT_MAX_RUNS if args.max_runs is None else args.max_runs
    results: list[Audited] = []
    for data in chosen:
        settings = Settings.from_json(data)
        # Each page is folded in as it arrives: runs that read like their neighbours are kept as blocks, the newest
        # fires' runs whole (they are listed), so memory grows with what differs, not with the history.
        blocks = Blocks(settings.policy, settings.offset, tail=args.limit, keep_ids=True)
        for page in client.run_pages(settings.dag_id):
            blocks.add(page)
        runs, kept = blocks.finish()
        hist = history(settings.policy, settings.catchup, settings.offset, runs, now, blocks=kept)
        cov = hist.coverage(max_fires=args.limit)
        item = Audited(settings, runs, cov, hist)
        if args.repair:
            stretches = to_repair(hist, args.include_dropped)
            item.planned = sum(st.count for st in stretches)
            # The fires are taken one by one only for a plan that may be carried out (or shown whole).
            if 0 < item.planned <= max(limit, SHOWN_PLAN if args.dry_run else 0):
                plan = plan_repair(repair_view(hist, stretches), runs, include_dropped=args.include_dropped)
                item.repair = check_backfills(client, settings.dag_id, plan) if plan else []
        results.append(item)
    planned = sum(r.planned for r in results)
    if args.repair and not args.dry_run and planned > limit:
        per_dag = ", ".join(f"{short_repr(r.settings.dag_id, 80)}: {r.planned:,}" for r in results if r.planned)
        raise BadInput(
            f"--repair would create {planned:,} run(s) ({per_dag}), more than --max-runs {limit:,}; nothing was "
            f"changed: look at the plan with --dry-run, then pass --max-runs {planned} to allow it"
        )
    if args.repair and not args.dry_run:
        for item in results:
            item.applied = [apply_step(client, item.settings.dag_id, step) for step in item.repair]
    complete = all(r.history.complete for r in results)
    failing = any(r.failed(args.strict) for r in results)
    payload = {
        "api": args.api,
        "complete": complete,
        "ok": not failing,
        "strict": bool(args.strict),
        "dags": [r.as_json(bool(args.dry_run)) for r in results],
    }

    def text() -> list[str]:
        lines: list[str] = []
        for r in results:
            lines += [*text_lines(r, args.limit), ""]
        if not results:
            lines.append(f"no HopsworksTimetable DAGs readable on {args.api}")
        if args.repair and args.dry_run and planned > limit:
            lines.append(
                f"--repair would create {planned:,} run(s): more than --max-runs {limit:,}, so it would refuse"
            )
        return lines

    emit(args, payload, text)
    return int(Verdict.DIFFERENCES if failing else Verdict.OK)


def _client(args: argparse.Namespace) -> Client:
    return Client.connect(
        args.api,
        token=args.token,
        username=args.username,
        password=args.password,
        timeout=args.timeout,
    )


def _chosen(args: argparse.Namespace, known: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The DAGs of ``--dag-id`` (default: every one *known*), refusing a DAG the plugin did not list."""
    if not args.dag_id:
        return known
    by_id = {d["dag_id"]: d for d in known}
    missing = [d for d in args.dag_id if d not in by_id]
    if missing:
        names = sorted(by_id)
        found = ", ".join(short_repr(n, 80) for n in names[:10]) or "none"
        found += f" and {len(names) - 10} more" if len(names) > 10 else ""
        raise BadInput(
            f"--dag-id {short_repr(missing[0])} is not a HopsworksTimetable DAG you may read on "
            f"{short_repr(args.api)}; those are: {found}"
        )
    return [by_id[d] for d in args.dag_id]


def add_arguments(p: argparse.ArgumentParser) -> None:
    """Declare ``audit``'s options on its parser (``hops_timetable.cli.app`` reads them when ``audit`` is parsed)."""
    p.add_argument("--api", required=True, help="Airflow's base URL, e.g. http://127.0.0.1:8080")
    p.add_argument("--dag-id", action="append", default=[], help="audit this DAG (repeatable; default: all)")
    p.add_argument("--token", help=f"API token (default ${TOKEN_ENV})")
    p.add_argument("--username", help=f"log in at /auth/token (default ${USERNAME_ENV})")
    p.add_argument("--password", help=f"with --username (default ${PASSWORD_ENV})")
    p.add_argument("--strict", action="store_true", help="exit 3 also for windows the schedule dropped by design")
    p.add_argument("--repair", action="store_true", help="create the runs that fill the gaps")
    p.add_argument(
        "--include-dropped",
        action="store_true",
        help="with --repair: also fill the windows the catch-up bound or catchup=False dropped",
    )
    p.add_argument(
        "--max-runs",
        type=int,
        help=f"with --repair: the most runs it may create (default {DEFAULT_MAX_RUNS}); a larger plan is refused",
    )
    p.add_argument("--dry-run", action="store_true", help="with --repair: print the plan, change nothing")
    p.add_argument(
        "--limit", type=int, default=60, help="the newest fires listed one by one per DAG (default 60; text and JSON)"
    )
    p.add_argument("--now", help="the present moment (default: the real clock)")
    p.add_argument(
        "--timeout",
        type=float,
        default=DEFAULT_TIMEOUT,
        help=f"seconds to wait for each answer of Airflow (default {DEFAULT_TIMEOUT:g}); on SQLite a write can wait "
        "for the database's busy timeout first",
    )
    p.set_defaults(func=cmd_audit)
