"""The catch-up policy on the pure core: the worked examples of the Hopsworks guide, then properties."""

from __future__ import annotations

import itertools
from datetime import datetime, timedelta, timezone

import pytest
from fuzzing import examples
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from support import CountingCron

from hops_timetable.core.catchup import CatchupPolicy, Run
from hops_timetable.core.cron import QuartzCron
from hops_timetable.core.decision import Decision

UTC = timezone.utc
HOURLY = QuartzCron("0 0 * ? * * *")
DAILY = QuartzCron("0 0 0 * * ?")


def utc(*args: int) -> datetime:
    return datetime(*args, tzinfo=UTC)


def scheduler_loop(
    policy: CatchupPolicy, last: datetime | None, now: datetime, catchup: bool = True, limit: int = 2000
) -> list[Run]:
    """What Airflow's scheduler does at *now*: create the next run while it is due, one after the other.

    Stops after *limit* runs, so that a fast cron over a long span stays cheap; callers check for it.
    """
    runs: list[Run] = []
    while len(runs) < limit and (run := policy.next_run(last, now, catchup=catchup)) is not None and run.fire <= now:
        runs.append(run)
        last = run.fire
    return runs


def brute_force_fires(cron: QuartzCron, after: datetime, until: datetime) -> list[datetime]:
    fires = []
    fire = cron.next_after(after)
    while fire is not None and fire <= until:
        fires.append(fire)
        fire = cron.next_after(fire)
    return fires


def test_hourly_defaults() -> None:
    policy = CatchupPolicy(HOURLY, start=utc(2026, 1, 1))
    run = policy.next_run(None, utc(2026, 1, 1, 0, 30))
    assert run == Run(fire=utc(2026, 1, 1, 1), interval_start=utc(2026, 1, 1, 0))
    assert policy.next_run(utc(2026, 1, 1, 9), utc(2026, 1, 1, 9, 30)) == Run(utc(2026, 1, 1, 10), utc(2026, 1, 1, 9))


def test_daily_defaults() -> None:
    policy = CatchupPolicy(DAILY, start=utc(2026, 1, 1))
    assert policy.next_run(utc(2026, 1, 2), utc(2026, 1, 2, 1)) == Run(utc(2026, 1, 3), utc(2026, 1, 2))


def test_first_interval_is_clamped_to_a_start_between_fires() -> None:
    policy = CatchupPolicy(HOURLY, start=utc(2026, 1, 1, 10, 5))
    assert policy.next_run(None, utc(2026, 1, 1, 10, 6)) == Run(utc(2026, 1, 1, 11), utc(2026, 1, 1, 10, 5))
    assert policy.next_run(utc(2026, 1, 1, 11), utc(2026, 1, 1, 11)) == Run(utc(2026, 1, 1, 12), utc(2026, 1, 1, 11))


def test_a_fire_at_the_start_itself_is_not_run() -> None:
    policy = CatchupPolicy(HOURLY, start=utc(2026, 1, 1, 10))
    assert policy.next_run(None, utc(2026, 1, 1, 10)) == Run(utc(2026, 1, 1, 11), utc(2026, 1, 1, 10))
    assert policy.classify(utc(2026, 1, 1, 10)) is Decision.BEFORE_START


def test_catchup_false_after_a_six_hour_outage_runs_only_the_newest() -> None:
    policy = CatchupPolicy(HOURLY, start=utc(2026, 1, 1))
    runs = scheduler_loop(policy, utc(2026, 1, 2, 0), utc(2026, 1, 2, 6, 0, 30), catchup=False)
    assert runs == [Run(utc(2026, 1, 2, 6), utc(2026, 1, 2, 5))]


def test_catchup_false_equals_max_catchup_runs_one() -> None:
    bounded = CatchupPolicy(HOURLY, start=utc(2026, 1, 1), max_catchup_runs=1)
    unbounded = CatchupPolicy(HOURLY, start=utc(2026, 1, 1))
    now = utc(2026, 1, 2, 6, 0, 30)
    assert scheduler_loop(bounded, utc(2026, 1, 2), now) == scheduler_loop(unbounded, utc(2026, 1, 2), now, False)


