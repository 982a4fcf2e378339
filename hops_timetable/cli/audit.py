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
import os
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from typing import Any
from urllib.parse import quote

from hops_timetable.cli.errors import BadInput
from hops_timetable.cli.options import now_from_args
from hops_timetable.cli.output import emit, render_table
from hops_timetable.core.catchup import CatchupPolicy
from hops_timetable.core.coverage import Coverage, FireCoverage, History, RunRecord, RunWindow, Stretch, history
from hops_timetable.core.cron import QuartzCron
from hops_timetable.core.simulate import CATCH_UP_DROPS, Decision
from hops_timetable.core.validation import short_repr
from hops_timetable.core.window import format_hops_time

__all__ = ["AuditError", "Client", "RepairStep", "add_parser", "cmd_audit", "plan_repair"]

TOKEN_ENV = "AIRFLOW_API_TOKEN"
USERNAME_ENV = "AIRFLOW_API_USERNAME"
PASSWORD_ENV = "AIRFLOW_API_PASSWORD"
GAPS_FOUND = 3
_PAGE = 100
MAX_RUNS_READ = 2_000_000
"""The most runs of one DAG ``audit`` reads: its memory stays bounded whatever a server claims."""
DEFAULT_MAX_RUNS = 100
"""The most runs ``--repair`` creates without ``--max-runs``."""
JSON_SPANS = 1_000
"""The newest gaps, drops, duplicates, overlaps and stretches ``--json`` lists per DAG (with their totals)."""
_SHOWN_PLAN = 10_000
"""The most runs ``--repair --dry-run`` lists one by one; a larger plan is only counted."""
_SQLITE_REFUSAL = "not supported on SQLite"
SQLITE_NOTE = (
    "Airflow refused the backfill: on SQLite it does not support backfills while the scheduler writes; filled with "
    "conf-window runs instead (PostgreSQL or MySQL take backfills)"
)


_BUSY_RETRY_SECONDS = (0.5, 1.0, 2.0, 3.0, 5.0, 8.0)
_UNKNOWN_OUTCOME_RETRIES = (1.0, 3.0)
"""Pauses before a write that failed with an unexplained 5xx is sent again, once Airflow shows it made nothing."""


def _busy(response: Any) -> bool:
    """Whether Airflow refused *response*'s request for a busy database, having written nothing.

    On SQLite a write waits for the other processes' writes and gives up after the busy timeout: Airflow answers 503
    ("Database is locked") where it expects that, and 500 with ``reason: "Database error"`` (its generic SQLAlchemy
    handler) where it does not. Either way the request's transaction was rolled back, so the same request a moment
    later is safe and usually goes through.
    """
    if response.status_code == 503:
        return "locked" in response.text
    if response.status_code != 500:
        return False
    try:
        detail = response.json().get("detail")
    except ValueError:
        return False
    return isinstance(detail, dict) and detail.get("reason") == "Database error"


class AuditError(RuntimeError):
    """Airflow could not be read or written; the message says which request failed and why."""

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


def _time(text: object, name: str = "time") -> datetime | None:
    if text is None:
        return None
    try:
        if not isinstance(text, str):
            raise ValueError
        value = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise AuditError(f"Airflow answered {name}={short_repr(text)}: expected an ISO-8601 time") from None
    return value.replace(tzinfo=timezone.utc) if value.tzinfo is None else value.astimezone(timezone.utc)


