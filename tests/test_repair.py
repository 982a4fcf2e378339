"""The repair planner of the core (``audit --repair``'s plan, before Airflow's backfill dry run checks it): which writes
fill which gaps."""

from __future__ import annotations

import random
from datetime import timedelta

import pytest
from runs_by_hand import HOURLY, START, at, scheduled

from hops_timetable.core.catchup import CatchupPolicy
from hops_timetable.core.coverage import RunRecord, coverage, history
from hops_timetable.core.repair import RepairKind, plan_repair, repair_view, runs_in, to_repair


def test_consecutive_missing_fires_are_one_backfill_failed_runs_are_reprocessed_taken_dates_get_a_conf_run() -> None:
    # 02:00 and 03:00 missing (one stretch), 04:00 failed, 05:00 missing but its logical date 04:00 is taken by a
    # manual run that has a logical date and no window, 06:00 ran.
    manual = RunRecord("manual__x", "manual", "success", at(4), logical_date=at(4))
    runs = [scheduled(1), scheduled(4, "failed"), scheduled(6), manual]
    cov = coverage(CatchupPolicy(HOURLY, start=START), True, None, runs, at(6))
    steps = plan_repair(cov, runs)
    assert [(s.kind, s.reprocess, [f.fire for f in s.fires]) for s in steps] == [
        (RepairKind.BACKFILL, "none", [at(2), at(3)]),
        (RepairKind.BACKFILL, "failed", [at(4)]),
        (RepairKind.MANUAL, "none", [at(5)]),
    ]
    assert steps[0].as_json()["logical_dates"] == ["2026-01-01T01:00:00Z", "2026-01-01T02:00:00Z"]
    assert steps[2].describe().startswith("manual run with conf window [2026-01-01T04:00:00Z, 2026-01-01T05:00:00Z)")


def test_nothing_to_repair_when_every_window_is_processed_or_in_flight() -> None:
    runs = [scheduled(1), scheduled(2, "running"), scheduled(3, "queued")]
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
        (RepairKind.BACKFILL, "none", [at(2), at(3), at(4)])
    ]


def test_a_run_a_backfill_would_not_rerun_gets_a_manual_run_and_the_json_names_the_kinds() -> None:
    # 02:00's run was skipped upstream: its logical date is its own, and a backfill reprocesses failed runs only.
    runs = [scheduled(1), scheduled(2, "upstream_failed"), scheduled(3)]
    cov = coverage(CatchupPolicy(HOURLY, start=START), True, None, runs, at(3))
    (step,) = plan_repair(cov, runs)
    assert step.kind is RepairKind.MANUAL and [f.fire for f in step.fires] == [at(2)]
    assert step.as_json()["kind"] == "manual" and step.as_json()["reprocess_behavior"] is None
    assert step.as_json()["windows"] == [
        {
            "HOPS_START_TIME": "2026-01-01T01:00:00Z",
            "HOPS_END_TIME": "2026-01-01T02:00:00Z",
            "HOPS_LOGICAL_DATE": "2026-01-01T01:00:00Z",
        }
    ]


def test_a_fire_just_due_is_left_to_the_scheduler() -> None:
    # 03:00 fired 30 s ago and has no run yet: the scheduler is about to make it, a repair would make it twice.
    runs = [scheduled(1), scheduled(2)]
    cov = coverage(CatchupPolicy(HOURLY, start=START), True, None, runs, at(3) + timedelta(seconds=30))
    assert [f.fire for f in cov.fires if not f.covered] == [at(3)] and plan_repair(cov, runs) == []


@pytest.mark.parametrize("include_dropped", [False, True])
@pytest.mark.parametrize("seed", range(8))
def test_the_plan_read_from_the_history_stretches_is_the_plan_read_fire_by_fire(
    seed: int, include_dropped: bool
) -> None:
    # audit plans from the history's stretches (its cost set by the runs); the fire-by-fire coverage is the reference.
    rng = random.Random(seed)
    hours = 24 * 20
    policy = CatchupPolicy(
        HOURLY, start=START, skip_to=at(rng.randrange(0, 30)), max_catchup_runs=rng.choice([None, 3])
    )
    runs, hour = [], 1
    while hour <= hours:
        if rng.random() < 0.1:
            hour += rng.randrange(2, 30)  # an outage: no run for a while
            continue
        state = rng.choice(["success"] * 6 + ["failed", "running", "upstream_failed"])
        runs.append(scheduled(hour, state))
        hour += 1
    if rng.random() < 0.5:
        runs.append(RunRecord("manual__x", "manual", "success", at(40), logical_date=at(40)))
    now = at(hours) + timedelta(minutes=5)
    expected = plan_repair(coverage(policy, True, None, runs, now), runs, include_dropped=include_dropped)
    hist = history(policy, True, None, runs, now)
    stretches = to_repair(hist, include_dropped)
    planned = plan_repair(repair_view(hist, stretches), runs, include_dropped=include_dropped)

    def shape(steps: list) -> list[tuple[object, ...]]:  # type: ignore[type-arg]
        return [(s.kind, s.reprocess, s.note, [f.fire for f in s.fires]) for s in steps]

    assert shape(planned) == shape(expected)
    assert runs_in(planned) == sum(st.count for st in stretches)