def test_one_week_outage_with_24_catchup_runs_replays_the_newest_24() -> None:
    policy = CatchupPolicy(HOURLY, start=utc(2026, 1, 1), max_catchup_runs=24)
    now = utc(2026, 1, 9, 0, 10)
    runs = scheduler_loop(policy, utc(2026, 1, 2), now)
    assert [r.fire for r in runs] == [utc(2026, 1, 8, 1) + timedelta(hours=h) for h in range(24)]
    assert runs[0].interval_start == utc(2026, 1, 8, 0)


def test_bounded_catchup_applies_at_creation_with_a_start_in_the_past() -> None:
    policy = CatchupPolicy(HOURLY, start=utc(2026, 1, 1), max_catchup_runs=3)
    runs = scheduler_loop(policy, None, utc(2026, 1, 5, 12, 30))
    assert [r.fire for r in runs] == [utc(2026, 1, 5, 10), utc(2026, 1, 5, 11), utc(2026, 1, 5, 12)]


def test_irregular_cron_intervals_tile() -> None:
    policy = CatchupPolicy(QuartzCron("0 0 9,17 * * ?"), start=utc(2026, 1, 1))
    runs = scheduler_loop(policy, None, utc(2026, 1, 2, 12))
    assert runs == [
        Run(utc(2026, 1, 1, 9), utc(2026, 1, 1)),
        Run(utc(2026, 1, 1, 17), utc(2026, 1, 1, 9)),
        Run(utc(2026, 1, 2, 9), utc(2026, 1, 1, 17)),
    ]


def test_end_is_exclusive() -> None:
    policy = CatchupPolicy(HOURLY, start=utc(2026, 1, 1), end=utc(2026, 1, 1, 3))
    runs = scheduler_loop(policy, None, utc(2026, 1, 2))
    assert [r.fire for r in runs] == [utc(2026, 1, 1, 1), utc(2026, 1, 1, 2)]
    assert policy.next_run(utc(2026, 1, 1, 2), utc(2026, 1, 2)) is None
    assert policy.classify(utc(2026, 1, 1, 3)) is Decision.AFTER_END


def test_fires_before_skip_to_date_are_skipped() -> None:
    policy = CatchupPolicy(HOURLY, start=utc(2026, 1, 1), skip_to=utc(2026, 1, 1, 5))
    runs = scheduler_loop(policy, utc(2026, 1, 1, 1), utc(2026, 1, 1, 7, 30))
    assert [r.fire for r in runs] == [utc(2026, 1, 1, 5), utc(2026, 1, 1, 6), utc(2026, 1, 1, 7)]
    # The run after a skip covers one cron interval: gaps are by design.
    assert runs[0].interval_start == utc(2026, 1, 1, 4)
    assert policy.classify(utc(2026, 1, 1, 4)) is Decision.BEFORE_SKIP_TO_DATE


def test_without_start_nothing_before_now_is_replayed() -> None:
    policy = CatchupPolicy(HOURLY)
    assert policy.next_run(None, utc(2026, 1, 1, 10, 30)) == Run(utc(2026, 1, 1, 11), utc(2026, 1, 1, 10))
    assert policy.next_run(None, utc(2026, 1, 1, 11)) == Run(utc(2026, 1, 1, 12), utc(2026, 1, 1, 11))


def test_never_firing_cron_gives_no_run() -> None:
    policy = CatchupPolicy(QuartzCron("0 0 0 30 2 ?"), start=utc(2026, 1, 1))
    assert policy.next_run(None, utc(2030, 1, 1)) is None


def test_manual_run_takes_the_newest_fire_at_or_before() -> None:
    policy = CatchupPolicy(HOURLY, start=utc(2026, 1, 1, 10, 5))
    assert policy.manual_run(utc(2026, 1, 1, 12, 30)) == Run(utc(2026, 1, 1, 12), utc(2026, 1, 1, 11))
    assert policy.manual_run(utc(2026, 1, 1, 12)) == Run(utc(2026, 1, 1, 12), utc(2026, 1, 1, 11))
    assert policy.manual_run(utc(2026, 1, 1, 11, 30)) == Run(utc(2026, 1, 1, 11), utc(2026, 1, 1, 10, 5))


def test_a_year_long_outage_is_answered_in_bounded_steps() -> None:
    # A per-minute cron a year behind with a bound of 500: the answer takes a few cron calls, not one per fire.
    CountingCron.calls = 0
    policy = CatchupPolicy(CountingCron("0 * * ? * *"), start=utc(2025, 1, 1), max_catchup_runs=500)
    run = policy.next_run(utc(2025, 1, 1), utc(2026, 1, 1, 0, 0, 30))
    assert run is not None and run.fire == utc(2026, 1, 1) - timedelta(minutes=499)
    # The first fire, the newest due, the 500th newest (nth_before and its own first prev_before), the interval's start.
    assert CountingCron.calls <= 5


