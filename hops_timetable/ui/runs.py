"""The runs the tab reads: a DAG's ended runs kept between views folded into
:class:`~hops_timetable.core.coverage.Blocks` (and on disk, :mod:`~hops_timetable.ui.run_snapshot`), brought up to date
by bounded queries of ``dag_run``, each served by an index; the whole history is read (:meth:`_Folded.fold_all`) only
without a snapshot. docs/audit-and-ui.md tells which queries and why each is bounded.
"""

from __future__ import annotations

import itertools
import json
import threading
from collections import Counter, OrderedDict
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from hops_timetable import _compat, config
from hops_timetable.core.conf_window import SCHEDULED_RUN_TYPES
from hops_timetable.core.coverage import Blocks, RunBlock, RunRecord, split_blocks
from hops_timetable.core.coverage.blocks import earliest_start
from hops_timetable.core.schedule import Schedule
from hops_timetable.core.time_text import stored_time
from hops_timetable.core.window import as_utc
from hops_timetable.ui import run_snapshot
from hops_timetable.ui.run_snapshot import Snapshot

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

_IN_FLIGHT = ("queued", "running")
_SAVE_EVERY = 1_000  # runs folded since the last snapshot: what an api-server started again reads at most anew
_VERSIONS = itertools.count(1)
_WATCHED = ("failed", *_IN_FLIGHT)

RUN_COLUMNS = tuple(
    "id run_id run_type state run_after logical_date data_interval_start data_interval_end queued_at conf".split()  # noqa: SIM905
)
"""The columns of ``dag_run`` the tab reads, in this order: no ORM object is built for a row."""


@dataclass(frozen=True)
class RunQuery:
    """Which ``dag_run`` rows of one DAG :func:`run_rows` reads; each form is served by an index of the table:
    ``(dag_id, run_id)``, ``(dag_id, logical_date)``, the primary key, ``(dag_id, state)``."""

    run_id: str | None = None
    after_id: int | None = None
    upto_id: int | None = None
    ids: tuple[int, ...] | None = None
    logical_from: datetime | None = None
    logical_to: datetime | None = None
    states: tuple[str, ...] = ()
    run_types: tuple[str, ...] = ()
    limit: int | None = None


def run_rows(session: Session, dag_id: str, query: RunQuery | None = None, *, raw: bool = False) -> Iterator[Any]:
    """The ``dag_run`` rows of DAG *dag_id* that *query* names (all without one), as tuples of :data:`RUN_COLUMNS`
    (datetimes aware, ``conf`` decoded; *raw*: each column as the driver gives it, read by :func:`when` and
    :func:`conf_of`), oldest id first (unless it names states), streamed in batches."""
    from sqlalchemy import String, Text, cast, select, type_coerce

    c, q = _compat.dag_run_table().c, query or RunQuery()
    columns = [c[name] for name in RUN_COLUMNS]
    if raw:  # SQLAlchemy's conversion of datetimes cost most of reading a long history
        columns = [c.id, c.run_id, *(type_coerce(c[name], String) for name in RUN_COLUMNS[2:9]), cast(c.conf, Text)]
    bounds: tuple[tuple[Any, Callable[[Any], Any]], ...] = (
        (q.run_id, lambda v: c.run_id == v),
        (q.after_id, lambda v: c.id > v),
        (q.upto_id, lambda v: c.id <= v),
        (q.ids, c.id.in_),
        (q.logical_from, lambda v: c.logical_date >= v),
        (q.logical_to, lambda v: c.logical_date <= v),
        (q.states or None, c.state.in_),
        (q.run_types or None, c.run_type.in_),
    )
    rows = select(*columns).where(c.dag_id == dag_id, *(bound(v) for v, bound in bounds if v is not None))
    if not q.states:
        # By states, in any order: ordered by id, SQLite walks every run of the DAG by id (2 s at 10^6 runs).
        rows = rows.order_by(c.id)
    found = session.execute(rows.limit(q.limit).execution_options(yield_per=5_000))
    yield from map(tuple, found) if raw else found


_EMPTY_CONF: dict[str | None, dict[str, Any] | None] = {None: None, "null": None, "{}": {}}
"""A ``conf`` column's text that holds no key, and the conf it is (what :func:`record_of` gives)."""


