"""The tab's "Run with time window" form: the window validated as conf["hops_window"] is, the body of the REST call
the browser then sends to Airflow itself (a data interval, never a scheduled run's logical date), and the list of
the runs made with a window, a page at a time."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from hypothesis import given
from hypothesis import strategies as st

from hops_timetable.core.conf_window import CONF_KEY, HopsWindowError, parse_conf_window
from hops_timetable.core.coverage import RunRecord, run_window
from hops_timetable.ui import window_form
from hops_timetable.ui.window_form import FormRefused, logical_date_for, trigger_body, window_conf, window_runs

UTC = timezone.utc


def body(value: object) -> bytes:
    return json.dumps(value).encode()


def refused(raw: bytes) -> FormRefused:
    with pytest.raises(FormRefused) as caught:
        window_conf(raw)
    return caught.value


# -- the window: the conf window's own validator, and the conf the run carries --------------------------------------


def test_a_valid_window_becomes_the_conf_the_tasks_read_in_their_own_form() -> None:
    conf = window_conf(body({"start_time": "2026-01-01T14:30:00.900+05:30", "end_time": "2026-01-01T10:00:00"}))
    assert conf == {CONF_KEY: {"start_time": "2026-01-01T09:00:00Z", "end_time": "2026-01-01T10:00:00Z"}}
    # The tasks read the stored conf with the same validator and get exactly these values.
    window = parse_conf_window(conf)
    assert window is not None
    assert window.as_env() == {
        "HOPS_START_TIME": "2026-01-01T09:00:00Z",
        "HOPS_END_TIME": "2026-01-01T10:00:00Z",
        "HOPS_LOGICAL_DATE": "2026-01-01T09:00:00Z",
    }
    with_logical = window_conf(
        body(
            {
                "start_time": "2026-01-01T09:00:00Z",
                "end_time": "2026-01-02T09:00:00Z",
                "logical_date": "2026-01-02T00:00:00Z",
            }
        )
    )
    assert with_logical[CONF_KEY]["logical_date"] == "2026-01-02T00:00:00Z"


@pytest.mark.parametrize(
    ("posted", "field"),
    [
        ({"start_time": "2026-01-01 09:00", "end_time": "2026-01-01T10:00:00Z"}, "start_time"),
        ({"start_time": "2026-01-01T09:00:00Z"}, "end_time"),
        ({"start_time": "2026-01-01T10:00:00Z", "end_time": "2026-01-01T09:00:00Z"}, "end_time"),
        ({"start_time": "2026-01-01T09:00:00Z", "end_time": "2026-01-01T10:00:00Z", "tz": "UTC"}, "tz"),
        ({"start_time": "2026-02-30T09:00:00Z", "end_time": "2026-03-01T10:00:00Z"}, "start_time"),
        ({"start_time": 1767258000, "end_time": "2026-01-01T10:00:00Z"}, "start_time"),
    ],
)
def test_each_refusal_names_the_field_its_value_and_what_would_be_valid(posted: dict[str, Any], field: str) -> None:
    error = refused(body(posted))
    assert error.status == 422
    (mine,) = [e for e in error.errors if e["field"] == field]
    # The validator's own words for the problem (what would be valid), after the field and the value as posted.
    with pytest.raises(HopsWindowError) as oracle:
        parse_conf_window({CONF_KEY: posted})
    (problem,) = [p for k, _, p in oracle.value.problems if field in k]
    assert mine["problem"] == problem and mine["message"].endswith(problem)
    assert any(word in problem for word in ("expected", "valid", "required", "after", "YYYY-MM-DD")), problem
    assert mine["message"].startswith(field)
    if field in posted:
        assert mine["message"].startswith(f"{field}={posted[field]!r} ")
    assert mine["message"] in error.message


def test_a_body_that_is_no_window_object_is_refused_saying_what_is_expected() -> None:
    assert "not a JSON window" in refused(b"start_time=2026-01-01").message
    assert "expected an object" in refused(body(["2026-01-01T09:00:00Z"])).message
    assert "larger than" in refused(body({"start_time": "x" * 5000})).message


texts = st.one_of(
    st.text(max_size=30),
    st.datetimes(min_value=datetime(999, 1, 1), max_value=datetime(9999, 1, 1)).map(datetime.isoformat),
    st.sampled_from(["2026-01-01T09:00:00Z", "2026-01-01T10:00:00+01:00", "2026-01-01T09:00:00.5"]),
)


@given(st.dictionaries(st.sampled_from(["start_time", "end_time", "logical_date", "x"]), texts, max_size=4))
def test_the_form_accepts_exactly_the_windows_the_tasks_accept(posted: dict[str, str]) -> None:
    try:
        expected = parse_conf_window({CONF_KEY: posted})
    except HopsWindowError as exc:
        with pytest.raises(FormRefused) as caught:
            window_conf(body(posted))
        assert [(e["field"], e["value"]) for e in caught.value.errors] == [
            (k.strip("[]\"'"), v) for k, v, _ in exc.problems
        ]
        return
    assert expected is not None
    assert parse_conf_window(window_conf(body(posted))) == expected


# -- the post: only the form's own page may make it --------------------------------------------------------------


OWN = ["http://airflow.example:8080", "https://airflow.example.com/airflow/"]


def test_the_rest_body_gives_the_run_the_window_as_its_data_interval_and_the_moment_as_its_logical_date() -> None:
    conf = window_conf(body({"start_time": "2026-01-01T14:30:00+05:30", "end_time": "2026-01-01T10:30:00"}))
    now = datetime(2026, 3, 1, 12, 0, 0, 123456, tzinfo=UTC)
    made = trigger_body(conf, "manual__hops_window_x", now)
    assert made == {
        "dag_run_id": "manual__hops_window_x",
        # Airflow gives a run without a logical date no data interval; the window's start could be a scheduled
        # run's logical date (unique per DAG), so the run takes the moment it was asked for.
        "logical_date": "2026-03-01T12:00:00.123456+00:00",
        "data_interval_start": "2026-01-01T09:00:00Z",
        "data_interval_end": "2026-01-01T10:30:00Z",
        "conf": {CONF_KEY: {"start_time": "2026-01-01T09:00:00Z", "end_time": "2026-01-01T10:30:00Z"}},
        "note": "Run with time window [2026-01-01T09:00:00Z, 2026-01-01T10:30:00Z) from the Hopsworks tab",
    }
    assert window_form.new_run_id() != window_form.new_run_id()


def test_the_logical_date_is_the_moment_asked_or_just_inside_the_dags_range_never_a_whole_second() -> None:
    # Airflow creates a run's tasks only where its logical date lies within the tasks' (the DAG's) start and end.
    now = datetime(2026, 3, 1, 12, 0, 0, 123456, tzinfo=UTC)
    start, end = datetime(2026, 1, 1, tzinfo=UTC), datetime(2026, 6, 1, tzinfo=UTC)
    assert logical_date_for(now, start, end, 7) == now
    assert logical_date_for(now, None, None, 7) == now
    # A DAG that starts later: no date before its start gets tasks, none after it starts (it is in the future).
    later = datetime(2026, 4, 1, tzinfo=UTC)
    assert logical_date_for(now, later, None, 7) is None
    ended = datetime(2026, 2, 1, tzinfo=UTC)
    assert logical_date_for(now, start, ended, 7) == ended - timedelta(microseconds=7)
    for fraction in (1, 999_999):
        moved = logical_date_for(now, start, ended, fraction)
        assert moved is not None and moved.microsecond != 0  # scheduled runs' dates are fires: whole seconds
    unstarted = trigger_body(window_conf(body(WINDOW)), "r", None)
    assert unstarted["logical_date"] is None and "data_interval_start" not in unstarted
    assert window_form.new_run_id().startswith(window_form.RUN_ID_PREFIX)


def test_the_window_runs_are_listed_newest_first_a_page_at_a_time_without_runs_of_other_windows() -> None:
    start = datetime(2026, 1, 1, tzinfo=UTC)
    window = {CONF_KEY: {"start_time": "2026-01-01T09:00:00Z", "end_time": "2026-01-01T10:00:00Z"}}
    runs = [
        run_window(RunRecord(f"w{i}", "manual", "success", start + timedelta(hours=i), conf=window), None)
        for i in range(12)
    ]
    runs.append(run_window(RunRecord("plain", "manual", "success", start + timedelta(days=1)), None))
    runs.append(run_window(RunRecord("bad", "manual", "failed", start, conf={CONF_KEY: {"start_time": "x"}}), None))
    first = window_runs(runs, 0, 10)
    assert first["total"] == 13 and first["offset"] == 0
    assert [r["run_id"] for r in first["runs"]] == [f"w{i}" for i in range(11, 1, -1)]
    assert first["runs"][0]["HOPS_START_TIME"] == "2026-01-01T09:00:00Z"
    assert first["runs"][0]["run_after"] == "2026-01-01T11:00:00Z"
    rest = window_runs(runs, 10, 10)["runs"]
    assert [r["run_id"] for r in rest] == ["w1", "w0", "bad"]  # equal times keep their order
    bad = next(r for r in rest if r["run_id"] == "bad")
    assert bad["error"] and "HOPS_START_TIME" not in bad


# -- the endpoint, in process -------------------------------------------------------------------------------------


@pytest.fixture
def app_module() -> Iterator[Any]:
    from hops_timetable.ui import app

    yield app
    app.app.dependency_overrides.clear()


WINDOW = {"start_time": "2026-01-01T09:00:00Z", "end_time": "2026-01-01T10:00:00Z"}


def client(app_module: Any) -> TestClient:
    parent = FastAPI()
    parent.mount("/hops", app_module.app)
    return TestClient(parent, base_url="http://airflow.example:8080")


def test_the_endpoint_answers_the_rest_body_or_names_the_bad_fields_and_makes_no_run(
    app_module: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from hops_timetable.core.cron import QuartzCron
    from hops_timetable.core.schedule import Schedule

    async def fake_user() -> object:
        return object()

    def no_session() -> Iterator[None]:
        yield None

    # The DAG as the metadata database would give it: one whose schedule ended a year ago.
    ended = datetime.now(UTC).replace(microsecond=0) - timedelta(days=365)
    schedule = Schedule(QuartzCron("0 0 0 * * ?"), start=ended - timedelta(days=30), end=ended)
    monkeypatch.setattr(app_module._compat, "require_dag_read", lambda *args, **kwargs: None)
    monkeypatch.setattr(app_module, "_load", lambda session, dag_id: (schedule, False))
    app_module.app.dependency_overrides[app_module._user] = fake_user
    app_module.app.dependency_overrides[app_module._compat.metadata_session] = no_session
    hops = client(app_module)
    answer = hops.post("/hops/api/dags/etl/window-run", json=WINDOW)
    assert answer.status_code == 200, answer.text
    made = answer.json()
    assert made["conf"] == {CONF_KEY: WINDOW} and made["dag_run_id"].startswith(window_form.RUN_ID_PREFIX)
    assert (made["data_interval_start"], made["data_interval_end"]) == (WINDOW["start_time"], WINDOW["end_time"])
    moved = datetime.fromisoformat(made["logical_date"])
    assert ended - timedelta(seconds=1) < moved < ended
    bad = hops.post("/hops/api/dags/etl/window-run", json={"start_time": "soon"})
    assert bad.status_code == 422
    assert {e["field"] for e in bad.json()["errors"]} == {"start_time", "end_time"}
    huge = hops.post("/hops/api/dags/etl/window-run", content=b"{" * 10_000)
    assert huge.status_code == 413


def test_the_endpoint_answers_401_without_a_credential_before_reading_the_post(app_module: Any) -> None:
    answer = client(app_module).post("/hops/api/dags/etl/window-run", json=WINDOW)
    assert answer.status_code == 401
