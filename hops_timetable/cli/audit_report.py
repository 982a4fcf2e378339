"""What ``audit`` prints for each DAG: the newest fires as a table, the spans, the repair plan, the verdict; and the
same as JSON, bounded whatever the history's length."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from hops_timetable.cli.audit_client import Settings
from hops_timetable.cli.output import render_table
from hops_timetable.core.coverage import Coverage, History, RunRecord, RunWindow
from hops_timetable.core.decision import Decision
from hops_timetable.core.repair import RepairStep, runs_in
from hops_timetable.core.window import format_hops_time

__all__ = ["JSON_SPANS", "SHOWN_PLAN", "Audited", "text_lines"]

JSON_SPANS = 1_000
"""The newest gaps, drops, duplicates, overlaps and stretches ``--json`` lists per DAG (with their totals)."""
SHOWN_PLAN = 10_000
"""The most runs ``--repair --dry-run`` lists one by one; a larger plan is only counted."""


def _t(value: datetime) -> str:
    return format_hops_time(value)


@dataclass
class Audited:
    """One audited DAG: its settings and runs, what they say, and the repair planned (and carried out)."""

    settings: Settings
    runs: list[RunRecord]
    coverage: Coverage  # the newest --limit fires in detail
    history: History  # the whole history: the verdict, the spans and what to repair
    repair: list[RepairStep] = field(default_factory=list)
    applied: list[str] = field(default_factory=list)
    planned: int = 0  # runs the repair would create, counted before the plan is made

    def failed(self, strict: bool) -> bool:
        """Whether this DAG counts against the exit status: a window that should have run and did not, or ran
        twice; with *strict*, also a window dropped by design."""
        return not self.history.ok or (strict and bool(self.history.dropped))

    def as_json(self, dry_run: bool) -> dict[str, Any]:
        hist = self.history
        data = replace(self.coverage, runs=_near_runs(self.coverage)).as_json()
        missing = sum(s.count for s in hist.stretches if s.sample.expected and not s.sample.covered)
        dropped = sum(s.count for s in hist.stretches if s.sample.by_design and not s.sample.covered)
        data.update(
            {
                "complete": hist.complete,
                "ok": hist.ok,
                "verdict": hist.verdict(),
                "counts": hist.counts(),
                "expected_windows": sum(s.count for s in hist.stretches if s.sample.expected),
                "missing_windows": missing,
                "dropped_by_design": dropped,
                "fires_total": hist.fires,
                "truncated": len(self.coverage.fires) < hist.fires,
                "gaps": [g.as_json() for g in hist.gaps[-JSON_SPANS:]],
                "gaps_total": len(hist.gaps),
                "dropped": [d.as_json() for d in hist.dropped[-JSON_SPANS:]],
                "dropped_total": len(hist.dropped),
                "duplicates": data["duplicates"][-JSON_SPANS:],
                "duplicates_total": len(data["duplicates"]),
                "overlaps": data["overlaps"][-JSON_SPANS:],
                "overlaps_total": len(data["overlaps"]),
                "history": [st.as_json() for st in hist.stretches[-JSON_SPANS:]],
                "history_total": len(hist.stretches),
            }
        )
        return {
            "dag_id": self.settings.dag_id,
            **data,
            "repair": [step.as_json() for step in self.repair],
            "repair_runs": self.planned,
            "applied": self.applied,
            "dry_run": dry_run,
        }


def _near_runs(cov: Coverage) -> list[RunWindow]:
    """The runs of the listed fires and those whose window meets theirs: the JSON stays the size of --limit."""
    if not cov.fires:
        return []
    listed = {r for f in cov.fires for r in f.run_ids}
    lo, hi = cov.fires[0].window.start, cov.fires[-1].window.end
    return [w for w in cov.runs if w.run.run_id in listed or (w.window and w.window.start < hi and lo < w.window.end)]


def text_lines(item: Audited, limit: int) -> list[str]:
    cov = item.coverage
    hist = item.history
    s = item.settings
    rows = []
    for f in cov.fires[-limit:]:
        env = f.window.as_env()
        rows.append(
            (
                _t(f.fire),
                f.status + ("" if f.decision is Decision.CREATED or not f.covered else " (covered)"),
                f"[{_t(f.interval_start)}, {_t(f.fire)})",
                env["HOPS_START_TIME"],
                env["HOPS_END_TIME"],
                ", ".join(f.run_ids),
            )
        )

    head = [
        f"{s.dag_id}: {s.policy.cron.expression} ({s.policy.cron.describe()}), catchup={s.catchup}, "
        f"max_catchup_runs={s.policy.max_catchup_runs}, offset={s.offset or 0}s",
        "",
    ]
    table = render_table(["fire", "status", "Airflow data interval", "HOPS_START_TIME", "HOPS_END_TIME", "runs"], rows)
    older = hist.fires - len(cov.fires)
    more = [f"... {older:,} older fire(s) not shown (raise --limit)"] if older > 0 else []
    gaps = _capped([f"gap [{_t(g.start)}, {_t(g.end)}): {', '.join(g.reasons)}" for g in hist.gaps], "gap(s)")
    dups = _capped(
        [f"processed twice [{_t(d.start)}, {_t(d.end)}): {', '.join(d.run_ids)}" for d in cov.duplicates],
        "window(s) processed twice",
    )
    dropped = _capped(
        [f"dropped by design [{_t(d.start)}, {_t(d.end)}): {', '.join(d.reasons)}" for d in hist.dropped],
        "dropped span(s)",
    )
    extra = ["", *gaps, *dups, *dropped] if gaps or dups or dropped else []
    plan = []
    if item.repair:
        plan = ["", "repair:" if item.applied else "repair plan (dry run, nothing changed):"]
        shown: list[tuple[int, RepairStep | None]] = list(enumerate(item.repair))
        if len(shown) > 8:
            # The JSON lists every step; the text keeps the first and the last few.
            shown = [*shown[:4], (-1, None), *shown[-2:]]
        for n, step in shown:
            if step is None:
                plan.append(f"  ... {len(item.repair) - 6} more step(s) of the same kind (--json lists all)")
                continue
            done = f"  -> {item.applied[n]}" if n < len(item.applied) else ""
            plan.append(f"  {step.describe()}{done}")
        plan.append(f"  {runs_in(item.repair)} run(s) in all")
    elif item.planned:
        plan = ["", f"repair: {item.planned:,} run(s), too many to list (a dry run lists up to {SHOWN_PLAN:,})"]
    return [*head, *more, *table, *extra, *plan, "", f"{s.dag_id}: {hist.verdict()}"]


def _capped(lines: list[str], what: str, keep: int = 20) -> list[str]:
    """The newest *keep* of *lines* (the JSON lists all), so the text stays short for any history."""
    if len(lines) <= keep:
        return lines
    return [f"... {len(lines) - keep} older {what} not shown (--json lists all)", *lines[-keep:]]
