"""The REST-shaped fixtures of tests/data/parity, each scenario in the three meanings of ``-start_time``, against
the results written by hand in each scenario's expected.json."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import datetime
from pathlib import Path

import parity_fixtures
import pytest

from hops_timetable.core.parity.exports import Execution, ScheduleVersion, load_executions, load_schedule_versions
from hops_timetable.core.parity.sides import parity
from hops_timetable.core.time_text import parse_time

ROOT = Path(__file__).parent / "data" / "parity"
SCENARIOS = sorted(p.name for p in ROOT.iterdir() if p.is_dir())
MEANINGS = ("next", "fire", "logical")


def _time(text: str) -> datetime:
    return parse_time("time", text)


def test_the_committed_fixtures_are_what_the_generator_writes() -> None:
    rendered = parity_fixtures.render()
    committed = {
        str(p.relative_to(ROOT)): p.read_text(encoding="utf-8")
        for p in ROOT.rglob("*")
        if p.is_file() and p.name != "expected.json" and p.suffix == ".json"
    }
    assert committed == rendered


def test_every_edge_case_of_the_issue_has_a_scenario() -> None:
    assert set(SCENARIOS) >= {
        "clamped_first_window",
        "catchup_burst",
        "max_catchup_drops",
        "reruns",
        "manual_runs",
        "manual_with_window",
        "schedule_edit",
        "in_flight",
        "clock_skew",
        "one_outlier",
        "missing_page",
    }


def test_the_fixtures_have_the_rest_shapes() -> None:
    page = json.loads((ROOT / "reruns" / "executions-fire.json").read_text())
    assert set(page) == {"href", "items", "count"}
    item = page["items"][0]
    assert item["submissionTime"].endswith("Z") and len(item["submissionTime"]) == len("2026-03-01T11:00:21.412Z")
    assert all(value is not None for value in item.values())
    first = next(i for i in page["items"] if i["args"].endswith("11:00:00Z"))
    assert first["args"] == "--table features -start_time 2026-03-01T11:00:00Z"
    logical = json.loads((ROOT / "clamped_first_window" / "executions-logical.json").read_text())
    assert any(i["args"].endswith("-start_time 2026-03-01T10:17:16.123Z") for i in logical["items"])
    schedule = json.loads((ROOT / "clamped_first_window" / "schedule.json").read_text())
    assert schedule["startDateTime"] == 1772360236123  # 2026-03-01T10:17:16.123Z in epoch milliseconds


@pytest.mark.parametrize("meaning", MEANINGS)
@pytest.mark.parametrize("scenario", SCENARIOS)
def test_each_scenario_in_each_meaning_gives_the_expected_rows(scenario: str, meaning: str) -> None:
    expected = json.loads((ROOT / scenario / "expected.json").read_text())
    versions = load_schedule_versions(json.loads((ROOT / scenario / "schedule.json").read_text()), "schedule")
    export = load_executions(json.loads((ROOT / scenario / f"executions-{meaning}.json").read_text()), "executions")
    note = "a page is missing" if export.incomplete else None
    outcome = parity(
        versions, _time(expected["from"]), _time(expected["to"]), executions=export.executions, incomplete_note=note
    )
    assert outcome.reading is not None and outcome.reading.meaning == meaning
    assert outcome.reading.skew.total_seconds() == expected.get("clock_skew_seconds", 0)
    assert [o.execution for o in outcome.reading.outliers] == expected.get("outliers", [])
    report = outcome.report
    assert report is not None
    got = {row.fire.strftime("%Y-%m-%dT%H:%M:%SZ"): row for row in report.rows}
    assert {fire: row.status for fire, row in got.items()} == expected["rows"]
    for fire, reason in expected["explained_by"].items():
        assert got[fire].explained_by == reason
    assert len(report.manual) == expected["manual"]
    assert report.exit_status == expected["exit"]
    for key in ("first_window", "first_window_after_edit"):
        if key in expected:
            start, end = (datetime.fromisoformat(t) for t in expected[key])
            row = next(r for r in report.rows if r.fire == end)
            assert row.hopsworks is not None and (row.hopsworks.start, row.hopsworks.end) == (start, end)
            assert row.airflow is not None and (row.airflow.start, row.airflow.end) == (start, end)


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_read_with_another_meaning_every_window_differs_by_one_interval(scenario: str) -> None:
    """A mutation: the fire-meaning export read as the next fire shifts every compared fire by one interval."""
    expected = json.loads((ROOT / scenario / "expected.json").read_text())
    versions = load_schedule_versions(json.loads((ROOT / scenario / "schedule.json").read_text()), "schedule")
    export = load_executions(json.loads((ROOT / scenario / "executions-fire.json").read_text()), "executions")
    start, end = _time(expected["from"]), _time(expected["to"])
    outcome = parity(versions, start, end, executions=export.executions, meaning="logical")
    assert outcome.reading is not None and outcome.reading.given
    report = outcome.report
    assert report is not None and report.exit_status == 3
    # Read as logical dates, each argument names the fire after the one that ran: the first fire looks missing.
    assert report.rows[0].status == "missing_in_hopsworks"


def _load(scenario: str, meaning: str) -> tuple[list[ScheduleVersion], list[Execution], datetime, datetime]:
    expected = json.loads((ROOT / scenario / "expected.json").read_text())
    versions = load_schedule_versions(json.loads((ROOT / scenario / "schedule.json").read_text()), "schedule")
    export = load_executions(json.loads((ROOT / scenario / f"executions-{meaning}.json").read_text()), "executions")
    return versions, export.executions, _time(expected["from"]), _time(expected["to"])


def test_an_unclamped_first_window_differs_at_its_start() -> None:
    """A mutation: the first execution's logical date is the previous fire (10:00), not the start (10:17:16)."""
    versions, executions, start, end = _load("clamped_first_window", "logical")
    first = min(executions, key=lambda e: e.id)
    mutated = [replace(first, start_time=_time("2026-03-01T10:00:00Z")), *executions[1:]]
    report = parity(versions, start, end, executions=mutated).report
    assert report is not None and report.exit_status == 3
    row = report.rows[0]
    assert (row.fire, row.status) == (_time("2026-03-01T11:00:00Z"), "differs")
    assert row.how == "start +1036 s, width -1036 s, logical date +1036 s"
    assert row.hint == "first window clamped, or a schedule edit?"
    assert all(r.status == "match" for r in report.rows[1:])


def test_another_catch_up_bound_on_the_airflow_side_drops_a_fire_hopsworks_ran() -> None:
    """A mutation: Airflow's DAG keeps one missed fire after the outage where Hopsworks kept two."""
    versions, executions, start, end = _load("max_catchup_drops", "fire")
    bounded = [ScheduleVersion(v.effective_from, replace(v.settings, max_catchup_runs=1)) for v in versions]
    report = parity(versions, start, end, executions=executions, airflow_versions=bounded).report
    assert report is not None and report.exit_status == 3
    statuses = {r.fire.hour: (r.status, r.explained_by) for r in report.rows}
    assert statuses[15] == ("missing_in_airflow", "max_catchup_runs")
    assert statuses[14] == ("match", "max_catchup_runs")
    assert statuses[16] == ("match", None)
