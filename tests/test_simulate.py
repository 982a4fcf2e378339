"""The outage simulator on the pure core: worked examples, then properties against a fire-by-fire replay."""

from __future__ import annotations

import itertools
from datetime import datetime, timedelta, timezone

import pytest
from fuzzing import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from hops_timetable.cli.app import main
from hops_timetable.core.catchup import CatchupPolicy, Run
from hops_timetable.core.cron import QuartzCron
from hops_timetable.core.simulate import Decision, Event, FireRow, created_fires, expand, scheduled_runs, simulate

UTC = timezone.utc
HOURLY = QuartzCron("0 0 * ? * * *")


def utc(year: int, month: int, day: int, hour: int = 0, minute: int = 0) -> datetime:
    return datetime(year, month, day, hour, minute, tzinfo=UTC)


def per_fire(rows: list[FireRow], cron: QuartzCron) -> dict[datetime, tuple[Decision, datetime | None]]:
    out = {}
    for row in expand(rows, cron, 10_000):
        assert row.count == 1
        out[row.first] = (row.decision, row.created_at)
    return out


def test_bounded_catch_up_after_an_outage_creates_the_newest_runs_at_recovery() -> None:
    policy = CatchupPolicy(HOURLY, start=utc(2026, 1, 1), max_catchup_runs=3)
    outage = Event("outage", utc(2026, 1, 1, 5, 30), utc(2026, 1, 1, 12, 10))
    rows = simulate(policy, True, utc(2026, 1, 1), utc(2026, 1, 1, 14), [outage])
    fires = per_fire(rows, HOURLY)
    assert fires[utc(2026, 1, 1, 5)] == (Decision.CREATED, utc(2026, 1, 1, 5))
    for hour in (6, 7, 8, 9):
        assert fires[utc(2026, 1, 1, hour)] == (Decision.DROPPED_BOUND, None)
    for hour in (10, 11, 12):
        assert fires[utc(2026, 1, 1, hour)] == (Decision.CREATED, utc(2026, 1, 1, 12, 10))
    assert fires[utc(2026, 1, 1, 13)] == (Decision.CREATED, utc(2026, 1, 1, 13))
    assert len(fires) == 14


def test_catchup_false_after_six_hour_outage_creates_only_the_0600_run() -> None:
    # The guide's example: hourly, scheduler unreachable 00:00-06:00, one run on recovery, not six.
    policy = CatchupPolicy(HOURLY, start=utc(2025, 12, 31))
    rows = simulate(
        policy, False, utc(2025, 12, 31), utc(2026, 1, 1, 6), [Event("outage", utc(2026, 1, 1), utc(2026, 1, 1, 6))]
    )
    fires = per_fire(rows, HOURLY)
    assert fires[utc(2026, 1, 1, 6)] == (Decision.CREATED, utc(2026, 1, 1, 6))
    assert [f for f, (d, _) in fires.items() if d is Decision.DROPPED_NO_CATCHUP] == [
        utc(2026, 1, 1, h) for h in range(6)
    ]


def test_pause_past_until_leaves_fires_not_yet_due_and_labels_the_event() -> None:
    policy = CatchupPolicy(HOURLY, start=utc(2026, 1, 1))
    rows = simulate(
        policy, True, utc(2026, 1, 1), utc(2026, 1, 1, 6), [Event("pause", utc(2026, 1, 1, 3), utc(2026, 1, 2))]
    )
    assert [(r.decision, r.count, r.event) for r in rows] == [
        (Decision.CREATED, 2, None),
        (Decision.NOT_YET_DUE, 4, "pause"),
    ]


def test_start_skip_to_date_and_end_are_labelled_by_the_policy() -> None:
    policy = CatchupPolicy(HOURLY, start=utc(2026, 1, 1, 2), end=utc(2026, 1, 1, 8), skip_to=utc(2026, 1, 1, 4))
    rows = simulate(
        policy, True, utc(2026, 1, 1), utc(2026, 1, 1, 10), [Event("outage", utc(2026, 1, 1), utc(2026, 1, 1, 1))]
    )
    # The 01:00 fire falls at the end of the outage, so it gets a row of its own, labelled with the event.
    assert [(r.decision, r.first.hour, r.last.hour, r.event) for r in rows] == [
        (Decision.BEFORE_START, 1, 1, "outage"),
        (Decision.BEFORE_START, 2, 2, None),
        (Decision.BEFORE_SKIP_TO_DATE, 3, 3, None),
        (Decision.CREATED, 4, 7, None),
        (Decision.AFTER_END, 8, 10, None),
    ]


