"""The offset edited while the DAG runs, on a real scheduler: a run keeps the offset it was made with, also when it
starts after the edit, and a cleared run replays the window it first processed.

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
from rerun_dags import hops, records, window, write
from test_e2e_entry_points import scheduler_tracebacks

from hops_timetable.core.conf_window import marked_offset

# The window a run id carries is the package's own rule, read alike on every minor: the development minor runs it.
pytestmark = [pytest.mark.e2e, pytest.mark.one_minor]


def test_an_offset_edit_moves_only_the_runs_made_after_it_and_a_clear_replays_the_same_window(
    stacks: StackFactory, tmp_path: Path
) -> None:
    stack = stacks("offset-edit")
    start = floor_to(utcnow(), 10) - timedelta(seconds=20)
    body = """
with DAG("edited", is_paused_upon_creation=False, **hops_schedule("0/10 * * * * ?",
         start_time=datetime.fromisoformat({start!r}), start_time_offset_seconds={offset}, catchup=True,
         max_active_runs=6, trigger_form=False)):
    # The window is read when "record" starts, 25 s after its run was made: edits land in between.
    PythonOperator(task_id="wait", python_callable=wait, op_args=[25]) >> HopsPythonOperator(
        task_id="record", python_callable=record)
"""
    write(stack, "edited", tmp_path, body.format(start=start.isoformat(), offset=7))
    wait_runs(stack, "edited", lambda r: len(r) >= 3, 120, "three runs made under offset 7")
    written_at = utcnow()
    write(stack, "edited", tmp_path, body.format(start=start.isoformat(), offset=3))

    def reparsed() -> bool | None:
        details = stack.api("GET", "/api/v2/dags/edited/details")
        return True if "HOPS_LOGICAL_DATE - 3 s" in (details.get("timetable_description") or "") else None

    stack.wait_until(reparsed, 120, what="the edit parsed")
    before = [run for run in stack.runs("edited") if run.created_at is not None and run.created_at < written_at]
    # The scheduler picks the new serialized DAG up a little after the dag-processor stored it; from then on its
    # runs are made with offset 3, and their ids say so.
    runs = wait_runs(
        stack,
        "edited",
        lambda r: (
            len([x for x in r if marked_offset(x.run_id) == 3 and x.state == "success"]) >= 2
            and all(x.state == "success" for x in r if x.run_id in {b.run_id for b in before})
        ),
        240,
        "runs on both sides of the edit done",
    )
    got = records(tmp_path, "edited")
    first_made_with_3 = min(run.created_at or run.run_after for run in runs if marked_offset(run.run_id) == 3)
    started_after_edit = 0
    for run in runs:
        if run.state != "success":
            continue
        assert run.logical_date is not None
        first = got[run.run_id][0]
        made_with = marked_offset(run.run_id)
        assert made_with in (7, 3), run
        if run.created_at is not None and run.created_at < written_at:
            assert made_with == 7, run
        # Each run processed the window it was made for, also one made under 7 that started after the scheduler
        # had the edit.
        assert hops(first) == window(run.logical_date, made_with), (run, first)
        if made_with == 7:
            started_after_edit += first["at"] > first_made_with_3.timestamp()
    assert started_after_edit >= 1, run_rows(runs)

    # Clear a run made under offset 7: its second try replays its first window.
    cleared = before[0]
    stack.api(
        "POST",
        "/api/v2/dags/edited/clearTaskInstances",
        {"dag_run_id": cleared.run_id, "dry_run": False, "only_failed": False, "task_ids": ["record"]},
    )
    stack.wait_until(lambda: len(records(tmp_path, "edited")[cleared.run_id]) >= 2 or None, 120, what="the re-run")
    tries = records(tmp_path, "edited")[cleared.run_id]
    assert hops(tries[1]) == hops(tries[0]) == window(cleared.logical_date or start, 7)
    assert scheduler_tracebacks(stack) == []
