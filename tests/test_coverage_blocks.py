"""Runs kept as blocks (``core/coverage/blocks``): the coverage and the history read exactly as with every run whole,
at a memory set by the runs that differ."""

from __future__ import annotations

from datetime import datetime, timedelta

from fuzzing import examples
from hypothesis import given, settings
from hypothesis import strategies as st
from runs_by_hand import HOURLY, START, at, manual, scheduled
from test_coverage_history import schedules

from hops_timetable.core.catchup import CatchupPolicy
from hops_timetable.core.conf_window import mark_offset
from hops_timetable.core.coverage import Blocks, Coverage, RunRecord, coverage, history, split_blocks


def _facts(cov: Coverage) -> dict[str, object]:
    return {
        "fires": [(f.fire, f.decision, f.status, f.state, f.run_ids, f.covered, f.pending) for f in cov.fires],
        "gaps": [(g.start, g.end, g.reasons, g.run_ids) for g in cov.gaps],
        "dropped": [(d.start, d.end, d.reasons) for d in cov.dropped],
        "overlaps": [(o.start, o.end, o.run_ids) for o in cov.overlaps],
        "duplicates": [(d.start, d.end, d.run_ids) for d in cov.duplicates],
        "verdict": cov.verdict(),
        "counts": cov.counts,
        "begin": cov.begin,
    }


def _blocked(policy: CatchupPolicy, offset: int | None, runs: list[RunRecord], tail: int = 0):  # type: ignore[no-untyped-def]
    builder = Blocks(policy, offset, tail=tail, keep_ids=True)
    for n in range(0, len(runs), 7):  # pages, as the REST API serves them
        builder.add(runs[n : n + 7])
    return builder.finish()


@settings(max_examples=examples(500), deadline=None)
@given(schedules(), st.integers(0, 3))
def test_blocks_read_exactly_as_the_runs_they_stand_for(
    case: tuple[CatchupPolicy, bool, int | None, list[RunRecord], datetime], tail: int
) -> None:
    policy, catchup, offset, runs, now = case
    runs = sorted(runs, key=lambda r: r.run_after)
    singles, blocks = _blocked(policy, offset, runs, tail)
    assert len(singles) + sum(b.count for b in blocks) == len(runs)
    whole = coverage(policy, catchup, offset, runs, now)
    assert _facts(coverage(policy, catchup, offset, singles, now, blocks=blocks)) == _facts(whole)
    hist = history(policy, catchup, offset, singles, now, blocks=blocks)
    assert hist.verdict() == whole.verdict() and hist.counts() == whole.counts


def test_a_run_for_every_fire_is_one_block_and_a_failure_cuts_it() -> None:
    policy = CatchupPolicy(HOURLY, start=START)
    runs = [scheduled(h, "failed" if h == 500 else "success") for h in range(1, 1001)]
    singles, blocks = _blocked(policy, None, runs)
    assert singles == [] and [(b.state, b.count) for b in blocks] == [("success", 499), ("failed", 1), ("success", 500)]
    now = at(1000, 30)
    whole = coverage(policy, True, None, runs, now)
    assert _facts(coverage(policy, True, None, [], now, blocks=blocks)) == _facts(whole)
    assert "1 of 1,000 expected window(s) not processed" in whole.verdict()


def test_a_page_read_whole_replaces_its_fires_in_the_blocks() -> None:
    # What the tab does: blocks for the history, the page's fires' runs read whole, nothing counted twice.
    policy = CatchupPolicy(HOURLY, start=START)
    runs = [scheduled(h, "failed" if h % 97 == 0 else "success") for h in range(1, 601)]
    builder = Blocks(policy, None)
    builder.add(runs)
    _, blocks = builder.finish()
    assert all(b.run_ids is None for b in blocks)
    lo, hi = at(250), at(449)
    page = [r for r in runs if r.data_interval_end is not None and lo <= r.data_interval_end <= hi]
    rest = split_blocks(blocks, lo, hi, policy)
    assert sum(b.count for b in rest) + len(page) == len(runs)
    now = at(600, 30)
    mixed = coverage(policy, True, None, page, now, blocks=rest, since=lo - timedelta(seconds=1), until=hi)
    whole = coverage(policy, True, None, runs, now, since=lo - timedelta(seconds=1), until=hi)
    assert _facts(mixed) == _facts(whole)


