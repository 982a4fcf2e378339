"""The Trigger form's window fields and the operators' log line of the window, on the task runtime's own models."""

from __future__ import annotations

import logging
from datetime import datetime, timezone
from typing import Any

import pytest
from airflow.providers.standard.operators.empty import EmptyOperator
from airflow.sdk import DAG, Param
from airflow.sdk.api.datamodels._generated import DagRun as RuntimeDagRun
from airflow.sdk.api.datamodels._generated import DagRunState
from structlog.testing import capture_logs

from hops_timetable import hops_schedule
from hops_timetable.core.conf_window import END_PARAM, START_PARAM, conf_with_form_window, resolve_run_window
from hops_timetable.core.coverage import RunRecord, run_window
from hops_timetable.operators import HopsWindowError, hops_env
from hops_timetable.schedule import hops_window_params

UTC = timezone.utc
START = datetime(2026, 1, 1, tzinfo=UTC)
INTERVAL = (datetime(2026, 1, 1, 9, tzinfo=UTC), datetime(2026, 1, 1, 10, tzinfo=UTC))


def run(run_type: str, interval: tuple[datetime, datetime] | None, conf: dict[str, Any] | None) -> RuntimeDagRun:
    # The execution API's DagRun of each minor: 3.0 and 3.1 require a start date, 3.2 added partition_key.
    extra: dict[str, Any] = {"partition_key": None} if "partition_key" in RuntimeDagRun.model_fields else {}
    return RuntimeDagRun(
        dag_id="hops",
        run_id=f"{run_type}__1",
        logical_date=None if interval is None else interval[0],
        data_interval_start=None if interval is None else interval[0],
        data_interval_end=None if interval is None else interval[1],
        run_after=INTERVAL[1],
        start_date=INTERVAL[1],
        end_date=None,
        run_type=run_type,
        state=DagRunState.RUNNING,
        conf=conf,
        consumed_asset_events=[],
        **extra,
    )


def context(dag_run: RuntimeDagRun) -> dict[str, Any]:
    with DAG("hops", **hops_schedule("0 0 * ? * * *", start_time=START, trigger_form=True)) as dag:
        EmptyOperator(task_id="t")
    return {"dag": dag, "task": dag.task_dict["t"], "dag_run": dag_run}


def test_hops_schedule_gives_the_trigger_form_two_optional_window_fields_when_asked() -> None:
    params = hops_schedule("0 0 * ? * * *", start_time=START, trigger_form=True)["params"]
    assert set(params) == {START_PARAM, END_PARAM}
    for name in (START_PARAM, END_PARAM):
        param = params.get_param(name)
        assert isinstance(param, Param)
        assert param.value is None
        assert param.schema["format"] == "date-time"
    # Off by default: Airflow copies DAG params into every task and validates them at each serialization.
    assert "params" not in hops_schedule("0 0 * ? * * *", start_time=START)
    assert "params" not in hops_schedule("0 0 * ? * * *", start_time=START, trigger_form=False)
    with DAG("without_form", **hops_schedule("0 0 * ? * * *", start_time=START)) as dag:
        EmptyOperator(task_id="t")
    assert dag.params.dump() == {}
    # The DAG accepts them and a scheduled run's params resolve to empty fields.
    with DAG("with_form", **hops_schedule("0 0 * ? * * *", start_time=START, trigger_form=True)) as dag:
        EmptyOperator(task_id="t")
    assert dag.params.dump() == {START_PARAM: None, END_PARAM: None}
    assert set(hops_window_params()) == {START_PARAM, END_PARAM}