def raw_run_rows(
    session: Session, dag_id: str, after_id: int | None = None, limit: int | None = None
) -> Iterator[tuple[Any, ...]]:
    """:func:`run_rows` of the ids above *after_id* (*limit* at most), each column as the driver gives it."""
    return run_rows(session, dag_id, RunQuery(after_id=after_id, limit=limit), raw=True)


def when(value: Any) -> datetime | None:
    """A datetime column of :func:`raw_run_rows` (text on SQLite) aware UTC, as ``UtcDateTime`` reads it."""
    return None if value is None else _at(value)


def conf_of(value: Any) -> dict[str, Any] | None:
    """The ``conf`` column of :func:`raw_run_rows` as :func:`record_of` reads it: a dict, else None."""
    if value in _EMPTY_CONF:
        return _EMPTY_CONF[value]
    loaded = json.loads(value) if isinstance(value, str) else value
    return loaded if isinstance(loaded, dict) else None


def _at(value: Any) -> datetime:
    return stored_time(value) if isinstance(value, str) else as_utc(value)


def run_state_counts(session: Session, dag_id: str, states: tuple[str, ...], upto_id: int) -> dict[str, int]:
    """How many runs of *dag_id* with an id up to *upto_id* are in each of *states* (the ``(dag_id, state)`` index:
    the cost is that of the runs counted)."""
    from sqlalchemy import func, select

    table = _compat.dag_run_table()
    q = (
        select(table.c.state, func.count())
        .where(table.c.dag_id == dag_id, table.c.state.in_(states), table.c.id <= upto_id)
        .group_by(table.c.state)
    )
    return {str(state): int(n) for state, n in session.execute(q)}


def enum_text(item: Any) -> str:
    """A run type or state as text, whether the row holds Airflow's enum or its string."""
    return str(getattr(item, "value", item))


def record_of(row: Any, raw: bool = False) -> RunRecord:
    """A row of :func:`run_rows` (*raw*: of :func:`raw_run_rows`) as the core reads a run."""
    _, run_id, run_type, state, run_after, *times, conf = row
    logical, start, end, queued = map(when, times)
    conf = conf_of(conf) if raw else conf if isinstance(conf, dict) else None
    return RunRecord(run_id, enum_text(run_type), enum_text(state), _at(run_after), logical, start, end, queued, conf)