class Client:
    """Airflow's REST API and the plugin's JSON, over one ``httpx.Client`` with a bearer token."""

    def __init__(self, api: str, token: str, *, timeout: float = 30.0) -> None:
        # Imported here: the other commands of the CLI start without it.
        import httpx

        self._errors = httpx.HTTPError
        self.http = httpx.Client(
            base_url=api.rstrip("/"),
            headers={"Authorization": f"Bearer {token}", "Accept": "application/json"},
            timeout=timeout,
        )

    @staticmethod
    def login(api: str, username: str, password: str, *, timeout: float = 30.0) -> str:
        """A token for *username* from Airflow's ``/auth/token``."""
        import httpx

        try:
            response = httpx.post(
                api.rstrip("/") + "/auth/token", json={"username": username, "password": password}, timeout=timeout
            )
        except httpx.HTTPError as exc:
            raise AuditError(f"cannot reach {api[:200]}: {str(exc)[:300]}") from None
        if response.status_code >= 400:
            raise AuditError(f"login as {short_repr(username)} at {api[:200]}/auth/token: HTTP {response.status_code}")
        token = response.json().get("access_token")
        if not isinstance(token, str):
            raise AuditError(f"{api[:200]}/auth/token answered without an access_token")
        return token

    def request(self, method: str, path: str, **kwargs: Any) -> Any:
        try:
            response = self.http.request(method, path, **kwargs)
            for delay in _BUSY_RETRY_SECONDS:
                if not _busy(response):
                    break
                time.sleep(delay)
                response = self.http.request(method, path, **kwargs)
        except self._errors as exc:
            raise AuditError(f"{method} {path}: cannot reach Airflow: {exc}") from None
        if response.status_code >= 400:
            detail = response.text[:300]
            hint = {401: " (no valid token: pass --token or --username/--password)", 403: " (not allowed)"}.get(
                response.status_code, ""
            )
            raise AuditError(f"{method} {path} -> HTTP {response.status_code}{hint}: {detail}", response.status_code)
        return response.json() if response.content else None

    def hops_dags(self) -> list[dict[str, Any]]:
        """The HopsworksTimetable DAGs the token may read, with their settings."""
        data = self.request("GET", "/hops/api/dags")
        dags: list[dict[str, Any]] = data["dags"]
        return dags

    def runs(self, dag_id: str, *, max_runs: int = MAX_RUNS_READ) -> list[RunRecord]:
        """Every run of *dag_id*, page by page, each run once.

        The pages must add up: each answer gives ``total_entries``, and a page of runs all read before (a server
        that ignores ``offset``) stops the reading with an error, as does a count beyond *max_runs*; so the loop
        ends and its memory is bounded whatever the server answers. Runs added while reading may shift a page by a
        few (a backfill's runs sort among the older ones): a run seen twice is kept once.
        """
        path = f"/api/v2/dags/{quote(dag_id, safe='')}/dagRuns"
        out: list[RunRecord] = []
        seen: set[str] = set()
        offset = 0
        pages = 0
        while True:
            page = self.request("GET", path, params={"limit": _PAGE, "offset": offset, "order_by": "run_after"})
            pages += 1
            where = f"GET {path}?offset={offset}"
            total = page.get("total_entries") if isinstance(page, dict) else None
            batch = page.get("dag_runs") if isinstance(page, dict) else None
            if isinstance(total, bool) or not isinstance(total, int) or total < 0:
                raise AuditError(
                    f"{where}: the answer has total_entries={short_repr(total)}, expected a count of runs; without it "
                    "the pages cannot be known to end (is --api an Airflow 3 api-server?)"
                )
            if not isinstance(batch, list):
                raise AuditError(f"{where}: the answer has dag_runs={short_repr(batch)}, expected a list of runs")
            if total > max_runs:
                raise AuditError(
                    f"{where}: DAG {short_repr(dag_id)} has total_entries={total:,} runs; audit reads at most "
                    f"{max_runs:,} runs of one DAG"
                )
            fresh = [item for item in batch if _run_id(item, where) not in seen]
            if batch and not fresh:
                raise AuditError(
                    f"{where}: the page repeats runs already read ({short_repr(_run_id(batch[0], where))} ...): "
                    "the server does not honour offset, so reading on would never end"
                )
            for item in fresh:
                seen.add(_run_id(item, where))
                out.append(_record(item))
            offset += len(batch)
            if not batch or offset >= total:
                return out
            if pages > total // _PAGE + 10:
                raise AuditError(f"{where}: {pages} pages read for total_entries={total:,}; the pages do not add up")


