"""Every place where hops_timetable touches Airflow beyond its public timetable protocol, and every version split.

The package supports each Airflow 3 minor from 3.0 on. Airflow moves or reshapes some of what this package needs
between minors; each such touch point lives here, as a small function or name, with the versions it covers and the
reason it is needed. No other module of the package imports Airflow internals or tests Airflow's version.

Import cost matters (Airflow loads the timetable in every component), so the Airflow modules needed by one function
are imported inside it. The tests' own version differences (driving Airflow's scheduler code by hand) live in the
test tree, not here.

What the scheduler hook calls never raises: the scheduler swallows exceptions from a timetable and then silently
stops scheduling the DAG, so a failed look-up answers "unknown" (``None``, or "taken").
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from datetime import datetime
from typing import TYPE_CHECKING, Any

import airflow

# The parts ``@task.python`` is built from, for ``@task.hops``: in ``airflow.sdk.bases.decorator`` in every 3.x so
# far but not exported from ``airflow.sdk``, so a provider's own task decorator has no public import path.
from airflow.sdk.bases.decorator import DecoratedOperator, TaskDecorator, task_decorator_factory
from airflow.timetables.base import Timetable

from hops_timetable.core.validation import HopsTimetableError

if TYPE_CHECKING:
    from airflow.timetables.base import DagRunInfo, TimeRestriction
    from sqlalchemy.orm import Session

__all__ = [
    "AIRFLOW_VERSION",
    "HAS_DAG_MODEL_HOOK",
    "HAS_REACT_APPS",
    "DecoratedOperator",
    "TaskDecorator",
    "api_base_path",
    "api_user",
    "builtin_next_dagrun_info",
    "config_value",
    "dag_bag_class",
    "dag_pause_flags",
    "executing_task",
    "fail_without_retries",
    "frozen_builtin_clock",
    "logical_date_taken",
    "metadata_session",
    "params_dict",
    "readable_dag_ids",
    "require_dag_read",
    "scheduler_session",
    "serialized_dag",
    "stored_time_restriction",
    "task_decorator_factory",
    "time_restriction",
]

log = logging.getLogger(__name__)


def _minor(version: str) -> tuple[int, int]:
    match = re.match(r"(\d+)\.(\d+)", version)
    if match is None:
        raise HopsTimetableError(f"cannot read Airflow's version from {version!r}")
    return int(match.group(1)), int(match.group(2))


AIRFLOW_VERSION: tuple[int, int] = _minor(airflow.__version__)
"""Airflow's (major, minor), read once; pre-releases count as their minor (3.4.0b2 is (3, 4))."""

HAS_DAG_MODEL_HOOK: bool = hasattr(Timetable, "next_run_info_from_dag_model")
"""Whether the scheduler asks the timetable about the stored next run before creating it (Airflow 3.2 and later).

3.0 and 3.1 create the run stored in ``DagModel.next_dagrun`` without asking, so after an outage longer than the
catch-up bound that one stale run is created as well, before the newest ``max_catchup_runs`` (see the version table
in docs/airflow-versions.md). The override in :class:`~hops_timetable.timetable.HopsworksTimetable` is simply
never called there.
"""


def serialized_dag(dag_id: str, session: Session) -> Any | None:
    """The scheduler's deserialized DAG *dag_id*, read in *session*, or ``None`` when none is stored.

    ``SerializedDagModel.get_dag`` is not public API. Its ``session`` has been keyword-only since 3.3 and
    positional-or-keyword before; passing it by keyword works on every 3.x.
    """
    from airflow.models.serialized_dag import SerializedDagModel

    return SerializedDagModel.get_dag(dag_id, session=session)