@dataclass
class _Folded:
    """The runs of one DAG with an id up to ``upto`` that had ended when read, folded; those in flight kept apart."""

    settings: Schedule
    builder: Blocks
    upto: int = 0
    failed: dict[int, RunRecord] = field(default_factory=dict)  # folded runs that failed, by row id
    in_flight: dict[int, RunRecord] = field(default_factory=dict)
    version: int = field(default_factory=lambda: next(_VERSIONS))  # a new one whenever what is held changes
    upto_run_id: str = ""  # the run at row ``upto``
    saved: int | None = None  # the ``upto`` of the snapshot last written or taken up

    def fold(self, rows: Iterable[Any]) -> None:
        for row in rows:
            self._take(int(row.id), record_of(row))

    def _take(self, row_id: int, record: RunRecord) -> None:
        if self.in_flight.get(row_id) == record:
            return  # still in flight as it was
        self.version = next(_VERSIONS)
        if row_id > self.upto:
            self.upto, self.upto_run_id = row_id, record.run_id
        if record.state in _IN_FLIGHT:
            self.in_flight[row_id] = record
            return
        self.in_flight.pop(row_id, None)
        if record.state == "failed":
            self.failed[row_id] = record
        self.builder.add((record,))

    def fold_all(self, session: Session, dag_id: str, *, trusting: bool = True) -> bool:
        """:meth:`fold` of every run of the DAG, the columns as the driver gives them: a run that succeeded as the
        timetable made it goes to :meth:`Blocks.add_plain` with its datetimes parsed and nothing else (converting
        every column of a million rows took minutes). *trusting*: :meth:`Blocks.trust`; False when a block's runs
        skipped a fire, and then this fold is not the one of the rows one by one."""
        add_plain = self.builder.add_plain
        if trusting:
            self.builder.trust()
        row_id, run_id = self.upto, self.upto_run_id
        reading = READING.get(dag_id)
        for count, row in enumerate(raw_run_rows(session, dag_id), 1):
            if reading is not None and not count % LONG_READ:
                reading.runs = count
                reading.answer.set()
            row_id, run_id, run_type, state, run_after, logical_date, start, end, queued_at, conf = row
            plain = state == "success" and conf in _EMPTY_CONF and start is not None
            if plain and logical_date == start and run_after == end:
                add_plain(run_id, run_type, state, _at(start), _at(end), when(queued_at), _EMPTY_CONF[conf])
            else:
                self._take(row_id, record_of(row, raw=True))
        if row_id > self.upto:
            self.upto, self.upto_run_id = row_id, run_id
        self.version = next(_VERSIONS)
        return self.builder.checked()

    def catch_up(self, session: Session, dag_id: str) -> None:
        """Take in what changed among the runs already folded: those in flight, and any run that is now or was
        failed, queued or running (a clear, a mark, a deletion), each cut out of its block and kept whole."""
        ids = tuple(self.in_flight)
        returned = {int(row.id): row for row in run_rows(session, dag_id, RunQuery(ids=ids))}
        for gone in set(ids) - set(returned):
            del self.in_flight[gone]
            self.version = next(_VERSIONS)
        self.fold(returned.values())
        expected = Counter({"failed": len(self.failed)}) + Counter(r.state for r in self.in_flight.values())
        if Counter(run_state_counts(session, dag_id, _WATCHED, self.upto)) == expected:  # a missing state counts 0
            return
        self.saved = None  # older runs changed: written again, so that a restart need not read them again
        query = RunQuery(states=_WATCHED, upto_id=self.upto)
        now = {int(row.id): record_of(row) for row in run_rows(session, dag_id, query)}
        was = {**self.failed, **self.in_flight}
        ended = tuple(i for i in was if i not in now)
        after = {int(row.id): record_of(row) for row in run_rows(session, dag_id, RunQuery(ids=ended))}
        for row_id in {*now, *ended}:
            old, new = was.get(row_id), now.get(row_id, after.get(row_id))
            if old is not None and new is not None and old == new:
                continue
            self.version = next(_VERSIONS)
            self.failed.pop(row_id, None)
            self.in_flight.pop(row_id, None)
            if new is not None and new.state in _IN_FLIGHT:
                self.in_flight[row_id] = new
            elif new is not None and new.state == "failed":
                self.failed[row_id] = new
            changed = new or old
            assert changed is not None
            end = changed.data_interval_end if changed.run_type in SCHEDULED_RUN_TYPES else None
            kept = None if new is None or new.state in _IN_FLIGHT else new
            self.builder.replace(changed.run_id, None if end is None else as_utc(end), kept)


@dataclass(frozen=True)
class DagRuns:
    """What one view reads of a DAG's runs: those kept whole, the blocks, and the newest scheduled fire."""

    records: list[RunRecord]
    blocks: list[RunBlock]
    version: int = 0
    """The kept runs' version: the blocks of two views with the same version and page are the same."""

    @property
    def newest_scheduled(self) -> datetime | None:
        """The newest fire with a scheduled run (where the next windows are counted from)."""
        fires = [as_utc(r.run_after) for r in self.records if r.run_type == "scheduled"]
        fires += [b.last_fire for b in self.blocks if b.run_type == "scheduled"]
        return max(fires, default=None)

    @property
    def earliest_start(self) -> datetime | None:
        return earliest_start(self.records, self.blocks)


_KEPT: OrderedDict[str, _Folded] = OrderedDict()
_LOCK = threading.Lock()  # over _KEPT and _DAG_LOCKS; each DAG's runs are read under its own lock
_DAG_LOCKS: dict[str, threading.Lock] = {}
LONG_READ = 10_000
"""Runs read of a DAG's whole history after which a view waiting for the read answers how far it is."""


@dataclass
class Reading:
    """A DAG's runs being read for a view: how many of its whole history so far (every :data:`LONG_READ`), and
    ``answer``, set once the waiting views should answer (the read ended, or is long)."""

    runs: int = 0
    answer: threading.Event = field(default_factory=threading.Event)


READING: dict[str, Reading] = {}


def folded(dag_id: str, settings: Schedule) -> bool:
    """Whether the DAG's runs are held folded for *settings*: a view then reads only what changed since."""
    held = _KEPT.get(dag_id)
    return held is not None and held.settings == settings


