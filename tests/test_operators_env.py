"""hops_env and inject_hops_env on real Airflow objects: DAGs, the DagRun the task runtime receives, operators."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from datetime import datetime
from typing import Any

import pytest
from airflow.models.dagrun import DagRun as OrmDagRun
from airflow.providers.standard.operators.bash import BashOperator
from airflow.providers.standard.operators.empty import EmptyOperator
from airflow.sdk import DAG
from airflow.sdk.api.datamodels._generated import DagRun as RuntimeDagRun
from airflow.sdk.api.datamodels._generated import DagRunState
from airflow.timetables.base import TimeRestriction
from support import HOURLY, utc

from hops_timetable import hops_schedule
from hops_timetable.core.conf_window import mark_offset
from hops_timetable.core.window import HOPS_ENV_KEYS
from hops_timetable.operators import (
    HopsBashOperator,
    HopsPythonOperator,
    HopsWindowError,
    hops_env,
    inject_hops_env,
    restore_hops_env,
)


def runtime_run(
    run_type: str,
    interval: tuple[datetime, datetime] | None,
    conf: dict[str, Any] | None = None,
    run_id: str | None = None,
) -> RuntimeDagRun:
    """The DagRun model the task runtime puts into ``context["dag_run"]``."""
    run_after = utc(2026, 1, 1, 10) if interval is None else interval[1]
    extra: dict[str, Any] = {}
    # The model follows the execution API of each Airflow minor: 3.0's requires a start date and has no
    # partition_key, which 3.2 added (required, nullable).
    if "partition_key" in RuntimeDagRun.model_fields:
        extra["partition_key"] = None
    return RuntimeDagRun(
        dag_id="d",
        run_id=run_id or f"{run_type}__1",
        logical_date=None if interval is None else interval[0],
        data_interval_start=None if interval is None else interval[0],
        data_interval_end=None if interval is None else interval[1],
        run_after=run_after,
        start_date=run_after,
        end_date=None,
        run_type=run_type,
        state=DagRunState.RUNNING,
        conf=conf,
        consumed_asset_events=[],
        **extra,
    )


def orm_run(
    run_type: str,
    interval: tuple[datetime, datetime] | None,
    conf: dict[str, Any] | None = None,
    run_id: str | None = None,
) -> OrmDagRun:
    """The metadata database's DagRun, as the scheduler creates it."""
    return OrmDagRun(
        dag_id="d",
        run_id=run_id or f"{run_type}__1",
        logical_date=None if interval is None else interval[0],
        data_interval=interval,
        run_after=utc(2026, 1, 1, 10),
        run_type=run_type,
        conf=conf,
    )


RunFactory = Callable[..., Any]
RUN_FACTORIES = [pytest.param(runtime_run, id="runtime-dagrun"), pytest.param(orm_run, id="orm-dagrun")]


def hops_dag(**schedule: Any) -> DAG:
    with DAG("hops", **hops_schedule(HOURLY, start_time=utc(2026, 1, 1), **schedule)) as dag:
        EmptyOperator(task_id="t")
    return dag


def context_for(dag: DAG, dag_run: Any) -> dict[str, Any]:
    return {"dag": dag, "task": dag.task_dict["t"], "dag_run": dag_run}


INTERVAL = (utc(2026, 1, 1, 9), utc(2026, 1, 1, 10))
WINDOW_CONF = {"hops_window": {"start_time": "2025-06-01T00:00:00+02:00", "end_time": "2025-06-02T00:00:00+02:00"}}
WINDOW_ENV = {
    "HOPS_START_TIME": "2025-05-31T22:00:00Z",
    "HOPS_END_TIME": "2025-06-01T22:00:00Z",
    "HOPS_LOGICAL_DATE": "2025-05-31T22:00:00Z",
}


@pytest.mark.parametrize("make_run", RUN_FACTORIES)
@pytest.mark.parametrize("run_type", ["scheduled", "backfill"])
def test_scheduled_and_backfill_runs_see_their_interval(make_run: RunFactory, run_type: str) -> None:
    got = hops_env(context_for(hops_dag(), make_run(run_type, INTERVAL)))
    assert got == {
        "HOPS_START_TIME": "2026-01-01T09:00:00Z",
        "HOPS_END_TIME": "2026-01-01T10:00:00Z",
        "HOPS_LOGICAL_DATE": "2026-01-01T09:00:00Z",
    }


