"""Schedule edits between runs: a DAG whose cron, offset, start_date, catch-up bound or skip_to_date changes keeps
being scheduled, with no duplicate logical date and no stall.

Airflow keeps ``UNIQUE(dag_id, logical_date)``. When the next run it stored has the logical date of an existing run,
the scheduler skips it and asks the timetable again from *that older run* (``_create_dag_runs``, "run already
exists; skipping dagrun creation"); a timetable that answers the same logical date again stalls the DAG for good,
as in Airflow issue #66754 (hourly to daily). :class:`Scheduler` below replays that loop: the dag-processor's
re-parse recomputes the next run from the run with the greatest logical date, the scheduler creates due runs and
takes the skip path on a duplicate. Every edit is driven through the pure core (``CatchupPolicy``) and through
the timetable inside a real serialized DAG.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta

import pendulum
import pytest
import time_machine
from airflow.providers.standard.operators.empty import EmptyOperator
from airflow.sdk import DAG
from airflow.timetables.base import DagRunInfo
from airflow_versions import dag_next_dagrun_info, dag_serialization_class
from fuzzing import examples
from hypothesis import given, settings
from hypothesis import strategies as st
from support import DAILY, EVERY_5_MIN, HOURLY, UTC, utc

from hops_timetable.core.catchup import CatchupPolicy
from hops_timetable.core.cron import QuartzCron
from hops_timetable.timetable import HopsworksTimetable

START = datetime(2026, 1, 1, tzinfo=UTC)
EDIT = datetime(2026, 1, 3, 10, 30, tzinfo=UTC)  # a Saturday


@dataclass(frozen=True)
class Settings:
    """What a DAG file says about scheduling; an edit replaces one field."""

    cron: str
    start: datetime
    catchup: bool = True
    offset: int | None = None
    bound: int | None = None
    skip_to: datetime | None = None

    def timetable(self) -> HopsworksTimetable:
        return HopsworksTimetable(
            self.cron, start_time_offset_seconds=self.offset, max_catchup_runs=self.bound, skip_to_date=self.skip_to
        )


@dataclass(frozen=True)
class Created:
    fire: datetime
    interval_start: datetime


Next = Callable[[Created | None, datetime], Created | None]


def core_next(settings: Settings) -> Next:
    policy = CatchupPolicy(
        cron=QuartzCron(settings.cron), start=settings.start, skip_to=settings.skip_to, max_catchup_runs=settings.bound
    )

    def ask(last: Created | None, now: datetime) -> Created | None:
        run = policy.next_run(None if last is None else last.fire, now, catchup=settings.catchup)
        return None if run is None else Created(run.fire, run.interval_start)

    return ask


def dag_next(settings: Settings) -> Next:
    """The timetable inside a real DAG, serialized and deserialized as the scheduler holds it."""
    with DAG("edited", schedule=settings.timetable(), start_date=settings.start, catchup=settings.catchup) as dag:
        EmptyOperator(task_id="job")
    serialized = dag_serialization_class().from_dict(dag_serialization_class().to_dict(dag))

    def ask(last: Created | None, now: datetime) -> Created | None:
        info = (
            None
            if last is None
            else DagRunInfo.interval(pendulum.instance(last.interval_start), pendulum.instance(last.fire))
        )
        with time_machine.travel(now, tick=False):
            answer = dag_next_dagrun_info(serialized, info)
        if answer is None:
            return None
        assert answer.data_interval is not None
        return Created(answer.run_after, answer.data_interval.start)

    return ask


BACKENDS = {"core": core_next, "dag": dag_next}


class Stalled(AssertionError):
    """The scheduler keeps being told to create a run that exists: the DAG is never scheduled again."""


@dataclass
class Scheduler:
    """Airflow's run creation for one DAG: unique logical dates, the skip path, the re-parse after an edit."""

    ask: Next
    runs: dict[datetime, Created] = field(default_factory=dict)
    order: list[Created] = field(default_factory=list)
    next: Created | None = None
    skips: int = 0
    clock: datetime = START
    edited_after: int = 0

    def parse(self, ask: Next, now: datetime) -> None:
        """The dag-processor stores the edited DAG and recomputes the next run from the latest automated run."""
        self.ask = ask
        self.clock = max(self.clock, now)
        latest = self.runs[max(self.runs)] if self.runs else None
        self.next = ask(latest, self.clock)

    def run_until(self, until: datetime) -> None:
        """Create every run that falls due up to *until*: when it is due, or at once if the clock is past it."""
        while self.next is not None and self.next.fire <= until:
            now = self.clock = max(self.clock, self.next.fire)
            existing = self.runs.get(self.next.interval_start)
            if existing is not None:
                self.skips += 1
                following = self.ask(existing, now)
                if following == self.next:
                    raise Stalled(f"the next run {self.next} duplicates {existing}, and asking again gives it again")
                self.next = following
                continue
            self.runs[self.next.interval_start] = self.next
            self.order.append(self.next)
            self.next = self.ask(self.next, now)


