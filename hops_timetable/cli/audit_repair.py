"""``audit --repair``: the writes of a repair plan (:mod:`hops_timetable.core.repair`) through Airflow's REST API.

A bare 5xx (Airflow 3.0 lets SQLite's lock escape as one) leaves unknown what was written, so before a write is sent
again Airflow is asked whether it made it: an unfinished backfill of the same range, or the manual run's own run id.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from typing import Any, TypeVar
from urllib.parse import quote

from tenacity import Retrying, retry_if_exception_type, stop_after_attempt, wait_chain, wait_fixed

from hops_timetable.cli.audit_client import Client, airflow_time
from hops_timetable.cli.errors import AuditError
from hops_timetable.core.coverage import FireCoverage
from hops_timetable.core.repair import RepairKind, RepairStep

_SQLITE_REFUSAL = "not supported on SQLite"
SQLITE_NOTE = (
    "Airflow refused the backfill: on SQLite it does not support backfills while the scheduler writes; filled with "
    "conf-window runs instead (PostgreSQL or MySQL take backfills)"
)

# Pauses before a write that failed with an unexplained 5xx is sent again, once Airflow shows it made nothing.
_UNKNOWN_OUTCOME_RETRIES = (1.0, 3.0)
_T = TypeVar("_T")


class _Unknown(AuditError):
    """A write failed with a bare 5xx and Airflow shows it made nothing: it may be sent again."""


def _unknown_outcome_retries(attempt: Callable[[], _T]) -> _T:
    """*attempt*, again after each pause while it raises :class:`_Unknown`; then the last one's error."""
    pauses = wait_chain(*map(wait_fixed, _UNKNOWN_OUTCOME_RETRIES))
    stop = stop_after_attempt(len(_UNKNOWN_OUTCOME_RETRIES) + 1)
    return Retrying(retry=retry_if_exception_type(_Unknown), wait=pauses, stop=stop, reraise=True)(attempt)


def _backfill_body(dag_id: str, step: RepairStep) -> dict[str, Any]:
    return {
        "dag_id": dag_id,
        "from_date": step.fires[0].interval_start.isoformat(),
        "to_date": step.fires[-1].interval_start.isoformat(),
        "reprocess_behavior": step.reprocess,
        "max_active_runs": 1,
    }


def check_backfills(client: Client, dag_id: str, steps: Sequence[RepairStep]) -> list[RepairStep]:
    """Each backfill kept only if Airflow's dry run creates exactly its logical dates; else one conf run per fire."""
    out: list[RepairStep] = []
    for step in steps:
        if step.kind is not RepairKind.BACKFILL:
            out.append(step)
            continue
        dry = client.request("POST", "/api/v2/backfills/dry_run", json=_backfill_body(dag_id, step))
        would = sorted(filter(None, (airflow_time(b.get("logical_date")) for b in dry.get("backfills", []))))
        note = f"; Airflow's backfill of this range would create {len(would)} run(s), not these {len(step.fires)}"
        same = would == [f.interval_start for f in step.fires]
        out += [step] if same else [RepairStep(RepairKind.MANUAL, (fire,), note=note) for fire in step.fires]
    return out


def apply_step(client: Client, dag_id: str, step: RepairStep) -> str:
    """*step* carried out: a manual run, or a backfill (conf-window runs where Airflow refuses one); what was made."""
    if step.kind is not RepairKind.BACKFILL:
        return manual_run(client, dag_id, step.fires[0])
    body = _backfill_body(dag_id, step)

    def attempt() -> str:
        try:
            return f"backfill {client.request('POST', '/api/v2/backfills', json=body).get('id')}"
        except AuditError as exc:
            # Airflow runs one backfill per DAG at a time (409), and on SQLite refuses one while another process
            # writes (503), having written nothing: conf-window runs, which carry no logical date, fill the range.
            sqlite = exc.status == 503 and _SQLITE_REFUSAL in str(exc)
            if exc.status == 409 or sqlite:
                made = ", ".join(manual_run(client, dag_id, fire) for fire in step.fires)
                return f"{made} ({SQLITE_NOTE})" if sqlite else made
            if exc.status is None or exc.status < 500:
                raise
            error = exc
        # A 5xx that is not a clean "busy" refusal (Airflow 3.0 lets SQLite's lock escape as a bare 500) leaves
        # unknown what was written: Airflow commits the backfill row before it creates the backfill's runs.
        made_id = _open_backfill(client, body)
        if made_id is None:
            raise _Unknown(str(error), error.status)
        taken = {r.logical_date for r in client.runs(dag_id)}
        rest = [manual_run(client, dag_id, fire) for fire in step.fires if fire.interval_start not in taken]
        return ", ".join([f"backfill {made_id}", *rest])

    return _unknown_outcome_retries(attempt)


def _open_backfill(client: Client, body: dict[str, Any]) -> Any:
    """The id of the DAG's unfinished backfill of exactly *body*'s range, if Airflow made one."""
    page = client.request("GET", "/api/v2/backfills", params={"dag_id": body["dag_id"], "limit": 20, "order_by": "-id"})
    wanted = (airflow_time(body["from_date"]), airflow_time(body["to_date"]))
    for item in page.get("backfills", []):
        ends = (airflow_time(item.get("from_date")), airflow_time(item.get("to_date")))
        if ends == wanted and item.get("completed_at") is None:
            return item.get("id")
    return None


def manual_run(client: Client, dag_id: str, fire: FireCoverage) -> str:
    env = fire.window.as_env()
    run_id = f"manual__hops_repair_{uuid.uuid4().hex[:12]}"
    body = {
        "dag_run_id": run_id,
        "logical_date": None,
        "conf": {"hops_window": {"start_time": env["HOPS_START_TIME"], "end_time": env["HOPS_END_TIME"]}},
        "note": "hops-timetable audit --repair",
    }
    runs = f"/api/v2/dags/{quote(dag_id, safe='')}/dagRuns"

    def attempt() -> str:
        try:
            client.request("POST", runs, json=body)
            return run_id
        except AuditError as exc:
            if exc.status is None or exc.status < 500:
                raise
            error = exc
        # The run id is this call's own, so whether the failed request made the run can be asked directly.
        try:
            client.request("GET", f"{runs}/{quote(run_id, safe='')}")
            return run_id
        except AuditError as exc:
            if exc.status != 404:
                raise
        raise _Unknown(str(error), error.status)

    return _unknown_outcome_retries(attempt)