def time_restriction(dag: Any) -> TimeRestriction:
    """The ``TimeRestriction`` (start, end, catchup) Airflow itself schedules the DAG with.

    The private ``_time_restriction`` property moved with the scheduler's DAG class: ``airflow.models.dag.DAG`` in
    3.0, ``airflow.serialization.serialized_objects.SerializedDAG`` in 3.1 and
    ``airflow.serialization.definitions.dag.SerializedDAG`` from 3.2; the name and meaning stayed the same.
    """
    restriction: TimeRestriction = dag._time_restriction
    return restriction


def builtin_next_dagrun_info(
    timetable: Timetable, last: DagRunInfo | None, restriction: TimeRestriction
) -> DagRunInfo | None:
    """The run one of Airflow's own timetables makes after *last*, as the scheduler of this version asks for it.

    3.2 added ``next_dagrun_info_v2`` (given the last run's ``DagRunInfo``) and the scheduler calls it; 3.0 and 3.1
    have only ``next_dagrun_info`` (given the last automated run's data interval).
    """
    v2 = getattr(timetable, "next_dagrun_info_v2", None)
    if v2 is not None:
        result: DagRunInfo | None = v2(last_dagrun_info=last, restriction=restriction)
        return result
    interval = None if last is None else last.data_interval
    return timetable.next_dagrun_info(last_automated_data_interval=interval, restriction=restriction)


@contextmanager
def frozen_builtin_clock(now: datetime) -> Iterator[None]:
    """Make Airflow's cron timetables (``CronDataIntervalTimetable``, ``CronTriggerTimetable``) see *now*.

    They read the clock through a module-level ``utcnow`` that each of ``airflow.timetables.interval`` and
    ``airflow.timetables.trigger`` imports (from ``airflow.utils.timezone`` in 3.0, from
    ``airflow._shared.timezones.timezone`` since 3.1); replacing that name in both modules is the only way to ask
    them what they would do at another time, and is undone on exit. Not thread-safe: for the CLI only.
    """
    import airflow.timetables.interval as interval_module
    import airflow.timetables.trigger as trigger_module
    import pendulum

    frozen = pendulum.instance(now, tz=pendulum.UTC)
    saved = [(module, module.utcnow) for module in (interval_module, trigger_module)]
    try:
        for module, _ in saved:
            module.utcnow = lambda: frozen  # type: ignore[attr-defined]
        yield
    finally:
        for module, original in saved:
            module.utcnow = original  # type: ignore[attr-defined]


def dag_bag_class() -> Any:
    """Airflow's ``DagBag``, which parses DAG files as the dag-processor does.

    ``airflow.dag_processing.dagbag`` from 3.2; ``airflow.models.dagbag`` in 3.0 and 3.1 (3.2 to 3.4 keep a
    deprecated alias there, which warns).
    """
    import importlib

    module = "airflow.dag_processing.dagbag" if AIRFLOW_VERSION >= (3, 2) else "airflow.models.dagbag"
    return importlib.import_module(module).DagBag


def executing_task(context: Mapping[str, Any]) -> Any:
    """The operator instance that is about to run, from a task's context (in a ``pre_execute`` hook, say).

    Airflow 3.0's task runner builds the context from the task as parsed and then runs a rendered copy of it, so
    ``context["task"]`` there is not the instance whose ``execute`` runs: an attribute set on it (``env``) is lost.
    ``context["ti"].task`` is the instance that runs on every 3.x; ``context["task"]`` is the fallback for a
    context without a task instance.
    """
    task = getattr(context.get("ti"), "task", None)
    return task if task is not None else context["task"]


def config_value(section: str, option: str) -> str | None:
    """The text of *option* in *section* of Airflow's configuration (``airflow.cfg`` or ``AIRFLOW__SECTION__OPTION``),
    ``None`` when unset: ``airflow.configuration.conf`` on every 3.x."""
    from airflow.configuration import conf

    value = conf.get(section, option, fallback=None)
    return None if value is None else str(value)


_FAILING: dict[type[BaseException], type[BaseException]] = {}


