"""A DAG's history at any size: runs that read alike kept as blocks (docs/audit-and-ui.md), so memory and time grow
with what differs. :class:`Blocks` builds them from runs streamed in, keeping every other run whole;
:class:`~.fires.Rules` answers from blocks exactly as from the runs they stand for. Pure: no Airflow import."""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any

from hops_timetable.core.catchup import CatchupPolicy
from hops_timetable.core.conf_window import SCHEDULED_RUN_TYPES, offset_made_with
from hops_timetable.core.coverage.runs import RunRecord, RunWindow, run_window
from hops_timetable.core.window import as_utc, hops_window


@dataclass(frozen=True)
class RunBlock:
    """*count* runs of one type and state, one at each of the consecutive fires ``first_fire`` .. ``last_fire``,
    each interval starting where the one before ends (the first at ``first_start``), each processing the scheduler's
    window. ``first_queued`` is the first run's ``queued_at`` and ``last_queued`` the last one's (the instants the
    catch-up bound is asked at around a gap; None where unknown); ``run_ids`` the runs' ids in fire order when they
    were kept, else only the ends are known (``first_id``, ``last_id``)."""

    run_type: str
    state: str
    first_start: datetime
    first_fire: datetime
    last_fire: datetime
    count: int
    first_queued: datetime | None
    first_id: str
    last_id: str
    run_ids: tuple[str, ...] | None = None
    last_queued: datetime | None = None

    def holds(self, fire: datetime) -> bool:
        return self.first_fire <= fire <= self.last_fire

    def interval_start(self, fire: datetime, policy: CatchupPolicy) -> datetime:
        """The data interval start of the run at *fire* (a fire of the block): where the run before it ends."""
        if fire == self.first_fire:
            return self.first_start
        previous = policy.cron.prev_before(fire)
        assert previous is not None
        return previous

    def span(self, offset: int | None) -> tuple[datetime, datetime]:
        """The HOPS time the block's windows cover, end to end: from the first window's start to the last's end."""
        shift = timedelta(seconds=offset or 0)
        return as_utc(self.first_start) - shift, as_utc(self.last_fire) - shift

    def run_id(self, fire: datetime, policy: CatchupPolicy) -> str | None:
        """The id of the run at *fire*, where it is known."""
        if fire == self.first_fire:
            return self.first_id
        if fire == self.last_fire:
            return self.last_id
        return None if self.run_ids is None else self.run_ids[policy.cron.count_between(self.first_fire, fire) - 1]

    @property
    def label(self) -> str:
        """The block's runs as one name: ``first .. last (n runs)``."""
        return f"{self.first_id} .. {self.last_id} ({self.count:,} runs)"


