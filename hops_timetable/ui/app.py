"""The Hopsworks tab: a FastAPI app the plugin mounts on Airflow's api-server at :data:`URL_PREFIX`.

``/api/...`` serves the tab's React app (built into :data:`BUNDLE`) and ``audit``; ``/dags/...`` the plain pages of
Airflow 3.0, which shows no plugin tab. Every route authenticates as Airflow's REST API does and checks read access
to a DAG before looking it up, so that a 401/403 says nothing about the DAG. Nothing here writes a run.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import secrets
import threading
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable
from datetime import datetime, timezone
from html import escape
from pathlib import Path as PathLib
from typing import TYPE_CHECKING, Annotated, Any

from fastapi import Depends, FastAPI, HTTPException, Path, Query, Request
from fastapi.responses import HTMLResponse, JSONResponse
from fastapi.staticfiles import StaticFiles

from hops_timetable import _compat, config
from hops_timetable.core.coverage import (
    History,
    RunRecord,
    now_key,
    page_of_fires,
    run_window,
    timeline_begin,
    upcoming_windows,
)
from hops_timetable.core.legacy_args import LEGACY_ARG_MODES
from hops_timetable.core.schedule import Schedule
from hops_timetable.core.validation import HopsTimetableError
from hops_timetable.core.window import as_utc
from hops_timetable.timetable import HopsworksTimetable
from hops_timetable.ui import run_snapshot, window_form
from hops_timetable.ui import runs as tab_runs
from hops_timetable.ui.render import PAGE_FIRES, DagPage, build_page, dag_data, dag_page, plain_page, settings_json
from hops_timetable.ui.run_tab import RunFacts, run_json, run_page

if TYPE_CHECKING:
    from sqlalchemy.orm import Session


URL_PREFIX = "/hops"
STATIC = PathLib(__file__).with_name("static")
BUNDLE = STATIC / "hopsworks-tab.js"

_log = logging.getLogger(__name__)


@contextlib.asynccontextmanager
async def _lifespan(_: FastAPI) -> AsyncIterator[None]:
    # Airflow enters a plugin app's lifespan as its api-server starts: the snapshots are taken up then, in the
    # background, so that the first views after a start answer as views shown again do.
    if config.settings().tab_snapshots:
        threading.Thread(target=_warm_up, name="hops-tab-warm-up", daemon=True).start()
    yield


app = FastAPI(title="Hopsworks schedules", docs_url=None, redoc_url=None, openapi_url=None, lifespan=_lifespan)
# The bundle holds no data: the UI loads it before any request of the tab, like Airflow's own scripts.
app.mount("/static", StaticFiles(directory=STATIC), name="static")


async def _user(request: Request) -> Any:
    return await _compat.api_user(request)


def _settings(dag: Any) -> Schedule:
    """The DAG's schedule within the DAG's own restriction (a stored schedule, not validated again)."""
    schedule: Schedule = dag.timetable.schedule
    start, end, catchup = (getattr(dag, name, None) for name in ("start_date", "end_date", "catchup"))
    return dataclasses.replace(
        schedule, start=start and as_utc(start), end=end and as_utc(end), catchup=bool(catchup), bound=True
    )


def _dag(session: Session, dag_id: str) -> Any:
    """The scheduler's DAG; 404 when it is unknown or not scheduled with a HopsworksTimetable."""
    dag = _compat.serialized_dag(dag_id, session)
    if dag is None:
        raise HTTPException(404, f"DAG {dag_id!r} is not known to Airflow")
    if not isinstance(dag.timetable, HopsworksTimetable):
        raise HTTPException(404, f"DAG {dag_id!r} is not scheduled with HopsworksTimetable")
    return dag


def _load(session: Session, dag_id: str) -> tuple[Schedule, bool | None]:
    dag = _dag(session, dag_id)
    flags = _compat.dag_pause_flags(session, dag_id)
    return _settings(dag), flags[0][1] if flags else None


def _legacy_modes(dag: Any) -> dict[Any, list[str]]:
    # A mapped task holds its legacy_args among its partial kwargs.
    modes: dict[Any, list[str]] = {}
    for task in getattr(dag, "tasks", ()):
        mode = getattr(task, "legacy_args", None) or (getattr(task, "partial_kwargs", None) or {}).get("legacy_args")
        if mode in LEGACY_ARG_MODES:
            modes.setdefault(mode, []).append(str(task.task_id))
    return modes


