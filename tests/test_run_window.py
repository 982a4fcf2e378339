"""A run's HOPS window is fixed by what the run was made for, whichever way it is re-run.

The task's values are read as a task reads them (``hops_env`` on the execution API's own ``DagRun`` model); the
windows a backfill gives each logical date come from Airflow's own backfill listing (``_get_info_list``), the
oracle for "the scheduled run of that logical date".
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Any

import airflow_versions
import pytest
import time_machine
from airflow.models.backfill import _get_info_list
from airflow.providers.standard.operators.empty import EmptyOperator
from airflow.sdk import DAG
from airflow.sdk.api.datamodels._generated import DagRun as RuntimeDagRun
from airflow.timetables.base import DataInterval
from airflow.timetables.trigger import CronTriggerTimetable
from airflow.utils.types import DagRunType
from hypothesis import given
from hypothesis import strategies as st
from test_operators_env import runtime_run

from hops_timetable import HopsworksTimetable, hops_schedule
from hops_timetable.core.conf_window import RunWindowError, mark_offset, marked_offset
from hops_timetable.core.window import format_hops_time
from hops_timetable.operators import hops_env

UTC = timezone.utc
TEN_SECONDS = "0/10 * * * * ?"


def at(h: int, m: int, s: int = 0) -> datetime:
    return datetime(2026, 12, 3, h, m, s, tzinfo=UTC)


def run(
    run_type: str,
    interval: tuple[datetime, datetime] | None,
    *,
    logical_date: datetime | None,
    run_after: datetime,
    run_id: str = "r",
    conf: dict[str, Any] | None = None,
) -> RuntimeDagRun:
    """The execution API's DagRun as a task sees it, with the run's own logical date, run_after and id."""
    update = {"logical_date": logical_date, "run_after": run_after, "start_date": run_after, "run_id": run_id}
    return runtime_run(run_type, interval, conf).model_copy(update=update)


def dag_of(**kwargs: Any) -> Any:
    with DAG("hops", **kwargs) as dag:
        EmptyOperator(task_id="t")
    return dag


def env(dag: Any, dag_run: RuntimeDagRun) -> dict[str, str]:
    return hops_env({"dag": dag, "task": dag.task_dict["t"], "dag_run": dag_run})


def backfill_window(dag: Any, logical_date: datetime, offset: int) -> dict[str, str]:
    """The window Airflow's own backfill gives *logical_date*, shifted by the offset."""
    serializer = airflow_versions.dag_serialization_class()
    scheduler_view = serializer.from_dict(serializer.to_dict(dag))
    with time_machine.travel(at(23, 0), tick=False):
        (info,) = _get_info_list(from_date=logical_date, to_date=logical_date, reverse=False, dag=scheduler_view)
    start, end = info.data_interval.start, info.data_interval.end
    shift = timedelta(seconds=offset)
    return {
        "HOPS_START_TIME": format_hops_time(start - shift),
        "HOPS_END_TIME": format_hops_time(end - shift),
        "HOPS_LOGICAL_DATE": format_hops_time(start),
    }


@pytest.mark.parametrize("offset", [None, 7])
def test_a_manual_run_taken_over_by_a_backfill_processes_its_logical_dates_scheduled_window(offset: int | None) -> None:
    dag = dag_of(**hops_schedule(TEN_SECONDS, start_time=at(19, 0), start_time_offset_seconds=offset, catchup=True))
    # Triggered at 19:52:07 with logical date 19:52:00: Airflow infers [19:51:50, 19:52:00) and keeps it when a
    # backfill with --reprocess-behavior completed takes the run over (only the type becomes backfill).
    interval = dag.timetable.infer_manual_data_interval(run_after=at(19, 52))
    assert (interval.start, interval.end) == (at(19, 51, 50), at(19, 52))
    taken_over = run("backfill", (interval.start, interval.end), logical_date=at(19, 52), run_after=at(19, 52, 7))
    got = env(dag, taken_over)
    assert got == backfill_window(dag, at(19, 52), offset or 0)
    assert got["HOPS_LOGICAL_DATE"] == "2026-12-03T19:52:00Z"
    # Airflow 3.0 makes such a manual run with run_after at its logical date, the inferred interval's end, and
    # before 3.3 the takeover keeps the manual run's conf: its window was that run's, not the backfill's.
    conf = {"hops_window": {"start_time": "2026-12-03T00:00:00Z", "end_time": "2026-12-03T01:00:00Z"}}
    on_3_0 = run("backfill", (interval.start, interval.end), logical_date=at(19, 52), run_after=at(19, 52), conf=conf)
    assert env(dag, on_3_0) == got