CRONS = [
    "0 0 * ? * * *",
    "0 */5 * ? * *",
    "0 0 9,17 * * ?",
    "0 30 6 ? * MON-FRI",
    "0 0 0 L * ?",
    "0 15 10 ? * 6#3",
    "0/30 * * * * ?",
    "0 0 12 1W * ?",
    "0 0 0 * * ?",
]

moments = st.datetimes(min_value=datetime(2020, 1, 1), max_value=datetime(2030, 1, 1), timezones=st.just(UTC))


@settings(max_examples=examples(200), deadline=None)
@given(expr=st.sampled_from(CRONS), start=moments, span=st.integers(min_value=1, max_value=40 * 86400))
def test_consecutive_runs_tile_when_nothing_is_skipped(expr: str, start: datetime, span: int) -> None:
    cron = QuartzCron(expr)
    policy = CatchupPolicy(cron, start=start)
    now = start + timedelta(seconds=span)
    runs = scheduler_loop(policy, None, now)
    for earlier, later in itertools.pairwise(runs):
        assert later.interval_start == earlier.fire
    if runs:
        assert runs[0].interval_start >= start
        assert runs[0].fire == cron.next_after(start)
    if 0 < len(runs) < 2000:
        assert runs[-1].fire == cron.prev_before(now + timedelta(microseconds=1))


@settings(max_examples=examples(200), deadline=None)
@given(
    expr=st.sampled_from(CRONS),
    last=moments,
    outage=st.integers(min_value=0, max_value=20 * 86400),
    bound=st.integers(min_value=1, max_value=30),
    catchup=st.booleans(),
)
def test_at_most_n_runs_follow_an_outage_and_they_are_the_newest(
    expr: str, last: datetime, outage: int, bound: int, catchup: bool
) -> None:
    cron = QuartzCron(expr)
    last_fire = cron.prev_before(last)
    assume(last_fire is not None)
    assert last_fire is not None
    policy = CatchupPolicy(cron, start=utc(2019, 1, 1), max_catchup_runs=bound)
    now = last_fire + timedelta(seconds=outage)
    missed = brute_force_fires(cron, last_fire, now)
    runs = scheduler_loop(policy, last_fire, now, catchup=catchup, limit=100)
    expected = missed[-(bound if catchup else 1) :] if missed else []
    assert [r.fire for r in runs] == expected


@settings(max_examples=examples(200), deadline=None)
@given(
    expr=st.sampled_from(CRONS),
    start=moments,
    end_after=st.integers(min_value=1, max_value=10 * 86400),
    now_after=st.integers(min_value=0, max_value=20 * 86400),
    bound=st.none() | st.integers(min_value=1, max_value=10),
    skip_after=st.none() | st.integers(min_value=0, max_value=10 * 86400),
)
def test_no_run_outside_start_end_and_skip_to(
    expr: str, start: datetime, end_after: int, now_after: int, bound: int | None, skip_after: int | None
) -> None:
    end = start + timedelta(seconds=end_after)
    skip_to = None if skip_after is None else start + timedelta(seconds=skip_after)
    policy = CatchupPolicy(QuartzCron(expr), start=start, end=end, skip_to=skip_to, max_catchup_runs=bound)
    runs = scheduler_loop(policy, None, start + timedelta(seconds=now_after))
    for run in runs:
        assert start < run.fire < end
        assert skip_to is None or run.fire >= skip_to
        assert run.interval_start >= start
        assert policy.classify(run.fire) is Decision.ELIGIBLE
    fires = [r.fire for r in runs]
    assert fires == sorted(set(fires))


@pytest.mark.parametrize("expr", CRONS)
def test_interval_start_is_never_after_the_fire(expr: str) -> None:
    cron = QuartzCron(expr)
    policy = CatchupPolicy(cron, start=utc(2026, 3, 1, 7, 7, 7))
    fire = cron.next_after(utc(2026, 3, 1, 7, 7, 7))
    assert fire is not None
    assert utc(2026, 3, 1, 7, 7, 7) <= policy.interval_start(fire) < fire
