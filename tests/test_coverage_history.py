"""A DAG's whole history as stretches (``core/coverage/history``): it reads fire by fire as the coverage does, at a
cost set by the runs."""

from __future__ import annotations

from datetime import datetime, timedelta

from fuzzing import examples
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from runs_by_hand import HOURLY, QUARTER, START, at, manual, scheduled
from support import CountingCron

from hops_timetable.core.catchup import CatchupPolicy
from hops_timetable.core.coverage import RunRecord, coverage, history, now_key
from hops_timetable.core.cron import QuartzCron
from hops_timetable.core.decision import Decision

# -- the whole history as stretches reads fire by fire as coverage() does ---------------------------------------------


@st.composite
def schedules(draw: st.DrawFn) -> tuple[CatchupPolicy, bool, int | None, list[RunRecord], datetime]:
    """An hourly schedule with any of its settings, scheduled runs queued on time or late, conf windows anywhere."""
    skip = draw(st.none() | st.integers(0, 30))
    end = draw(st.none() | st.integers(10, 60))
    policy = CatchupPolicy(
        HOURLY,
        start=START + timedelta(minutes=draw(st.sampled_from([0, 30]))),
        end=None if end is None else at(end),
        skip_to=None if skip is None else at(skip),
        max_catchup_runs=draw(st.none() | st.integers(1, 5)),
    )
    offset = draw(st.sampled_from([None, 0, 1800, 25 * 3600]))
    runs = []
    for hour in sorted(draw(st.sets(st.integers(1, 48), max_size=30))):
        late = draw(st.sampled_from([0, 0, 0, 3, 7]))
        runs.append(scheduled(hour, draw(st.sampled_from(["success", "failed", "running"])), at(hour + late)))
    for n in range(draw(st.integers(0, 3))):
        lo = draw(st.integers(-120, 200))
        runs.append(manual(f"manual__{n}", START + lo * QUARTER, START + (lo + draw(st.integers(1, 20))) * QUARTER))
    now = at(draw(st.integers(0, 60)), draw(st.sampled_from([0, 0, 1, 30])))
    return policy, draw(st.booleans()), offset, runs, now


@settings(max_examples=examples(1000), deadline=None)
@given(schedules())
def test_history_in_stretches_says_what_coverage_says_fire_by_fire(
    case: tuple[CatchupPolicy, bool, int | None, list[RunRecord], datetime],
) -> None:
    _history_reads_as_coverage(*case)


@settings(max_examples=examples(500), deadline=None)
@given(schedules(), st.integers(-90, 90))
def test_two_instants_with_the_same_now_key_see_the_same_history(
    case: tuple[CatchupPolicy, bool, int | None, list[RunRecord], datetime], minutes: int
) -> None:
    policy, catchup, offset, runs, now = case
    later = now + timedelta(minutes=minutes)
    assume(now_key(policy, now) == now_key(policy, later))
    one, two = (history(policy, catchup, offset, runs, t) for t in (now, later))
    assert (one.begin, one.stretches, one.gaps, one.dropped) == (two.begin, two.stretches, two.gaps, two.dropped)
    assert (one.duplicates, one.overlaps, one.counts()) == (two.duplicates, two.overlaps, two.counts())
    fire_by_fire = [coverage(policy, catchup, offset, runs, t) for t in (now, later)]
    assert fire_by_fire[0].fires == fire_by_fire[1].fires and fire_by_fire[0].gaps == fire_by_fire[1].gaps


def test_the_now_key_changes_at_each_fire_and_when_a_fire_stops_being_pending() -> None:
    policy = CatchupPolicy(HOURLY, start=START)
    keys = [now_key(policy, at(5, minute)) for minute in (0, 0, 1, 30, 59)]
    assert keys[0] == keys[1] != keys[2] == keys[3] == keys[4] != now_key(policy, at(6))


def test_history_after_the_last_run_tells_missed_fires_from_due_ones() -> None:
    # max_catchup_runs=2, the last run at 10:00, seen at 20:30: 11:00 .. 18:00 missed, 19:00 and 20:00 due.
    policy = CatchupPolicy(HOURLY, start=START, max_catchup_runs=2)
    _history_reads_as_coverage(policy, True, None, [scheduled(h) for h in range(1, 11)], at(20, 30))
    statuses = [s.sample.status for s in history(policy, True, None, [scheduled(10)], at(20, 30)).stretches]
    assert statuses == [Decision.MISSED.value, "ran", Decision.MISSED.value, Decision.DUE.value]


