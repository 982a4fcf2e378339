"""Airflow's REST API and the plugin's JSON over HTTP, as ``audit`` and ``parity --airflow-api`` read them: pages
are handed on as they arrive, and pages that do not add up are an error, never a loop."""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast
from urllib.parse import quote

from tenacity import Retrying, retry_if_result, stop_after_attempt, wait_chain, wait_fixed

from hops_timetable.cli.errors import AuditError, BadInput
from hops_timetable.core.coverage import RunRecord
from hops_timetable.core.schedule import Schedule
from hops_timetable.core.time_text import TimeTextError, parse_time
from hops_timetable.core.validation import ArgumentError, short_repr

TOKEN_ENV = "AIRFLOW_API_TOKEN"
USERNAME_ENV = "AIRFLOW_API_USERNAME"
PASSWORD_ENV = "AIRFLOW_API_PASSWORD"
DEFAULT_TIMEOUT = 30.0  # seconds for each answer of Airflow (audit --timeout)
_PAGE = 100
MAX_RUNS_READ = 2_000_000  # the most runs of one DAG read: memory stays bounded whatever a server claims
_BUSY_RETRY_SECONDS = (0.5, 1.0, 2.0, 3.0, 5.0, 8.0)
_HINTS = {401: " (no valid token: pass --token or --username/--password)", 403: " (not allowed)"}  # of a refusal
_RUN_TIMES = ("logical_date", "data_interval_start", "data_interval_end", "queued_at")  # those a run may lack


def _busy(response: Any) -> bool:
    """Whether Airflow refused for a busy SQLite database, having rolled back (so the same request is safe again):
    503 "Database is locked" where it expects the lock, 500 with ``reason: "Database error"`` where it does not."""
    if response.status_code != 500:
        return response.status_code == 503 and "locked" in response.text
    try:
        detail = response.json().get("detail")
    except ValueError:
        return False
    return isinstance(detail, dict) and detail.get("reason") == "Database error"


def airflow_time(text: object, name: str = "time") -> datetime | None:
    """A time in Airflow's JSON as aware UTC (``None`` stays ``None``); one refused is an :class:`AuditError`."""
    if text is None:
        return None
    try:
        return parse_time(name, text)
    except TimeTextError as exc:
        raise AuditError(f"Airflow answered {exc}") from None