# The pages worked out (the ``tab_kept_pages`` most recently shown), each until its DAG's runs or the moment change;
# and the history last worked out for each page, carried over by the next one (history()'s *previous*).
_PAGES: OrderedDict[tuple[object, ...], tuple[list[RunRecord], DagPage]] = OrderedDict()
_PAGES_LOCK = threading.Lock()
_HISTORIES: OrderedDict[tuple[str, Schedule, int], History] = OrderedDict()


def _page(settings: Schedule, dag_id: str, runs: tab_runs.DagRuns, now: datetime, page: int) -> DagPage:
    """:func:`build_page`, or the one worked out from the same runs at an instant that sees them alike
    (:func:`now_key`), moved to *now*."""
    key = (dag_id, settings, runs.version, page, now_key(settings.policy(), now))
    with _PAGES_LOCK:
        kept = _PAGES.get(key)
        if kept is not None and kept[0] == runs.records:
            _PAGES.move_to_end(key)
            built = kept[1]
            at_now = dataclasses.replace(built.history, now=now)
            return dataclasses.replace(built, history=at_now, coverage=dataclasses.replace(built.coverage, now=now))
        # The history last worked out for this page, else the nearest newer page's, else the nearest older one's.
        shown = {q: h for (d, s, q), h in _HISTORIES.items() if (d, s) == (dag_id, settings)}
        previous = shown[min(shown, key=lambda q: (max(q, page), q != page))] if shown else None
    built = build_page(settings, runs.records, now, page, blocks=runs.blocks, previous=previous)
    with _PAGES_LOCK:
        for stale in [k for k in _PAGES if k[0] == dag_id and (k[1], k[2], k[4]) != (key[1], key[2], key[4])]:
            del _PAGES[stale]  # worked out from runs since changed, or at a moment past: never shown again
        _PAGES[key] = (runs.records, built)
        _HISTORIES[(dag_id, settings, page)] = built.history
        _HISTORIES.move_to_end((dag_id, settings, page))
        for held in (_PAGES, _HISTORIES):
            while len(held) > config.settings().tab_kept_pages:
                held.popitem(last=False)
    return built


class _StillReading(HopsTimetableError):
    """The DAG's runs are still being read, ``args[0]`` of them so far."""


def _read_runs(dag_id: str, settings: Schedule, reading: tab_runs.Reading) -> None:
    try:
        with contextlib.contextmanager(_compat.metadata_session)() as session:
            tab_runs.dag_runs(session, dag_id, settings)
    except Exception:  # the view waiting for them reads them itself next, and fails as it would have
        _log.warning("Could not read the runs of DAG %r for the tab", dag_id, exc_info=True)
    finally:
        with _PAGES_LOCK:
            del tab_runs.READING[dag_id]
        reading.answer.set()


def _wait_for_runs(dag_id: str, settings: Schedule) -> None:
    """Return once the DAG's runs are read, in the background, unless their read is long (a history over
    :data:`~hops_timetable.ui.runs.LONG_READ` runs read whole): then raise :class:`_StillReading`, while it goes on."""
    if tab_runs.folded(dag_id, settings):
        return
    with _PAGES_LOCK:
        reading = tab_runs.READING.get(dag_id)
        if reading is None:
            reading = tab_runs.READING[dag_id] = tab_runs.Reading()
            args = (dag_id, settings, reading)
            threading.Thread(target=_read_runs, args=args, name="hops-tab-read", daemon=True).start()
    reading.answer.wait()
    if tab_runs.READING.get(dag_id) is reading:
        raise _StillReading(reading.runs)


def _coverage(
    session: Session, dag_id: str, page: int, wait: bool = False
) -> tuple[Schedule, bool | None, DagPage, list[Any]]:
    """The page's coverage; with *wait*, :func:`_wait_for_runs` first (a view's: it answers during a long read)."""
    settings, paused = _load(session, dag_id)
    if wait:
        _wait_for_runs(dag_id, settings)
    now = datetime.now(timezone.utc)
    policy = settings.policy()
    runs = tab_runs.dag_runs(session, dag_id, settings)
    found = page_of_fires(policy, timeline_begin(policy, runs.earliest_start, None), now, page, PAGE_FIRES)
    if found is not None:
        runs = tab_runs.with_page(session, dag_id, settings, runs, found[2], found[3])
    built = _page(settings, dag_id, runs, now, page)
    count = config.settings().tab_upcoming_windows
    nxt = upcoming_windows(policy, settings.catchup, settings.offset, runs.newest_scheduled, now, count)
    return settings, paused, built, nxt


