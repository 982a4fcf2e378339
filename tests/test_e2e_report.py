"""scripts/e2e_report.py: the run lists of docs/testing.md are what it makes of the end-to-end suite's report files.

The report files under tests/data/e2e_report/ were written by the end-to-end suite (``E2E_REPORT_DIR``) on a real
scheduler. The lists of Airflow's built-in timetables are computed here again, on whichever Airflow minor runs the
tests, by asking Airflow's own ``CronDataIntervalTimetable`` and ``CronTriggerTimetable``; so the documented
comparison holds on every minor the package supports, and a change in how a minor's built-ins schedule fails here.
"""

from __future__ import annotations

import importlib.util
import json
import math
import re
import shutil
from datetime import datetime, timedelta, timezone
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]
RECORDED = Path(__file__).parent / "data" / "e2e_report"
SECTIONS = ("first_interval", "outage", "bounded_catchup")


@pytest.fixture(scope="module")
def e2e_report() -> ModuleType:
    spec = importlib.util.spec_from_file_location("e2e_report", ROOT / "scripts" / "e2e_report.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def documented_lists() -> str:
    """The generated part of docs/testing.md: from the first list's heading up to the prose that reads them."""
    text = (ROOT / "docs" / "testing.md").read_text()
    start = text.index("### First interval:")
    return text[start : text.index("### What the lists show", start)]


def test_the_documented_lists_are_the_scripts_output_for_the_recorded_run(e2e_report: ModuleType) -> None:
    assert e2e_report.render(RECORDED) == documented_lists()


def tables(lines: list[str]) -> list[list[tuple[str, str, str]]]:
    """Each Markdown table of a section as (fire, interval start, interval end) rows."""
    found: list[list[tuple[str, str, str]]] = []
    for line in lines:
        if line.startswith("| run_after"):
            found.append([])
        elif match := re.fullmatch(r"\| (\S+) \| \[(\S+), (\S+)\) \|", line):
            found[-1].append((match[1], match[2], match[3]))
    return found


def test_the_built_ins_lists_follow_from_airflows_documented_rules(e2e_report: ModuleType) -> None:
    # Independent of the documented text. First interval, catchup=False: our first window starts at start_date;
    # CronDataIntervalTimetable's first is the first whole interval after start_date, so it fires one period
    # later; CronTriggerTimetable fires when we do, with an empty window.
    data = json.loads((RECORDED / "first_interval.json").read_text())
    ours, data_interval, trigger = tables(list(e2e_report.first_interval(data)))
    (fire, ours_start, _), (second, _, _) = ours
    assert ours_start == e2e_report.fmt(e2e_report.parse(data["start_date"]))
    assert data_interval[0] == (second, fire, second)
    assert trigger[0] == (fire, fire, fire)
    # Bounded replay: CronTriggerTimetable runs every fire of the 5 s cron from start_date up to the newest fire
    # ours replayed; CronDataIntervalTimetable's first interval must start at a fire, so it has one run fewer.
    data = json.loads((RECORDED / "bounded_catchup.json").read_text())
    start = e2e_report.parse(data["start_date"])
    newest = e2e_report.parse(data["runs"][data["max_catchup_runs"] - 1]["fire"])
    first_fire = datetime.fromtimestamp(math.ceil(start.timestamp() / 5) * 5, tz=timezone.utc)
    due = (newest - first_fire) // timedelta(seconds=5) + 1
    text = "\n".join(e2e_report.bounded_catchup(data))
    assert f"CronTriggerTimetable: {due} runs replayed" in text
    assert f"CronDataIntervalTimetable: {due - 1} runs replayed" in text


def test_a_missing_report_file_is_named_with_how_to_make_it(
    e2e_report: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in SECTIONS[:2]:
        shutil.copyfile(RECORDED / f"{name}.json", tmp_path / f"{name}.json")
    assert e2e_report.main([str(tmp_path)]) == 1
    error = capsys.readouterr().err
    assert str(tmp_path / "bounded_catchup.json") in error and f"E2E_REPORT_DIR={tmp_path}" in error
    assert e2e_report.main([]) == 2


def test_only_every_n_seconds_crons_are_translated(e2e_report: ModuleType) -> None:
    assert e2e_report.airflow_cron("0/5 * * * * ?") == "* * * * * */5"
    with pytest.raises(ValueError, match=r"cron='0 0/5 \* \* \* \?'"):
        e2e_report.airflow_cron("0 0/5 * * * ?")