@pytest.mark.parametrize("make_run", RUN_FACTORIES)
def test_the_dag_offset_moves_the_window(make_run: RunFactory) -> None:
    # Seed example: hourly, offset 25 h, the 11:00 fire sees [09:00, 10:00) of the previous day.
    dag = hops_dag(start_time_offset_seconds=25 * 3600)
    # The scheduler's id for a run made with the offset carries it (an unmarked scheduled id means offset 0).
    run = make_run("scheduled", (utc(2026, 1, 2, 10), utc(2026, 1, 2, 11)), run_id=mark_offset("s", 25 * 3600))
    got = hops_env(context_for(dag, run))
    assert got == {
        "HOPS_START_TIME": "2026-01-01T09:00:00Z",
        "HOPS_END_TIME": "2026-01-01T10:00:00Z",
        "HOPS_LOGICAL_DATE": "2026-01-02T10:00:00Z",
    }


def test_the_clamped_first_interval_starts_at_the_start_date() -> None:
    with DAG("clamped", **hops_schedule(HOURLY, start_time=utc(2026, 1, 1, 10, 5))) as dag:
        EmptyOperator(task_id="t")
    restriction = TimeRestriction(earliest=utc(2026, 1, 1, 10, 5), latest=None, catchup=True)
    first = dag.timetable.next_dagrun_info_v2(last_dagrun_info=None, restriction=restriction)
    assert first is not None and first.data_interval is not None
    run = runtime_run("scheduled", (first.data_interval.start, first.data_interval.end))
    assert hops_env(context_for(dag, run)) == {
        "HOPS_START_TIME": "2026-01-01T10:05:00Z",
        "HOPS_END_TIME": "2026-01-01T11:00:00Z",
        "HOPS_LOGICAL_DATE": "2026-01-01T10:05:00Z",
    }


@pytest.mark.parametrize("make_run", RUN_FACTORIES)
@pytest.mark.parametrize("run_type", ["manual", "asset_triggered"])
def test_runs_from_outside_see_a_window_only_when_it_is_passed(make_run: RunFactory, run_type: str) -> None:
    dag = hops_dag(start_time_offset_seconds=3600)
    # Airflow fills a data interval for manual runs; Hopsworks does not, so it is ignored.
    assert hops_env(context_for(dag, make_run(run_type, INTERVAL))) == {}
    assert hops_env(context_for(dag, make_run(run_type, None))) == {}
    # A passed window is used as given: the DAG's offset does not move it.
    assert hops_env(context_for(dag, make_run(run_type, None, WINDOW_CONF))) == WINDOW_ENV


def test_a_passed_window_wins_for_scheduled_runs_too() -> None:
    assert hops_env(context_for(hops_dag(), runtime_run("scheduled", INTERVAL, WINDOW_CONF))) == WINDOW_ENV


def test_a_dag_without_hopsworks_timetable_gets_its_interval_without_offset() -> None:
    with DAG("plain", schedule="@hourly", start_date=utc(2026, 1, 1)) as dag:
        EmptyOperator(task_id="t")
    assert hops_env(context_for(dag, runtime_run("scheduled", INTERVAL))) == {
        "HOPS_START_TIME": "2026-01-01T09:00:00Z",
        "HOPS_END_TIME": "2026-01-01T10:00:00Z",
        "HOPS_LOGICAL_DATE": "2026-01-01T09:00:00Z",
    }


def test_the_dag_is_found_through_the_task_when_the_context_has_none() -> None:
    dag = hops_dag(start_time_offset_seconds=3600)
    context = {"task": dag.task_dict["t"], "dag_run": runtime_run("scheduled", INTERVAL, run_id=mark_offset("s", 3600))}
    assert hops_env(context)["HOPS_START_TIME"] == "2026-01-01T08:00:00Z"


def test_author_values_override_the_scheduler_but_not_a_passed_window() -> None:
    explicit = {"HOPS_END_TIME": "pinned"}
    scheduled = hops_env(context_for(hops_dag(), runtime_run("scheduled", INTERVAL)), explicit=explicit)
    assert scheduled["HOPS_END_TIME"] == "pinned"
    assert scheduled["HOPS_START_TIME"] == "2026-01-01T09:00:00Z"
    passed = hops_env(context_for(hops_dag(), runtime_run("scheduled", INTERVAL, WINDOW_CONF)), explicit=explicit)
    assert passed == WINDOW_ENV


def test_a_hostile_window_raises_a_window_error() -> None:
    conf = {"hops_window": {"start_time": "$(id)", "end_time": "2026-01-01T00:00:00Z"}}
    with pytest.raises(HopsWindowError, match=r"""\["start_time"\]='\$\(id\)'"""):
        hops_env(context_for(hops_dag(), runtime_run("manual", None, conf)))


# -- operator arguments -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("operator", [HopsBashOperator, HopsPythonOperator])
def test_operators_check_legacy_args(operator: Any) -> None:
    kwargs = {"bash_command": "true"} if operator is HopsBashOperator else {"python_callable": print}
    with pytest.raises(ValueError, match="legacy_args='argv' is not supported"):
        operator(task_id="t", legacy_args="argv", **kwargs)


