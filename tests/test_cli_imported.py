"""cli/importer.py: the schedules of an export as DAGs to be, each with a dag_id of its own and its report."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

import pytest
from test_export_schedule import FULL, JAN_1_2026_MS

from hops_timetable.cli import importer as imported
from hops_timetable.cli.importer import MAX_DAG_ID, import_schedules

UTC = timezone.utc
HOURLY = "0 0 * ? * * *"


def test_every_field_carries_over_or_warns() -> None:
    [result] = import_schedules(FULL, "interval-start")
    assert result.errors == []
    assert result.dag_id == "feature_pipeline"
    assert result.kwargs == {
        "cron_expression": HOURLY,
        "start_time": datetime(2026, 1, 1, tzinfo=UTC),
        "end_time": datetime(2026, 1, 2, tzinfo=UTC),
        "skip_to_date": datetime(2026, 1, 1, 1, tzinfo=UTC),
        "catchup": True,
        "max_active_runs": 2,
        "start_time_offset_seconds": 3600,
        "max_catchup_runs": 24,
    }
    assert result.paused
    text = " | ".join(result.warnings)
    assert "disabled" in text and "endTimeOffsetSeconds=0 is ignored" in text
    assert "startTimeOffsetSeconds=-3600 read as --offset-model interval-start" in text
    assert "unknown key 'colour'" in text and "'id'" not in text
    assert "start_time=datetime(2026, 1, 1, tzinfo=timezone.utc)" in result.as_json()["call"]
    assert "is_paused_upon_creation=True" in (result.dag_file() or "")
    assert result.as_json()["kwargs"]["skip_to_date"] == "2026-01-01T01:00:00Z"


@pytest.mark.parametrize(
    ("change", "needle"),
    [
        ({"cronExpression": "0 0 12 * * MON"}, "cronExpression is rejected by this engine"),
        ({"cronExpression": None}, "cronExpression=None is invalid"),
        ({"startDateTime": "2026-01-01"}, "startDateTime='2026-01-01' is invalid: expected epoch milliseconds"),
        ({"maxCatchupRuns": 0}, "maxCatchupRuns=0 is invalid"),
        ({"endDateTime": JAN_1_2026_MS}, "is not after startDateTime"),
        ({"catchup": "yes"}, "catchup='yes' is invalid"),
    ],
)
def test_bad_fields_are_errors_naming_the_field(change: dict[str, Any], needle: str) -> None:
    [result] = import_schedules({**FULL, **change}, "interval-start")
    assert any(needle in e for e in result.errors), result.errors
    assert result.dag_file() is None and result.text() == []
    report = result.as_json()
    assert report["call"] is None and report["dag_file"] is None and report["errors"] == result.errors


def test_lists_collections_and_job_objects() -> None:
    data = {"items": [{"cronExpression": HOURLY}, {"name": "train", "jobSchedule": {"cronExpression": "@daily"}}]}
    first, second = import_schedules(data)
    assert (first.dag_id, second.dag_id, second.job_name) == ("hopsworks_schedule_1", "train", "train")
    assert [r.index for r in import_schedules([[{"cronExpression": HOURLY}], data])] == [1, 2, 3]
    with pytest.raises(ValueError, match="holds no schedule"):
        import_schedules([])


@pytest.mark.parametrize(
    ("name", "dag_id"),
    [
        ("feature pipeline", "feature_pipeline"),
        (".hidden", "hidden"),
        ("...", "hopsworks_schedule_1"),
        ("", "hopsworks_schedule_1"),
        ("x" * 300, "x" * (MAX_DAG_ID - 12) + "_1"),
    ],
)
def test_a_dag_id_is_the_job_name_in_airflows_alphabet(name: str, dag_id: str) -> None:
    [result] = import_schedules({"jobName": name, "cronExpression": HOURLY})
    assert result.dag_id == dag_id


def test_repeated_job_names_cost_a_bounded_number_of_candidates(monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 30: 8,000 schedules of one job took 10.9 s, trying _2 .. _n again for each. Counted, not timed."""
    tried = 0
    real = imported._suffixed

    def counting(key: str, n: int) -> str:
        nonlocal tried
        tried += 1
        return real(key, n)

    monkeypatch.setattr(imported, "_suffixed", counting)
    n = 2_000
    schedules = [{"jobName": "job", "cronExpression": HOURLY} for _ in range(n)]
    schedules += [{"jobName": f"job_{k}", "cronExpression": HOURLY} for k in (3, 5)]
    results = import_schedules(schedules)
    ids = [r.dag_id for r in results]
    assert len(set(ids)) == len(ids) and ids[:4] == ["job", "job_2", "job_4", "job_6"]
    assert tried <= 2 * n  # the quadratic version tried about n * n / 2 = 2,000,000