def test_a_start_before_the_timeline_is_replayed_at_the_first_look() -> None:
    policy = CatchupPolicy(HOURLY, start=utc(2026, 1, 1), max_catchup_runs=2)
    rows = simulate(policy, True, utc(2026, 1, 1, 5, 30), utc(2026, 1, 1, 7))
    fires = per_fire(rows, HOURLY)
    assert fires[utc(2026, 1, 1, 3)] == (Decision.DROPPED_BOUND, None)
    assert fires[utc(2026, 1, 1, 4)] == (Decision.CREATED, utc(2026, 1, 1, 5, 30))
    assert fires[utc(2026, 1, 1, 6)] == (Decision.CREATED, utc(2026, 1, 1, 6))


def test_without_start_nothing_before_the_first_look_is_replayed() -> None:
    policy = CatchupPolicy(HOURLY)
    rows = simulate(
        policy, True, utc(2026, 1, 1), utc(2026, 1, 1, 5), [Event("outage", utc(2026, 1, 1), utc(2026, 1, 1, 3, 30))]
    )
    assert [(r.decision, r.count) for r in rows] == [(Decision.BEFORE_FIRST_LOOK, 3), (Decision.CREATED, 2)]


def test_a_per_second_schedule_over_a_year_stays_small() -> None:
    cron = QuartzCron("* * * ? * * *")
    policy = CatchupPolicy(cron, start=utc(2025, 1, 1))
    rows = simulate(
        policy,
        True,
        utc(2025, 1, 1),
        utc(2026, 1, 1),
        [Event("outage", utc(2025, 3, 1), utc(2025, 4, 1))],
    )
    assert len(rows) <= 1003
    # Exact counts: every second of the year is one fire, in exactly one row.
    assert sum(r.count for r in rows) == 365 * 86_400
    assert all(r.count == (r.last - r.first).total_seconds() + 1 for r in rows)
    assert rows[-1].last == utc(2026, 1, 1)


def test_overlapping_events_merge_and_bad_events_are_refused() -> None:
    policy = CatchupPolicy(HOURLY, start=utc(2026, 1, 1), max_catchup_runs=1)
    rows = simulate(
        policy,
        True,
        utc(2026, 1, 1),
        utc(2026, 1, 1, 9),
        [
            Event("outage", utc(2026, 1, 1, 2), utc(2026, 1, 1, 5)),
            Event("pause", utc(2026, 1, 1, 4), utc(2026, 1, 1, 7, 30)),
        ],
    )
    assert {r.event for r in rows} == {None, "outage+pause"}
    with pytest.raises(ValueError, match="end must be after its start"):
        Event("outage", utc(2026, 1, 2), utc(2026, 1, 1))
    with pytest.raises(ValueError, match="'strike' is invalid"):
        Event("strike", utc(2026, 1, 1), utc(2026, 1, 2))
    with pytest.raises(ValueError, match="timeline is empty"):
        simulate(policy, True, utc(2026, 1, 2), utc(2026, 1, 1))


def _replay(
    policy: CatchupPolicy, catchup: bool, start: datetime, until: datetime, downs: list[tuple[datetime, datetime]]
) -> dict[datetime, datetime]:
    """A reference: the scheduler looks at every fire and every event end, and creates what next_run says is due."""

    def down(t: datetime) -> bool:
        return any(a <= t < b for a, b in downs)

    looks = {start, *(b for _, b in downs if start <= b <= until)}
    fire = policy.cron.next_after(start)
    while fire is not None and fire <= until:
        looks.add(fire)
        fire = policy.cron.next_after(fire)
    created: dict[datetime, datetime] = {}
    last = None
    for now in sorted(looks):
        if down(now):
            continue
        while (run := policy.next_run(last, now, catchup=catchup)) is not None and run.fire <= now:
            created[run.fire] = now
            last = run.fire
    return created