def fail_without_retries(error: BaseException) -> BaseException:
    """*error*, still of its own class, made an ``AirflowFailException`` too: raised in a task, it fails the task
    at once, with no retry (a bad window or command stays bad). The class lives in ``airflow.sdk.exceptions``
    from 3.1 on (``airflow.exceptions`` keeps a deprecated alias) and only in ``airflow.exceptions`` in 3.0."""
    try:
        from airflow.sdk.exceptions import AirflowFailException
    except ImportError:  # Airflow 3.0
        from airflow.exceptions import AirflowFailException  # type: ignore[no-redef]
    kind = type(error)
    if kind not in _FAILING:
        _FAILING[kind] = type(kind.__name__, (kind, AirflowFailException), {"__module__": kind.__module__})
    failing = BaseException.__new__(_FAILING[kind], *error.args)
    failing.__dict__.update(error.__dict__)
    return failing


def scheduler_session(dag_model: Any) -> Session | None:
    """The session the scheduler loaded *dag_model* in.

    ``next_run_info_from_dag_model`` (3.2 and later) receives a DagModel of the scheduler's own open session
    (``_create_dag_runs``). Queries must run in it: a second session would wait on SQLite's write lock that this one
    holds, and would not see the runs this scheduler loop has just added.
    """
    from sqlalchemy.orm import object_session

    return object_session(dag_model)


def logical_date_taken(dag_model: Any, logical_date: datetime) -> bool:
    """Whether a run of the DAG with this logical date exists in the ``dag_run`` table (every 3.x).

    ``dag_run`` is unique on ``(dag_id, logical_date)``; Airflow checks only ``DagModel.next_dagrun`` before it asks
    the timetable, so a replacement run chosen by the timetable must be checked here. Without a session, or when the
    query fails, the answer is "taken", so that the caller keeps the run Airflow itself has checked.
    """
    from airflow.models.dagrun import DagRun
    from sqlalchemy import select

    session = scheduler_session(dag_model)
    if session is None:
        return True
    try:
        # autoflush: a run added by this same scheduler loop, not yet flushed, counts as taken.
        found = session.scalar(
            select(DagRun.id).where(DagRun.dag_id == dag_model.dag_id, DagRun.logical_date == logical_date).limit(1)
        )
    except Exception:
        log.exception("dag %s: could not check for a run at %s", dag_model.dag_id, logical_date.isoformat())
        return True
    return found is not None


def stored_time_restriction(dag_model: Any) -> TimeRestriction | None:
    """The DAG's own time restriction (start_date, end_date, catchup) as last serialized, or ``None``.

    Needed only by a timetable built without ``start_time``/``end_time``/``catchup`` (hops_schedule passes them):
    ``next_run_info_from_dag_model`` receives the DagModel alone, which stores none of the three. Reads the
    serialized DAG through :func:`serialized_dag` and :func:`time_restriction`.
    """
    session = scheduler_session(dag_model)
    if session is None:
        return None
    try:
        serialized = serialized_dag(dag_model.dag_id, session)
        if serialized is None:
            return None
        return time_restriction(serialized)
    except Exception:
        log.exception("dag %s: could not read its serialized time restriction", dag_model.dag_id)
        return None


def params_dict(params: Mapping[str, Any]) -> Any:
    """Airflow's ``ParamsDict`` of *params* (the Trigger form's fields).

    Exported from ``airflow.sdk`` since 3.1 only; ``airflow.sdk.definitions.param`` holds it in every 3.x.
    """
    from airflow.sdk.definitions.param import ParamsDict

    return ParamsDict(dict(params))


# -- the Hopsworks tab's web app (runs inside the api-server) ------------------------------------------------------
#
# A plugin's FastAPI app is mounted beside Airflow's REST API but gets none of its dependencies; Airflow has no
# public interface for "authenticate this request as the REST API would", for its metadata session or for its ORM
# models, so each of those is borrowed here.

HAS_REACT_APPS: bool = AIRFLOW_VERSION >= (3, 1)
"""Whether the UI loads a plugin's ``react_apps`` as tabs (3.1 and later); 3.0 shows no plugin tab, so there the
Hopsworks pages are reached by URL and through ``audit`` only."""