def _run_id(item: object, where: str) -> str:
    run_id = item.get("dag_run_id") if isinstance(item, dict) else None
    if not isinstance(run_id, str):
        raise AuditError(f"{where}: a run without a dag_run_id: {short_repr(item)}")
    return run_id


def _record(item: dict[str, Any]) -> RunRecord:
    run_after = _time(item.get("run_after"), "run_after")
    if run_after is None:
        raise AuditError(f"Airflow answered a run without run_after: {short_repr(item)}")
    conf = item.get("conf")
    return RunRecord(
        run_id=item["dag_run_id"],
        run_type=str(item.get("run_type")),
        state=str(item.get("state")),
        run_after=run_after,
        logical_date=_time(item.get("logical_date"), "logical_date"),
        data_interval_start=_time(item.get("data_interval_start"), "data_interval_start"),
        data_interval_end=_time(item.get("data_interval_end"), "data_interval_end"),
        queued_at=_time(item.get("queued_at"), "queued_at"),
        conf=conf if isinstance(conf, dict) else None,
    )


@dataclass(frozen=True)
class Settings:
    """A DAG's schedule as the plugin reports it."""

    dag_id: str
    policy: CatchupPolicy
    catchup: bool
    offset: int | None
    paused: bool | None

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Settings:
        policy = CatchupPolicy(
            QuartzCron(data["cron_expression"]),
            start=_time(data.get("start_time")),
            end=_time(data.get("end_time")),
            skip_to=_time(data.get("skip_to_date")),
            max_catchup_runs=data.get("max_catchup_runs"),
        )
        paused = data.get("is_paused")
        offset = data.get("start_time_offset_seconds")
        return cls(data["dag_id"], policy, bool(data.get("catchup")), offset, None if paused is None else bool(paused))


@dataclass(frozen=True)
class RepairStep:
    """One write: a backfill of ``fires`` (``kind="backfill"``) or one manual run with a conf window."""

    kind: str
    fires: tuple[FireCoverage, ...]
    reprocess: str = "none"
    note: str = ""

    def describe(self) -> str:
        first, last = self.fires[0], self.fires[-1]
        if self.kind == "backfill":
            span = _t(first.interval_start) if len(self.fires) == 1 else f"{_t(first.interval_start)} .. "
            span += "" if len(self.fires) == 1 else _t(last.interval_start)
            return f"backfill logical date(s) {span} ({len(self.fires)} run(s), reprocess={self.reprocess}){self.note}"
        env = first.window.as_env()
        return f"manual run with conf window [{env['HOPS_START_TIME']}, {env['HOPS_END_TIME']}){self.note}"

    def as_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "reprocess_behavior": self.reprocess if self.kind == "backfill" else None,
            "logical_dates": [_t(f.interval_start) for f in self.fires],
            "windows": [f.window.as_env() for f in self.fires],
            "note": self.note.strip(" ;") or None,
        }


def _t(value: datetime) -> str:
    return format_hops_time(value)


