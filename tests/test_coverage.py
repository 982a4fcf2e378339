"""The coverage fire by fire (``core/coverage``: ``detail``, ``fires``, ``spans``, ``runs``), on run lists written
out by hand as Airflow records them.

The expected decisions are derived in each test's comments from the Hopsworks rules, not from the code under test.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from hypothesis import given
from hypothesis import strategies as st
from runs_by_hand import HOURLY, QUARTER, START, at, manual, scheduled

from hops_timetable.core.catchup import CatchupPolicy
from hops_timetable.core.coverage import RunRecord, coverage, upcoming_windows
from hops_timetable.core.decision import Decision


def test_an_outage_with_a_bound_marks_the_dropped_fires_and_their_windows_as_one_gap() -> None:
    # Fires 01..03 ran; Airflow was down from 03:30 to 07:10; with max_catchup_runs=2 the scheduler, looking at
    # 07:10, made the two newest due fires 06:00 and 07:00, so 04:00 and 05:00 were dropped by the bound.
    policy = CatchupPolicy(HOURLY, start=START, max_catchup_runs=2)
    back = at(7, 10)
    runs = [scheduled(1), scheduled(2), scheduled(3), scheduled(6, queued=back), scheduled(7, queued=back)]
    result = coverage(policy, True, None, runs, now=at(7, 30))

    assert [f.fire for f in result.fires] == [at(h) for h in range(1, 8)]
    assert [f.decision for f in result.fires] == [Decision.CREATED] * 3 + [Decision.DROPPED_BOUND] * 2 + [
        Decision.CREATED
    ] * 2
    # The runs of 04:00 and 05:00 would have processed [03:00, 05:00): dropped by design, not a gap.
    assert [(d.start, d.end) for d in result.dropped] == [(at(3), at(5))]
    assert result.dropped[0].reasons == (Decision.DROPPED_BOUND.value,)
    assert result.gaps == [] and result.complete and result.ok
    assert result.verdict() == (
        "complete: all 5 expected window(s) up to 2026-01-01T07:30:00Z processed; "
        "2 dropped by design (2 dropped beyond max_catchup_runs)"
    )
    assert result.counts == {"ran": 5, Decision.DROPPED_BOUND.value: 2}
    # Had 03:00 failed, that window would be the one gap, and the verdict names both kinds.
    failed = [scheduled(1), scheduled(2), scheduled(3, "failed"), *runs[3:]]
    worse = coverage(policy, True, None, failed, now=at(7, 30))
    assert [(g.start, g.end, g.reasons) for g in worse.gaps] == [(at(2), at(3), ("failed",))]
    assert [(d.start, d.end) for d in worse.dropped] == [(at(3), at(5))]
    assert worse.verdict() == (
        "gaps found: 1 of 5 expected window(s) not processed (1 failed); 1 gap(s); "
        "2 dropped by design (2 dropped beyond max_catchup_runs)"
    )


def test_a_catch_up_run_picked_when_the_run_before_it_was_made_is_explained_by_the_bound() -> None:
    # Airflow 3.0 and 3.1 pick the next run when they make the one before it, and make it a scheduler loop later.
    # Down from 03:30 to 07:50 with max_catchup_runs=2: at 07:50 the stale stored run of 04:00 was made and, at that
    # instant, 06:00 and 07:00 picked as the newest two; the loop that made 06:00 came after 08:00 had fired.
    policy = CatchupPolicy(HOURLY, start=START, max_catchup_runs=2)
    back, late = at(7, 50), at(8, 1)
    runs = [scheduled(h) for h in (1, 2, 3)] + [
        scheduled(4, queued=back),
        scheduled(6, queued=late),
        scheduled(7, queued=late),
        scheduled(8, queued=late),
    ]
    result = coverage(policy, True, None, runs, now=at(8, 2))
    assert [f.decision for f in result.fires] == [Decision.CREATED] * 4 + [Decision.DROPPED_BOUND] + [
        Decision.CREATED
    ] * 3
    # Asked at neither instant would the bound pick 05:00's successor as 06:00 had 04:00 been made on time: a run
    # made at its fire, then a hole, is still a missed fire.
    on_time = [scheduled(h) for h in (1, 2, 3, 4)] + [scheduled(6, queued=late), scheduled(7, queued=late)]
    missed = coverage(policy, True, None, [*on_time, scheduled(8, queued=late)], now=at(8, 2))
    assert missed.fires[4].decision is Decision.MISSED


def test_a_gap_the_bound_does_not_explain_is_missed_and_a_conf_run_fills_it() -> None:
    # No bound: after an outage every missed fire is replayed, so a hole between 02:00 and 05:00 (queued on time)
    # cannot come from the catch-up policy: the DAG was paused or a run was deleted.
    policy = CatchupPolicy(HOURLY, start=START)
    runs = [scheduled(1), scheduled(2), scheduled(5)]
    before = coverage(policy, True, None, runs, now=at(5, 1))
    assert [f.decision for f in before.fires[2:4]] == [Decision.MISSED, Decision.MISSED]
    assert [(g.start, g.end) for g in before.gaps] == [(at(2), at(4))]

    # A manual run with a conf window [02:00, 04:00) fills it; the fires keep their decision but are covered.
    after = coverage(policy, True, None, [*runs, manual("manual__fill", at(2), at(4))], now=at(5, 1))
    assert after.gaps == []
    assert after.complete
    assert [f.covered for f in after.fires] == [True] * 5
    assert after.fires[2].status == Decision.MISSED.value
    assert after.verdict().startswith("complete: all 5 expected window(s)")


def test_failed_runs_are_gaps_running_ones_are_not_and_a_duplicate_window_is_reported() -> None:
    policy = CatchupPolicy(HOURLY, start=START)
    backfill = RunRecord(
        run_id="backfill__01",
        run_type="backfill",
        state="success",
        run_after=at(1),
        logical_date=at(0),
        data_interval_start=at(0),
        data_interval_end=at(1),
    )
    runs = [scheduled(1), backfill, scheduled(2, "failed"), scheduled(3, "running")]
    result = coverage(policy, True, None, runs, now=at(3, 5))
    assert [f.status for f in result.fires] == ["ran", "failed", "running"]
    assert [(g.start, g.end, g.reasons) for g in result.gaps] == [(at(1), at(2), ("failed",))]
    assert [(d.start, d.end, set(d.run_ids)) for d in result.duplicates] == [
        (at(0), at(1), {"scheduled__01", "backfill__01"})
    ]
    assert [(o.start, o.end) for o in result.overlaps] == [(at(0), at(1))]
    assert result.fires[0].run_ids == ("backfill__01", "scheduled__01")


def test_windows_move_with_the_offset_and_overlap_a_conf_window_partially() -> None:
    # start_time_offset_seconds = 25 h: the run of 02:00 ([01:00, 02:00)) processed [00:00, 01:00) a day earlier.
    offset = 25 * 3600
    policy = CatchupPolicy(HOURLY, start=START)
    runs = [scheduled(1, offset=offset), scheduled(2, offset=offset), manual("manual__late", at(-24, 30), at(-23, 30))]
    result = coverage(policy, True, offset, runs, now=at(2, 1))
    windows = {w.run.run_id: (w.window.start, w.window.end, w.source) for w in result.runs if w.window}
    second = "scheduled__02__hops_offset_90000s"
    assert windows[second] == (at(-24), at(-23), "scheduler")
    assert windows["manual__late"] == (at(-24, 30), at(-23, 30), "conf")
    # Only its first half lies inside the window of 02:00 ([-24 h, -23 h)); the rest is covered by it alone.
    assert [(o.start, o.end, o.run_ids) for o in result.overlaps] == [(at(-24, 30), at(-23), ("manual__late", second))]
    assert result.duplicates == []
    assert result.complete and not result.ok
    assert result.verdict().startswith("overlaps found: all 2 expected window(s) up to 2026-01-01T02:01:00Z processed")


def test_skip_to_date_fires_are_listed_but_not_expected_and_the_newest_fires_are_due() -> None:
    # skip_to_date 03:00: 01:00 and 02:00 never run. catchup=False: seen at 06:30 with the last run at 04:00, the
    # scheduler would make only 06:00, so 05:00 is missed and 06:00 is due.
    policy = CatchupPolicy(HOURLY, start=START, skip_to=at(3))
    runs = [scheduled(3), scheduled(4)]
    result = coverage(policy, False, None, runs, now=at(6, 30))
    assert [f.status for f in result.fires] == [
        Decision.BEFORE_SKIP_TO_DATE.value,
        Decision.BEFORE_SKIP_TO_DATE.value,
        "ran",
        "ran",
        Decision.MISSED.value,
        Decision.DUE.value,
    ]
    assert [(g.start, g.end) for g in result.gaps] == [(at(4), at(6))]
    # Seen 10 s after the 06:00 fire, its missing run is pending, not a gap; 05:00 stays missed.
    soon = coverage(policy, False, None, runs, now=at(6) + timedelta(seconds=10))
    assert [f.pending for f in soon.fires] == [False] * 5 + [True]
    assert [(g.start, g.end) for g in soon.gaps] == [(at(4), at(5))]
    fine = coverage(policy, False, None, [*runs, scheduled(5)], now=at(6) + timedelta(seconds=10))
    assert fine.complete
    assert fine.verdict() == (
        "complete: all 3 expected window(s) up to 2026-01-01T06:00:10Z processed "
        "(1 fire(s) due a moment ago, run not created yet); 2 dropped by design (2 skipped before skip_to_date)"
    )


def test_catchup_false_names_its_own_reason_and_a_manual_run_without_window_covers_nothing() -> None:
    policy = CatchupPolicy(HOURLY, start=START)
    back = at(4, 2)
    plain = RunRecord(run_id="manual__plain", run_type="manual", state="success", run_after=at(3, 15))
    result = coverage(policy, False, None, [scheduled(1), scheduled(4, queued=back), plain], now=at(4, 5))
    assert [f.decision for f in result.fires] == [
        Decision.CREATED,
        Decision.DROPPED_NO_CATCHUP,
        Decision.DROPPED_NO_CATCHUP,
        Decision.CREATED,
    ]
    plain_window = next(w for w in result.runs if w.run.run_id == "manual__plain")
    assert plain_window.window is None and plain_window.source is None


def test_a_bad_conf_window_is_reported_not_raised() -> None:
    policy = CatchupPolicy(HOURLY, start=START)
    bad = RunRecord("manual__bad", "manual", "failed", at(1), conf={"hops_window": {"start_time": "yesterday"}})
    result = coverage(policy, True, None, [scheduled(1), bad], now=at(1, 5))
    item = next(w for w in result.runs if w.run.run_id == "manual__bad")
    assert item.window is None and item.error is not None and "start_time" in item.error


def test_the_newest_fires_are_kept_when_there_are_more_than_the_cap() -> None:
    policy = CatchupPolicy(HOURLY, start=START)
    result = coverage(policy, True, None, [], now=at(10, 1), max_fires=3)
    assert result.truncated
    assert [f.fire for f in result.fires] == [at(8), at(9), at(10)]
    assert all(f.decision is Decision.DUE for f in result.fires[-1:])


def test_upcoming_windows_follow_the_policy() -> None:
    policy = CatchupPolicy(HOURLY, start=START)
    rows = upcoming_windows(policy, True, 3600, at(2), at(2, 30), 2)
    assert [(fire, start) for fire, start, _ in rows] == [(at(3), at(2)), (at(4), at(3))]
    assert rows[0][2].as_env() == {
        "HOPS_START_TIME": "2026-01-01T01:00:00Z",
        "HOPS_END_TIME": "2026-01-01T02:00:00Z",
        "HOPS_LOGICAL_DATE": "2026-01-01T02:00:00Z",
    }


# -- gaps and coverage against a slot-by-slot oracle ------------------------------------------------------------------


@st.composite
def histories(draw: st.DrawFn) -> list[RunRecord]:
    """Scheduled runs of some of the hourly fires 01..12 in any state, and manual conf windows on quarter hours."""
    runs = [
        scheduled(hour, draw(st.sampled_from(["success", "failed", "running", "queued"])))
        for hour in range(1, 13)
        if draw(st.booleans())
    ]
    for n in range(draw(st.integers(0, 4))):
        lo = draw(st.integers(-4, 52))
        length = draw(st.integers(1, 12))
        state = draw(st.sampled_from(["success", "failed"]))
        runs.append(manual(f"manual__{n}", START + lo * QUARTER, START + (lo + length) * QUARTER, state))
    return runs


@given(histories())
def test_gaps_and_covered_fires_are_the_unprocessed_quarter_hours_of_the_expected_windows(
    runs: list[RunRecord],
) -> None:
    # The oracle cuts time into quarter hours (every window here starts and ends on one) and marks each as processed
    # when a run that succeeded or is in flight has a window holding it: no merging, no sweeping.
    policy = CatchupPolicy(HOURLY, start=START)
    result = coverage(policy, True, None, runs, now=at(12, 30))
    done = set()
    for run in runs:
        if run.state == "failed":
            continue
        if run.run_type == "scheduled":
            assert run.data_interval_start is not None and run.data_interval_end is not None
            lo, hi = run.data_interval_start, run.data_interval_end
        else:
            assert run.conf is not None
            lo = datetime.fromisoformat(run.conf["hops_window"]["start_time"].replace("Z", "+00:00"))
            hi = datetime.fromisoformat(run.conf["hops_window"]["end_time"])
        done |= {lo + k * QUARTER for k in range(int((hi - lo) / QUARTER))}
    expected = [f for f in result.fires if f.expected]
    wanted = sorted({f.window.start + k * QUARTER for f in expected for k in range(4)})
    holes: list[list[datetime]] = []
    for slot in wanted:
        if slot in done:
            continue
        if holes and holes[-1][1] == slot:
            holes[-1][1] = slot + QUARTER
        else:
            holes.append([slot, slot + QUARTER])
    assert [(g.start, g.end) for g in result.gaps] == [tuple(h) for h in holes]
    for fire in result.fires:
        assert fire.covered == all(fire.window.start + k * QUARTER in done for k in range(4)), fire
    for gap in result.gaps:
        meeting = [f for f in expected if f.window.start < gap.end and gap.start < f.window.end]
        assert set(gap.reasons) == {f.status for f in meeting}
