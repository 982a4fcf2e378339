"""``hops-timetable audit``: the coverage of HopsworksTimetable DAGs on a live Airflow, and ``--repair``.

Reads through HTTP only (the plugin's ``/hops/api/dags`` and the runs). A plan of more than ``--max-runs`` runs is
refused before anything is written; the output stays bounded whatever the history's length.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass, field, replace
from typing import Any

from hops_timetable.cli.audit_client import DEFAULT_TIMEOUT, PASSWORD_ENV, TOKEN_ENV, USERNAME_ENV, Client, Settings
from hops_timetable.cli.audit_repair import apply_step, check_backfills
from hops_timetable.cli.errors import BadInput
from hops_timetable.cli.options import now_from_args
from hops_timetable.cli.output import emit, render_table
from hops_timetable.core.coverage import Blocks, Coverage, History, RunWindow, Span, history
from hops_timetable.core.decision import Decision, Verdict
from hops_timetable.core.repair import RepairStep, plan_repair, repair_view, runs_in, to_repair
from hops_timetable.core.validation import short_repr
from hops_timetable.core.window import format_hops_time as _t

DEFAULT_MAX_RUNS = 100  # the most runs --repair creates without --max-runs
JSON_SPANS = 1_000  # the newest gaps, drops, duplicates, overlaps and stretches --json lists per DAG
SHOWN_PLAN = 10_000  # the most runs --repair --dry-run lists one by one; a larger plan is only counted


@dataclass
class Audited:
    """One audited DAG: its settings, what its runs say, and the repair planned (and carried out)."""

    settings: Settings
    coverage: Coverage  # the newest --limit fires in detail
    history: History  # the whole history: the verdict, the spans and what to repair
    repair: list[RepairStep] = field(default_factory=list)
    applied: list[str] = field(default_factory=list)
    planned: int = 0  # runs the repair would create, counted before the plan is made

    def as_json(self, dry_run: bool) -> dict[str, Any]:
        hist, cov = self.history, self.coverage
        data = replace(cov, runs=_near_runs(cov)).as_json()
        samples = [(s.count, s.sample) for s in hist.stretches]
        data.update(
            hist.summary(),
            expected_windows=sum(n for n, f in samples if f.expected),
            missing_windows=sum(n for n, f in samples if f.expected and not f.covered),
            dropped_by_design=sum(n for n, f in samples if f.by_design and not f.covered),
            fires_total=hist.fires,
            truncated=len(cov.fires) < hist.fires,
        )
        spans: dict[str, list[Any]] = {"gaps": hist.gaps, "dropped": hist.dropped}
        spans |= {"duplicates": cov.duplicates, "overlaps": cov.overlaps, "history": hist.stretches}
        for name, items in spans.items():  # the newest JSON_SPANS of each, and how many there are
            data |= {name: [item.as_json() for item in items[-JSON_SPANS:]], f"{name}_total": len(items)}
        data |= {"repair": [step.as_json() for step in self.repair], "repair_runs": self.planned}
        return {"dag_id": self.settings.dag_id, **data, "applied": self.applied, "dry_run": dry_run}


def _near_runs(cov: Coverage) -> list[RunWindow]:
    """The runs of the listed fires and those whose window meets theirs: the JSON stays the size of --limit."""
    if not cov.fires:
        return []
    listed = {r for f in cov.fires for r in f.run_ids}
    lo, hi = cov.fires[0].window.start, cov.fires[-1].window.end
    return [w for w in cov.runs if w.run.run_id in listed or (w.window and w.window.start < hi and lo < w.window.end)]


def cmd_audit(args: argparse.Namespace) -> int:
    if args.limit < 1:
        raise BadInput(f"--limit {args.limit} is invalid: give a row count of at least 1")
    if args.dry_run and not args.repair:
        raise BadInput("--dry-run needs --repair: it prints the repair plan without applying it")
    if args.include_dropped and not args.repair:
        raise BadInput("--include-dropped needs --repair: it also fills the windows the catch-up rule dropped")
    if not 0 < args.timeout <= 3600:
        raise BadInput(f"--timeout {args.timeout:g} is invalid: give seconds above 0 and at most 3600")
    if args.max_runs < 1:
        raise BadInput(f"--max-runs {args.max_runs} is invalid: give a number of runs of at least 1")
    client = Client.connect(
        args.api, token=args.token, username=args.username, password=args.password, timeout=args.timeout
    )
    now = now_from_args(args)
    results: list[Audited] = []
    for data in _chosen(args, client.hops_dags()):
        settings = Settings.from_json(data)
        policy = settings.schedule.policy()
        # Each page is folded in as it arrives: runs that read like their neighbours are kept as blocks, the newest
        # fires' runs whole (they are listed), so memory grows with what differs, not with the history.
        blocks = Blocks(policy, settings.schedule.offset, tail=args.limit, keep_ids=True)
        for page in client.run_pages(settings.dag_id):
            blocks.add(page)
        runs, kept = blocks.finish()
        hist = history(policy, settings.schedule.catchup, settings.schedule.offset, runs, now, blocks=kept)
        item = Audited(settings, hist.coverage(max_fires=args.limit), hist)
        if args.repair:
            stretches = to_repair(hist, args.include_dropped)
            item.planned = sum(st.count for st in stretches)
            # The fires are taken one by one only for a plan that may be carried out (or shown whole).
            if 0 < item.planned <= max(args.max_runs, SHOWN_PLAN if args.dry_run else 0):
                plan = plan_repair(repair_view(hist, stretches), runs, include_dropped=args.include_dropped)
                item.repair = check_backfills(client, settings.dag_id, plan) if plan else []
        results.append(item)
    planned = sum(r.planned for r in results)
    if args.repair and not args.dry_run and planned > args.max_runs:
        per_dag = ", ".join(f"{short_repr(r.settings.dag_id, 80)}: {r.planned:,}" for r in results if r.planned)
        raise BadInput(
            f"--repair would create {planned:,} run(s) ({per_dag}), more than --max-runs {args.max_runs:,}; nothing "
            f"was changed: look at the plan with --dry-run, then pass --max-runs {planned} to allow it"
        )
    if args.repair and not args.dry_run:
        for item in results:
            item.applied = [apply_step(client, item.settings.dag_id, step) for step in item.repair]
    # A window missed or run twice; with --strict, also one dropped by design.
    failing = any(not r.history.ok or (args.strict and r.history.dropped) for r in results)
    payload = {
        "api": args.api,
        "complete": all(r.history.complete for r in results),
        "ok": not failing,
        "strict": bool(args.strict),
        "dags": [r.as_json(bool(args.dry_run)) for r in results],
    }

    def text() -> list[str]:
        lines = [line for r in results for line in [*_text_lines(r, args.limit), ""]]
        lines += [] if results else [f"no HopsworksTimetable DAGs readable on {args.api}"]
        if args.repair and args.dry_run and planned > args.max_runs:
            lines.append(
                f"--repair would create {planned:,} run(s): more than --max-runs {args.max_runs:,}, so it would refuse"
            )
        return lines

    emit(args, payload, text)
    return int(Verdict.DIFFERENCES if failing else Verdict.OK)


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


def _text_lines(item: Audited, limit: int) -> list[str]:
    cov, hist, s, sch = item.coverage, item.history, item.settings, item.settings.schedule
    rows = []
    for f in cov.fires[-limit:]:
        status = f.status + ("" if f.decision is Decision.CREATED or not f.covered else " (covered)")
        window = f"[{_t(f.interval_start)}, {_t(f.fire)})"
        rows.append((_t(f.fire), status, window, _t(f.window.start), _t(f.window.end), ", ".join(f.run_ids)))
    lines = [
        f"{s.dag_id}: {sch.cron.expression} ({sch.cron.describe()}), catchup={sch.catchup}, "
        f"max_catchup_runs={sch.max_catchup_runs}, offset={sch.offset or 0}s",
        "",
    ]
    if (older := hist.fires - len(cov.fires)) > 0:
        lines.append(f"... {older:,} older fire(s) not shown (raise --limit)")
    lines += render_table(["fire", "status", "Airflow data interval", "HOPS_START_TIME", "HOPS_END_TIME", "runs"], rows)
    spans = [
        *_spans("gap", hist.gaps, "gap(s)"),
        *_spans("processed twice", cov.duplicates, "window(s) processed twice", runs=True),
        *_spans("dropped by design", hist.dropped, "dropped span(s)"),
    ]
    lines += ["", *spans] if spans else []
    if item.repair:
        lines += ["", "repair:" if item.applied else "repair plan (dry run, nothing changed):"]
        steps = [
            f"  {step.describe()}" + (f"  -> {item.applied[n]}" if n < len(item.applied) else "")
            for n, step in enumerate(item.repair)
        ]
        if len(steps) > 8:  # the JSON lists every step; the text keeps the first and the last few
            elided = f"  ... {len(steps) - 6} more step(s) of the same kind (--json lists all)"
            steps = [*steps[:4], elided, *steps[-2:]]
        lines += [*steps, f"  {runs_in(item.repair)} run(s) in all"]
    elif item.planned:
        lines += ["", f"repair: {item.planned:,} run(s), too many to list (a dry run lists up to {SHOWN_PLAN:,})"]
    return [*lines, "", f"{s.dag_id}: {hist.verdict()}"]


def _spans(label: str, spans: list[Span], what: str, runs: bool = False, keep: int = 20) -> list[str]:
    """The newest *keep* of *spans*, each with its reasons (or runs): the text stays short for any history."""
    lines = [
        f"{label} [{_t(x.start)}, {_t(x.end)}): {', '.join(x.run_ids if runs else x.reasons)}" for x in spans[-keep:]
    ]
    older = [f"... {len(spans) - keep} older {what} not shown (--json lists all)"] if len(spans) > keep else []
    return [*older, *lines]


def add_arguments(p: argparse.ArgumentParser) -> None:
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
        default=DEFAULT_MAX_RUNS,
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