def replay(backend: str, before: Settings, after: Settings, edit_at: datetime, until: datetime) -> Scheduler:
    scheduler = Scheduler(BACKENDS[backend](before))
    scheduler.parse(scheduler.ask, before.start)
    scheduler.run_until(edit_at)
    scheduler.edited_after = len(scheduler.order)
    scheduler.parse(BACKENDS[backend](after), edit_at)
    scheduler.run_until(until)
    return scheduler


def check_edit(scheduler: Scheduler, after: Settings, first_expected: datetime) -> list[Created]:
    """No duplicate, no skip path, strictly increasing fires, and the first run created after the edit as expected."""
    runs = scheduler.order
    fires = [run.fire for run in runs]
    assert all(b > a for a, b in itertools.pairwise(fires)), fires
    starts = [run.interval_start for run in runs]
    assert len(set(starts)) == len(starts), "two runs with one logical date"
    assert scheduler.skips == 0, "a run with an existing logical date was proposed"
    for run in runs:
        assert run.interval_start < run.fire
    later = runs[scheduler.edited_after :]
    assert later, "no run after the edit: the DAG stalled"
    assert later[0].fire == first_expected, (later[0], first_expected)
    cron = QuartzCron(after.cron)
    assert all(cron.matches(run.fire) for run in later)
    # Consecutive runs of the new cron follow each other fire by fire.
    for a, b in itertools.pairwise(later):
        assert b.fire == cron.next_after(a.fire), (a, b)
    return runs


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    ("old", "new", "first_after_edit"),
    [
        (HOURLY, DAILY, utc(2026, 1, 4)),  # Airflow issue #66754
        (DAILY, HOURLY, utc(2026, 1, 3, 1)),  # the hourly fires since the last daily run are caught up
        (EVERY_5_MIN, HOURLY, utc(2026, 1, 3, 11)),
        (HOURLY, EVERY_5_MIN, utc(2026, 1, 3, 10, 5)),
        (DAILY, "0 0 12 ? * MON-FRI", utc(2026, 1, 5, 12)),  # the edit is on a Saturday
    ],
)
def test_cron_edits_keep_scheduling_with_unique_logical_dates(
    backend: str, old: str, new: str, first_after_edit: datetime
) -> None:
    before = Settings(old, START)
    after = replace(before, cron=new)
    scheduler = replay(backend, before, after, EDIT, EDIT + timedelta(days=3))
    runs = check_edit(scheduler, after, first_after_edit)
    # The windows tile across the edit: nothing is processed twice, nothing is left out.
    for a, b in itertools.pairwise(runs):
        assert b.interval_start == a.fire, (a, b)


@pytest.mark.parametrize("backend", BACKENDS)
def test_coarser_cron_starts_its_first_interval_at_the_last_run(backend: str) -> None:
    scheduler = replay(backend, Settings(HOURLY, START), Settings(DAILY, START), EDIT, EDIT + timedelta(days=1))
    last_hourly = scheduler.order[scheduler.edited_after - 1].fire
    first_daily = scheduler.order[scheduler.edited_after]
    assert (first_daily.interval_start, first_daily.fire) == (last_hourly, utc(2026, 1, 4))


@pytest.mark.parametrize("backend", BACKENDS)
def test_offset_edit_moves_only_the_hops_window(backend: str) -> None:
    before = Settings(HOURLY, START)
    after = replace(before, offset=25 * 3600)
    edited = replay(backend, before, after, EDIT, EDIT + timedelta(hours=5))
    unedited = replay(backend, before, before, EDIT, EDIT + timedelta(hours=5))
    check_edit(edited, after, utc(2026, 1, 3, 11))
    assert edited.order == unedited.order
    run = edited.order[-1]
    window = after.timetable().hops_window((run.interval_start, run.fire))
    assert window.start == run.interval_start - timedelta(hours=25)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    ("new_start", "first_after_edit"),
    [
        (utc(2025, 12, 1), utc(2026, 1, 3, 11)),  # earlier: nothing before the last run is replayed
        (utc(2026, 1, 2, 5, 30), utc(2026, 1, 3, 11)),  # later, before the last run: no effect
        (utc(2026, 1, 3, 16, 30), utc(2026, 1, 3, 17)),  # later than the edit: the runs resume after it
    ],
)
def test_start_date_edits(backend: str, new_start: datetime, first_after_edit: datetime) -> None:
    before = Settings(HOURLY, START)
    after = replace(before, start=new_start)
    scheduler = replay(backend, before, after, EDIT, EDIT + timedelta(days=1))
    check_edit(scheduler, after, first_after_edit)
    later = scheduler.order[scheduler.edited_after :]
    assert later[0].interval_start == max(new_start, utc(2026, 1, 3, 10))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("old_bound", "new_bound"), [(None, 2), (24, 1), (1, None), (3, 3)])