def plan_repair(cov: Coverage, runs: Sequence[RunRecord], *, include_dropped: bool = False) -> list[RepairStep]:
    """The writes that fill the gaps of *cov*, before the backfill dry run checks them.

    Missing fires whose logical date has no run are grouped into consecutive ranges, one backfill each; failed
    scheduled runs are backfilled with ``reprocess_behavior="failed"`` (Airflow clears them: same logical date, no
    new one). A missing fire whose logical date is taken by another run gets a manual conf run instead. Fires the
    schedule dropped by design are left alone, unless *include_dropped*: then those the catch-up rule dropped
    (:data:`~hops_timetable.core.simulate.CATCH_UP_DROPS`) are filled too; fires before ``skip_to_date`` never are.
    """
    taken = {r.logical_date for r in runs if r.logical_date is not None}
    steps: list[RepairStep] = []
    batch: list[FireCoverage] = []
    batch_kind = ""

    def flush() -> None:
        nonlocal batch
        if batch:
            steps.append(RepairStep("backfill", tuple(batch), reprocess=batch_kind))
        batch = []

    for fire in cov.fires:
        wanted = fire.expected or (include_dropped and fire.decision in CATCH_UP_DROPS)
        if not wanted or fire.covered or fire.decision is Decision.DUE:
            flush()
            continue
        if fire.decision is Decision.CREATED:
            kind = "failed" if fire.state == "failed" else ""
        else:
            kind = "" if fire.interval_start in taken else "none"
        if not kind:
            flush()
            steps.append(RepairStep("manual", (fire,), note="; its logical date is taken by another run"))
            continue
        if batch_kind != kind:
            flush()
            batch_kind = kind
        batch.append(fire)
    flush()
    return steps


def _backfill_body(dag_id: str, step: RepairStep) -> dict[str, Any]:
    return {
        "dag_id": dag_id,
        "from_date": step.fires[0].interval_start.isoformat(),
        "to_date": step.fires[-1].interval_start.isoformat(),
        "reprocess_behavior": step.reprocess,
        "max_active_runs": 1,
    }


def _checked(client: Client, dag_id: str, steps: Sequence[RepairStep]) -> list[RepairStep]:
    """Each backfill kept only if Airflow's dry run creates exactly its logical dates; else one conf run per fire."""
    out: list[RepairStep] = []
    for step in steps:
        if step.kind != "backfill":
            out.append(step)
            continue
        dry = client.request("POST", "/api/v2/backfills/dry_run", json=_backfill_body(dag_id, step))
        would = sorted(d for d in (_time(b.get("logical_date")) for b in dry.get("backfills", [])) if d is not None)
        if would == [f.interval_start for f in step.fires]:
            out.append(step)
            continue
        note = f"; Airflow's backfill of this range would create {len(would)} run(s), not these {len(step.fires)}"
        out += [RepairStep("manual", (fire,), note=note) for fire in step.fires]
    return out


def _apply(client: Client, dag_id: str, step: RepairStep) -> str:
    if step.kind == "backfill":
        return _backfill(client, dag_id, step)
    return _manual_run(client, dag_id, step.fires[0])


def _backfill(client: Client, dag_id: str, step: RepairStep) -> str:
    body = _backfill_body(dag_id, step)
    for attempt in range(len(_UNKNOWN_OUTCOME_RETRIES) + 1):
        try:
            made = client.request("POST", "/api/v2/backfills", json=body)
            return f"backfill {made.get('id')}"
        except AuditError as exc:
            if exc.status == 409:
                # Airflow runs one backfill per DAG at a time: while an earlier step's backfill runs, this range is
                # filled with conf-window runs instead, which carry no logical date and so can never repeat one.
                return ", ".join(_manual_run(client, dag_id, fire) for fire in step.fires)
            if exc.status == 503 and _SQLITE_REFUSAL in str(exc):
                # Airflow on SQLite refuses a backfill while another process writes (its scheduler always does),
                # having written nothing: the same conf-window runs fill the range.
                made = ", ".join(_manual_run(client, dag_id, fire) for fire in step.fires)
                return f"{made} ({SQLITE_NOTE})"
            if exc.status is None or exc.status < 500 or attempt == len(_UNKNOWN_OUTCOME_RETRIES):
                raise
        # A 5xx that is not a clean "busy" refusal (Airflow 3.0 lets SQLite's lock escape as a bare 500) leaves
        # unknown what was written: Airflow commits the backfill row before it creates the backfill's runs.
        made_id = _open_backfill(client, body)
        if made_id is not None:
            taken = {r.logical_date for r in client.runs(dag_id)}
            rest = [_manual_run(client, dag_id, fire) for fire in step.fires if fire.interval_start not in taken]
            return ", ".join([f"backfill {made_id}", *rest])
        time.sleep(_UNKNOWN_OUTCOME_RETRIES[attempt])
    raise AssertionError("unreachable")


