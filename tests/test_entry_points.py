"""Every way Airflow creates runs, through Airflow's own code: backfills, manual runs, timetable switches, and the
scheduler's stored-run check on a real (in-memory SQLite) metadata schema.

Airflow's built-in timetables are the oracle where the semantics agree: ``CronDataIntervalTimetable`` lists the
runs of a backfill, and each built-in makes the runs a switch starts from.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from datetime import datetime, timedelta
from typing import Any

import airflow_versions
import pytest
import time_machine
from airflow.models.backfill import _get_info_list
from airflow.models.dag import DagModel
from airflow.models.dagrun import DagRun
from airflow.providers.standard.operators.empty import EmptyOperator
from airflow.sdk import DAG
from airflow.timetables.base import DagRunInfo, TimeRestriction, Timetable
from airflow.timetables.interval import CronDataIntervalTimetable, DeltaDataIntervalTimetable
from airflow.timetables.trigger import CronTriggerTimetable, DeltaTriggerTimetable, MultipleCronTriggerTimetable
from sqlalchemy import create_engine
from sqlalchemy.orm import Session

# The scheduler's view of a DAG, built as test_timetable builds it.
from support import HOURLY, utc
from test_timetable import build_dag

from hops_timetable import HopsworksTimetable, _compat, hops_schedule
from hops_timetable.core.window import format_hops_time


def backfill(dag: Any, start: datetime, end: datetime, *, reverse: bool = False) -> list[DagRunInfo]:
    """The run list of ``airflow backfill create`` and of its dry run (both call ``_get_info_list``)."""
    return _get_info_list(from_date=start, to_date=end, reverse=reverse, dag=dag)


def intervals(infos: list[DagRunInfo]) -> list[tuple[datetime, datetime, datetime]]:
    out = []
    for info in infos:
        assert info.data_interval is not None
        out.append((info.data_interval.start, info.data_interval.end, info.run_after))
    return out


def hops_strings(timetable: HopsworksTimetable, infos: list[DagRunInfo]) -> list[dict[str, str]]:
    out = []
    for info in infos:
        assert info.data_interval is not None
        out.append(timetable.hops_window(info.data_interval).as_env())
    return out


# -- backfill = the scheduled runs, replayed ---------------------------------------------------------------------


@pytest.mark.parametrize("catchup", [False, True])
@pytest.mark.parametrize("bound", [None, 3])
def test_a_backfill_lists_the_runs_croniter_based_airflow_lists(catchup: bool, bound: int | None) -> None:
    start = utc(2025, 12, 1)
    hops = build_dag(
        **hops_schedule(HOURLY, start_time=start, catchup=catchup, max_catchup_runs=bound, max_active_runs=16)
    )
    oracle = build_dag(schedule=CronDataIntervalTimetable("0 * * * *", "UTC"), start_date=start, catchup=catchup)
    with time_machine.travel(utc(2026, 1, 2), tick=False):
        got = backfill(hops, utc(2026, 1, 1, 0), utc(2026, 1, 1, 10))
        want = backfill(oracle, utc(2026, 1, 1, 0), utc(2026, 1, 1, 10))
        assert intervals(backfill(hops, utc(2026, 1, 1, 0), utc(2026, 1, 1, 10), reverse=True)) == intervals(got)[::-1]
    assert len(want) == 11
    assert intervals(got) == intervals(want)
    assert [info.logical_date for info in got] == [utc(2026, 1, 1, h) for h in range(11)]


def test_a_backfill_from_an_unaligned_date_makes_only_scheduled_intervals() -> None:
    dag = build_dag(**hops_schedule(HOURLY, start_time=utc(2025, 12, 1), catchup=False))
    with time_machine.travel(utc(2026, 1, 2), tick=False):
        got = backfill(dag, utc(2026, 1, 1, 0, 30), utc(2026, 1, 1, 3, 30))
        live = airflow_versions.scheduled_runs(
            build_dag(**hops_schedule(HOURLY, start_time=utc(2026, 1, 1), catchup=True)), utc(2026, 1, 2), count=5
        )
    assert intervals(got) == [(utc(2026, 1, 1, h), utc(2026, 1, 1, h + 1), utc(2026, 1, 1, h + 1)) for h in (1, 2, 3)]
    # The HOPS window of a backfilled run is the scheduled run's, to the string.
    assert hops_strings(dag.timetable, got) == hops_strings(dag.timetable, live[1:4])


def test_a_backfill_clamps_at_the_dags_start_only_and_never_runs_a_fire_at_or_before_it() -> None:
    dag = build_dag(**hops_schedule(HOURLY, start_time=utc(2026, 1, 1, 0, 30), catchup=True, max_catchup_runs=1))
    with time_machine.travel(utc(2026, 1, 2), tick=False):
        got = backfill(dag, utc(2025, 12, 31, 22), utc(2026, 1, 1, 2))
        unbounded = build_dag(**hops_schedule(HOURLY, start_time=utc(2026, 1, 1, 0, 30), catchup=True))
        live = airflow_versions.scheduled_runs(unbounded, utc(2026, 1, 1, 3), count=3)
    assert intervals(got) == [
        (utc(2026, 1, 1, 0, 30), utc(2026, 1, 1, 1), utc(2026, 1, 1, 1)),
        (utc(2026, 1, 1, 1), utc(2026, 1, 1, 2), utc(2026, 1, 1, 2)),
        (utc(2026, 1, 1, 2), utc(2026, 1, 1, 3), utc(2026, 1, 1, 3)),
    ]
    assert intervals(got) == intervals(live)


def test_a_backfill_of_a_dag_with_an_end_date_stops_at_the_end_and_its_offset_window_matches() -> None:
    schedule = hops_schedule(
        HOURLY,
        start_time=utc(2026, 1, 1),
        end_time=utc(2026, 1, 1, 5),
        start_time_offset_seconds=900,
        catchup=True,
    )
    dag = build_dag(**schedule)
    with time_machine.travel(utc(2026, 1, 2), tick=False):
        got = backfill(dag, utc(2026, 1, 1, 2), utc(2026, 1, 1, 9))
    # Fires at or after the end date never run: 05:00 is the last fire before it... excluded, so 04:00 is last.
    assert [info.logical_date for info in got] == [utc(2026, 1, 1, 2), utc(2026, 1, 1, 3)]
    assert hops_strings(dag.timetable, got)[0] == {
        "HOPS_START_TIME": "2026-01-01T01:45:00Z",
        "HOPS_END_TIME": "2026-01-01T02:45:00Z",
        "HOPS_LOGICAL_DATE": "2026-01-01T02:00:00Z",
    }


def test_the_dags_own_restriction_is_still_bounded() -> None:
    dag = build_dag(**hops_schedule(HOURLY, start_time=utc(2026, 1, 1), catchup=True, max_catchup_runs=3))
    runs = airflow_versions.scheduled_runs(dag, utc(2026, 1, 1, 10, 30), count=1)
    assert intervals(runs) == [(utc(2026, 1, 1, 7), utc(2026, 1, 1, 8), utc(2026, 1, 1, 8))]


def test_range_requests_are_told_from_the_dags_own_restriction() -> None:
    held = HopsworksTimetable(HOURLY, start_time=utc(2026, 1, 1), end_time=utc(2026, 2, 1), catchup=False)
    own = TimeRestriction(utc(2026, 1, 1), utc(2026, 2, 1), catchup=False)
    assert not held.is_range_request(own)
    assert held.is_range_request(TimeRestriction(utc(2026, 1, 1), utc(2026, 2, 1), catchup=True))
    assert held.is_range_request(TimeRestriction(utc(2026, 1, 3), utc(2026, 1, 4), catchup=True))
    bare = HopsworksTimetable(HOURLY)
    assert not bare.is_range_request(TimeRestriction(utc(2026, 1, 1), None, catchup=True))
    assert not bare.is_range_request(TimeRestriction(utc(2026, 1, 1), utc(2026, 1, 2), catchup=False))
    # Undecidable without the held restriction: read as the DAG's own (documented in is_range_request).
    assert not bare.is_range_request(TimeRestriction(utc(2026, 1, 1), utc(2026, 1, 2), catchup=True))


# -- settings and serialization ----------------------------------------------------------------------------------


def test_settings_are_read_only() -> None:
    timetable = HopsworksTimetable(HOURLY, max_catchup_runs=24)
    for name in ("max_catchup_runs", "start_time_offset_seconds", "skip_to_date", "start_time", "catchup"):
        with pytest.raises(AttributeError):
            setattr(timetable, name, 2)
    assert timetable.serialize()["max_catchup_runs"] == 24


def test_a_version_1_payload_loads_and_schedules_as_before() -> None:
    payload = {
        "version": 1,
        "cron_expression": HOURLY,
        "start_time_offset_seconds": None,
        "end_time_offset_seconds": None,
        "max_catchup_runs": 2,
        "skip_to_date": None,
    }
    timetable = HopsworksTimetable.deserialize(payload)
    assert (timetable.start_time, timetable.end_time, timetable.catchup) == (None, None, None)
    assert timetable.serialize()["version"] == 2
    with time_machine.travel(utc(2026, 1, 1, 10, 30), tick=False):
        info = timetable.next_dagrun_info_v2(
            last_dagrun_info=None, restriction=TimeRestriction(utc(2026, 1, 1), None, catchup=True)
        )
    assert info is not None and info.logical_date == utc(2026, 1, 1, 8)


def test_the_held_restriction_round_trips_through_dag_serialization() -> None:
    dag = build_dag(**hops_schedule(HOURLY, start_time=utc(2026, 1, 1), end_time=utc(2027, 1, 1), catchup=True))
    timetable = dag.timetable
    assert (timetable.start_time, timetable.end_time, timetable.catchup) == (utc(2026, 1, 1), utc(2027, 1, 1), True)
    assert _compat.time_restriction(dag) == TimeRestriction(utc(2026, 1, 1), utc(2027, 1, 1), True)


def test_a_held_start_without_catchup_is_refused() -> None:
    with pytest.raises(ValueError, match="without catchup"):
        HopsworksTimetable(HOURLY, start_time=utc(2026, 1, 1))


# -- timetable switches, through DagModel.calculate_dagrun_date_fields ------------------------------------------

BUILT_INS: dict[str, Timetable] = {
    "CronTriggerTimetable": CronTriggerTimetable("0 17 * * *", timezone="UTC"),
    "CronTriggerTimetable-interval": CronTriggerTimetable("0 17 * * *", timezone="UTC", interval=timedelta(hours=2)),
    "CronDataIntervalTimetable": CronDataIntervalTimetable("0 17 * * *", "UTC"),
    "DeltaDataIntervalTimetable": DeltaDataIntervalTimetable(timedelta(hours=7)),
    "DeltaTriggerTimetable": DeltaTriggerTimetable(timedelta(hours=7)),
    "MultipleCronTriggerTimetable": MultipleCronTriggerTimetable("0 17 * * *", "30 5 * * *", timezone="UTC"),
}


def dag_run(info: DagRunInfo, run_type: str = "scheduled", logical_date: datetime | None = None) -> DagRun:
    return DagRun(
        dag_id="switch",
        run_id=f"{run_type}__{info.run_after.isoformat()}",
        logical_date=info.logical_date if logical_date is None else logical_date,
        data_interval=info.data_interval,
        run_after=info.run_after,
        run_type=run_type,
    )


# Airflow 3.2's DagRunInfo requires the partition fields it added; 3.3 gave them defaults, 3.0 and 3.1 lack them.
NO_PARTITION: dict[str, Any] = (
    {"partition_date": None, "partition_key": None} if "partition_key" in DagRunInfo._fields else {}
)


def follow(dag: Any, reference: DagRun, count: int, now: datetime) -> list[DagRunInfo]:
    """The next runs as the scheduler stores them: ``calculate_dagrun_date_fields`` from each created run."""
    model = DagModel(dag_id="switch")
    out: list[DagRunInfo] = []
    with time_machine.travel(now, tick=False):
        for _ in range(count):
            airflow_versions.store_next_dagrun(model, dag, reference)
            assert model.next_dagrun_data_interval is not None
            info = DagRunInfo(
                run_after=model.next_dagrun_create_after, data_interval=model.next_dagrun_data_interval, **NO_PARTITION
            )
            out.append(info)
            reference = dag_run(info)
    return out


@pytest.mark.parametrize("name", sorted(BUILT_INS))
@pytest.mark.parametrize("cron", ["0 0 17 * * ?", HOURLY, "0 0 9,17 ? * *"])
def test_switching_from_a_built_in_never_stalls_and_the_windows_tile(name: str, cron: str) -> None:
    start = utc(2026, 1, 1)
    before = build_dag("switch", schedule=BUILT_INS[name], start_date=start, catchup=True)
    history = airflow_versions.scheduled_runs(before, utc(2026, 1, 10), count=3)
    last = history[-1]
    assert last.data_interval is not None
    after = build_dag("switch", **hops_schedule(cron, start_time=start, catchup=True))
    runs = follow(after, dag_run(last), 4, utc(2026, 2, 1))
    logical = [last.logical_date] + [r.logical_date for r in runs]
    run_after = [last.run_after] + [r.run_after for r in runs]
    assert logical == sorted(set(logical)), logical
    assert run_after == sorted(set(run_after)), run_after
    windows = hops_strings(after.timetable, runs)
    assert windows[0]["HOPS_START_TIME"] == format_hops_time(last.data_interval.end)
    for previous, current in itertools.pairwise(windows):
        assert current["HOPS_START_TIME"] == previous["HOPS_END_TIME"]
    # From the second run on, the intervals are the cron's own: [previous fire, fire).
    for info in runs[1:]:
        assert info.data_interval is not None
        assert after.timetable.cron.next_after(info.data_interval.start) == info.run_after


@pytest.mark.parametrize("name", sorted(BUILT_INS))
def test_switching_back_to_a_built_in_never_stalls(name: str) -> None:
    start = utc(2026, 1, 1)
    hops = build_dag("switch", **hops_schedule("0 0 17 * * ?", start_time=start, catchup=True))
    last = airflow_versions.scheduled_runs(hops, utc(2026, 1, 10), count=3)[-1]
    before = build_dag("switch", schedule=BUILT_INS[name], start_date=start, catchup=True)
    runs = follow(before, dag_run(last), 3, utc(2026, 2, 1))
    assert all(r.logical_date > last.logical_date for r in runs)
    assert all(r.run_after > last.run_after for r in runs)


@pytest.mark.skipif(
    _compat.AIRFLOW_VERSION < (3, 3),
    reason="before 3.3 the scheduler stores the next run from the last automated run, never from a manual one",
)
def test_a_manual_run_at_the_stored_logical_date_moves_the_dag_on_to_the_next_cron_fire() -> None:
    dag = build_dag("switch", **hops_schedule(HOURLY, start_time=utc(2026, 1, 1), catchup=False))
    stored = utc(2026, 1, 1, 9)
    # What POST /dags/{id}/dagRuns with that logical date stores: the timetable's manual interval, run_after now.
    interval = dag.timetable.infer_manual_data_interval(run_after=stored)
    for trigger_time in (utc(2026, 1, 1, 9, 17, 3), utc(2026, 1, 1, 8, 1)):
        manual = DagRun(
            dag_id="switch",
            run_id="manual__x",
            logical_date=stored,
            data_interval=interval,
            run_after=trigger_time,
            run_type="manual",
        )
        runs = follow(dag, manual, 2, utc(2026, 1, 1, 9, 30))
        assert intervals(runs) == [
            (utc(2026, 1, 1, 10), utc(2026, 1, 1, 11), utc(2026, 1, 1, 11)),
            (utc(2026, 1, 1, 11), utc(2026, 1, 1, 12), utc(2026, 1, 1, 12)),
        ]


# -- the scheduler's stored-run check on a real metadata schema --------------------------------------------------


# Airflow 3.0 and 3.1 have no stored-run hook: they create DagModel.next_dagrun without asking the timetable.
needs_hook = pytest.mark.skipif(
    not _compat.HAS_DAG_MODEL_HOOK, reason="next_run_info_from_dag_model is called from Airflow 3.2 on"
)


@pytest.fixture(scope="module")
def engine() -> Iterator[Any]:
    from airflow.models import import_all_models
    from airflow.models.base import Base

    import_all_models()
    db = create_engine("sqlite://")
    Base.metadata.create_all(db)
    yield db
    db.dispose()


@pytest.fixture
def session(engine: Any) -> Iterator[Session]:
    from airflow.models.dagbundle import DagBundleModel

    with Session(engine) as db:
        db.add(DagBundleModel(name="bundle"))
        yield db
        db.rollback()


def stored_model(session: Session, interval: tuple[datetime, datetime]) -> DagModel:
    model = DagModel(
        dag_id="stale",
        bundle_name="bundle",
        max_active_tasks=16,
        max_consecutive_failed_dag_runs=0,
        has_task_concurrency_limits=False,
        next_dagrun=interval[0],
        next_dagrun_data_interval_start=interval[0],
        next_dagrun_data_interval_end=interval[1],
        next_dagrun_create_after=interval[1],
    )
    session.add(model)
    session.flush()
    return model


def occupy(session: Session, logical_date: datetime, run_type: str) -> None:
    session.add(
        DagRun(
            dag_id="stale",
            run_id=f"{run_type}__{logical_date.isoformat()}",
            logical_date=logical_date,
            data_interval=(logical_date, logical_date + timedelta(hours=1)),
            run_after=logical_date + timedelta(hours=1),
            run_type=run_type,
        )
    )
    session.flush()


@needs_hook
def test_the_stored_run_check_passes_over_logical_dates_taken_by_manual_and_backfill_runs(session: Session) -> None:
    timetable = build_dag("stale", **hops_schedule(HOURLY, start_time=utc(2026, 1, 1), catchup=False)).timetable
    model = stored_model(session, (utc(2026, 1, 1, 5), utc(2026, 1, 1, 6)))
    with time_machine.travel(utc(2026, 1, 1, 10, 30), tick=False):
        info = timetable.next_run_info_from_dag_model(dag_model=model)
        assert info is not None and info.logical_date == utc(2026, 1, 1, 9)  # the newest due fire, 10:00
        occupy(session, utc(2026, 1, 1, 9), "manual")
        info = timetable.next_run_info_from_dag_model(dag_model=model)
        # The next free fire, 11:00, in the future: Airflow queues it and starts it at its run_after.
        assert intervals([info]) == [(utc(2026, 1, 1, 10), utc(2026, 1, 1, 11), utc(2026, 1, 1, 11))]
        occupy(session, utc(2026, 1, 1, 10), "backfill")
        info = timetable.next_run_info_from_dag_model(dag_model=model)
        assert intervals([info]) == [(utc(2026, 1, 1, 11), utc(2026, 1, 1, 12), utc(2026, 1, 1, 12))]


@needs_hook
def test_the_stored_run_check_keeps_the_edit_clamp(session: Session) -> None:
    # Hourly runs until 10:00, the stored next run [10:00, 11:00); the cron was then edited to daily at midnight,
    # and the scheduler was down for two days. The bound keeps 2 runs: the first must not start before 10:00,
    # where it would repeat the logical date of the hourly run [00:00, 01:00).
    timetable = build_dag(
        "stale", **hops_schedule("0 0 0 * * ?", start_time=utc(2026, 1, 1), catchup=True, max_catchup_runs=2)
    ).timetable
    model = stored_model(session, (utc(2026, 1, 1, 10), utc(2026, 1, 1, 11)))
    with time_machine.travel(utc(2026, 1, 3, 0, 30), tick=False):
        info = timetable.next_run_info_from_dag_model(dag_model=model)
    assert intervals([info]) == [(utc(2026, 1, 1, 10), utc(2026, 1, 2), utc(2026, 1, 2))]


@needs_hook
def test_the_stored_run_is_kept_when_at_most_one_fire_is_due(session: Session) -> None:
    timetable = build_dag("stale", **hops_schedule(HOURLY, start_time=utc(2026, 1, 1), catchup=False)).timetable
    model = stored_model(session, (utc(2026, 1, 1, 5), utc(2026, 1, 1, 6)))
    with time_machine.travel(utc(2026, 1, 1, 6, 30), tick=False):
        info = timetable.next_run_info_from_dag_model(dag_model=model)
    assert intervals([info]) == [(utc(2026, 1, 1, 5), utc(2026, 1, 1, 6), utc(2026, 1, 1, 6))]


@needs_hook
def test_a_hand_built_timetable_reads_the_dags_restriction_from_the_serialized_dag(session: Session) -> None:
    from airflow.models.serialized_dag import SerializedDagModel
    from airflow.serialization.serialized_objects import LazyDeserializedDAG

    with DAG("stale", schedule=HopsworksTimetable(HOURLY), start_date=utc(2026, 1, 1), catchup=False) as dag:
        EmptyOperator(task_id="job")
    model = stored_model(session, (utc(2026, 1, 1, 5), utc(2026, 1, 1, 6)))
    SerializedDagModel.write_dag(LazyDeserializedDAG.from_dag(dag), bundle_name="bundle", session=session)
    session.flush()
    timetable = build_dag("stale", schedule=HopsworksTimetable(HOURLY), start_date=utc(2026, 1, 1)).timetable
    assert timetable.catchup is None
    with time_machine.travel(utc(2026, 1, 1, 10, 30), tick=False):
        occupy(session, utc(2026, 1, 1, 9), "manual")
        info = timetable.next_run_info_from_dag_model(dag_model=model)
    # catchup=False came from the serialized DAG: one run, the newest free fire.
    assert intervals([info]) == [(utc(2026, 1, 1, 10), utc(2026, 1, 1, 11), utc(2026, 1, 1, 11))]
