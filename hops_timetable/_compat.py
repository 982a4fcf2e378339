"""Every place where hops_timetable touches Airflow beyond its public timetable protocol, and every version split.

Airflow modules are imported where needed (Airflow loads the timetable in every component). What the scheduler hook
calls never raises (the scheduler would silently stop scheduling the DAG): a failed look-up answers "unknown".
"""

from __future__ import annotations

import importlib
import logging
import re
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from datetime import datetime
from typing import TYPE_CHECKING, Any, TypeVar, cast

import airflow

# What ``@task.python`` is built from, for ``@task.hops``: not exported from ``airflow.sdk`` in any 3.x.
from airflow.sdk.bases.decorator import DecoratedOperator as DecoratedOperator
from airflow.sdk.bases.decorator import TaskDecorator as TaskDecorator
from airflow.sdk.bases.decorator import task_decorator_factory as task_decorator_factory
from airflow.timetables.base import Timetable

from hops_timetable.core.validation import HopsTimetableError

if TYPE_CHECKING:
    from airflow.timetables.base import DagRunInfo, TimeRestriction
    from sqlalchemy.orm import Session


log = logging.getLogger(__name__)
_T = TypeVar("_T")


if (_VERSION := re.match(r"(\d+)\.(\d+)", airflow.__version__)) is None:
    raise HopsTimetableError(f"cannot read Airflow's version from {airflow.__version__!r}")
AIRFLOW_VERSION: tuple[int, int] = (int(_VERSION.group(1)), int(_VERSION.group(2)))
"""Airflow's (major, minor); pre-releases count as their minor (3.4.0b2 is (3, 4))."""

HAS_DAG_MODEL_HOOK: bool = hasattr(Timetable, "next_run_info_from_dag_model")
"""Whether the scheduler asks the timetable about the stored next run before creating it (3.2 on); 3.0 and 3.1
create it unasked, so after a long outage that one stale run is made too (docs/airflow-versions.md)."""


def serialized_dag(dag_id: str, session: Session) -> Any | None:
    # ``session`` is keyword-only from 3.3.
    from airflow.models.serialized_dag import SerializedDagModel

    return SerializedDagModel.get_dag(dag_id, session=session)


def time_restriction(dag: Any) -> TimeRestriction:
    return cast("TimeRestriction", dag._time_restriction)


def builtin_next_dagrun_info(
    timetable: Timetable, last: DagRunInfo | None, restriction: TimeRestriction
) -> DagRunInfo | None:
    """The run one of Airflow's own timetables makes after *last*, asked as this version's scheduler asks."""
    if (v2 := getattr(timetable, "next_dagrun_info_v2", None)) is not None:
        return cast("DagRunInfo | None", v2(last_dagrun_info=last, restriction=restriction))
    interval = None if last is None else last.data_interval
    return timetable.next_dagrun_info(last_automated_data_interval=interval, restriction=restriction)


@contextmanager
def frozen_builtin_clock(now: datetime) -> Iterator[None]:
    """Make Airflow's cron timetables see *now* through the ``utcnow`` their modules import (the only way in); not
    thread-safe: for the CLI only."""
    from unittest.mock import patch

    import airflow.timetables.interval as interval
    import airflow.timetables.trigger as trigger
    import pendulum

    frozen = pendulum.instance(now, tz=pendulum.UTC)
    with patch.object(interval, "utcnow", lambda: frozen), patch.object(trigger, "utcnow", lambda: frozen):
        yield


def dag_bag_class() -> Any:
    # The old path warns from 3.2.
    module = "airflow.dag_processing.dagbag" if AIRFLOW_VERSION >= (3, 2) else "airflow.models.dagbag"
    return importlib.import_module(module).DagBag


def executing_task(context: Mapping[str, Any]) -> Any:
    """The operator instance about to run: 3.0's ``context["task"]`` is the parsed task, not the rendered copy."""
    task = getattr(context.get("ti"), "task", None)
    return task if task is not None else context["task"]


def config_value(section: str, option: str) -> str | None:
    from airflow.configuration import conf

    return None if (value := conf.get(section, option, fallback=None)) is None else str(value)


def airflow_home() -> str:
    from airflow.configuration import AIRFLOW_HOME

    return str(AIRFLOW_HOME)


_FAILING: dict[type[BaseException], type[BaseException]] = {}


def fail_without_retries(error: BaseException) -> BaseException:
    """*error*, still of its own class, made an ``AirflowFailException`` too: it fails the task with no retry."""
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