def _warm_up() -> None:
    """Take up the snapshots of the DAGs viewed last (``tab_kept_dags`` of them) and work out their newest page."""
    try:
        with contextlib.contextmanager(_compat.metadata_session)() as session:
            dag_ids = [dag_id for dag_id, _ in _compat.dag_pause_flags(session)]
            for dag_id in reversed(run_snapshot.newest_first(dag_ids, config.settings().tab_kept_dags)):
                with contextlib.suppress(HTTPException):  # no longer a DAG of the timetable
                    _coverage(session, dag_id, 0)
    except Exception:  # a cache filled ahead of the views: the views work without it
        _log.warning("Could not take up the tab's snapshots as the api-server started", exc_info=True)


UserDep = Annotated[Any, Depends(_user)]
SessionArg = Annotated[Any, Depends(_compat.metadata_session)]
PageArg = Annotated[int, Query(ge=0, le=10**9, description="0: the newest fires; older pages count up")]
OffsetArg = Annotated[int, Query(ge=0, le=10**9, description="rows to skip, the newest first")]
LimitArg = Annotated[int, Query(ge=1, le=500, description="rows to return")]
SpanKind = Annotated[str, Path(pattern="^(gaps|dropped)$", description="gaps or dropped")]
RUNS_PAGE = 5_000  # the most runs one answer of GET /api/dags/{dag_id}/runs holds


@app.get("/api/dags")
def list_dags(request: Request, user: UserDep, session: SessionArg) -> dict[str, Any]:
    readable = _compat.readable_dag_ids(user, session)
    found = ((d, p, _compat.serialized_dag(d, session)) for d, p in _compat.dag_pause_flags(session) if d in readable)
    mine = [(d, p, dag) for d, p, dag in found if isinstance(getattr(dag, "timetable", None), HopsworksTimetable)]
    return {"dags": [{"dag_id": d, **settings_json(_settings(dag), bool(p))} for d, p, dag in mine]}


@app.get("/api/dags/{dag_id}")
def dag_json(dag_id: str, request: Request, user: UserDep, session: SessionArg, page: PageArg = 0) -> JSONResponse:
    """One DAG's settings, next windows and coverage, as the tab shows them, one page of fires at a time."""
    _compat.require_dag_read(request, user, dag_id)
    try:
        # Plain JSON already: FastAPI's encoder would cost more per page than working it out.
        return JSONResponse(dag_data(dag_id, *_coverage(session, dag_id, page, wait=True)))
    except _StillReading as reading:
        return JSONResponse({"dag_id": dag_id, "reading": {"runs_read": reading.args[0]}}, status_code=202)


@app.get("/dags/{dag_id}", response_class=HTMLResponse)
def dag_tab(dag_id: str, request: Request, user: UserDep, session: SessionArg, page: PageArg = 0) -> HTMLResponse:
    _compat.require_dag_read(request, user, dag_id)
    try:
        return HTMLResponse(dag_page(dag_data(dag_id, *_coverage(session, dag_id, page, wait=True))))
    except _StillReading as reading:
        words = f"Reading the runs of {dag_id}: {reading.args[0]:,} so far. This page reloads itself."
        body = f'<p id="reading">{escape(words)}</p>'
        return HTMLResponse(plain_page(f"Hopsworks: {dag_id}", body), status_code=202, headers={"Refresh": "1"})


def _run(session: Session, dag_id: str, run_id: str) -> RunFacts:
    dag = _dag(session, dag_id)
    settings = _settings(dag)
    found = tab_runs.one_run(session, dag_id, run_id)
    if found is None:
        raise HTTPException(404, f"DAG {dag_id!r} has no run {run_id!r}")
    item = run_window(found, settings.offset, settings.policy())
    return RunFacts(item, item.carried, _legacy_modes(dag))


def _iso(value: Any) -> str | None:
    return None if (found := tab_runs.when(value)) is None else found.isoformat()


# Each field read from the driver's column as it comes (no RunRecord, no SQLAlchemy datetime conversion): far faster.
_RUN_FIELDS: tuple[tuple[str, Callable[[Any], Any]], ...] = (
    ("dag_run_id", str),
    ("run_type", tab_runs.enum_text),
    ("state", tab_runs.enum_text),
    *((name, _iso) for name in ("run_after", "logical_date", "data_interval_start", "data_interval_end", "queued_at")),
    ("conf", tab_runs.conf_of),
)