class Client:
    """Airflow's REST API and the plugin's JSON, over one ``httpx.Client`` with a bearer token."""

    def __init__(self, api: str, token: str | None, *, timeout: float = DEFAULT_TIMEOUT) -> None:
        # Imported here: the other commands of the CLI start without it.
        import httpx

        self._errors = httpx.HTTPError
        headers = {"Accept": "application/json"}
        if token is not None:  # None: an Airflow that needs no login (simple auth manager, all_admins)
            headers["Authorization"] = f"Bearer {token}"
        self.http = httpx.Client(base_url=api.rstrip("/"), headers=headers, timeout=timeout)

    @classmethod
    def connect(
        cls,
        api: str,
        *,
        token: str | None = None,
        username: str | None = None,
        password: str | None = None,
        timeout: float = DEFAULT_TIMEOUT,
    ) -> Client:
        """A client with the token given, or from logging in, or none; a credential not given is read from the
        environment."""
        token = token or os.environ.get(TOKEN_ENV)
        username = username or os.environ.get(USERNAME_ENV)
        password = password or os.environ.get(PASSWORD_ENV)
        if not api.startswith(("http://", "https://")):
            why = "is not an Airflow address: expected http:// or https://, for example http://127.0.0.1:8080"
            raise BadInput(f"--api {short_repr(api, 200)} {why}", "--api", api)
        if token:
            return cls(api, token, timeout=timeout)
        if bool(username) != bool(password):
            given, missing = ("--username", "--password") if username else ("--password", "--username")
            raise BadInput(f"{given} is given without {missing}: pass both, or --token, or neither", missing)
        if not username:
            return cls(api, None, timeout=timeout)
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
        return cls(api, token, timeout=timeout)

    def request(self, method: str, path: str, **kwargs: Any) -> Any:
        # A clean "busy" refusal wrote nothing: sent again after each pause; the last answer is the one judged.
        retrying = Retrying(
            retry=retry_if_result(_busy),
            wait=wait_chain(*(wait_fixed(s) for s in _BUSY_RETRY_SECONDS)),
            stop=stop_after_attempt(len(_BUSY_RETRY_SECONDS) + 1),
            retry_error_callback=lambda state: state.outcome.result() if state.outcome is not None else None,
        )
        try:
            response = retrying(self.http.request, method, path, **kwargs)
        except self._errors as exc:
            raise AuditError(f"{method} {path}: cannot reach Airflow: {exc}") from None
        if (status := response.status_code) >= 400:
            raise AuditError(f"{method} {path} -> HTTP {status}{_HINTS.get(status, '')}: {response.text[:300]}", status)
        return response.json() if response.content else None

    def hops_dags(self) -> list[dict[str, Any]]:
        """The HopsworksTimetable DAGs the token may read, with their settings."""
        return cast(list[dict[str, Any]], self.request("GET", "/hops/api/dags")["dags"])

    def runs(self, dag_id: str, *, max_runs: int = MAX_RUNS_READ) -> list[RunRecord]:
        return [run for page in self.run_pages(dag_id, max_runs=max_runs) for run in page]

    def run_pages(self, dag_id: str, *, max_runs: int = MAX_RUNS_READ) -> Iterator[list[RunRecord]]:
        """Every run of *dag_id*, a page at a time, each run once: from the plugin (by row id), else (an older
        plugin) from :meth:`rest_pages`. More than *max_runs*, or a page that does not move on, is an error."""
        path = f"/hops/api/dags/{quote(dag_id, safe='')}/runs"
        after, read = 0, 0
        while True:
            try:
                page = self.request("GET", path, params={"after": after})
            except AuditError as exc:
                if read or exc.status not in (404, 405):
                    raise
                yield from self.rest_pages(dag_id, max_runs=max_runs)
                return
            where, fields = f"GET {path}?after={after}", page if isinstance(page, dict) else {}
            batch, following = fields.get("dag_runs"), fields.get("next")
            if not isinstance(batch, list):
                raise AuditError(f"{where}: the answer has dag_runs={short_repr(batch)}, expected a list of runs")
            read += len(batch)
            if read > max_runs:
                raise AuditError(
                    f"{where}: DAG {short_repr(dag_id)} has more than {max_runs:,} runs; audit reads no more"
                )
            yield [_record({**item, "dag_run_id": _run_id(item, where)}) for item in batch]
            if following is None:
                return
            if isinstance(following, bool) or not isinstance(following, int) or following <= after or not batch:
                raise AuditError(
                    f"{where}: the answer has next={short_repr(following)}, expected a row id past {after}"
                )
            after = following

    def rest_pages(self, dag_id: str, *, max_runs: int = MAX_RUNS_READ) -> Iterator[list[RunRecord]]:
        """Every run of *dag_id* from Airflow's REST API by offset, oldest first, each run once (a run added while
        reading shifts a page); pages that do not add up, repeat or exceed *max_runs* end the loop with an error."""
        path = f"/api/v2/dags/{quote(dag_id, safe='')}/dagRuns"
        seen: set[str] = set()
        offset = pages = 0
        while True:
            page = self.request("GET", path, params={"limit": _PAGE, "offset": offset, "order_by": "run_after"})
            pages += 1
            where, fields = f"GET {path}?offset={offset}", page if isinstance(page, dict) else {}
            total, batch = fields.get("total_entries"), fields.get("dag_runs")
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
            seen.update(_run_id(item, where) for item in fresh)
            yield [_record(item) for item in fresh]
            offset += len(batch)
            if not batch or offset >= total:
                return
            if pages > total // _PAGE + 10:
                raise AuditError(f"{where}: {pages} pages read for total_entries={total:,}; the pages do not add up")


def _run_id(item: object, where: str) -> str:
    run_id = item.get("dag_run_id") if isinstance(item, dict) else None
    if not isinstance(run_id, str):
        raise AuditError(f"{where}: a run without a dag_run_id: {short_repr(item)}")
    return run_id


def _record(item: dict[str, Any]) -> RunRecord:
    run_after = airflow_time(item.get("run_after"), "run_after")
    if run_after is None:
        raise AuditError(f"Airflow answered a run without run_after: {short_repr(item)}")
    conf = item["conf"] if isinstance(item.get("conf"), dict) else None
    times = {k: airflow_time(item.get(k), k) for k in _RUN_TIMES}
    return RunRecord(
        item["dag_run_id"], str(item.get("run_type")), str(item.get("state")), run_after, conf=conf, **times
    )


@dataclass(frozen=True)
class Settings:
    """A DAG's id and schedule as the plugin reports them (``/hops/api/dags``)."""

    dag_id: str
    schedule: Schedule

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Settings:
        """What the schedule's validation refuses here is Airflow's answer, not the user's input."""
        dag_id = data.get("dag_id")
        try:
            schedule = Schedule.from_json(data)
        except ArgumentError as exc:
            raise AuditError(
                f"the plugin answered a schedule for dag {short_repr(dag_id)} that is not valid: {exc}"
            ) from None
        if not isinstance(dag_id, str):
            raise AuditError(f"the plugin answered dag_id={short_repr(dag_id)}: expected a string")
        return cls(dag_id, schedule)
