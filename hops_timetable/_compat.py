"""Every place where hops_timetable touches Airflow internals that are not part of the timetable protocol.

The timetable protocol (``next_dagrun_info_v2``, ``next_run_info_from_dag_model``, ``DagRunInfo``,
``TimeRestriction``) is public; what follows is not, so each touch point is kept here, small, with the Airflow
versions it was checked against and why it is needed. Nothing here raises: the scheduler swallows exceptions from
a timetable and then silently stops scheduling the DAG, so a failed look-up answers "unknown" (``None``/``False``).
"""

from __future__ import annotations

import logging
from datetime import datetime
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from airflow.models.dag import DagModel
    from airflow.timetables.base import TimeRestriction
    from sqlalchemy.orm import Session

__all__ = ["logical_date_taken", "scheduler_session", "stored_time_restriction"]

log = logging.getLogger(__name__)


def scheduler_session(dag_model: DagModel) -> Session | None:
    """The session the scheduler loaded *dag_model* in (Airflow 3.0-3.3: ``_create_dag_runs`` passes a model of its
    own open session). Queries must run in it: a second session would wait on SQLite's write lock that this one
    holds, and would not see the runs this scheduler loop has just added."""
    from sqlalchemy.orm import object_session

    return object_session(dag_model)


def logical_date_taken(dag_model: DagModel, logical_date: datetime) -> bool:
    """Whether a run of the DAG with this logical date exists (``dag_run`` table, Airflow 3.0-3.3).

    ``dag_run`` is unique on ``(dag_id, logical_date)``; Airflow checks only ``DagModel.next_dagrun`` before it asks
    the timetable, so a replacement run chosen by the timetable must be checked here. Without a session the answer
    is "taken", so that the caller keeps the run Airflow itself has checked.
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


def stored_time_restriction(dag_model: DagModel) -> TimeRestriction | None:
    """The DAG's own time restriction (start_date, end_date, catchup) as last serialized, or ``None``.

    Needed only by a timetable built without ``start_time``/``end_time``/``catchup`` (hops_schedule passes them):
    ``next_run_info_from_dag_model`` receives the DagModel alone, which stores none of the three.
    ``SerializedDagModel.get_dag`` and ``SerializedDAG._time_restriction`` (a private cached property) exist in
    Airflow 3.0-3.3.
    """
    from airflow.models.serialized_dag import SerializedDagModel

    session = scheduler_session(dag_model)
    if session is None:
        return None
    try:
        serialized = SerializedDagModel.get_dag(dag_model.dag_id, session=session)
        if serialized is None:
            return None
        restriction: TimeRestriction = serialized._time_restriction
    except Exception:
        log.exception("dag %s: could not read its serialized time restriction", dag_model.dag_id)
        return None
    return restriction