def test_catchup_bound_edits_apply_to_the_next_outage(
    backend: str, old_bound: int | None, new_bound: int | None
) -> None:
    before = Settings(HOURLY, START, bound=old_bound)
    after = replace(before, bound=new_bound)
    scheduler = Scheduler(BACKENDS[backend](before))
    scheduler.parse(scheduler.ask, START)
    scheduler.run_until(EDIT)
    # The edit lands after a ten-hour outage: the scheduler comes back at `back` and asks then.
    back = EDIT + timedelta(hours=10)
    scheduler.parse(BACKENDS[backend](after), back)
    scheduler.run_until(back)
    later = [run for run in scheduler.order if run.fire > EDIT]
    expected = 10 if new_bound is None else min(new_bound, 10)
    newest = utc(2026, 1, 3, 20)
    assert [run.fire for run in later] == [newest - timedelta(hours=h) for h in reversed(range(expected))]
    assert scheduler.skips == 0
    starts = [run.interval_start for run in scheduler.order]
    assert len(set(starts)) == len(starts)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    ("skip_to", "first_after_edit"),
    [
        (utc(2026, 1, 2), utc(2026, 1, 3, 11)),  # already passed: no effect
        (utc(2026, 1, 3, 14), utc(2026, 1, 3, 14)),  # ahead: fires before it are skipped
        (utc(2026, 1, 3, 14, 20), utc(2026, 1, 3, 15)),
    ],
)
def test_skip_to_date_added(backend: str, skip_to: datetime, first_after_edit: datetime) -> None:
    before = Settings(HOURLY, START)
    after = replace(before, skip_to=skip_to)
    scheduler = replay(backend, before, after, EDIT, EDIT + timedelta(days=1))
    check_edit(scheduler, after, first_after_edit)


def test_the_replayed_loop_detects_the_stall_of_a_timetable_that_repeats_a_logical_date() -> None:
    # Guards the model itself: a timetable whose interval always starts at the previous fire (ignoring the last
    # run) proposes the 10:00 logical date of an existing run after hourly to daily, and stalls.
    def naive(settings: Settings) -> Next:
        policy = CatchupPolicy(cron=QuartzCron(settings.cron), start=settings.start)

        def ask(last: Created | None, now: datetime) -> Created | None:
            run = policy.next_run(None if last is None else last.fire, now)
            return None if run is None else Created(run.fire, policy.interval_start(run.fire))

        return ask

    scheduler = Scheduler(naive(Settings(EVERY_5_MIN, START)))
    scheduler.parse(scheduler.ask, START)
    scheduler.run_until(utc(2026, 1, 1, 0, 36))
    scheduler.parse(naive(Settings(HOURLY, START)), utc(2026, 1, 1, 0, 36))
    with pytest.raises(Stalled):
        scheduler.run_until(utc(2026, 1, 1, 3))


# -- random edit sequences ---------------------------------------------------------------------------------------

CRONS = [HOURLY, DAILY, EVERY_5_MIN, "0 0 9,17 * * ?", "0 30 */6 * * ?", "0 0 0 ? * MON", "0 15 10 L * ?"]


@st.composite
def edits(draw: st.DrawFn) -> list[tuple[Settings, int]]:
    """Two to four versions of a DAG file, each in force for some hours."""
    settings = Settings(draw(st.sampled_from(CRONS)), START, catchup=draw(st.booleans()))
    versions = []
    for _ in range(draw(st.integers(2, 4))):
        versions.append((settings, draw(st.integers(1, 24 * 9))))
        kind = draw(st.sampled_from(["cron", "offset", "start", "bound", "skip_to"]))
        if kind == "cron":
            settings = replace(settings, cron=draw(st.sampled_from(CRONS)))
        elif kind == "offset":
            settings = replace(settings, offset=draw(st.sampled_from([None, 0, 600, 90_000])))
        elif kind == "start":
            settings = replace(settings, start=START + timedelta(hours=draw(st.integers(-48, 24 * 30))))
        elif kind == "bound":
            settings = replace(settings, bound=draw(st.sampled_from([None, 1, 2, 5])))
        else:
            settings = replace(settings, skip_to=START + timedelta(hours=draw(st.integers(0, 24 * 30))))
    return versions


@settings(max_examples=examples(300), deadline=None)
@given(edits())
def test_random_edit_sequences_never_duplicate_nor_stall(versions: list[tuple[Settings, int]]) -> None:
    scheduler = Scheduler(core_next(versions[0][0]))
    now = START
    for settings_, hours in versions:
        scheduler.parse(core_next(settings_), now)
        now += timedelta(hours=hours)
        scheduler.run_until(now)
    fires = [run.fire for run in scheduler.order]
    assert all(b > a for a, b in itertools.pairwise(fires))
    assert scheduler.skips == 0
    # Whatever the edits, the last version keeps going: its next run exists unless its calendar has ended.
    last_settings = versions[-1][0]
    ask = core_next(last_settings)
    latest = scheduler.order[-1] if scheduler.order else None
    upcoming = ask(latest, now)
    assert upcoming is not None
    assert upcoming.fire > (latest.fire if latest else last_settings.start)
    assert upcoming.interval_start >= (latest.fire if latest else last_settings.start)