@app.get("/api/dags/{dag_id}/runs")
def runs_page(
    dag_id: str,
    request: Request,
    user: UserDep,
    session: SessionArg,
    after: Annotated[int, Query(ge=0, description="the row id after which to read (0: from the first run)")] = 0,
    limit: Annotated[int, Query(ge=1, le=RUNS_PAGE)] = RUNS_PAGE,
) -> JSONResponse:
    """The DAG's runs in the order Airflow made them, *limit* after row *after*, with the next page's ``after``
    (``null`` at the end): what ``audit`` reads, in the fields of Airflow's ``GET /api/v2/dags/{dag_id}/dagRuns``."""
    _compat.require_dag_read(request, user, dag_id, runs=True)
    _dag(session, dag_id)
    rows = list(tab_runs.raw_run_rows(session, dag_id, after_id=after, limit=limit))
    runs = [{name: read(value) for (name, read), value in zip(_RUN_FIELDS, row[1:], strict=True)} for row in rows]
    return JSONResponse({"dag_runs": runs, "next": int(rows[-1][0]) if len(rows) == limit else None})


@app.get("/api/dags/{dag_id}/runs/{run_id}")
def run_data(dag_id: str, run_id: str, request: Request, user: UserDep, session: SessionArg) -> dict[str, Any]:
    _compat.require_dag_read(request, user, dag_id, runs=True)
    return run_json(dag_id, _run(session, dag_id, run_id))


@app.get("/dags/{dag_id}/runs/{run_id}", response_class=HTMLResponse)
def run_tab(dag_id: str, run_id: str, request: Request, user: UserDep, session: SessionArg) -> str:
    _compat.require_dag_read(request, user, dag_id, runs=True)
    return run_page(dag_id, _run(session, dag_id, run_id))


@app.get("/api/dags/{dag_id}/spans/{kind}")
def spans(
    dag_id: str,
    kind: SpanKind,
    request: Request,
    user: UserDep,
    session: SessionArg,
    offset: OffsetArg = 0,
    limit: LimitArg = 50,
) -> dict[str, Any]:
    """The gaps, or the ranges dropped by design, over the whole history, the newest first."""
    _compat.require_dag_read(request, user, dag_id)
    hist = _coverage(session, dag_id, 0)[2].history
    found = hist.gaps if kind == "gaps" else hist.dropped
    newest = found[::-1][offset : offset + limit]
    return {"kind": kind, "total": len(found), "offset": offset, "items": [s.as_json() for s in newest]}


@app.get("/api/dags/{dag_id}/window-runs")
def window_runs(
    dag_id: str, request: Request, user: UserDep, session: SessionArg, offset: OffsetArg = 0, limit: LimitArg = 10
) -> dict[str, Any]:
    _compat.require_dag_read(request, user, dag_id, runs=True)
    settings, _ = _load(session, dag_id)
    policy = settings.policy()
    manual = tab_runs.run_rows(session, dag_id, tab_runs.RunQuery(run_types=("manual",)))
    items = [run_window(tab_runs.record_of(row), settings.offset, policy) for row in manual]
    return window_form.window_runs(items, offset, limit)


async def _body(request: Request) -> bytes:
    raw = b""
    async for chunk in request.stream():
        raw += chunk
        if len(raw) > window_form.MAX_BODY:
            raise window_form.FormRefused(413, f"the body is over {window_form.MAX_BODY} bytes; a window is far less")
    return raw


@app.post("/api/dags/{dag_id}/window-run")
async def window_run(dag_id: str, request: Request, user: UserDep, session: SessionArg) -> JSONResponse:
    """The body of Airflow's ``POST /api/v2/dags/{dag_id}/dagRuns`` for the posted window, or 422 naming each bad
    field. No run is made: the browser sends it with the user's own login (:mod:`hops_timetable.ui.window_form`)."""
    _compat.require_dag_read(request, user, dag_id)
    settings, _ = _load(session, dag_id)
    try:
        conf = window_form.window_conf(await _body(request))
    except window_form.FormRefused as no:
        return JSONResponse({"status": no.status, "message": no.message, "errors": no.errors}, status_code=no.status)
    now = datetime.now(timezone.utc)
    logical_date = window_form.logical_date_for(now, settings.start, settings.end, secrets.randbelow(999_999) + 1)
    return JSONResponse(window_form.trigger_body(conf, window_form.new_run_id(), logical_date))