async def api_user(request: Any) -> Any:
    """The caller of *request*, authenticated as Airflow's REST API does, or an ``HTTPException`` (401/403).

    3.1 and later read the ``Authorization: Bearer`` token, else the UI's session cookie (``get_user`` takes the
    request and the parsed header); 3.0's ``get_user`` takes the token string of the header alone, and its REST API
    reads no cookie, so here 3.0 falls back to the session cookie as later minors do: 3.0's UI shows no plugin tab,
    and the tab's pages opened by URL in a logged-in browser carry the cookie only.
    """
    import airflow.api_fastapi.core_api.security
    from airflow.api_fastapi.auth.managers.base_auth_manager import COOKIE_NAME_JWT_TOKEN

    # Typed as Any: the two signatures cannot both be checked against the one Airflow mypy sees.
    security: Any = airflow.api_fastapi.core_api.security
    if AIRFLOW_VERSION >= (3, 1):
        credentials = await security.bearer_scheme(request)
        return await security.get_user(request, None, credentials)
    cookie = request.cookies.get(COOKIE_NAME_JWT_TOKEN)
    token = cookie if cookie and "authorization" not in request.headers else await security.oauth2_scheme(request)
    return await security.get_user(token)


def api_base_path() -> str:
    """The path of ``[api] base_url`` (``""`` or ``/prefix``): where Airflow's UI and its plugins' apps are served."""
    from urllib.parse import urlsplit

    from airflow.configuration import conf

    return urlsplit(conf.get("api", "base_url", fallback="") or "").path.rstrip("/")


def require_dag_read(request: Any, user: Any, dag_id: str, *, runs: bool = False) -> None:
    """Raise Airflow's own 403 unless *user* may read DAG *dag_id* (its runs, with *runs*).

    ``requires_access_dag`` takes the DAG id as an argument from 3.1; 3.0 reads it from the request's path
    (``{dag_id}``), which every route of the app has.
    """
    import airflow.api_fastapi.core_api.security
    from airflow.api_fastapi.auth.managers.models.resource_details import DagAccessEntity

    requires_access_dag: Any = airflow.api_fastapi.core_api.security.requires_access_dag
    entity = DagAccessEntity.RUN if runs else None
    if AIRFLOW_VERSION >= (3, 1):
        check = requires_access_dag("GET", entity, param_dag_id=dag_id)
    else:
        check = requires_access_dag("GET", entity)
    check(request, user)


def readable_dag_ids(user: Any, session: Session) -> set[str]:
    """The DAG ids *user* may read, from Airflow's auth manager (the same call in every 3.x)."""
    from airflow.api_fastapi.app import get_auth_manager

    found: set[str] = get_auth_manager().get_authorized_dag_ids(user=user, method="GET", session=session)
    return found


def dag_run_table() -> Any:
    """The metadata database's ``dag_run`` table (a SQLAlchemy ``Table``), for queries that read its columns only."""
    from airflow.models.dagrun import DagRun

    return DagRun.__table__


def metadata_session() -> Iterator[Session]:
    """A session on Airflow's metadata database, closed after the request (a FastAPI dependency)."""
    from airflow.utils.session import create_session

    with create_session(scoped=False) as session:
        yield session


def dag_pause_flags(session: Session, dag_id: str | None = None) -> list[tuple[str, bool]]:
    """``(dag_id, is_paused)`` of every DAG Airflow knows, or of *dag_id* only, sorted by id (``dag`` table)."""
    from airflow.models.dag import DagModel
    from sqlalchemy import select

    query = select(DagModel.dag_id, DagModel.is_paused).order_by(DagModel.dag_id)
    if dag_id is not None:
        query = query.where(DagModel.dag_id == dag_id)
    return [(found, bool(paused)) for found, paused in session.execute(query)]
