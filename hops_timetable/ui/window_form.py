"""The tab's "Run with time window" form (Hopsworks' ``job.run(start_time=..., end_time=...)``): a manual run
carrying ``conf["hops_window"]``. The endpoint checks the window as the tasks do (:func:`window_conf`) and answers the
body of Airflow's ``POST /api/v2/dags/{dag_id}/dagRuns`` (:func:`trigger_body`), which the browser sends with the UI's
login: Airflow's auth manager decides, its audit log records the user, and no credential is read here.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any, Final

from hops_timetable.core.conf_window import CONF_KEY, WINDOW_KEYS, HopsWindowError, parse_conf_window
from hops_timetable.core.coverage import RunWindow
from hops_timetable.core.validation import HopsTimetableError, load_json, short_repr
from hops_timetable.core.window import format_hops_time

MAX_BODY: Final = 4096  # the largest body read: a window is three date-times of at most 64 characters each
RUN_ID_PREFIX: Final = "manual__hops_window_"  # Airflow's manual prefix; a random part follows


class FormRefused(HopsTimetableError):
    """A post the form's endpoint answers with an error: its HTTP *status*, one line, and the bad fields."""

    def __init__(self, status: int, message: str, errors: Sequence[Mapping[str, Any]] = ()) -> None:
        super().__init__(message)
        self.status, self.message, self.errors = status, message, list(errors)


def window_conf(raw: bytes) -> dict[str, Any]:
    """The run's ``conf`` for the posted body, or 422: checked by :func:`parse_conf_window` as the tasks check it, and
    carrying the values as the tasks will see them (whole seconds, UTC), never the typed text."""
    try:
        body = load_json(raw.decode("utf-8"), "the form's body", max_chars=MAX_BODY)
    except (UnicodeDecodeError, ValueError) as exc:
        raise FormRefused(422, f"the body is not a JSON window: {exc}") from None
    try:
        window = parse_conf_window({CONF_KEY: body})
    except HopsWindowError as exc:
        given = body if isinstance(body, Mapping) else {}
        errors: list[dict[str, Any]] = []
        for key, value, problem in exc.problems:
            name = key.strip("[]\"'")  # start_time of the validator's ["start_time"]
            # A missing field has no value to quote.
            quoted = f"={short_repr(value)}" if name in given or not name else ""
            message = f"{name or 'the window'}{quoted} {problem}"
            errors.append({"field": name, "value": value, "problem": problem, "message": message})
        raise FormRefused(422, "; ".join(str(e["message"]) for e in errors), errors) from None
    assert window is not None and isinstance(body, Mapping)
    values = {"start_time": window.start, "end_time": window.end, "logical_date": window.logical_date}
    return {CONF_KEY: {key: format_hops_time(values[key]) for key in WINDOW_KEYS if key in body}}


def new_run_id() -> str:
    return RUN_ID_PREFIX + secrets.token_hex(6)


def logical_date_for(now: datetime, start: datetime | None, end: datetime | None, fraction: int) -> datetime | None:
    """The logical date of a run with a window: *now*; for an ended DAG *fraction* microseconds (1 to 999,999) before
    its end, which no scheduled run has; none (and no data interval) before its start. Airflow gives a run a data
    interval only with a logical date, within the DAG's dates, never in the future, and unique."""
    if start is not None and now < start:
        return None
    if end is not None and now > end:
        return end - timedelta(microseconds=fraction)
    return now


def trigger_body(conf: Mapping[str, Any], run_id: str, logical_date: datetime | None) -> dict[str, Any]:
    """The body of Airflow's ``POST /api/v2/dags/{dag_id}/dagRuns`` for a run with the window of *conf*: its data
    interval is the window (given a logical date), its run id the form's own, so that the browser can ask whether a
    request that failed made the run all the same."""
    window = conf[CONF_KEY]
    body: dict[str, Any] = {"dag_run_id": run_id, "logical_date": None}
    if logical_date is not None:  # Airflow refuses a data interval without a logical date
        interval = {"data_interval_start": window["start_time"], "data_interval_end": window["end_time"]}
        body |= {"logical_date": logical_date.isoformat(timespec="microseconds"), **interval}
    note = f"Run with time window [{window['start_time']}, {window['end_time']}) from the Hopsworks tab"
    return {**body, "conf": dict(conf), "note": note}


def window_runs(runs: Sequence[RunWindow], offset: int, limit: int) -> dict[str, Any]:
    """The runs whose window came from their conf, the newest first: *limit* from *offset*, and how many."""
    mine = sorted((r for r in runs if r.source == "conf"), key=lambda r: r.run.run_after, reverse=True)
    shown: list[dict[str, Any]] = [
        {"run_id": r.run.run_id, "run_after": format_hops_time(r.run.run_after), "state": r.run.state}
        | {"error": r.error, **({} if r.window is None else r.window.as_env())}
        for r in mine[offset : offset + limit]
    ]
    return {"total": len(mine), "offset": offset, "runs": shown}