@st.composite
def assorted_runs(draw: st.DrawFn) -> tuple[int | None, list[RunRecord]]:
    """Runs of every shape a block must tell apart, in any order: scheduled and backfill runs made with any offset,
    failed and in flight, with or without a conf (a window, the form's fields, another key), taken over with another
    interval, intervals that skip a fire or are empty, repeated fires; manual runs with a window."""
    offset = draw(st.sampled_from([None, 0, 1800]))
    runs = []
    hours = draw(st.lists(st.integers(1, 40), max_size=40))
    for n, hour in enumerate(sorted(hours) if draw(st.booleans()) else hours):  # mostly in order, as Airflow makes them
        back = draw(st.sampled_from([1, 1, 1, 2, 0]))  # 2: the interval skips a fire; 0: it is empty
        start = at(hour - back)
        if draw(st.integers(0, 2)):
            # As the timetable made it (with the DAG's offset), but maybe over a skipped fire or of a zero length.
            run_id = mark_offset(f"scheduled__{hour}_{n}", offset)
            runs.append(RunRecord(run_id, "scheduled", "success", at(hour), start, start, at(hour), at(hour), None))
            continue
        run_type = draw(st.sampled_from(["scheduled", "scheduled", "backfill", "manual"]))
        if run_type == "manual":
            runs.append(manual(f"manual__{n}", at(hour - 2, 30), at(hour)))
            continue
        conf = draw(
            st.sampled_from(
                [None, {}, {}, {"other": 1}, {"hops_window": {"start_time": "2026-01-01T00:00:00Z", "end_time": "x"}}]
            )
        )
        runs.append(
            RunRecord(
                run_id=mark_offset(f"{run_type}__{hour}_{n}", draw(st.sampled_from([None, None, 0, 1800]))),
                run_type=run_type,
                state=draw(st.sampled_from(["success", "success", "failed", "queued"])),
                run_after=draw(st.sampled_from([at(hour), at(hour), at(hour, 5)])),
                logical_date=draw(st.sampled_from([start, start, start, at(hour - 3), None])),
                data_interval_start=start,
                data_interval_end=at(hour),
                queued_at=draw(st.sampled_from([None, at(hour)])),
                conf=conf,
            )
        )
    return offset, runs


@settings(max_examples=examples(1000), deadline=None)
@given(assorted_runs())
def test_a_run_added_as_the_timetable_made_it_is_kept_as_when_added_whole(
    case: tuple[int | None, list[RunRecord]],
) -> None:
    # add_plain is add without the window rule run by run: on every run whose logical date and run_after say the
    # timetable made its interval (what the tab's first read hands it), the blocks and the runs kept whole are
    # the same as add's, whatever the run's conf, type, state or offset.
    # Trusting the cron (each block's fires checked once), the check fails exactly when the blocks differ.
    offset, runs = case
    policy = CatchupPolicy(HOURLY, start=START)
    whole, plain, trusting = Blocks(policy, offset), Blocks(policy, offset), Blocks(policy, offset)
    whole.add(runs)
    trusting.trust()
    for run in runs:
        start, end = run.data_interval_start, run.data_interval_end
        for builder in (plain, trusting):
            if start is not None and end is not None and run.logical_date == start and run.run_after == end:
                builder.add_plain(run.run_id, run.run_type, run.state, start, end, run.queued_at, run.conf)
            else:
                builder.add((run,))
    expected = whole.finish()
    assert plain.finish() == expected
    assert trusting.checked() == (trusting.finish() == expected)


@settings(max_examples=examples(1000), deadline=None)
@given(assorted_runs(), st.integers(0, 2))
def test_blocks_of_runs_of_every_shape_read_as_the_runs_whole(
    case: tuple[int | None, list[RunRecord]], tail: int
) -> None:
    # The window rule asked of each run whole (coverage) is the oracle for the runs the blocks take in without it.
    # One run a fire: two runs of one fire list their ids in another order when one of them is in a block.
    offset, assorted = case
    policy = CatchupPolicy(HOURLY, start=START)
    by_fire = {r.data_interval_end or r.run_id: r for r in assorted}
    runs = sorted(by_fire.values(), key=lambda r: r.run_after)
    singles, blocks = _blocked(policy, offset, runs, tail)
    now = at(42)

    def facts(cov: Coverage) -> dict[str, object]:
        # A run kept whole that duplicates a block run's window is named after it, not before.
        return {**_facts(cov), "duplicates": [(d.start, d.end, sorted(d.run_ids)) for d in cov.duplicates]}

    whole = coverage(policy, True, offset, runs, now)
    assert facts(coverage(policy, True, offset, singles, now, blocks=blocks)) == facts(whole)
