"""Every documented way to build a DAG on a real scheduler, and the schedules Airflow must refuse.

* The README's second way, ``schedule=HopsworksTimetable(...)`` with the DAG's own ``start_date``/``catchup``:
  a backfill and its dry run are the scheduled runs of the range, neither bounded nor invented.
* An end date given through ``default_args`` ends the schedule, with and without catch-up.
* ``AssetOrTimeSchedule`` around the timetable, and a schedule that can never run, fail the DAG's import with the
  reason.

The three re-run scenarios (``test_e2e_rerun_takeover.py``, ``test_e2e_rerun_offset_edit.py`` and
``test_e2e_rerun_ways.py``) each stop or edit their own stack, so they cannot share one; as three modules,
``--dist loadfile`` runs them side by side.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from expect import run_rows, wait_runs
from harness import StackFactory, floor_to, utcnow
from rerun_dags import TEN, hops, iso, records, write
from test_e2e_entry_points import backfill_body, create_backfill, scheduler_tracebacks

# How a DAG file builds the timetable is the package's own code, alike on every minor: the development minor runs it.
pytestmark = [pytest.mark.e2e, pytest.mark.one_minor]

WAYS = """
with DAG("by_hand", schedule=HopsworksTimetable("0/10 * * * * ?", max_catchup_runs=3),
         start_date=datetime.fromisoformat({start!r}), catchup=False, is_paused_upon_creation=True):
    HopsPythonOperator(task_id="record", python_callable=record)

with DAG("end_plain", schedule=HopsworksTimetable("0/10 * * * * ?"), start_date=datetime.fromisoformat({start!r}),
         catchup=False, is_paused_upon_creation=False,
         default_args={{"end_date": datetime.fromisoformat({end!r})}}):
    HopsPythonOperator(task_id="record", python_callable=record)

with DAG("end_catchup", is_paused_upon_creation=False, default_args={{"end_date": datetime.fromisoformat({end!r})}},
         **hops_schedule("0/10 * * * * ?", start_time=datetime.fromisoformat({start!r}), catchup=True,
                         max_active_runs=16, trigger_form=False)):
    HopsPythonOperator(task_id="record", python_callable=record)
"""

REFUSED = """
try:
    from airflow.sdk import Asset, AssetOrTimeSchedule
except ImportError:  # Airflow 3.0's Task SDK does not export it yet
    from airflow.sdk import Asset
    from airflow.timetables.assets import AssetOrTimeSchedule

with DAG("wrapped", schedule=AssetOrTimeSchedule(timetable=HopsworksTimetable("0/10 * * * * ?"),
         assets=[Asset("s3://bucket/key")]), start_date=datetime.fromisoformat({start!r})):
    HopsPythonOperator(task_id="record", python_callable=record)
"""

NEVER = """
with DAG("never", schedule=HopsworksTimetable("0 0 0 1 1 ? 2027"), start_date=datetime.fromisoformat({start!r}),
         end_date=datetime.fromisoformat({end!r})):
    HopsPythonOperator(task_id="record", python_callable=record)
"""


def test_every_documented_way_to_build_a_dag_gets_the_scheduled_runs_and_its_end_date(
    stacks: StackFactory, tmp_path: Path
) -> None:
    stack = stacks("ways")
    now = utcnow()
    start = floor_to(now, 10) - timedelta(seconds=95)  # 5 s past a fire: the first interval is clamped
    end = floor_to(now, 10) + timedelta(seconds=35)  # 5 s past a fire, in the near future
    write(stack, "ways", tmp_path, WAYS.format(start=start.isoformat(), end=end.isoformat()))
    write(stack, "refused", tmp_path, REFUSED.format(start=start.isoformat()))
    write(stack, "never", tmp_path, NEVER.format(start="2026-01-01T00:00:00+00:00", end="2026-01-31T00:00:00+00:00"))
    stack.wait_for_dag("by_hand")

    errors = stack.wait_until(lambda: stack.import_errors() if len(stack.import_errors()) >= 2 else None, 120)
    text = "\n".join(errors)
    assert "HopsworksTimetable cannot be wrapped in AssetOrTimeSchedule" in text, text
    assert (
        "end_time=2026-01-31T00:00:00Z leaves no run: '0 0 0 1 1 ? 2027' has no fire after "
        "start_time=2026-01-01T00:00:00Z" in text
    ), text

    # The backfill of 10 fires from before the start: 10 runs, the first clamped at the start, none invented.
    low, high = start - timedelta(seconds=30), start + timedelta(seconds=85)
    wanted = [start] + [floor_to(start, 10) + k * TEN for k in range(1, 10)]
    dry = stack.api("POST", "/api/v2/backfills/dry_run", backfill_body("by_hand", low, high))
    assert [entry["logical_date"] for entry in dry["backfills"]] == [
        w.isoformat().replace("+00:00", "Z") for w in wanted
    ]

    # The DAGs with an end date from default_args: no run at or after it, with and without catch-up.
    stack.wait_until(lambda: utcnow() > end + timedelta(seconds=25), 120, what="the end date to pass")
    for dag_id, catchup in (("end_plain", False), ("end_catchup", True)):
        runs = stack.runs(dag_id)
        assert runs, dag_id
        assert all(run.run_after < end for run in runs), run_rows(runs)
        assert runs[-1].run_after == floor_to(end, 10), run_rows(runs)
        if catchup:
            assert len(runs) == 13, run_rows(runs)  # every fire in (start, end): the catch-up, then live

    stack.stop_component("dag-processor")
    stack.stop_component("scheduler")
    create_backfill(stack, backfill_body("by_hand", low, high))
    stack.unpause("by_hand")
    stack.start_component("scheduler")
    stack.wait_healthy()
    runs = wait_runs(
        stack,
        "by_hand",
        lambda r: len([x for x in r if x.state == "success" and x.run_type == "backfill"]) >= 10,
        180,
        "the backfill done",
    )
    backfilled = sorted((run for run in runs if run.run_type == "backfill"), key=lambda run: run.run_after)
    assert [run.logical_date for run in backfilled] == wanted, run_rows(backfilled)
    got = records(tmp_path, "by_hand")
    for run in backfilled:
        line = hops(got[run.run_id][0])
        assert run.logical_date is not None
        assert line["HOPS_LOGICAL_DATE"] == iso(run.logical_date)
        assert line["HOPS_END_TIME"] == iso(run.run_after)
    assert scheduler_tracebacks(stack) == []
