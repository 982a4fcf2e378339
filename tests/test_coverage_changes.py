"""A history carried over from the one worked out before (``history(previous=...)``, ``core/coverage/history``): it
reads exactly as the history worked out from scratch, whatever changed, and costs what changed."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta

from fuzzing import examples
from hypothesis import given, settings
from hypothesis import strategies as st
from runs_by_hand import HOURLY, START, at, scheduled
from support import CountingCron
from test_coverage_history import schedules

from hops_timetable.core.catchup import CatchupPolicy
from hops_timetable.core.coverage import Blocks, History, RunBlock, RunRecord, history
from hops_timetable.core.decision import Decision


def _facts(hist: History) -> tuple[object, ...]:
    return (
        hist.now,
        hist.begin,
        [(s.sample, s.last, s.count, s.window_end) for s in hist.stretches],
        hist.gaps,
        hist.dropped,
        hist.duplicates,
        hist.overlaps,
        hist.fires,
        hist.counts(),
        hist.verdict(),
    )


def _as_the_tab_keeps(
    policy: CatchupPolicy, offset: int | None, runs: list[RunRecord], tail: int
) -> tuple[list[RunRecord], list[RunBlock]]:
    builder = Blocks(policy, offset, tail=tail)
    builder.add(sorted(runs, key=lambda r: r.run_after))
    return builder.finish()


@st.composite
def steps(draw: st.DrawFn) -> tuple[list[int], list[int], list[str | None]]:
    """For each of three views after the first: how many of the runs (in run order) exist, the clock's move in
    minutes, and a run's new state (``None``: none changed)."""
    shown = sorted(draw(st.lists(st.integers(0, 40), min_size=4, max_size=4)))
    moves = draw(st.lists(st.integers(-30, 600), min_size=3, max_size=3))
    states = draw(st.lists(st.none() | st.sampled_from(["failed", "success", "running"]), min_size=3, max_size=3))
    return shown, moves, states


@settings(max_examples=examples(500), deadline=None)
@given(schedules(), steps(), st.integers(0, 3), st.booleans(), st.randoms(use_true_random=False))
def test_a_history_carried_over_reads_as_the_one_worked_out_from_scratch(
    case: tuple[CatchupPolicy, bool, int | None, list[RunRecord], datetime],
    plan: tuple[list[int], list[int], list[str | None]],
    tail: int,
    in_blocks: bool,
    rnd: object,
) -> None:
    policy, catchup, offset, runs, now = case
    runs = sorted(runs, key=lambda r: (r.run_after, r.run_id))
    shown, moves, states = plan
    existing = runs[: shown[0] * len(runs) // 40]
    previous: History | None = None
    for step in range(4):
        if in_blocks:
            records, blocks = _as_the_tab_keeps(policy, offset, existing, tail)
        else:
            records, blocks = list(existing), []
        scratch = history(policy, catchup, offset, records, now, blocks=blocks)
        if previous is not None:
            carried = history(policy, catchup, offset, records, now, blocks=blocks, previous=previous)
            assert _facts(carried) == _facts(scratch)
            previous = carried
        else:
            previous = scratch
        if step == 3:
            break
        # The next view: newer runs appended, the clock moved (sometimes back), maybe an older run changed.
        existing = existing + runs[len(existing) : max(len(existing), shown[step + 1] * len(runs) // 40)]
        now += timedelta(minutes=moves[step])
        if states[step] is not None and existing:
            n = rnd.randrange(len(existing))  # type: ignore[attr-defined]
            existing = [*existing[:n], replace(existing[n], state=states[step]), *existing[n + 1 :]]


def test_a_run_appended_to_a_long_history_costs_a_few_cron_steps() -> None:
    CountingCron.calls = 0
    policy = CatchupPolicy(CountingCron(HOURLY.expression), start=START)
    # 2,000 runs, every 7th failed: about 570 stretches, each asked about anew when worked out from scratch.
    runs = [scheduled(h, "failed" if h % 7 == 0 else "success") for h in range(1, 2001)]
    records, blocks = _as_the_tab_keeps(policy, None, runs, 0)
    before = history(policy, True, None, records, at(2000, 30), blocks=blocks)
    records, blocks = _as_the_tab_keeps(policy, None, [*runs, scheduled(2001)], 0)
    CountingCron.calls = 0
    scratch = history(policy, True, None, records, at(2001, 30), blocks=blocks)
    from_scratch = CountingCron.calls
    CountingCron.calls = 0
    carried = history(policy, True, None, records, at(2001, 30), blocks=blocks, previous=before)
    assert _facts(carried) == _facts(scratch) and len(scratch.stretches) > 500
    assert from_scratch > 1000 and CountingCron.calls < 50


def test_an_old_run_changed_is_read_anew_from_the_gap_before_it() -> None:
    policy = CatchupPolicy(HOURLY, start=START)
    runs = [scheduled(h) for h in range(1, 101) if h != 40]
    before = history(policy, True, None, runs, at(100, 30))
    changed = [r if r.data_interval_end != at(60) else replace(r, state="failed") for r in runs]
    carried = history(policy, True, None, changed, at(100, 30), previous=before)
    assert _facts(carried) == _facts(history(policy, True, None, changed, at(100, 30)))
    assert [(s.first, s.count, s.sample.status) for s in carried.stretches] == [
        (at(1), 39, "ran"),
        (at(40), 1, Decision.MISSED.value),
        (at(41), 19, "ran"),
        (at(60), 1, "failed"),
        (at(61), 40, "ran"),
    ]
