"""``audit --repair``'s plan, before Airflow's backfill dry run checks it: which writes fill which gaps."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from hops_timetable.cli.audit import plan_repair
from hops_timetable.core.catchup import CatchupPolicy
from hops_timetable.core.coverage import RunRecord, coverage
from hops_timetable.core.cron import QuartzCron

UTC = timezone.utc
START = datetime(2026, 1, 1, tzinfo=UTC)
HOURLY = QuartzCron("0 0 * ? * * *")


def at(hour: int) -> datetime:
    return START + timedelta(hours=hour)


def run(hour: int, state: str = "success", run_type: str = "scheduled") -> RunRecord:
    return RunRecord(f"{run_type}__{hour}", run_type, state, at(hour), at(hour - 1), at(hour - 1), at(hour), at(hour))


def test_consecutive_missing_fires_are_one_backfill_failed_runs_are_reprocessed_taken_dates_get_a_conf_run() -> None:
    # 02:00 and 03:00 missing (one stretch), 04:00 failed, 05:00 missing but its logical date 04:00 is taken by a
    # manual run that has a logical date and no window, 06:00 ran.
    manual = RunRecord("manual__x", "manual", "success", at(4), logical_date=at(4))
    runs = [run(1), run(4, "failed"), run(6), manual]
    cov = coverage(CatchupPolicy(HOURLY, start=START), True, None, runs, at(6))
    steps = plan_repair(cov, runs)
    assert [(s.kind, s.reprocess, [f.fire for f in s.fires]) for s in steps] == [
        ("backfill", "none", [at(2), at(3)]),
        ("backfill", "failed", [at(4)]),
        ("manual", "none", [at(5)]),
    ]
    assert steps[0].as_json()["logical_dates"] == ["2026-01-01T01:00:00Z", "2026-01-01T02:00:00Z"]
    assert steps[2].describe().startswith("manual run with conf window [2026-01-01T04:00:00Z, 2026-01-01T05:00:00Z)")


def test_nothing_to_repair_when_every_window_is_processed_or_in_flight() -> None:
    runs = [run(1), run(2, "running"), run(3, "queued")]
    cov = coverage(CatchupPolicy(HOURLY, start=START), True, None, runs, at(3))
    assert cov.complete and plan_repair(cov, runs) == []


def test_windows_the_bound_dropped_are_filled_only_when_asked_and_skip_to_date_ones_never() -> None:
    # max_catchup_runs=1, skip_to_date 02:00: 01:00 is before skip_to_date; Airflow came back at 05:10 and made
    # only 05:00, so the bound dropped 02:00 .. 04:00.
    policy = CatchupPolicy(HOURLY, start=START, skip_to=at(2), max_catchup_runs=1)
    back = RunRecord("scheduled__5", "scheduled", "success", at(5), at(4), at(4), at(5), at(5) + timedelta(minutes=10))
    cov = coverage(policy, True, None, [back], at(5))
    assert cov.ok and plan_repair(cov, [back]) == []
    steps = plan_repair(cov, [back], include_dropped=True)
    assert [(s.kind, s.reprocess, [f.fire for f in s.fires]) for s in steps] == [
        ("backfill", "none", [at(2), at(3), at(4)])
    ]