def test_an_old_zero_length_run_taken_over_by_a_backfill_gets_the_schedules_window() -> None:
    # Made by CronTriggerTimetable before the DAG switched: [19:52:00, 19:52:00), run_after at the fire.
    dag = dag_of(**hops_schedule(TEN_SECONDS, start_time=at(19, 0), catchup=True))
    old = run("backfill", (at(19, 52), at(19, 52)), logical_date=at(19, 52), run_after=at(19, 52))
    got = env(dag, old)
    assert got == backfill_window(dag, at(19, 52), 0)
    assert got["HOPS_START_TIME"] != got["HOPS_END_TIME"]


def test_a_taken_over_run_no_scheduled_run_explains_fails_with_the_reason() -> None:
    dag = dag_of(**hops_schedule(TEN_SECONDS, start_time=at(19, 0), catchup=True))
    odd = run("backfill", (at(19, 51, 50), at(19, 52)), logical_date=at(19, 52, 3), run_after=at(19, 52, 3))
    with pytest.raises(RunWindowError, match=r"logical date 2026-12-03T19:52:03Z is not the logical date of any run"):
        env(dag, odd)


def test_a_zero_length_interval_of_another_timetable_fails_rather_than_inject_an_empty_window() -> None:
    dag = dag_of(schedule=CronTriggerTimetable("*/10 * * * *", timezone="UTC"), start_date=at(19, 0))
    scheduled = run("scheduled", (at(19, 50), at(19, 50)), logical_date=at(19, 50), run_after=at(19, 50))
    with pytest.raises(RunWindowError, match=r"data interval \[2026-12-03T19:50:00Z, 2026-12-03T19:50:00Z\) is empty"):
        env(dag, scheduled)


def test_a_scheduled_run_keeps_the_offset_it_was_made_with_after_an_edit() -> None:
    made = dag_of(**hops_schedule(TEN_SECONDS, start_time=at(19, 0), start_time_offset_seconds=7, catchup=True))
    edited = dag_of(**hops_schedule(TEN_SECONDS, start_time=at(19, 0), start_time_offset_seconds=3, catchup=True))
    run_id = made.timetable.generate_run_id(run_type=DagRunType.SCHEDULED, run_after=at(20, 30, 10), data_interval=None)
    assert run_id.endswith("__hops_offset_7s")
    cleared = run(
        "scheduled", (at(20, 30), at(20, 30, 10)), logical_date=at(20, 30), run_after=at(20, 30, 10), run_id=run_id
    )
    # Cleared, or started only after the edit: the window it was made for, [20:29:53, 20:30:03).
    assert env(edited, cleared) == env(made, cleared)
    assert env(edited, cleared)["HOPS_START_TIME"] == "2026-12-03T20:29:53Z"
    # The run made after the edit gets the new offset: the two tile, [20:30:03, 20:30:17) is nobody's gap.
    new_id = edited.timetable.generate_run_id(
        run_type=DagRunType.SCHEDULED, run_after=at(20, 30, 20), data_interval=None
    )
    after = run(
        "scheduled",
        (at(20, 30, 10), at(20, 30, 20)),
        logical_date=at(20, 30, 10),
        run_after=at(20, 30, 20),
        run_id=new_id,
    )
    assert env(edited, after)["HOPS_START_TIME"] == "2026-12-03T20:30:07Z"
    # A scheduled run whose id has no marker was made with no offset: it keeps its own interval as its window.
    legacy = run(
        "scheduled",
        (at(20, 30), at(20, 30, 10)),
        logical_date=at(20, 30),
        run_after=at(20, 30, 10),
        run_id="scheduled__x",
    )
    assert env(edited, legacy)["HOPS_START_TIME"] == "2026-12-03T20:30:00Z"