class Blocks:
    """Runs streamed in (any order), kept as :class:`RunBlock` s where they read alike and whole otherwise.

    A run joins the newest block when its fire is the fire after the block's last, its interval starts at that fire,
    and it has the block's type and state; a run at an older fire is kept whole. The newest *tail* runs that could
    join a block are held whole until newer ones push them out (so the newest fires keep their runs, as
    ``audit`` lists them); *keep_ids* keeps every block's run ids (one string a run).
    """

    def __init__(self, policy: CatchupPolicy, offset: int | None, *, tail: int = 0, keep_ids: bool = False) -> None:
        self.policy, self.offset, self.tail, self.keep_ids = policy, offset, tail, keep_ids
        self._ids: list[str] = []
        self._held: deque[RunRecord] = deque()
        self.singles: list[RunRecord]
        self.blocks: list[RunBlock]
        self._newest: datetime | None  # the newest fire held or in a block
        self.resume([], [], None)
        self._trusting, self._sound = False, True

    def trust(self) -> None:
        """From now until :meth:`checked`, a run joins the newest block when its fire is a fire of the cron at all,
        not asked to be the one after the block's last: each block's fires are checked consecutive once, when it
        is sealed (asking the cron for every run cost a third of a first read of a long history)."""
        self._trusting = self._sound = True

    def checked(self) -> bool:
        """Whether every block joined since :meth:`trust` holds consecutive fires (so the blocks and runs kept whole
        are those of runs added one by one); the builder takes runs one by one again from now on. When False, a
        run joined a block over a fire of the cron it skipped (a schedule changed under the runs): the caller adds
        the runs again to a new builder without trusting it."""
        self._flush()
        self._trusting = False
        return self._sound

    def add(self, runs: Iterable[RunRecord]) -> None:
        for run in runs:
            fire = as_utc(run.data_interval_end) if self._alike(run) else None  # type: ignore[arg-type]
            if fire is None or (self._newest is not None and fire <= self._newest):
                self.singles.append(run)
                continue
            self._newest = fire
            self._held.append(run)
            if len(self._held) > self.tail:  # the oldest held joins the newest block, or is kept whole
                held = self._held.popleft()
                start, end = as_utc(held.data_interval_start), as_utc(held.data_interval_end)  # type: ignore[arg-type]
                queued = None if held.queued_at is None else as_utc(held.queued_at)
                if not self._fold(held.run_type, held.state, start, end, held.run_id, queued):
                    self.singles.append(held)

    def add_plain(
        self,
        run_id: str,
        run_type: str,
        state: str,
        start: datetime,
        fire: datetime,
        queued_at: datetime | None,
        conf: Mapping[str, Any] | None,
    ) -> None:
        """:meth:`add` of a run as the timetable makes it (logical date its interval's start *start*, ``run_after``
        its end *fire*, both aware UTC): the same blocks and runs kept whole, but without *conf* its window is the
        scheduler's at the offset its id was made with (:func:`offset_made_with`), no window rule asked run by run."""
        if (
            conf
            or run_type not in SCHEDULED_RUN_TYPES
            or not start < fire
            or not self._offset_alike(run_id, run_type)
            or self.tail
            or (self._newest is not None and fire <= self._newest)
        ):
            self.add((RunRecord(run_id, run_type, state, fire, start, start, fire, queued_at, conf),))
            return
        self._newest = fire
        if not self._fold(run_type, state, start, fire, run_id, queued_at):
            self.singles.append(RunRecord(run_id, run_type, state, fire, start, start, fire, queued_at, conf))

    def replace(self, run_id: str, fire: datetime | None, record: RunRecord | None) -> None:
        """The run *run_id* (at *fire*, for a scheduled or backfill run) changed to *record*, or was deleted (``None``):
        from now on it is kept whole, and cut out of the block that held it."""
        whole = [r for r in [*self.singles, *self._held] if r.run_id == run_id]
        self.singles = [r for r in self.singles if r.run_id != run_id]
        self._held = deque(r for r in self._held if r.run_id != run_id)
        if not whole and fire is not None:
            self._seal()
            self.resume(self.singles, split_blocks(self.blocks, fire, fire, self.policy), self._newest)
        if record is not None:
            self.singles.append(record)

    def resume(self, singles: list[RunRecord], blocks: list[RunBlock], newest: datetime | None) -> None:
        """Take up where a builder left off whose :meth:`finish` gave *singles* and *blocks* (without *tail* or
        *keep_ids*), *newest* its ``newest``: the runs added from now on fold as they would have into that one."""
        self.singles, self.blocks, self._newest = singles, blocks, newest
        # The newest block's kind, last fire, run count, last run id and queued_at, ahead of blocks[-1] until _flush:
        # a RunBlock built again for every run joined cost more than the rest of a run's fold.
        top = self.blocks[-1] if self.blocks else None
        self._kind = None if top is None else (top.run_type, top.state)
        self._last_fire = None if top is None else top.last_fire
        self._count = 0 if top is None else top.count
        self._last_id = "" if top is None else top.last_id
        self._last_queued = None if top is None else top.last_queued

    @property
    def newest(self) -> datetime | None:
        """The newest fire of a run that could stand in a block (what :meth:`resume` takes up again)."""
        return self._newest

    def finish(self) -> tuple[list[RunRecord], list[RunBlock]]:
        """The runs kept whole and the blocks (copies); with *keep_ids* the builder is spent, else it takes more."""
        self._seal()
        return [*self.singles, *self._held], list(self.blocks)

    def _alike(self, run: RunRecord) -> bool:
        """Whether *run* could stand in a block: a scheduled or backfill run processing the scheduler's window."""
        if run.run_type not in SCHEDULED_RUN_TYPES or run.data_interval_start is None or run.data_interval_end is None:
            return False
        start = as_utc(run.data_interval_start)
        if run.logical_date is None or as_utc(run.logical_date) != start:
            return False  # a logical date of its own: the repair plan must see it taken
        end = as_utc(run.data_interval_end)
        if not run.conf and start < end and as_utc(run.run_after) == end:
            # A run the timetable made, without conf: the rule gives the scheduler's window at the offset its id
            # was made with, so the offsets alone decide (the rule asked run by run cost most of a fold).
            return self._offset_alike(run.run_id, run.run_type)
        seen: RunWindow = run_window(run, self.offset, self.policy)
        return (
            seen.error is None
            and seen.carried == "scheduler"
            and seen.window == hops_window(run.data_interval_start, run.data_interval_end, self.offset)
        )

    def _offset_alike(self, run_id: str, run_type: str) -> bool:
        """Whether the window of a run the timetable made (without conf) is the scheduler's at the DAG's offset: the
        offset the run was made with moves it as the DAG's does (None and 0 alike)."""
        return (offset_made_with(run_id, run_type == "scheduled", self.offset) or 0) == (self.offset or 0)

    def _fold(
        self, run_type: str, state: str, start: datetime, fire: datetime, run_id: str, queued: datetime | None
    ) -> bool:
        """Join the run to the newest block (its kind, its interval starting at the block's last fire, its fire the
        one after) or open a block with it; False when it is to be kept whole: its window would meet the block's,
        and no window of a block is another's."""
        cron = self.policy.cron
        if (
            self._kind == (run_type, state)
            and start == self._last_fire
            and (cron.matches(fire) if self._trusting else cron.next_after(start) == fire)
        ):
            self._last_fire, self._count, self._last_id, self._last_queued = fire, self._count + 1, run_id, queued
            if self.keep_ids:
                self._ids.append(run_id)
            return True
        if self._last_fire is not None and start < self._last_fire:
            return False
        self._seal()
        self.blocks.append(RunBlock(run_type, state, start, fire, fire, 1, queued, run_id, run_id, last_queued=queued))
        self._ids = [run_id]
        self._kind, self._last_fire, self._count, self._last_id = (run_type, state), fire, 1, run_id
        self._last_queued = queued
        return True

    def _flush(self) -> None:
        """blocks[-1] as the runs joined since it was built say, and while trusting, whether its fires are consecutive:
        no other fire of the cron lies between its first and its last (the (count - 1)-th before the last)."""
        top = self.blocks[-1] if self.blocks else None
        if top is not None and self._last_fire is not None and top.count != self._count:
            self.blocks[-1] = top = replace(
                top, last_fire=self._last_fire, count=self._count, last_id=self._last_id, last_queued=self._last_queued
            )
        if self._trusting and top is not None and top.count > 1:
            before = self.policy.cron.nth_before(top.last_fire, top.count - 1)
            self._sound = self._sound and (before is None or before <= top.first_fire)

    def _seal(self) -> None:
        self._flush()
        if self.keep_ids and self.blocks and self.blocks[-1].run_ids is None:
            self.blocks[-1] = replace(self.blocks[-1], run_ids=tuple(self._ids))
        self._ids = []