def _up_to_date(session: Session, dag_id: str, settings: Schedule) -> _Folded:
    """The DAG's folded runs, brought up to date (folded again from the start when an older run changed)."""
    folded = _KEPT.get(dag_id)
    if folded is None or folded.settings != settings:
        folded = _taken_up(session, dag_id, settings)
    if folded is not None:
        folded.catch_up(session, dag_id)
        folded.fold(run_rows(session, dag_id, RunQuery(after_id=folded.upto)))
    else:
        folded = _Folded(settings, Blocks(settings.policy(), settings.offset))
        if not folded.fold_all(session, dag_id):
            # Runs of a block skipped a fire of the schedule (it changed under them): read again, each join asked.
            folded = _Folded(settings, Blocks(settings.policy(), settings.offset))
            folded.fold_all(session, dag_id, trusting=False)
    with _LOCK:
        _KEPT[dag_id] = folded
        _KEPT.move_to_end(dag_id)
        while len(_KEPT) > config.settings().tab_kept_dags:
            _KEPT.popitem(last=False)
    return folded


def _taken_up(session: Session, dag_id: str, settings: Schedule) -> _Folded | None:
    """The DAG's folded runs as its snapshot holds them, if folded for *settings* and the database still holds their
    run at the highest row id and as many runs up to it (a run deleted since, as ``airflow db clean`` does, not)."""
    from sqlalchemy import func, select

    snapshot = run_snapshot.read(dag_id, settings)
    if snapshot is None:
        return None
    top = [row.run_id for row in run_rows(session, dag_id, RunQuery(ids=(snapshot.upto,)))]
    c = _compat.dag_run_table().c  # the runs up to it, counted on an index of dag_id: about 0.1 s at 10^6 runs
    count = select(func.count()).where(c.dag_id == dag_id, c.id <= snapshot.upto)
    if top != [snapshot.upto_run_id] or session.execute(count).scalar_one() != snapshot.runs:
        return None
    builder = Blocks(settings.policy(), settings.offset)
    builder.resume(snapshot.singles, snapshot.blocks, snapshot.newest)
    upto, failed, in_flight = snapshot.upto, snapshot.failed, snapshot.in_flight
    return _Folded(settings, builder, upto, failed, in_flight, upto_run_id=snapshot.upto_run_id, saved=upto)


def dag_runs(session: Session, dag_id: str, settings: Schedule) -> DagRuns:
    """The runs of *dag_id* as the view starts from them: the history as blocks and the runs kept whole."""
    with _LOCK:
        lock = _DAG_LOCKS.setdefault(dag_id, threading.Lock())
    with lock:
        folded = _up_to_date(session, dag_id, settings)
        records, blocks = folded.builder.finish()
        if folded.upto and (folded.saved is None or folded.upto - folded.saved >= _SAVE_EVERY):
            parts = (folded.upto_run_id, folded.builder.newest, records, blocks, folded.failed, folded.in_flight)
            run_snapshot.write(settings, Snapshot(dag_id, folded.upto, *parts))
            folded.saved = folded.upto
        return DagRuns([*records, *folded.in_flight.values()], blocks, folded.version)


def with_page(session: Session, dag_id: str, settings: Schedule, runs: DagRuns, lo: datetime, hi: datetime) -> DagRuns:
    """*runs* with those of the fires ``lo`` .. ``hi`` (the page shown) read whole, as they are now."""
    policy = settings.policy()
    # A scheduled or backfill run's logical date is its interval's start, which is before its fire and no earlier
    # than the first fire's interval start: the page's runs are a range of the (dag_id, logical_date) index.
    query = RunQuery(logical_from=policy.interval_start(lo), logical_to=hi)
    fresh = [record_of(row) for row in run_rows(session, dag_id, query)]

    def on_page(record: RunRecord) -> bool:
        end = record.data_interval_end
        return record.run_type in SCHEDULED_RUN_TYPES and end is not None and lo <= as_utc(end) <= hi

    whole = {r.run_id: r for r in runs.records if not on_page(r)}
    # Runs of other fires in the range are the blocks' or already whole: only the page's and unscheduled ones.
    whole.update((r.run_id, r) for r in fresh if on_page(r) or r.run_type not in SCHEDULED_RUN_TYPES)
    return DagRuns(list(whole.values()), split_blocks(runs.blocks, lo, hi, policy), runs.version)


def one_run(session: Session, dag_id: str, run_id: str) -> RunRecord | None:
    """The run *run_id* of *dag_id*, if it exists (the ``(dag_id, run_id)`` index)."""
    rows = list(run_rows(session, dag_id, RunQuery(run_id=run_id)))
    return record_of(rows[0]) if rows else None
