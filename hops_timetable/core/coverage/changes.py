"""Where two readings of a DAG's runs start to differ: what :func:`~.history.history` keeps of a history worked out
before when only the newest runs changed or the clock moved on."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta

from hops_timetable.core.conf_window import SCHEDULED_RUN_TYPES
from hops_timetable.core.coverage.fires import Rules
from hops_timetable.core.window import TICK, as_utc


def unchanged_before(old: Rules, new: Rules) -> datetime | None:
    """An instant before which every fire reads alike under *old* and *new* (its decision, runs, state, coverage
    and pending), so the stretches of those fires carry over; ``None`` when no fire surely does.

    A fire reads the runs at it, the processed windows meeting its own, the scheduled runs around it and *now*
    (the first fire due, the grace period). Every run and block past the first that differ counts as changed.
    """
    if (old.policy, old.catchup, old.offset) != (new.policy, new.catchup, new.offset):
        return None
    shift = timedelta(seconds=new.offset or 0)
    fires: list[datetime] = []  # fires whose runs may differ
    points: list[datetime] = []  # instants from which a fire may read otherwise
    index = _first_difference(old.records, new.records)
    for rules in (old, new):
        for record, seen in zip(rules.records[index:], rules.windows[index:], strict=True):
            if record.run_type in SCHEDULED_RUN_TYPES and record.data_interval_end is not None:
                fires.append(as_utc(record.data_interval_end))
            if seen.window is not None:
                # A fire's window ends at the fire minus the offset: one ending at or before this start reads alike.
                points.append(seen.window.start + shift)
    index = _first_difference(old.blocks, new.blocks)
    for rules in (old, new):
        for block, (lo, _) in zip(rules.blocks[index:], rules.block_spans[index:], strict=True):
            fires.append(block.first_fire)
            points.append(lo + shift)
    if fires:
        changed = min(fires)
        # The fires of the gap before a changed run are decided by it: only those up to the newest scheduled run
        # before it (the same in both, every run before *changed* being so) read alike.
        before = [rules.scheduled_before(changed) for rules in (old, new)]
        if None in before:
            return None
        points.append(min(b[0] for b in before if b is not None) + TICK)
    points += [rules.due_from for rules in (old, new) if rules.due_from is not None]  # due and pending fires
    return min(points) if points else max(old.now, new.now) + TICK  # else nothing differs: every fire carries over


def _first_difference(old: Sequence[object], new: Sequence[object]) -> int:
    pairs = enumerate(zip(old, new, strict=False))
    return next((index for index, (a, b) in pairs if a is not b and a != b), min(len(old), len(new)))