def earliest_start(records: Iterable[RunRecord], blocks: Iterable[RunBlock]) -> datetime | None:
    """The oldest data interval start of a scheduled or backfill run, kept whole or in a block (where a timeline
    without a start begins)."""
    whole = [r.data_interval_start for r in records if r.run_type in SCHEDULED_RUN_TYPES]
    return min([*(as_utc(s) for s in whole if s is not None), *(b.first_start for b in blocks)], default=None)


def split_blocks(blocks: Sequence[RunBlock], lo: datetime, hi: datetime, policy: CatchupPolicy) -> list[RunBlock]:
    """*blocks* without their fires in ``[lo, hi]`` (whose runs the caller reads whole instead)."""
    cron = policy.cron
    out = []
    for block in blocks:
        if block.last_fire < lo or block.first_fire > hi:
            out.append(block)
            continue
        before = cron.prev_before(lo) if block.first_fire < lo else None
        if before is not None:
            count = cron.count_between(block.first_fire, before)
            ids = None if block.run_ids is None else block.run_ids[:count]
            last_id = block.run_id(before, policy) or f"{block.first_id} + {count - 1}"
            out.append(replace(block, last_fire=before, count=count, last_id=last_id, run_ids=ids, last_queued=None))
        after = cron.next_after(hi) if block.last_fire > hi else None
        if after is not None:
            count = cron.count_between(after, block.last_fire)
            ids = None if block.run_ids is None else block.run_ids[-count:]
            first_id = block.run_id(after, policy) or f"{block.last_id} - {count - 1}"
            moved = replace(block, first_start=block.interval_start(after, policy), first_fire=after, first_queued=None)
            out.append(replace(moved, count=count, first_id=first_id, run_ids=ids))
    return out
