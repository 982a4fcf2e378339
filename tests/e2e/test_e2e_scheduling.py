"""Scenarios on one shared, never-interrupted Airflow: first interval, bounded catch-up, pause, end_date, concurrency.

Each scenario has its own DAG id; the DAGs that only need watching are written together when the stack starts, so
their waits overlap. Expected fires are computed from recorded timestamps (when a file was written, when a run
row was created), never from sleeps alone: a slow machine changes which fire is the newest, not the assertions.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from dagfiles import DagSpec, Schedule, records, write_dag
from expect import assert_tiles, fires, report, run_rows, wait_runs
from harness import AirflowStack, Run, StackFactory, ceil_to, floor_to, utcnow

from hops_timetable import HopsworksTimetable
from hops_timetable._compat import HAS_DAG_MODEL_HOOK

pytestmark = [pytest.mark.e2e, pytest.mark.every_minor]

FIVE = timedelta(seconds=5)
TEN = timedelta(seconds=10)


# Airflow 3.0 and 3.1 create DagModel.next_dagrun as stored, without asking the timetable (the version table of
# docs/airflow-versions.md): a stored run that went stale before the scheduler created it (a slow scheduler, an
# unpause) is created as well, one run before the bounded catch-up. These scenarios expect the 3.2+ behaviour; on
# 3.0 the outage test checks that exact difference.
STORED_RUN_IS_CHECKED = pytest.mark.skipif(
    not HAS_DAG_MODEL_HOOK,
    reason="Airflow < 3.2 creates a stale stored next run without asking the timetable (docs/airflow-versions.md)",
)


@dataclass
class Shared:
    stack: AirflowStack
    out_dir: Path
    written_at: dict[str, datetime]
    specs: dict[str, DagSpec]

    def write(self, spec: DagSpec) -> datetime:
        self.specs[spec.dag_id] = spec
        write_dag(self.stack.dags_folder, spec, self.out_dir)
        self.written_at[spec.dag_id] = utcnow()
        return self.written_at[spec.dag_id]


def _passive_specs(now: datetime) -> list[DagSpec]:
    first_fire = ceil_to(now + timedelta(seconds=20), 10)
    return [
        # A start date 3 s after a fire of an every-10-s cron, far enough ahead to be parsed before it.
        DagSpec("first_interval", Schedule("0/10 * * * * ?", start_time=first_fire + timedelta(seconds=3))),
        DagSpec(
            "bounded_catchup",
            Schedule("0/5 * * * * ?", start_time=now - timedelta(minutes=10), catchup=True, max_catchup_runs=3),
        ),
        DagSpec(
            "end_date",
            Schedule(
                "0/5 * * * * ?",
                start_time=now - timedelta(minutes=1),
                end_time=ceil_to(now + timedelta(seconds=25), 5),
            ),
        ),
        DagSpec(
            "one_active_run",
            Schedule(
                "0/5 * * * * ?",
                start_time=now - timedelta(minutes=1),
                catchup=True,
                max_catchup_runs=3,
                max_active_runs=1,
            ),
            sleep_seconds=4.0,
        ),
        DagSpec(
            "hops_env",
            Schedule("0/10 * * * * ?", start_time=now - timedelta(minutes=1), start_time_offset_seconds=3600),
            tasks="hops",
        ),
    ]


@pytest.fixture(scope="module")
def shared(module_stacks: StackFactory, tmp_path_factory: pytest.TempPathFactory) -> Shared:
    stack = module_stacks("shared")
    shared = Shared(stack, tmp_path_factory.mktemp("records"), {}, {})
    for spec in _passive_specs(utcnow()):
        shared.write(spec)
    return shared


def test_first_interval_is_clamped_to_a_start_date_between_fires(shared: Shared) -> None:
    stack, spec = shared.stack, shared.specs["first_interval"]
    start = spec.schedule.start_time
    first_fire = start + timedelta(seconds=7)
    runs = wait_runs(stack, "first_interval", lambda r: len(r) >= 2, 90, "two runs of first_interval")
    first, second = runs[0], runs[1]
    assert (first.run_after, first.data_interval_start, first.data_interval_end, first.logical_date) == (
        first_fire,
        start,
        first_fire,
        start,
    )
    assert (second.run_after, second.data_interval_start, second.data_interval_end) == (
        first_fire + TEN,
        first_fire,
        first_fire + TEN,
    )
    report(
        "first_interval",
        cron=spec.schedule.cron_expression,
        start_date=start,
        catchup=False,
        events={"dag_file_written": shared.written_at["first_interval"]},
        runs=run_rows(runs[:2]),
    )
    stack.pause("first_interval")


@STORED_RUN_IS_CHECKED
def test_past_start_with_bounded_catchup_replays_exactly_the_newest_three(shared: Shared) -> None:
    stack = shared.stack
    written = shared.written_at["bounded_catchup"]
    runs = wait_runs(stack, "bounded_catchup", lambda r: len(r) >= 5, 90, "five runs of bounded_catchup")
    created = runs[0].created_at
    assert created is not None
    newest_of_replay = runs[2].run_after
    # The newest due fire when the DAG was first scheduled, somewhere between writing the file and the first run.
    assert floor_to(written, 5) <= newest_of_replay <= floor_to(created, 5), (written, created, fires(runs))
    assert_tiles(runs, FIVE)
    assert runs[0].run_after == newest_of_replay - 2 * FIVE
    spec = shared.specs["bounded_catchup"]
    report(
        "bounded_catchup",
        cron=spec.schedule.cron_expression,
        start_date=spec.schedule.start_time,
        catchup=True,
        max_catchup_runs=spec.schedule.max_catchup_runs,
        events={"dag_file_written": written},
        runs=run_rows(runs[:5]),
    )
    stack.pause("bounded_catchup")


def test_no_run_at_or_after_end_date(shared: Shared) -> None:
    stack, spec = shared.stack, shared.specs["end_date"]
    end = spec.schedule.end_time
    assert end is not None
    # Wait two cron periods past the end: the fire at `end` and the next one would have been created by then.
    stack.wait_until(lambda: utcnow() > end + 2 * FIVE + timedelta(seconds=2), 90, what="end_date passed")
    runs = stack.runs("end_date")
    assert runs, "no run at all before end_date"
    assert_tiles(runs, FIVE)
    assert runs[-1].run_after == end - FIVE, fires(runs)
    written = shared.written_at["end_date"]
    created = runs[0].created_at
    assert created is not None
    assert floor_to(written, 5) <= runs[0].run_after <= floor_to(created, 5)
    stack.pause("end_date")


def test_max_active_runs_one_never_overlaps(shared: Shared) -> None:
    stack = shared.stack
    runs = wait_runs(
        stack,
        "one_active_run",
        lambda r: sum(run.state == "success" for run in r) >= 4,
        120,
        "four finished runs of one_active_run",
    )
    stack.pause("one_active_run")
    finished = sorted(
        (run for run in runs if run.start_date is not None and run.end_date is not None),
        key=lambda run: run.start_date or run.run_after,
    )
    assert len(finished) >= 4
    for before, after in itertools.pairwise(finished):
        assert before.end_date is not None and after.start_date is not None
        assert before.end_date <= after.start_date, (before, after)
    assert len({run.run_after for run in runs}) == len(runs), "two runs for one fire"


@STORED_RUN_IS_CHECKED
def test_pause_then_unpause_replays_only_the_newest_n(shared: Shared) -> None:
    stack = shared.stack
    spec = DagSpec(
        "pause_bounded",
        Schedule("0/5 * * * * ?", start_time=utcnow() - timedelta(minutes=1), catchup=True, max_catchup_runs=2),
    )
    shared.write(spec)
    before = wait_runs(stack, "pause_bounded", lambda r: len(r) >= 3, 90, "three runs before the pause")
    stack.pause("pause_bounded")
    paused_at = utcnow()
    last_before = stack.runs("pause_bounded")[-1].run_after
    # Four or more fires pass while paused.
    stack.wait_until(lambda: utcnow() > paused_at + timedelta(seconds=22), 60, what="the pause")
    assert stack.runs("pause_bounded")[-1].run_after == last_before, "a run was created while paused"
    unpaused_at = utcnow()
    stack.unpause("pause_bounded")
    runs = wait_runs(
        stack,
        "pause_bounded",
        lambda r: r[-1].run_after >= floor_to(unpaused_at, 5) + 2 * FIVE,
        90,
        "runs after the unpause",
    )
    after = [run for run in runs if run.run_after > last_before]
    assert_tiles(runs[: len(runs) - len(after)], FIVE)
    first_after = after[0]
    assert first_after.created_at is not None
    newest = after[1].run_after
    assert floor_to(unpaused_at, 5) <= newest <= floor_to(first_after.created_at, 5), (unpaused_at, fires(after))
    assert first_after.run_after == newest - FIVE, fires(after)
    assert_tiles(after, FIVE)
    assert len(before) >= 3
    stack.pause("pause_bounded")


def test_pause_then_unpause_with_skip_to_date_skips_fires_before_it(shared: Shared) -> None:
    stack = shared.stack
    now = utcnow()
    skip_to = ceil_to(now + timedelta(seconds=20), 5)
    spec = DagSpec(
        "pause_skip",
        Schedule("0/5 * * * * ?", start_time=now - timedelta(minutes=2), catchup=True, skip_to_date=skip_to),
    )
    shared.write(spec)
    stack.wait_for_dag("pause_skip")
    stack.pause("pause_skip")
    assert utcnow() < skip_to, "too slow to pause before skip_to_date; the scenario needs a later skip_to_date"
    # Paused across skip_to_date and two more fires.
    stack.wait_until(lambda: utcnow() > skip_to + 2 * FIVE + timedelta(seconds=1), 60, what="the pause")
    assert stack.runs("pause_skip") == []
    stack.unpause("pause_skip")
    runs = wait_runs(stack, "pause_skip", lambda r: len(r) >= 4, 60, "four runs of pause_skip")
    assert runs[0].run_after == skip_to, fires(runs)
    assert_tiles(runs, FIVE)
    stack.pause("pause_skip")


def test_hops_values_and_legacy_argument_reach_the_tasks(shared: Shared) -> None:
    stack, out = shared.stack, shared.out_dir
    timetable = HopsworksTimetable("0/10 * * * * ?", start_time_offset_seconds=3600)
    stack.wait_for_dag("hops_env")
    bare = stack.trigger("hops_env")["dag_run_id"]
    window = {"start_time": "2026-01-01T09:00:00Z", "end_time": "2026-01-01T10:00:00Z"}
    with_window = stack.trigger("hops_env", {"hops_window": window})["dag_run_id"]

    def recorded() -> tuple[list[Run], dict[str, dict[str, Any]], dict[str, dict[str, Any]]] | None:
        runs = stack.runs("hops_env")
        python, bash = records(out, "hops_env", "python"), records(out, "hops_env", "bash")
        scheduled = [run for run in runs if run.run_type == "scheduled" and run.run_id in python.keys() & bash]
        if len(scheduled) >= 2 and {bare, with_window} <= python.keys() & bash.keys():
            return scheduled, python, bash
        return None

    scheduled, python, bash = stack.wait_until(recorded, 120, what="records of 2 scheduled and 2 manual runs")
    stack.pause("hops_env")
    for run in scheduled:
        assert run.data_interval_start is not None and run.data_interval_end is not None
        expected = timetable.hops_window((run.data_interval_start, run.data_interval_end)).as_env()
        # Independently of the library: the window is the data interval moved one hour earlier.
        hour = timedelta(hours=1)
        assert expected == {
            "HOPS_START_TIME": (run.data_interval_start - hour).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "HOPS_END_TIME": (run.data_interval_end - hour).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "HOPS_LOGICAL_DATE": run.data_interval_start.strftime("%Y-%m-%dT%H:%M:%SZ"),
        }
        assert python[run.run_id]["env"] == expected, run
        assert bash[run.run_id]["env"] == expected, run
        assert python[run.run_id]["argv"] == ["-start_time", expected["HOPS_LOGICAL_DATE"]]
        assert bash[run.run_id]["argv"] == ["--table", "events", "-start_time", expected["HOPS_LOGICAL_DATE"]]

    manual = {run.run_id: run for run in stack.runs("hops_env") if run.run_type == "manual"}
    assert manual[bare].logical_date is None
    assert python[bare]["env"] == {} and bash[bare]["env"] == {}
    assert python[bare]["argv"] == [] and bash[bare]["argv"] == ["--table", "events"]

    given = {
        "HOPS_START_TIME": "2026-01-01T09:00:00Z",
        "HOPS_END_TIME": "2026-01-01T10:00:00Z",
        "HOPS_LOGICAL_DATE": "2026-01-01T09:00:00Z",
    }
    assert python[with_window]["env"] == given and bash[with_window]["env"] == given
    assert python[with_window]["argv"] == ["-start_time", "2026-01-01T09:00:00Z"]
    assert bash[with_window]["argv"] == ["--table", "events", "-start_time", "2026-01-01T09:00:00Z"]
