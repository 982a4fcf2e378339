"""The outage simulator against a real scheduler: one outage and one pause, and the same run set on both sides.

A DAG with ``0/5 * * * * ?``, ``catchup=True`` and ``max_catchup_runs=2`` runs on a real Airflow, which is taken
down once (scheduler and dag-processor stopped) and whose DAG is paused once, each for at least four fires. The
instants recorded around those events are then given to :func:`hops_timetable.core.simulate.simulate`, and every fire
from the DAG's start to a fire safely before the end of the observation must be decided alike: a run in the
metadata database exactly where the simulator says ``created``, no run exactly where it says ``dropped beyond
max_catchup_runs``.

The scheduler creates runs when it reads the clock, not when the test restarted it or unpaused the DAG; the
catch-up it makes depends on that reading (which fires are the two newest). The reading is taken from the first run
created after each event, as its ``queued_at``: see :func:`first_run_after`.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

import pytest
from dagfiles import DagSpec, Schedule, write_dag
from expect import fires, report, run_rows
from harness import AirflowStack, Run, StackFactory, floor_to, utcnow

from hops_timetable._compat import HAS_DAG_MODEL_HOOK
from hops_timetable.core.catchup import CatchupPolicy
from hops_timetable.core.cron import QuartzCron
from hops_timetable.core.simulate import Decision, Event, FireRow, created_fires, expand, simulate

pytestmark = pytest.mark.e2e

DAG_ID = "simulator_proof"
CRON = "0/5 * * * * ?"
STEP = timedelta(seconds=5)
BOUND = 2
# Long enough to miss at least four fires (more than BOUND, so that each event drops some), short enough for the
# whole test to stay within about two minutes.
DOWN_FOR = timedelta(seconds=21)
# A fresh run is one whose fire is at most this old: the next fire is then more than 3 s away, time enough to
# stop the scheduler or pause the DAG before it, so no fire falls inside the act of stopping or pausing.
FRESH = timedelta(seconds=2)


def scheduled(stack: AirflowStack) -> list[Run]:
    return [run for run in stack.runs(DAG_ID) if run.run_type == "scheduled"]


def wait_fresh_run(stack: AirflowStack, what: str) -> Run:
    """Wait until the newest fire has its run and the next fire is still more than 3 s away; returns that run."""

    def fresh() -> Run | None:
        runs = scheduled(stack)
        now = utcnow()
        if runs and runs[-1].run_after == floor_to(now, 5) and now - runs[-1].run_after <= FRESH:
            return runs[-1]
        return None

    return stack.wait_until(fresh, 60, interval=0.1, what=what)


def first_run_after(stack: AirflowStack, moment: datetime, what: str) -> Run:
    """The first run queued after *moment*: the scheduler's first clock reading since then is its ``queued_at``.

    ``queued_at`` is stamped when the run object is built, in the same loop iteration and a few milliseconds after
    the timetable read the clock to choose the run (``next_run_info_from_dag_model``). It is the closest record of
    that reading Airflow keeps; with 5 s between fires, a fire falling inside those milliseconds is a chance of
    about one in a thousand, and would show as a one-fire shift in the assertion message below.
    """

    def queued() -> Run | None:
        after = [run for run in scheduled(stack) if run.queued_at is not None and run.queued_at > moment]
        return min(after, key=lambda run: run.queued_at or moment) if after else None

    return stack.wait_until(queued, 120, interval=0.1, what=what)


def wait_live_fires(stack: AirflowStack, since: datetime, count: int, what: str) -> Run:
    """Wait until the run of the *count*-th fire after the one at or before *since* exists; returns it."""
    target = floor_to(since, 5) + count * STEP

    def reached() -> Run | None:
        runs = [run for run in scheduled(stack) if run.run_after >= target]
        return runs[0] if runs else None

    return stack.wait_until(reached, 90, what=what)


def each_fire(rows: list[FireRow], cron: QuartzCron, upto: datetime) -> dict[datetime, FireRow]:
    """The simulator's decision row for every fire up to *upto*, one row per fire."""
    return {row.first: row for row in expand(rows, cron, max_fires=10_000) if row.first <= upto}