def _scheduler_look_up(dag_model: Any, what: str, look_up: Callable[[Session], _T], unknown: _T) -> _T:
    """*look_up* in the session *dag_model* was loaded in (a second one would wait on SQLite's write lock this one
    holds, and miss the runs this scheduler loop has just added); *unknown* when it cannot be done."""
    from sqlalchemy.orm import object_session

    if (session := object_session(dag_model)) is None:
        return unknown
    try:
        return look_up(session)
    except Exception:
        log.exception("dag %s: could not %s", dag_model.dag_id, what)
        return unknown


def logical_date_taken(dag_model: Any, logical_date: datetime) -> bool:
    """Whether a run of the DAG has this logical date; "taken" when it cannot be told (the caller then keeps the run
    Airflow itself has checked)."""
    from airflow.models.dagrun import DagRun
    from sqlalchemy import select

    # autoflush: a run added by this same scheduler loop, not yet flushed, counts as taken.
    query = select(DagRun.id).where(DagRun.dag_id == dag_model.dag_id, DagRun.logical_date == logical_date).limit(1)
    what = f"check for a run at {logical_date.isoformat()}"
    return _scheduler_look_up(dag_model, what, lambda session: session.scalar(query) is not None, True)


def stored_time_restriction(dag_model: Any) -> TimeRestriction | None:
    """The DAG's own time restriction as last serialized, or ``None`` (a DagModel stores none of it)."""

    def read(session: Session) -> TimeRestriction | None:
        serialized = serialized_dag(dag_model.dag_id, session)
        return None if serialized is None else time_restriction(serialized)

    return _scheduler_look_up(dag_model, "read its serialized time restriction", read, None)


def params_dict(params: Mapping[str, Any]) -> Any:
    # Exported from ``airflow.sdk`` from 3.1 only.
    from airflow.sdk.definitions.param import ParamsDict

    return ParamsDict(dict(params))


# -- the Hopsworks tab's web app (runs inside the api-server) ------------------------------------------------------
# A plugin's FastAPI app gets none of the REST API's dependencies and Airflow has no public interface for them
# (authentication, the metadata session, its ORM models): each is borrowed here.

HAS_REACT_APPS: bool = AIRFLOW_VERSION >= (3, 1)
"""Whether the UI loads a plugin's ``react_apps`` as tabs (3.1 on); on 3.0 the pages are reached by URL."""


async def api_user(request: Any) -> Any:
    """The caller of *request*, authenticated as Airflow's REST API does, or an ``HTTPException`` (401/403); 3.0's
    ``get_user`` reads no cookie, so it is read here as later minors do (3.0's pages are opened by URL)."""
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
    """The path of ``[api] base_url`` (``""`` or ``/prefix``) Airflow's UI and its plugins' apps are served at."""
    from urllib.parse import urlsplit

    return urlsplit(config_value("api", "base_url") or "").path.rstrip("/")


def require_dag_read(request: Any, user: Any, dag_id: str, *, runs: bool = False) -> None:
    """Raise Airflow's own 403 unless *user* may read DAG *dag_id* (its runs, with *runs*); 3.0 reads the id from
    the request's path, which every route of the app has."""
    import airflow.api_fastapi.core_api.security
    from airflow.api_fastapi.auth.managers.models.resource_details import DagAccessEntity

    requires_access_dag: Any = airflow.api_fastapi.core_api.security.requires_access_dag
    by_id = {"param_dag_id": dag_id} if AIRFLOW_VERSION >= (3, 1) else {}
    requires_access_dag("GET", DagAccessEntity.RUN if runs else None, **by_id)(request, user)


def readable_dag_ids(user: Any, session: Session) -> set[str]:
    from airflow.api_fastapi.app import get_auth_manager

    return get_auth_manager().get_authorized_dag_ids(user=user, method="GET", session=session)


def dag_run_table() -> Any:
    from airflow.models.dagrun import DagRun

    return DagRun.__table__


def metadata_session() -> Iterator[Session]:
    """A session on Airflow's metadata database, closed after the request (a FastAPI dependency)."""
    from airflow.utils.session import create_session

    with create_session(scoped=False) as session:
        yield session


def dag_pause_flags(session: Session, dag_id: str | None = None) -> list[tuple[str, bool]]:
    """``(dag_id, is_paused)`` of every DAG, or of *dag_id* only, sorted by id."""
    from airflow.models.dag import DagModel
    from sqlalchemy import select

    query = select(DagModel.dag_id, DagModel.is_paused).order_by(DagModel.dag_id)
    if dag_id is not None:
        query = query.where(DagModel.dag_id == dag_id)
    return [(found, bool(paused)) for found, paused in session.execute(query)]