@settings(max_examples=examples(60), deadline=None)
@given(
    cron=st.sampled_from(["0 0 * ? * * *", "0 */20 * ? * * *", "0 0 9,17 ? * MON-FRI *", "0 30 */5 * * ?"]),
    catchup=st.booleans(),
    bound=st.one_of(st.none(), st.integers(1, 5)),
    start_h=st.integers(0, 30),
    skip_h=st.one_of(st.none(), st.integers(0, 60)),
    end_h=st.one_of(st.none(), st.integers(40, 90)),
    spans=st.lists(st.tuples(st.integers(0, 96 * 60), st.integers(1, 30 * 60)), max_size=3),
)
def test_simulation_matches_a_fire_by_fire_replay_of_next_run(
    cron: str,
    catchup: bool,
    bound: int | None,
    start_h: int,
    skip_h: int | None,
    end_h: int | None,
    spans: list[tuple[int, int]],
) -> None:
    base = utc(2026, 3, 2)
    start = base + timedelta(hours=start_h, minutes=7)
    policy = CatchupPolicy(
        QuartzCron(cron),
        start=start,
        end=None if end_h is None else base + timedelta(hours=end_h),
        skip_to=None if skip_h is None else base + timedelta(hours=skip_h),
        max_catchup_runs=bound,
    )
    until = base + timedelta(hours=100)
    events = [Event("outage", base + timedelta(minutes=a), base + timedelta(minutes=a + n)) for a, n in spans]
    rows = simulate(policy, catchup, start, until, events)
    merged: list[tuple[datetime, datetime]] = []
    for e in sorted(events, key=lambda e: e.start):
        if merged and e.start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], e.end))
        else:
            merged.append((e.start, e.end))
    expected = _replay(policy, catchup, start, until, merged)
    fires = per_fire(rows, policy.cron)
    assert {f: at for f, (d, at) in fires.items() if d is Decision.CREATED} == expected
    assert created_fires(rows, policy.cron) == sorted(expected)
    # Every fire in the timeline has exactly one row, in order.
    assert list(fires) == sorted(fires)
    reference = []
    fire = policy.cron.next_after(start)
    while fire is not None and fire <= until:
        reference.append(fire)
        fire = policy.cron.next_after(fire)
    assert list(fires) == reference


# -- cost proportional to the runs asked for ---------------------------------------------------------------------------


@settings(max_examples=examples(60), deadline=None)
@given(
    start_hour=st.integers(0, 48),
    now_hour=st.integers(0, 96),
    bound=st.none() | st.integers(1, 120),
    catchup=st.booleans(),
    skip_hours=st.none() | st.integers(0, 80),
    end_hours=st.none() | st.integers(1, 200),
    n=st.integers(1, 40),
)
def test_scheduled_runs_are_the_policys_runs_one_after_the_other(
    start_hour: int,
    now_hour: int,
    bound: int | None,
    catchup: bool,
    skip_hours: int | None,
    end_hours: int | None,
    n: int,
) -> None:
    # The oracle steps the policy's own next_run at the same "now" each time, as the scheduler loop does.
    start = utc(2026, 1, 1) + timedelta(hours=start_hour, minutes=30)
    now = utc(2026, 1, 1) + timedelta(hours=now_hour, minutes=15)
    policy = CatchupPolicy(
        HOURLY,
        start=start,
        end=None if end_hours is None else start + timedelta(hours=end_hours),
        skip_to=None if skip_hours is None else utc(2026, 1, 1) + timedelta(hours=skip_hours),
        max_catchup_runs=bound,
    )
    expected: list[Run] = []
    last = None
    while len(expected) < n and (run := policy.next_run(last, now, catchup=catchup)) is not None:
        expected.append(run)
        last = run.fire
    assert list(itertools.islice(scheduled_runs(policy, None, now, catchup=catchup), n)) == expected


def test_preview_counts_back_over_the_history_once_not_once_per_run(monkeypatch: pytest.MonkeyPatch) -> None:
    # A bound larger than every fire since the cron's first year: each count back walks to its beginning. Ten
    # thousand runs seen from the year 9999 took longer than twelve minutes when each run counted back; 200 show it.
    walks: list[int] = []
    original = QuartzCron.nth_before

    def counting(self: QuartzCron, dt: datetime, n: int) -> datetime | None:
        walks.append(n)
        return original(self, dt, n)

    monkeypatch.setattr(QuartzCron, "nth_before", counting)
    argv = ["preview", "--cron", "0 0 * * * ?", "--start-time", "2026-01-01", "--catchup"]
    argv += ["--max-catchup-runs", "100000000", "--now", "9999-01-01", "-n", "200", "--json"]
    assert main(argv) == 0
    assert len(walks) <= 1


def test_a_long_unbounded_outage_is_replayed_counting_back_once(monkeypatch: pytest.MonkeyPatch) -> None:
    walks: list[int] = []
    original = QuartzCron.nth_before

    def counting(self: QuartzCron, dt: datetime, n: int) -> datetime | None:
        walks.append(n)
        return original(self, dt, n)

    monkeypatch.setattr(QuartzCron, "nth_before", counting)
    policy = CatchupPolicy(QuartzCron("0 0 0 * * ?"), start=utc(2026, 1, 1), max_catchup_runs=100_000_000)
    rows = simulate(policy, True, utc(2026, 1, 1), utc(2028, 1, 2), [Event("outage", utc(2026, 1, 2), utc(2028, 1, 1))])
    # 2026-01-02 .. 2028-01-01 is 730 days: every fire of the outage replayed at its end, as with no bound.
    assert sum(r.count for r in rows if r.decision is Decision.CREATED and r.created_at == utc(2028, 1, 1)) == 730
    assert len(walks) <= 2