def _open_backfill(client: Client, body: dict[str, Any]) -> Any:
    """The id of the DAG's unfinished backfill of exactly *body*'s range, if Airflow made one."""
    page = client.request("GET", "/api/v2/backfills", params={"dag_id": body["dag_id"], "limit": 20, "order_by": "-id"})
    for item in page.get("backfills", []):
        same = _time(item.get("from_date")) == _time(body["from_date"]) and _time(item.get("to_date")) == _time(
            body["to_date"]
        )
        if same and item.get("completed_at") is None:
            return item.get("id")
    return None


def _manual_run(client: Client, dag_id: str, fire: FireCoverage) -> str:
    env = fire.window.as_env()
    run_id = f"manual__hops_repair_{uuid.uuid4().hex[:12]}"
    body = {
        "dag_run_id": run_id,
        "logical_date": None,
        "conf": {"hops_window": {"start_time": env["HOPS_START_TIME"], "end_time": env["HOPS_END_TIME"]}},
        "note": "hops-timetable audit --repair",
    }
    runs = f"/api/v2/dags/{quote(dag_id, safe='')}/dagRuns"
    for attempt in range(len(_UNKNOWN_OUTCOME_RETRIES) + 1):
        try:
            client.request("POST", runs, json=body)
            return run_id
        except AuditError as exc:
            if exc.status is None or exc.status < 500 or attempt == len(_UNKNOWN_OUTCOME_RETRIES):
                raise
        # The run id is this call's own, so whether the failed request made the run can be asked directly.
        try:
            client.request("GET", f"{runs}/{quote(run_id, safe='')}")
            return run_id
        except AuditError as exc:
            if exc.status != 404:
                raise
        time.sleep(_UNKNOWN_OUTCOME_RETRIES[attempt])
    raise AssertionError("unreachable")


@dataclass
class Audited:
    settings: Settings
    runs: list[RunRecord]
    coverage: Coverage  # the newest --limit fires in detail
    history: History  # the whole history: the verdict, the spans and what to repair
    repair: list[RepairStep] = field(default_factory=list)
    applied: list[str] = field(default_factory=list)
    planned: int = 0  # runs the repair would create, counted before the plan is made

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


def _text(item: Audited, limit: int) -> list[str]:
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
        plan.append(f"  {_runs_in(item.repair)} run(s) in all")
    elif item.planned:
        plan = ["", f"repair: {item.planned:,} run(s), too many to list (a dry run lists up to {_SHOWN_PLAN:,})"]
    return [*head, *more, *table, *extra, *plan, "", f"{s.dag_id}: {hist.verdict()}"]


def _capped(lines: list[str], what: str, keep: int = 20) -> list[str]:
    """The newest *keep* of *lines* (the JSON lists all), so the text stays short for any history."""
    if len(lines) <= keep:
        return lines
    return [f"... {len(lines) - keep} older {what} not shown (--json lists all)", *lines[-keep:]]


def _runs_in(steps: Sequence[RepairStep]) -> int:
    """The runs a plan creates or re-runs: one per fire of each step."""
    return sum(len(step.fires) for step in steps)


def _failed(item: Audited, strict: bool) -> bool:
    """Whether *item* counts against the exit status: a window that should have run and did not, or ran twice;
    with *strict*, also a window dropped by design."""
    return not item.history.ok or (strict and bool(item.history.dropped))


def _to_repair(hist: History, include_dropped: bool) -> list[Stretch]:
    """The stretches of fires :func:`plan_repair` would fill, found without taking the fires one by one."""
    out = []
    for stretch in hist.stretches:
        fire = stretch.sample
        wanted = fire.expected or (include_dropped and fire.decision in CATCH_UP_DROPS)
        if wanted and not fire.covered and fire.decision is not Decision.DUE:
            out.append(stretch)
    return out


