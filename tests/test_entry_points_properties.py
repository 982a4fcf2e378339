"""Property tests over the pure core for every entry point: random histories of scheduled, manual and backfilled
runs (after any timetable), random cron edits and outages, replayed the way Airflow's scheduler drives a timetable.

The model of the scheduler (Airflow 3.3, ``SchedulerJobRunner._create_dag_runs`` and
``DagModel.calculate_dagrun_date_fields``): it stores the next run; when its fire is due it either finds the
stored logical date taken ("run already exists": the existing run becomes the reference) or asks the stored-run
check (``next_run_info_from_dag_model``) and creates that run, then stores the run after the one created. A
backfill lists ``range_run`` in a loop and skips taken logical dates (``reprocess_behavior="none"``). A cron edit
re-parses the DAG: the next run is recomputed from the newest scheduled or backfill run.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from datetime import datetime, timedelta

import pendulum
from airflow.timetables.base import DagRunInfo, TimeRestriction
from airflow.timetables.interval import CronDataIntervalTimetable
from fuzzing import examples
from hypothesis import example, given, settings
from hypothesis import strategies as st
from support import UTC

from hops_timetable import HopsworksTimetable, _compat
from hops_timetable.core.catchup import After, CatchupPolicy, Run
from hops_timetable.core.cron import QuartzCron

BASE = datetime(2026, 1, 5, tzinfo=UTC)
CRONS = ["0 0 * ? * * *", "0 0/20 * ? * * *", "0 0 9,17 ? * *", "0 30 10 ? * MON-FRI", "0 0 0/6 ? * * *"]
_TICK = timedelta(microseconds=1)


@dataclass
class Recorded:
    kind: str
    start: datetime
    end: datetime
    run_after: datetime


@dataclass
class Scheduler:
    policy: CatchupPolicy
    catchup: bool
    now: datetime
    runs: dict[datetime, Recorded] = field(default_factory=dict)
    scheduled: list[Recorded] = field(default_factory=list)
    stored: Run | None = None
    # Indices into ``scheduled`` where the order restarts: see ``edit``.
    restarts: set[int] = field(default_factory=set)

    def add(self, record: Recorded) -> None:
        assert record.start not in self.runs, f"duplicate logical date {record.start}"
        self.runs[record.start] = record
        if record.kind == "scheduled":
            self.scheduled.append(record)

    def store_after(self, record: Recorded | None) -> None:
        after = None if record is None else After.of_run(self.policy.cron, record.start, record.end, record.run_after)
        previous = self.stored
        self.stored = self.policy.next_run_after(after, self.now, catchup=self.catchup)
        if record is not None and self.stored is not None:
            # Never a stall: the stored run moves past the reference run.
            assert self.stored.interval_start > record.start, (record, self.stored, previous)
            assert self.stored.fire > record.start

    def stored_run_check(self, stored: Run) -> Run:
        """What HopsworksTimetable.next_run_info_from_dag_model returns, with the runs table as the taken set."""
        return self.policy.stored_run(stored, self.now, catchup=self.catchup, taken=lambda d: d in self.runs)

    def loop(self) -> None:
        for _ in range(10_000):
            stored = self.stored
            if stored is None or stored.fire > self.now:
                return
            existing = self.runs.get(stored.interval_start)
            if existing is not None:
                self.store_after(existing)
                continue
            run = self.stored_run_check(stored)
            assert run.interval_start not in self.runs, "the stored-run check returned a taken logical date"
            created = Recorded("scheduled", run.interval_start, run.fire, run.fire)
            self.add(created)
            self.store_after(created)
        raise AssertionError("the scheduler loop never settled")

    def backfill(self, low: datetime, high: datetime) -> None:
        last = None
        while (run := self.policy.range_run(low, high, last)) is not None:
            if run.interval_start not in self.runs and run.fire < self.now:
                self.add(Recorded("backfill", run.interval_start, run.fire, run.fire))
            last = run

    def manual(self, logical_date: datetime) -> None:
        if logical_date in self.runs:
            return
        run = self.policy.manual_run(logical_date)
        trigger = self.now if self.now != run.fire else self.now + timedelta(seconds=1)
        self.runs[logical_date] = Recorded("manual", run.interval_start, run.fire, trigger)

    def edit(self, cron: str) -> None:
        self.policy = CatchupPolicy(
            cron=QuartzCron(cron), start=self.policy.start, max_catchup_runs=self.policy.max_catchup_runs
        )
        automated = [r for r in self.runs.values() if r.kind != "manual"]
        reference = max(automated, key=lambda r: r.start) if automated else None
        if reference is not None and self.scheduled and reference.end < self.scheduled[-1].end:
            # Airflow hands the timetable the run with the newest logical date alone: a backfill made under a finer
            # cron can hold a later logical date than the last scheduled run and still end before it. The runs
            # after the edit then follow that backfill (docs/rules.md), as with Airflow's own timetables.
            self.restarts.add(len(self.scheduled))
        self.store_after(reference)

    def chains(self) -> list[list[Recorded]]:
        """The scheduled runs, split where an edit made a backfill the reference."""
        cuts = [0, *sorted(self.restarts), len(self.scheduled)]
        return [self.scheduled[a:b] for a, b in itertools.pairwise(cuts)]


def foreign_last_run(kind: int, moment: datetime) -> Recorded | None:
    """The last run of the timetable before: none, CronTrigger-like (zero length), data interval, delta."""
    if kind == 0:
        return None
    if kind == 1:
        return Recorded("scheduled", moment, moment, moment)
    if kind == 2:
        return Recorded("scheduled", moment - timedelta(hours=1), moment, moment)
    return Recorded("scheduled", moment - timedelta(minutes=37), moment, moment)


ACTIONS = st.lists(
    st.one_of(
        st.tuples(st.just("tick"), st.integers(1, 4 * 3600)),
        st.tuples(st.just("outage"), st.integers(3600, 3 * 86400)),
        st.tuples(st.just("manual"), st.integers(-3, 3)),
        st.tuples(st.just("manual_stored"), st.just(0)),
        st.tuples(st.just("backfill"), st.integers(0, 40)),
        st.tuples(st.just("edit"), st.integers(0, len(CRONS) - 1)),
    ),
    max_size=14,
)


@settings(max_examples=examples(150), deadline=None)
@given(
    cron=st.sampled_from(CRONS),
    start_minutes=st.integers(0, 3000),
    bound=st.sampled_from([None, 1, 2, 5]),
    catchup=st.booleans(),
    before=st.integers(0, 3),
    before_offset=st.integers(0, 5000),
    actions=ACTIONS,
)
# A backfill under an hourly cron newer by logical date than the daily run, then an edit to every 20 minutes.
@example(
    cron="0 30 10 ? * MON-FRI",
    start_minutes=0,
    bound=None,
    catchup=False,
    before=0,
    before_offset=379,
    actions=[("outage", 187860), ("edit", 0), ("backfill", 0), ("edit", 1)],
)
def test_random_histories_keep_logical_dates_unique_and_scheduled_runs_moving_forward(
    cron: str,
    start_minutes: int,
    bound: int | None,
    catchup: bool,
    before: int,
    before_offset: int,
    actions: list[tuple[str, int]],
) -> None:
    start = BASE + timedelta(minutes=start_minutes)
    policy = CatchupPolicy(cron=QuartzCron(cron), start=start, max_catchup_runs=bound)
    model = Scheduler(policy, catchup, now=start + timedelta(minutes=before_offset % 600))
    last = foreign_last_run(before, start + timedelta(seconds=before_offset))
    if last is not None:
        model.add(last)
        model.scheduled.clear()  # the runs of the timetable before do not count for the ordering below
    model.store_after(last)
    model.loop()
    for action, value in actions:
        if action in ("tick", "outage"):
            model.now += timedelta(seconds=value)
        elif action == "manual":
            fire = model.policy.newest_eligible_at_or_before(model.now)
            for _ in range(abs(value)):
                step = fire and (
                    model.policy.cron.next_after(fire) if value > 0 else model.policy.cron.prev_before(fire)
                )
                fire = step or fire
            if fire is not None:
                model.manual(fire)
        elif action == "manual_stored" and model.stored is not None:
            model.manual(model.stored.interval_start)
        elif action == "backfill":
            model.backfill(start + timedelta(hours=value), model.now)
        elif action == "edit":
            model.edit(CRONS[value])
        model.loop()
    for chain in model.chains():
        for previous, current in itertools.pairwise(chain):
            assert current.run_after > previous.run_after
            assert current.start > previous.start
            assert current.start >= previous.end, "scheduled windows overlap"
    if last is not None and model.scheduled:
        assert model.scheduled[0].start > last.start and model.scheduled[0].run_after > last.run_after


@settings(max_examples=examples(150), deadline=None)
@given(
    cron=st.sampled_from(CRONS),
    start_minutes=st.integers(0, 3000),
    outages=st.lists(st.integers(60, 2 * 86400), max_size=5),
    before=st.integers(0, 3),
    before_offset=st.integers(0, 5000),
)
def test_without_a_bound_the_windows_tile_from_any_previous_timetable_on(
    cron: str, start_minutes: int, outages: list[int], before: int, before_offset: int
) -> None:
    start = BASE + timedelta(minutes=start_minutes)
    model = Scheduler(CatchupPolicy(cron=QuartzCron(cron), start=start), True, now=start)
    last = foreign_last_run(before, start + timedelta(seconds=before_offset))
    if last is not None:
        model.add(last)
        model.scheduled.clear()
    model.store_after(last)
    for outage in outages:
        model.now += timedelta(seconds=outage)
        model.loop()
    scheduled = model.scheduled
    if last is not None and scheduled:
        # The first window starts where the last one ended (a zero-length one: 1 µs later, the same HOPS second).
        assert scheduled[0].start in (last.end, last.end + _TICK) or scheduled[0].start == model.policy.start
    for previous, current in itertools.pairwise(scheduled):
        assert current.start == previous.end


@settings(max_examples=examples(150), deadline=None)
@given(
    cron=st.sampled_from(CRONS),
    start_minutes=st.integers(0, 3000),
    low_minutes=st.integers(-600, 4000),
    span_minutes=st.integers(0, 4000),
    bound=st.sampled_from([None, 1, 3]),
)
def test_a_backfill_is_the_scheduled_set_of_its_range(
    cron: str, start_minutes: int, low_minutes: int, span_minutes: int, bound: int | None
) -> None:
    start = BASE + timedelta(minutes=start_minutes)
    policy = CatchupPolicy(cron=QuartzCron(cron), start=start, max_catchup_runs=bound)
    low = start + timedelta(minutes=low_minutes)
    high = low + timedelta(minutes=span_minutes)
    backfilled = []
    last = None
    while (run := policy.range_run(low, high, last)) is not None:
        backfilled.append(run)
        last = run
    # The scheduled runs of a scheduler that was never down, and so never bounded.
    live: list[Run] = []
    run = policy.next_run_after(None, start, catchup=True)
    while run is not None and run.interval_start <= high:
        live.append(run)
        run = policy.next_run_after(After.of_fire(run.fire), run.fire, catchup=True)
    assert backfilled == [r for r in live if low <= r.interval_start <= high]


FIVE_FIELD = ["0 * * * *", "*/15 * * * *", "30 9 * * 1-5", "0 0,12 * * *", "5 4 * * 0"]


@settings(max_examples=examples(100), deadline=None)
@given(
    cron=st.sampled_from(FIVE_FIELD),
    fire_index=st.integers(0, 50),
    low_minutes=st.integers(0, 6000),
    span_minutes=st.integers(0, 6000),
)
def test_backfill_lists_equal_airflows_cron_data_interval_timetable(
    cron: str, fire_index: int, low_minutes: int, span_minutes: int
) -> None:
    quartz = QuartzCron(cron)
    start = quartz.next_after(BASE)
    assert start is not None
    for _ in range(fire_index):
        start = quartz.next_after(start)
        assert start is not None
    low = start + timedelta(minutes=low_minutes)
    high = low + timedelta(minutes=span_minutes)
    ours = HopsworksTimetable(cron, start_time=start, catchup=True, max_catchup_runs=1)
    oracle = CronDataIntervalTimetable(cron, "UTC")
    # Airflow passes pendulum values (coerce_datetime) and its own timetables rely on them.
    restriction = TimeRestriction(pendulum.instance(low), pendulum.instance(high), catchup=True)

    def listing(timetable: HopsworksTimetable | CronDataIntervalTimetable) -> list[tuple[datetime, datetime]]:
        out: list[tuple[datetime, datetime]] = []
        info: DagRunInfo | None = None
        while (info := _compat.builtin_next_dagrun_info(timetable, info, restriction)) is not None:
            assert info.data_interval is not None
            out.append((info.data_interval.start, info.data_interval.end))
            assert len(out) < 10_000
        return out

    assert listing(ours) == listing(oracle)
