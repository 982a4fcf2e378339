"""``hops_timetable.testing``: the helpers a migration's test suite calls, on the REST-shaped fixtures."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from datetime import datetime
from pathlib import Path

import pytest
from support import UTC

from hops_timetable.testing import (
    assert_dag_matches_schedule,
    assert_same_windows,
    compare_windows,
    hopsworks_windows,
    schedule_windows,
)

DATA = Path(__file__).parent / "data" / "parity"
BETWEEN = (datetime(2026, 3, 1, tzinfo=UTC), datetime(2026, 3, 1, 18, tzinfo=UTC))


def test_importing_it_never_imports_airflow() -> None:
    code = "import sys, hops_timetable.testing; print(sorted(m for m in sys.modules if m.split('.')[0] == 'airflow'))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_hopsworks_history_matches_its_schedule_replayed() -> None:
    scenario = DATA / "catchup_burst"
    hopsworks = hopsworks_windows(scenario / "schedule.json", scenario / "executions-next.json", between=BETWEEN)
    assert hopsworks.meaning == "next" and len(hopsworks.runs) == 7
    first = hopsworks.runs[0] if hopsworks.runs[0].fire == datetime(2026, 3, 1, 11, tzinfo=UTC) else None
    assert first is not None and first.window is not None
    assert first.window.start == datetime(2026, 3, 1, 10, 17, 16, 123000, tzinfo=UTC)
    report = assert_same_windows(hopsworks, schedule_windows(scenario / "schedule.json", between=BETWEEN))
    assert report.summary["match"] == 7


def test_a_difference_fails_listing_each_fire() -> None:
    scenario = DATA / "reruns"
    hopsworks = hopsworks_windows(scenario / "schedule.json", scenario / "executions-fire.json", between=BETWEEN)
    airflow = schedule_windows(scenario / "schedule.json", between=BETWEEN)
    with pytest.raises(AssertionError) as caught:
        assert_same_windows(hopsworks, airflow)
    lines = str(caught.value).splitlines()
    assert lines[0].startswith("differences: 3 of 7 fire(s) differ")
    assert [line.split()[:2] for line in lines[1:]] == [
        ["2026-03-01T14:00:00Z", "failed_in_hopsworks:"],
        ["2026-03-01T16:00:00Z", "missing_in_hopsworks:"],
        ["2026-03-01T17:00:00Z", "missing_in_hopsworks:"],
    ]
    accepted = {(datetime(2026, 3, 1, 14, tzinfo=UTC), "failed_in_hopsworks"): "re-run by hand, signed off"}
    short = (BETWEEN[0], datetime(2026, 3, 1, 16, tzinfo=UTC))
    hopsworks = hopsworks_windows(scenario / "schedule.json", scenario / "executions-fire.json", between=short)
    airflow = schedule_windows(scenario / "schedule.json", between=short)
    assert compare_windows(hopsworks, airflow, accepted=accepted).exit_status == 0


def test_an_undecidable_meaning_is_refused() -> None:
    scenario = DATA / "in_flight"
    listing = {"items": [], "count": 0}
    with pytest.raises(AssertionError, match="cannot be read"):
        hopsworks_windows(scenario / "schedule.json", listing, between=BETWEEN)
    # Stated, the meaning is used as ``parity --start-time-meaning`` uses it.
    assert hopsworks_windows(scenario / "schedule.json", listing, between=BETWEEN, meaning="fire").meaning == "fire"


def test_a_dag_file_against_the_schedule(tmp_path: Path) -> None:
    dag = tmp_path / "features.py"
    template = textwrap.dedent(
        """
        from datetime import datetime, timezone

        from airflow.sdk import dag

        from hops_timetable import hops_schedule


        @dag(dag_id="features", **hops_schedule(
            cron_expression="0 0 * ? * * *",
            start_time=datetime(2026, 3, 1, 10, 17, 16, 123000, tzinfo=timezone.utc),
            start_time_offset_seconds=OFFSET,
        ))
        def features():
            pass


        features()
        """
    )
    schedule = DATA / "clamped_first_window" / "schedule.json"
    dag.write_text(template.replace("OFFSET", "None"))
    assert assert_dag_matches_schedule(dag, "features", schedule, between=BETWEEN).summary["match"] == 7
    dag.write_text(template.replace("OFFSET", "3600"))
    with pytest.raises(AssertionError) as caught:
        assert_dag_matches_schedule(dag, "features", schedule, between=BETWEEN)
    lines = str(caught.value).splitlines()
    assert len(lines) == 8 and all("differs" in line and "shifted by -3600 s" in line for line in lines[1:])


def test_a_ledger_file_is_read_as_parity_reads_it(tmp_path: Path) -> None:
    schedule = DATA / "max_catchup_drops" / "schedule.json"
    ledger = tmp_path / "windows.txt"  # told from a listing by its first character, as parity tells them, not its name
    ledger.write_bytes((DATA.parent / "ledger" / "daily_features.csv").read_bytes())
    hopsworks = hopsworks_windows(schedule, ledger, between=BETWEEN)
    assert [r.run_id for r in hopsworks.runs] == [f"ledger run-000{i}" for i in range(1, 7)]
    # The 14:00 window is missing: the outage its gap implies is replayed on both sides, as parity does.
    report = assert_same_windows(hopsworks, schedule_windows(schedule, between=BETWEEN))
    assert report.summary["match"] == 7