def _repair_view(hist: History, stretches: Sequence[Stretch]) -> Coverage:
    """A coverage holding the fires of *stretches* and, after each, the fire that ends it, for :func:`plan_repair`."""
    fires: list[FireCoverage] = []
    for stretch in stretches:
        if fires and fires[-1].fire >= stretch.first:
            fires.pop()  # the fire that ended the stretch before is this one's first
        fires += hist.expand(stretch)
        after = hist.fire_after(stretch)
        if after is not None:
            fires.append(after)
    return Coverage(hist.now, hist.begin, fires, [], [], [], [])


def cmd_audit(args: argparse.Namespace) -> int:

    if args.limit < 1:
        raise BadInput(f"--limit {args.limit} is invalid: give a row count of at least 1")
    if args.dry_run and not args.repair:
        raise BadInput("--dry-run needs --repair: it prints the repair plan without applying it")
    if args.include_dropped and not args.repair:
        raise BadInput("--include-dropped needs --repair: it also fills the windows the catch-up rule dropped")
    if args.max_runs is not None and args.max_runs < 1:
        raise BadInput(f"--max-runs {args.max_runs} is invalid: give a number of runs of at least 1")
    token = args.token or os.environ.get(TOKEN_ENV)
    if not token:
        username = args.username or os.environ.get(USERNAME_ENV)
        password = args.password or os.environ.get(PASSWORD_ENV)
        if not username or not password:
            raise BadInput(
                f"no credentials: pass --token (or set ${TOKEN_ENV}) or --username and --password "
                f"(or ${USERNAME_ENV}/${PASSWORD_ENV})"
            )
        token = Client.login(args.api, username, password)
    client = Client(args.api, token)
    now = now_from_args(args)
    known = client.hops_dags()
    chosen = known
    if args.dag_id:
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
        chosen = [by_id[d] for d in args.dag_id]
    limit = DEFAULT_MAX_RUNS if args.max_runs is None else args.max_runs
    results: list[Audited] = []
    for data in chosen:
        settings = Settings.from_json(data)
        runs = client.runs(settings.dag_id)
        schedule = (settings.policy, settings.catchup, settings.offset, runs, now)
        hist = history(*schedule)
        cov = hist.coverage(max_fires=args.limit)
        item = Audited(settings, runs, cov, hist)
        if args.repair:
            stretches = _to_repair(hist, args.include_dropped)
            item.planned = sum(st.count for st in stretches)
            # The fires are taken one by one only for a plan that may be carried out (or shown whole).
            if 0 < item.planned <= max(limit, _SHOWN_PLAN if args.dry_run else 0):
                plan = plan_repair(_repair_view(hist, stretches), runs, include_dropped=args.include_dropped)
                item.repair = _checked(client, settings.dag_id, plan) if plan else []
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
            item.applied = [_apply(client, item.settings.dag_id, step) for step in item.repair]
    complete = all(r.history.complete for r in results)
    failing = any(_failed(r, args.strict) for r in results)
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
            lines += [*_text(r, args.limit), ""]
        if not results:
            lines.append(f"no HopsworksTimetable DAGs readable on {args.api}")
        if args.repair and args.dry_run and planned > limit:
            lines.append(
                f"--repair would create {planned:,} run(s): more than --max-runs {limit:,}, so it would refuse"
            )
        return lines

    emit(args, payload, text)
    return GAPS_FOUND if failing else 0


def add_parser(sub: Any, common: argparse.ArgumentParser) -> None:
    """Register ``audit`` on the CLI's subparsers."""
    p = sub.add_parser("audit", parents=[common], help="which HOPS windows a live Airflow processed; --repair")
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
    p.set_defaults(func=cmd_audit)