# -- inject_hops_env ----------------------------------------------------------------------------------------------


@pytest.fixture
def clean_hops_environ() -> Iterator[None]:
    saved = {key: os.environ.pop(key, None) for key in HOPS_ENV_KEYS}
    yield
    for key, value in saved.items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value


def test_inject_merges_into_an_env_attribute_and_restore_puts_it_back(clean_hops_environ: None) -> None:
    with DAG("inj", **hops_schedule(HOURLY, start_time=utc(2026, 1, 1))) as dag:
        task = BashOperator(task_id="t", bash_command="true", env={"KEEP": "1", "HOPS_END_TIME": "author"})
    original = task.env
    context = {"dag": dag, "task": task, "dag_run": runtime_run("scheduled", INTERVAL)}
    inject_hops_env(context)
    assert task.env == {
        "KEEP": "1",
        "HOPS_START_TIME": "2026-01-01T09:00:00Z",
        "HOPS_END_TIME": "author",
        "HOPS_LOGICAL_DATE": "2026-01-01T09:00:00Z",
    }
    assert original == {"KEEP": "1", "HOPS_END_TIME": "author"}, "the author's dict is never changed in place"
    assert "HOPS_START_TIME" not in os.environ
    restore_hops_env(context, None)
    assert task.env is original


def test_inject_without_env_attribute_sets_os_environ_until_restored(clean_hops_environ: None) -> None:
    os.environ["HOPS_START_TIME"] = "inherited"
    dag = hops_dag()
    context = context_for(dag, runtime_run("backfill", INTERVAL))
    inject_hops_env(context)
    assert {key: os.environ[key] for key in HOPS_ENV_KEYS} == {
        "HOPS_START_TIME": "2026-01-01T09:00:00Z",
        "HOPS_END_TIME": "2026-01-01T10:00:00Z",
        "HOPS_LOGICAL_DATE": "2026-01-01T09:00:00Z",
    }
    restore_hops_env(context)
    assert os.environ["HOPS_START_TIME"] == "inherited"
    assert "HOPS_END_TIME" not in os.environ


def test_a_plain_manual_run_removes_inherited_hops_variables(clean_hops_environ: None) -> None:
    os.environ["HOPS_END_TIME"] = "inherited"
    context = context_for(hops_dag(), runtime_run("manual", None))
    inject_hops_env(context)
    assert not any(key in os.environ for key in HOPS_ENV_KEYS)
    restore_hops_env(context)
    assert os.environ["HOPS_END_TIME"] == "inherited"


def test_a_leftover_injection_is_undone_by_the_next_one(clean_hops_environ: None) -> None:
    # post_execute does not run when a task fails; the next injection must not build on the leftover.
    first = context_for(hops_dag(), runtime_run("scheduled", INTERVAL))
    inject_hops_env(first)
    second = context_for(hops_dag(), runtime_run("manual", None))
    inject_hops_env(second)
    assert not any(key in os.environ for key in HOPS_ENV_KEYS)
    restore_hops_env(second)
    assert not any(key in os.environ for key in HOPS_ENV_KEYS)


def test_inject_merges_into_a_kubernetes_env_var_list(clean_hops_environ: None) -> None:
    from kubernetes.client import models as k8s

    dag = hops_dag()
    task = dag.task_dict["t"]
    task.env_vars = [k8s.V1EnvVar(name="KEEP", value="1"), k8s.V1EnvVar(name="HOPS_START_TIME", value="author")]
    context = context_for(dag, runtime_run("scheduled", INTERVAL))
    inject_hops_env(context)
    assert {item.name: item.value for item in task.env_vars} == {
        "KEEP": "1",
        "HOPS_START_TIME": "author",
        "HOPS_END_TIME": "2026-01-01T10:00:00Z",
        "HOPS_LOGICAL_DATE": "2026-01-01T09:00:00Z",
    }
    restore_hops_env(context)


def test_inject_fails_on_a_hostile_window_without_changing_anything(clean_hops_environ: None) -> None:
    with DAG("inj2", **hops_schedule(HOURLY, start_time=utc(2026, 1, 1))) as dag:
        task = BashOperator(task_id="t", bash_command="true", env={"KEEP": "1"})
    conf = {"hops_window": {"start_time": "2026-01-01T00:00:00Z", "end_time": "2026-01-01T01:00:00Z", "x": 1}}
    with pytest.raises(HopsWindowError, match=r"\['x'\]=1 is an unknown key"):
        inject_hops_env({"dag": dag, "task": task, "dag_run": runtime_run("manual", None, conf)})
    assert task.env == {"KEEP": "1"}
    assert not any(key in os.environ for key in HOPS_ENV_KEYS)