@pytest.mark.skipif(
    not HAS_DAG_MODEL_HOOK,
    reason="the simulator models Airflow 3.2+, where the timetable checks the stored run (docs/airflow-versions.md)",
)
def test_simulator_predicts_the_run_set_of_a_real_scheduler_through_an_outage_and_a_pause(
    stacks: StackFactory, tmp_path: Path
) -> None:
    stack = stacks("simulator")
    # A little in the past, so that the first look already has a backlog; whole seconds, as Airflow stores them.
    start_time = utcnow().replace(microsecond=0) - timedelta(seconds=8)
    spec = DagSpec(
        DAG_ID,
        # max_active_runs well above what the DAG ever has at once: a full DAG would delay run creation, which
        # the simulator does not model.
        Schedule(CRON, start_time=start_time, catchup=True, max_catchup_runs=BOUND, max_active_runs=16),
    )
    write_dag(stack.dags_folder, spec, tmp_path)
    first = stack.wait_until(lambda: scheduled(stack)[:1], 90, what="the first run")[0]
    assert first.queued_at is not None
    # The timeline begins at the scheduler's first look; the simulator replays the backlog since start_time there.
    first_look = first.queued_at
    wait_live_fires(stack, first_look, 2, "two live runs before the outage")

    # OUTAGE. The scheduler goes first: the dag-processor alone cannot create runs.
    wait_fresh_run(stack, "a fresh run before the outage")
    # The outage counts from the SIGKILL, after which the scheduler creates no more runs; the fresh run above leaves
    # more than 3 s before the next fire. Not SIGTERM: a SIGTERM that lands in a garbage-collection callback is
    # ignored ("Exception ignored in ... SystemExit"), and the scheduler went on creating runs until the harness's
    # SIGKILL 20 s later (observed on Airflow 3.4.0b2).
    outage_from = utcnow()
    stack.kill_component("scheduler")
    stack.stop_component("dag-processor")
    stack.wait_until(lambda: utcnow() >= outage_from + DOWN_FOR, 60, what="the outage")
    restarted_at = utcnow()
    stack.start_component("scheduler")
    stack.start_component("dag-processor")
    stack.wait_healthy()
    outage_to = first_run_after(stack, restarted_at, "the first run after the outage").queued_at
    assert outage_to is not None
    wait_live_fires(stack, outage_to, 2, "two live runs after the outage")

    # PAUSE, through the REST API as a user would.
    wait_fresh_run(stack, "a fresh run before the pause")
    stack.pause(DAG_ID)
    pause_from = utcnow()
    stack.wait_until(lambda: utcnow() >= pause_from + DOWN_FOR, 60, what="the pause")
    stack.unpause(DAG_ID)
    unpaused_at = utcnow()
    pause_to = first_run_after(stack, unpaused_at, "the first run after the pause").queued_at
    assert pause_to is not None
    last = wait_live_fires(stack, pause_to, 2, "two live runs after the pause")
    until = utcnow()

    # Compared up to the fire of the run just waited for, not up to `until`: the runs of later fires may still be
    # in flight (a live run appears a moment after its fire). Up to that fire everything is settled, because the
    # scheduler creates a DAG's runs in fire order, each only after the previous one exists.
    checked_to = last.run_after
    runs = [run for run in scheduled(stack) if run.run_after <= checked_to]
    real = fires(runs)
    assert len(set(real)) == len(real), f"a fire ran twice: {real}"

    cron = QuartzCron(CRON)
    policy = CatchupPolicy(cron, start=start_time, max_catchup_runs=BOUND)
    events = [Event("outage", outage_from, outage_to), Event("pause", pause_from, pause_to)]
    rows = simulate(policy, True, first_look, until, events)
    decided = each_fire(rows, cron, checked_to)
    timeline = (
        f"start_time={start_time}, first look={first_look}, outage=[{outage_from}, {outage_to}) "
        f"(restarted {restarted_at}), pause=[{pause_from}, {pause_to}) (unpaused {unpaused_at}), until={until}, "
        f"checked to {checked_to}\nreal runs: {[f'{f:%H:%M:%S}' for f in real]}\nsimulated: "
        + "; ".join(f"{f:%H:%M:%S} {row.decision.value}" for f, row in sorted(decided.items()))
    )

    # Every fire from the start to the checked one has a decision, and only these two can occur here.
    every_fire = []
    fire = cron.next_after(start_time)
    while fire is not None and fire <= checked_to:
        every_fire.append(fire)
        fire = cron.next_after(fire)
    assert sorted(decided) == every_fire, timeline
    assert {row.decision for row in decided.values()} <= {Decision.CREATED, Decision.DROPPED_BOUND}, timeline

    report(
        "simulator",
        cron=CRON,
        start_date=start_time,
        catchup=True,
        max_catchup_runs=BOUND,
        events={
            "first_look": first_look,
            "outage_from": outage_from,
            "restarted": restarted_at,
            "outage_to": outage_to,
            "pause_from": pause_from,
            "unpaused": unpaused_at,
            "pause_to": pause_to,
            "until": until,
            "checked_to": checked_to,
        },
        runs=run_rows(runs),
        simulated=[{"fire": fire, "decision": row.decision.value} for fire, row in sorted(decided.items())],
    )
    predicted = [fire for fire in created_fires(rows, cron) if fire <= checked_to]
    assert real == predicted, timeline
    dropped = [fire for fire, row in decided.items() if row.decision is Decision.DROPPED_BOUND]
    missing = [fire for fire in every_fire if fire not in set(real)]
    assert missing == dropped, timeline

    # The runs the simulator makes in one catch-up at an event's end are exactly those Airflow made after it for
    # fires that had passed while it could not look.
    for label, down_from, down_to in (("outage", outage_from, outage_to), ("pause", pause_from, pause_to)):
        sim = [fire for fire, row in decided.items() if row.decision is Decision.CREATED and row.created_at == down_to]
        late = [run for run in runs if down_from <= run.run_after < down_to]
        assert fires(late) == sim, f"{label}:\n{timeline}"
        assert all(run.queued_at is not None and run.queued_at >= down_to for run in late), f"{label}: {late}"
        assert len(sim) == BOUND, f"{label}: the catch-up made {len(sim)} runs, not the bound {BOUND}\n{timeline}"
        gone = [fire for fire in dropped if down_from <= fire < down_to]
        assert gone, f"{label}: no fire was dropped, so the bound was not exercised\n{timeline}"