@pytest.mark.parametrize("offset", [None, 0])
@pytest.mark.parametrize("run_type", list(DagRunType))
def test_with_no_offset_every_run_id_is_airflows_own(run_type: DagRunType, offset: int | None) -> None:
    ours = HopsworksTimetable("0 0 * ? * * *", start_time_offset_seconds=offset)
    theirs = CronTriggerTimetable("0 * * * *", timezone="UTC")
    fire = datetime(2026, 1, 1, 10, tzinfo=timezone.utc)
    interval = DataInterval(fire - timedelta(hours=1), fire)
    ids = [
        timetable.generate_run_id(run_type=run_type, run_after=fire, data_interval=interval)
        for timetable in (ours, theirs)
    ]
    assert ids[0] == ids[1]
    assert ids[0].startswith(f"{run_type.value}__2026-01-01T")


def test_with_an_offset_a_scheduled_run_id_is_airflows_own_then_the_marker() -> None:
    fire = datetime(2026, 1, 1, 10, tzinfo=timezone.utc)
    interval = DataInterval(fire - timedelta(hours=1), fire)
    arguments: dict[str, Any] = {"run_type": DagRunType.SCHEDULED, "run_after": fire, "data_interval": interval}
    run_id = HopsworksTimetable("0 0 * ? * * *", start_time_offset_seconds=3600).generate_run_id(**arguments)
    airflows = CronTriggerTimetable("0 * * * *", timezone="UTC").generate_run_id(**arguments)
    assert run_id == f"{airflows}__hops_offset_3600s"


@pytest.mark.parametrize("run_type", [DagRunType.MANUAL, DagRunType.BACKFILL_JOB, DagRunType.ASSET_TRIGGERED])
def test_only_scheduled_run_ids_carry_the_offset(run_type: DagRunType) -> None:
    timetable = HopsworksTimetable(TEN_SECONDS, start_time_offset_seconds=7)
    run_id = timetable.generate_run_id(run_type=run_type, run_after=at(20, 30), data_interval=None)
    assert marked_offset(run_id) is None


@given(st.text(max_size=80), st.one_of(st.none(), st.integers(0, 3_153_600_000)))
def test_the_offset_reads_back_exactly_and_nothing_else_reads_as_one(prefix: str, offset: int | None) -> None:
    if offset:
        assert marked_offset(mark_offset(prefix, offset)) == offset
    else:
        assert mark_offset(prefix, offset) == prefix
    if "__hops_offset_" not in prefix:
        assert marked_offset(prefix) is None
    for forged in (
        f"{prefix}__hops_offset_-3s",
        f"{prefix}__hops_offset_007s",
        f"{prefix}__hops_offset_7s ",
        "x" * 10**5,
    ):
        assert marked_offset(forged) is None


def test_the_tab_and_the_audit_read_the_same_window_the_task_gets() -> None:
    from hops_timetable.core.coverage import RunRecord, run_window

    dag = dag_of(**hops_schedule(TEN_SECONDS, start_time=at(19, 0), start_time_offset_seconds=3, catchup=True))
    policy = dag.timetable.policy()
    interval = (at(19, 51, 50), at(19, 52))
    marked = mark_offset("scheduled__x", 7)
    cases = [
        # A manual run a backfill took over, and a scheduled run made under an older offset.
        (run("backfill", interval, logical_date=at(19, 52), run_after=at(19, 52, 7)), "backfill__a"),
        (run("scheduled", interval, logical_date=at(19, 51, 50), run_after=at(19, 52), run_id=marked), marked),
    ]
    for dag_run, run_id in cases:
        record = RunRecord(
            run_id=run_id,
            run_type=str(dag_run.run_type.value),
            state="success",
            run_after=dag_run.run_after,
            logical_date=dag_run.logical_date,
            data_interval_start=dag_run.data_interval_start,
            data_interval_end=dag_run.data_interval_end,
        )
        seen = run_window(record, 3, policy)
        assert seen.window is not None
        assert seen.window.as_env() == env(dag, dag_run.model_copy(update={"run_id": run_id}))
    empty = RunRecord("scheduled__e", "scheduled", "success", at(19, 50), at(19, 50), at(19, 50), at(19, 50))
    assert run_window(empty, None).window is None and "is empty" in (run_window(empty, None).error or "")