def _history_reads_as_coverage(
    policy: CatchupPolicy, catchup: bool, offset: int | None, runs: list[RunRecord], now: datetime
) -> None:
    cov = coverage(policy, catchup, offset, runs, now)
    hist = history(policy, catchup, offset, runs, now)
    expanded = []
    for stretch in hist.stretches:
        fire: datetime | None = stretch.first
        for _ in range(stretch.count):
            assert fire is not None and fire <= stretch.last
            s = stretch.sample
            expanded.append((fire, s.decision, s.status, s.covered, s.pending))
            fire = HOURLY.next_after(fire)
    assert expanded == [(f.fire, f.decision, f.status, f.covered, f.pending) for f in cov.fires]
    assert hist.fires == len(cov.fires)
    assert [(g.start, g.end, set(g.reasons)) for g in hist.gaps] == [(g.start, g.end, set(g.reasons)) for g in cov.gaps]
    assert [(d.start, d.end) for d in hist.dropped] == [(d.start, d.end) for d in cov.dropped]
    assert hist.verdict() == cov.verdict()
    assert hist.counts() == cov.counts
    for n in (0, 1, 5, len(cov.fires) - 1, len(cov.fires)):
        expected = cov.fires[-1 - n].fire if 0 <= n < len(cov.fires) else None
        assert hist.nth_newest(n) == expected


def test_a_million_fires_of_a_bounded_catch_up_are_a_handful_of_stretches() -> None:
    # Every minute since 2026-01-01, first scheduled a million minutes later with max_catchup_runs=24: the 24
    # newest fires run at once, the 999,976 before them were dropped by the bound (arithmetic, not the code).
    minutely = QuartzCron("0 * * ? * * *")
    policy = CatchupPolicy(minutely, start=START, max_catchup_runs=24)
    deployed = START + timedelta(minutes=1_000_000, seconds=30)
    minute = timedelta(minutes=1)
    runs = [
        RunRecord(f"s{k}", "scheduled", "success", f, f - minute, f - minute, f, deployed)
        for k in range(24)
        for f in [START + (1_000_000 - 23 + k) * minute]
    ]
    result = history(policy, True, None, runs, deployed + timedelta(seconds=5))
    assert result.fires == 1_000_000
    assert [(s.count, s.sample.status) for s in result.stretches] == [
        (999_976, Decision.DROPPED_BOUND.value),
        (24, "ran"),
    ]
    last_dropped = (START + 999_976 * minute).strftime("%Y-%m-%dT%H:%M:%SZ")
    assert result.stretches[0].describe() == (
        f"2026-01-01T00:01:00Z .. {last_dropped}: 999,976 window(s) dropped beyond max_catchup_runs"
    )
    assert result.ok and result.verdict().endswith(
        "999,976 dropped by design (999,976 dropped beyond max_catchup_runs)"
    )


def test_fires_whose_runs_read_alike_are_one_stretch_cut_where_a_run_failed_or_a_fire_has_none() -> None:
    # Runs of 01..10 except 08, 05 failed: ran 01..04, failed 05, ran 06..07, 08 missed (09 was queued on time, so
    # no catch-up bound explains it), ran 09..10.
    policy = CatchupPolicy(HOURLY, start=START)
    runs = [scheduled(h, "failed" if h == 5 else "success") for h in range(1, 11) if h != 8]
    hist = history(policy, True, None, runs, at(10, 30))
    assert [(s.first, s.last, s.count, s.sample.status) for s in hist.stretches] == [
        (at(1), at(4), 4, "ran"),
        (at(5), at(5), 1, "failed"),
        (at(6), at(7), 2, "ran"),
        (at(8), at(8), 1, Decision.MISSED.value),
        (at(9), at(10), 2, "ran"),
    ]
    _history_reads_as_coverage(policy, True, None, runs, at(10, 30))


def test_a_run_for_every_fire_costs_about_one_cron_step_a_run() -> None:
    CountingCron.calls = 0
    policy = CatchupPolicy(CountingCron(HOURLY.expression), start=START)
    runs = [scheduled(h) for h in range(1, 2001)]
    hist = history(policy, True, None, runs, at(2000, 30))
    assert [(s.count, s.sample.status) for s in hist.stretches] == [(2000, "ran")]
    # One next_after a run where the runs are cut apart, and the stretch's length counted in about 90 steps.
    assert CountingCron.calls <= 2000 + 200
