"""The harness restarts a scheduler that died of Airflow's own known crash, and nothing else.

Stand-in components print a traceback and exit, as a scheduler does when its loop raises: Airflow's
``StaleDataError`` over ``dag_run`` with only Airflow's frames (restarted, at most twice per stack), the same
exception through a frame of this package (a failure), and another exception (a failure). No Airflow component runs
here, so this runs with the unit suites.
"""

from __future__ import annotations

import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from harness import UPSTREAM_RESTARTS, AirflowStack, StackError

CRASH = textwrap.dedent(
    """
    import sys

    frames = {
        "airflow": '  File "/venv/site-packages/airflow/jobs/scheduler_job_runner.py", line 2028, in _schedule_dag_run',
        "ours": '  File "/venv/site-packages/hops_timetable/timetable.py", line 80, in next_dagrun_info',
    }
    kind, frame = sys.argv[1].split(":")
    exception = {
        "stale": "sqlalchemy.orm.exc.StaleDataError: UPDATE statement on table 'dag_run' expected to update 2 row(s);"
        " 1 were matched.",
        "unique": "sqlalchemy.exc.IntegrityError: (sqlite3.IntegrityError) UNIQUE constraint failed: dag_run.dag_id",
    }[kind]
    print("Traceback (most recent call last):", file=sys.stderr)
    print(frames[frame], file=sys.stderr)
    print("    self._run_scheduler_loop()", file=sys.stderr)
    print(exception, file=sys.stderr)
    sys.exit(1)
    """
)


def _crashed(stack: AirflowStack, name: str) -> None:
    deadline = time.monotonic() + 30
    while name in stack.pids():
        assert time.monotonic() < deadline, f"the stand-in {name} did not exit"
        time.sleep(0.05)


@pytest.fixture
def stack(tmp_path: Path) -> Iterator[AirflowStack]:
    stack = AirflowStack(tmp_path, tmp_path / "dags")
    yield stack
    stack.stop()


@pytest.mark.parametrize(
    ("crash", "component"),
    [("stale:ours", "scheduler"), ("unique:airflow", "scheduler"), ("stale:airflow", "dag-processor")],
    ids=["through-this-package", "another-exception", "not-the-scheduler"],
)
def test_any_other_exit_fails_at_once_with_the_head_of_its_traceback(
    stack: AirflowStack, tmp_path: Path, crash: str, component: str
) -> None:
    script = tmp_path / "crash.py"
    script.write_text(CRASH)
    stack.start_component(component, [crash], script=script)
    _crashed(stack, component)
    with pytest.raises(StackError, match=r"exited with code 1:\nTraceback \(most recent call last\):") as raised:
        stack.wait_until(lambda: False, timeout=5, what="nothing")
    assert stack.upstream_restarts == []
    assert "_run_scheduler_loop" in str(raised.value)


def test_airflows_own_stale_data_crash_restarts_the_scheduler_at_most_twice(
    stack: AirflowStack, tmp_path: Path
) -> None:
    script = tmp_path / "crash.py"
    script.write_text(CRASH)
    stack.start_component("scheduler", ["stale:airflow"], script=script)
    for restarted in range(1, UPSTREAM_RESTARTS + 1):
        _crashed(stack, "scheduler")
        stack.wait_until(lambda: True, timeout=5)
        assert len(stack.upstream_restarts) == restarted
        assert stack.upstream_restarts[-1].startswith("sqlalchemy.orm.exc.StaleDataError")
    _crashed(stack, "scheduler")
    with pytest.raises(StackError, match="component 'scheduler' exited with code 1"):
        stack.wait_until(lambda: True, timeout=5)