def test_the_form_fields_become_the_conf_window_and_are_validated_like_it() -> None:
    form = {START_PARAM: "2026-01-01T07:00:00Z", END_PARAM: "2026-01-01T08:00:00+00:00"}
    assert conf_with_form_window(form) == {
        **form,
        "hops_window": {"start_time": "2026-01-01T07:00:00Z", "end_time": "2026-01-01T08:00:00+00:00"},
    }
    assert hops_env(context(run("manual", None, form))) == {
        "HOPS_START_TIME": "2026-01-01T07:00:00Z",
        "HOPS_END_TIME": "2026-01-01T08:00:00Z",
        "HOPS_LOGICAL_DATE": "2026-01-01T07:00:00Z",
    }
    # Empty fields: a manual run without a window, as before.
    assert hops_env(context(run("manual", None, {START_PARAM: None, END_PARAM: None}))) == {}
    # One field only: the window's own message names the missing end.
    with pytest.raises(HopsWindowError, match=r'\["end_time"\]'):
        hops_env(context(run("manual", None, {START_PARAM: "2026-01-01T07:00:00Z", END_PARAM: None})))
    with pytest.raises(HopsWindowError, match="not after start_time"):
        hops_env(context(run("manual", None, {START_PARAM: "2026-01-01T08:00:00Z", END_PARAM: "2026-01-01T07:00:00Z"})))
    # An explicit conf window wins over the fields.
    both = {**form, "hops_window": {"start_time": "2025-01-01T00:00:00Z", "end_time": "2025-01-02T00:00:00Z"}}
    assert hops_env(context(run("manual", None, both)))["HOPS_START_TIME"] == "2025-01-01T00:00:00Z"
    # What the form sends, recorded in a real browser (tests/e2e/test_e2e_trigger_form.py): from Airflow 3.1 the
    # picker's UTC instant with milliseconds; Airflow 3.0 appends ":00+00:00" to it, which is read as meant.
    for suffix in ("", ":00+00:00"):
        typed = {START_PARAM: f"2026-01-01T07:00:00.000Z{suffix}", END_PARAM: f"2026-01-01T08:00:00.000Z{suffix}"}
        assert hops_env(context(run("manual", None, typed))) == {
            "HOPS_START_TIME": "2026-01-01T07:00:00Z",
            "HOPS_END_TIME": "2026-01-01T08:00:00Z",
            "HOPS_LOGICAL_DATE": "2026-01-01T07:00:00Z",
        }
    # Only that exact shape: one like it but without milliseconds is not the form's and gets the usual error.
    near = {START_PARAM: "2026-01-01T07:00:00Z:00+00:00", END_PARAM: "2026-01-01T08:00:00.000Z"}
    with pytest.raises(HopsWindowError, match=r'\["start_time"\]=.2026-01-01T07:00:00Z:00\+00:00.'):
        hops_env(context(run("manual", None, near)))
    # The coverage audit reads a form-triggered run's window the same way.
    record = RunRecord("manual__1", "manual", "success", INTERVAL[1], conf=form)
    item = run_window(record, None)
    assert item.source == "conf" and item.window is not None
    assert item.window.as_env()["HOPS_END_TIME"] == "2026-01-01T08:00:00Z"


@pytest.mark.parametrize(
    ("run_type", "interval", "conf", "explicit", "source"),
    [
        ("scheduled", INTERVAL, None, None, "scheduler"),
        ("backfill", INTERVAL, {}, None, "scheduler"),
        (
            "manual",
            INTERVAL,
            {"hops_window": {"start_time": "2026-01-01T00:00:00Z", "end_time": "2026-01-01T01:00:00Z"}},
            None,
            "conf",
        ),
        ("scheduled", INTERVAL, None, {"HOPS_END_TIME": "x"}, "scheduler and operator env"),
        ("manual", None, None, {"HOPS_END_TIME": "x"}, "operator env"),
        ("manual", None, None, None, None),
    ],
)
def test_window_source_names_the_precedence_rule_that_supplied_the_values(
    run_type: str, interval: Any, conf: Any, explicit: Any, source: str | None
) -> None:
    _, got = resolve_run_window(
        run_type=run_type, data_interval=interval, conf=conf, offset_seconds=None, explicit=explicit
    )
    assert got == source


def test_hops_env_logs_one_info_line_with_the_values_and_their_source(caplog: pytest.LogCaptureFixture) -> None:
    # The operator's own logger: structured from Airflow 3.1 (read through structlog's capture), the standard
    # library's logging in 3.0 (read through caplog).
    caplog.set_level(logging.INFO)
    with capture_logs() as logs:
        hops_env(context(run("scheduled", INTERVAL, None)))
        hops_env(context(run("manual", None, None)))
    entries = [(entry["log_level"], entry["event"]) for entry in logs]
    entries += [(record.levelname.lower(), record.getMessage()) for record in caplog.records]
    lines = [(level, event) for level, event in entries if "HOPS window" in event]
    assert lines == [
        (
            "info",
            "HOPS window from scheduler: HOPS_START_TIME=2026-01-01T09:00:00Z HOPS_END_TIME=2026-01-01T10:00:00Z "
            "HOPS_LOGICAL_DATE=2026-01-01T09:00:00Z",
        ),
        ("info", 'HOPS window: none (a run from outside without conf["hops_window"]); HOPS_* variables are not set'),
    ]


def test_the_form_fields_say_that_only_they_give_the_tasks_a_window() -> None:
    # Airflow's Trigger form also offers its own data interval fields, which never reach HOPS_*.
    for param in hops_window_params().values():
        assert "Only these two fields give the tasks a window" in param.description
        assert "Airflow's own data interval" in param.description
