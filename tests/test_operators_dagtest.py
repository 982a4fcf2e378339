"""The operators inside real Airflow task runs: each task writes what its job code sees to a file, read back here.

``dag.test()`` runs every task of a run in this process, one after the other, which is exactly where a leaked
``HOPS_*`` variable would show. It only runs DAGs defined in files of the DAG folder, so the module writes one.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shlex
import sys
import textwrap
from datetime import datetime
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from support import UTC

DAG_FILE = '''
"""Test DAG: every task records the HOPS_* variables and the job arguments it sees."""
import json
import os
import sys
from datetime import datetime, timedelta, timezone

from airflow.providers.standard.operators.bash import BashOperator
from airflow.providers.standard.operators.python import PythonOperator
from airflow.sdk import DAG

from hops_timetable import hops_schedule
from hops_timetable.operators import (
    HopsBashOperator, HopsPythonOperator, hops_task, inject_hops_env, restore_hops_env,
)

OUT = {out!r}
JOB = {job!r}


def record(name, **context):
    seen = {{
        "env": {{k: v for k, v in os.environ.items() if k.startswith("HOPS_")}},
        "argv": sys.argv[1:],
        "timetable": type(context["dag"].timetable).__name__ if "dag" in context else None,
        "offset": context["dag"].timetable.start_time_offset_seconds if "dag" in context else None,
        "other": os.environ.get("OTHER"),
    }}
    with open(os.path.join(OUT, name + ".json"), "w") as f:
        json.dump(seen, f)


def bash_job(name, **kwargs):
    return f"bash {{JOB}} {{name}}"


with DAG(
    "hops_operators",
    **hops_schedule("0 0 * ? * * *", start_time=datetime(2026, 1, 1, tzinfo=timezone.utc),
                    start_time_offset_seconds=3600),
    # A bad window must fail a task at once: retrying cannot mend it.
    default_args={{"retries": 2, "retry_delay": timedelta(0)}},
) as dag:
    first = PythonOperator(task_id="plain_first", python_callable=record, op_kwargs={{"name": "plain_first"}})
    last = PythonOperator(
        task_id="plain_last", python_callable=record, op_kwargs={{"name": "plain_last"}}, trigger_rule="all_done"
    )
    python = HopsPythonOperator(
        task_id="python", python_callable=record, op_kwargs={{"name": "python"}}, legacy_args="start_time"
    )
    author = HopsPythonOperator(
        task_id="author", python_callable=record, op_kwargs={{"name": "author"}},
        env={{"HOPS_END_TIME": "author-end", "OTHER": "x"}},
    )

    @hops_task(legacy_args="papermill")
    def decorated(**context):
        record("decorated", **context)

    # The command places the legacy arguments; a trailing comment, ";" and comment line stay as they are.
    bash = HopsBashOperator(
        task_id="bash", bash_command=bash_job("bash") + " {{{{ hops.legacy_args }}}}  # the job",
        legacy_args="start_time",
    )
    papermill = HopsBashOperator(
        task_id="papermill", bash_command=bash_job("papermill") + " {{{{ hops.legacy_args }}}};\\n# done\\n",
        legacy_args="papermill",
    )
    injected_python = PythonOperator(
        task_id="injected_python", python_callable=record, op_kwargs={{"name": "injected_python"}},
        pre_execute=inject_hops_env, post_execute=restore_hops_env,
    )
    injected_bash = BashOperator(
        task_id="injected_bash", bash_command=bash_job("injected_bash"), env={{"OTHER": "kept"}},
        pre_execute=inject_hops_env, post_execute=restore_hops_env,
    )
    for task in (python, author, decorated(), bash, papermill, injected_python, injected_bash):
        first >> task >> last
'''

# Records what a bash job sees: its arguments after the name, its HOPS_* variables and OTHER.
JOB_SH = """\
name=$1; shift
{python} -c 'import json, os, sys
print(json.dumps({"env": {k: v for k, v in os.environ.items() if k.startswith("HOPS_")},
                  "argv": sys.argv[2:], "other": os.environ.get("OTHER")}))' "$name" "$@" > "$(dirname "$0")/$name.json"
"""

HOPS_TASKS = ["python", "author", "decorated", "bash", "papermill", "injected_python", "injected_bash"]


@pytest.fixture(scope="module")
def out_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("hops-operators-out")


@pytest.fixture(scope="module")
def dag_module(airflow_db: None, airflow_dags_folder: Path, out_dir: Path) -> ModuleType:
    job = out_dir / "job.sh"
    job.write_text(JOB_SH.replace("{python}", shlex.quote(sys.executable)))
    path = airflow_dags_folder / "hops_operators_dag.py"
    path.write_text(textwrap.dedent(DAG_FILE.format(out=str(out_dir), job=shlex.quote(str(job)))))
    spec = importlib.util.spec_from_file_location("hops_operators_dag", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run(dag_module: ModuleType, out_dir: Path, **kwargs: Any) -> tuple[dict[str, str], dict[str, dict[str, Any]]]:
    """Run the DAG once with ``dag.test(**kwargs)``; return each task's final state and each task's record."""
    states, seen, _ = run_counting_tries(dag_module, out_dir, **kwargs)
    return states, seen


def run_counting_tries(
    dag_module: ModuleType, out_dir: Path, **kwargs: Any
) -> tuple[dict[str, str], dict[str, dict[str, Any]], dict[str, int]]:
    """:func:`run`, and how many times each task was tried."""
    from airflow.utils.session import create_session

    for old in out_dir.glob("*.json"):
        old.unlink()
    dag_run = dag_module.dag.test(**kwargs)
    with create_session() as session:
        instances = dag_run.get_task_instances(session=session)
        states = {ti.task_id: str(ti.state) for ti in instances}
        tries = {ti.task_id: ti.try_number for ti in instances}
    seen = {path.stem: json.loads(path.read_text()) for path in out_dir.glob("*.json")}
    return states, seen, tries


WINDOW = {"start_time": "2026-03-01T00:00:00+01:00", "end_time": "2026-03-02T00:00:00"}
WINDOW_ENV = {
    "HOPS_START_TIME": "2026-02-28T23:00:00Z",
    "HOPS_END_TIME": "2026-03-02T00:00:00Z",
    "HOPS_LOGICAL_DATE": "2026-02-28T23:00:00Z",
}


def test_manual_run_with_a_window_shows_exactly_the_passed_window(dag_module: ModuleType, out_dir: Path) -> None:
    states, seen = run(
        dag_module, out_dir, logical_date=datetime(2026, 3, 5, tzinfo=UTC), run_conf={"hops_window": WINDOW}
    )
    assert set(states.values()) == {"success"}
    assert set(seen) == {"plain_first", "plain_last", *HOPS_TASKS}
    for name in ["python", "decorated", "bash", "papermill", "injected_python", "injected_bash"]:
        assert seen[name]["env"] == WINDOW_ENV, name
    # A passed window beats the author's own HOPS_* value; the author's other variables still arrive.
    assert seen["author"]["env"] == WINDOW_ENV
    assert seen["author"]["other"] == "x"
    assert seen["injected_bash"]["other"] == "kept"
    # The legacy arguments, as the job parses them.
    assert seen["python"]["argv"] == ["-start_time", "2026-02-28T23:00:00Z"]
    assert seen["decorated"]["argv"] == ["-p", "start_time", "2026-02-28T23:00:00Z"]
    assert seen["bash"]["argv"] == ["-start_time", "2026-02-28T23:00:00Z"]
    assert seen["papermill"]["argv"] == ["-p", "start_time", "2026-02-28T23:00:00Z"]
    # Nothing leaks into plain tasks of the same process, and the task runtime hands over the DAG's timetable.
    for name in ["plain_first", "plain_last"]:
        assert seen[name]["env"] == {}, name
    assert seen["plain_last"]["timetable"] == "HopsworksTimetable"
    assert seen["plain_last"]["offset"] == 3600
    assert "author-end" not in json.dumps(seen["plain_last"])


def test_a_plain_manual_run_shows_no_window_at_all(dag_module: ModuleType, out_dir: Path) -> None:
    states, seen = run(dag_module, out_dir, logical_date=None)
    assert set(states.values()) == {"success"}
    for name in ["python", "decorated", "bash", "papermill", "injected_python", "injected_bash", "plain_last"]:
        assert seen[name]["env"] == {}, name
    for name in ["python", "decorated", "bash", "papermill"]:
        assert seen[name]["argv"] == [], name
    # Precedence 2: with no window from anywhere, the author's value is all the task sees.
    assert seen["author"]["env"] == {"HOPS_END_TIME": "author-end"}


def test_a_manual_run_ignores_the_interval_airflow_infers(dag_module: ModuleType, out_dir: Path) -> None:
    states, seen = run(dag_module, out_dir, logical_date=datetime(2026, 3, 5, 10, tzinfo=UTC))
    assert set(states.values()) == {"success"}
    assert all(seen[name]["env"] == {} for name in HOPS_TASKS if name != "author")


def test_a_scheduled_run_shows_the_offset_window(dag_module: ModuleType, out_dir: Path) -> None:
    """A scheduled run, created as the scheduler creates it, with each task run by the task runtime."""
    from airflow.sdk.api.datamodels._generated import TaskInstance as RuntimeTaskInstance
    from airflow.sdk.execution_time.supervisor import run_task_in_process
    from airflow.timetables.base import DataInterval
    from airflow.utils.session import create_session
    from airflow.utils.state import DagRunState, TaskInstanceState
    from airflow.utils.types import DagRunTriggeredByType, DagRunType
    from airflow_versions import dag_serialization_class

    run(dag_module, out_dir, logical_date=None)  # makes sure the DAG is in the metadata database
    for old in out_dir.glob("*.json"):
        old.unlink()
    dag = dag_module.dag
    start, fire = datetime(2026, 3, 1, 9, tzinfo=UTC), datetime(2026, 3, 1, 10, tzinfo=UTC)
    serialization = dag_serialization_class()
    scheduler_dag = serialization.deserialize_dag(serialization.serialize_dag(dag))
    names = ["python", "bash", "injected_bash", "author"]
    with create_session() as session:
        dag_run = scheduler_dag.create_dagrun(
            # The scheduler asks the DAG's timetable for the id (an offset run's carries its offset).
            run_id=scheduler_dag.timetable.generate_run_id(
                run_type=DagRunType.SCHEDULED, run_after=fire, data_interval=DataInterval(start, fire)
            ),
            logical_date=start,
            data_interval=(start, fire),
            run_after=fire,
            run_type=DagRunType.SCHEDULED,
            triggered_by=DagRunTriggeredByType.TEST,
            state=DagRunState.RUNNING,
            session=session,
        )
        instances = {ti.task_id: ti for ti in dag_run.get_task_instances(session=session)}
        for name in names:
            instances[name].try_number = 1
            instances[name].state = TaskInstanceState.QUEUED
        session.commit()
        runtime = [
            RuntimeTaskInstance(
                id=instances[name].id,
                task_id=name,
                dag_id=dag.dag_id,
                run_id=dag_run.run_id,
                try_number=1,
                map_index=-1,
                dag_version_id=instances[name].dag_version_id,
            )
            for name in names
        ]
    for instance in runtime:
        result = run_task_in_process(ti=instance, task=dag.task_dict[instance.task_id])
        assert result.ti.state == "success", instance.task_id
    seen = {path.stem: json.loads(path.read_text()) for path in out_dir.glob("*.json")}
    expected = {
        "HOPS_START_TIME": "2026-03-01T08:00:00Z",
        "HOPS_END_TIME": "2026-03-01T09:00:00Z",
        "HOPS_LOGICAL_DATE": "2026-03-01T09:00:00Z",
    }
    assert seen["python"]["env"] == expected
    assert seen["python"]["argv"] == ["-start_time", "2026-03-01T09:00:00Z"]
    assert seen["bash"]["env"] == expected
    assert seen["bash"]["argv"] == ["-start_time", "2026-03-01T09:00:00Z"]
    assert seen["injected_bash"]["env"] == expected
    assert seen["author"]["env"] == {**expected, "HOPS_END_TIME": "author-end"}
    assert not any(key.startswith("HOPS_") for key in os.environ)


HOSTILE = {
    "semicolon": {"start_time": "2026-03-01T00:00:00Z; touch {canary}", "end_time": "2026-03-02T00:00:00Z"},
    "command substitution": {"start_time": "$(touch {canary})", "end_time": "2026-03-02T00:00:00Z"},
    "backticks": {"start_time": "2026-03-01T00:00:00Z", "end_time": "`touch {canary}`"},
    "newline": {"start_time": "2026-03-01T00:00:00Z\ntouch {canary}", "end_time": "2026-03-02T00:00:00Z"},
    "very long": {"start_time": "2026-03-01T00:00:00Z" + " " * 100_000, "end_time": "2026-03-02T00:00:00Z"},
    "number": {"start_time": 1772323200, "end_time": "2026-03-02T00:00:00Z"},
    "list": {"start_time": ["2026-03-01T00:00:00Z"], "end_time": "2026-03-02T00:00:00Z"},
    "unknown key": {"start_time": "2026-03-01T00:00:00Z", "end_time": "2026-03-02T00:00:00Z", "cmd": "$(id)"},
    "logical date": {**WINDOW, "logical_date": "`touch {canary}`"},
    "reversed": {"start_time": "2026-03-02T00:00:00Z", "end_time": "2026-03-01T00:00:00Z"},
}


def _with_canary(value: Any, canary: str) -> Any:
    return value.replace("{canary}", canary) if isinstance(value, str) else value


@pytest.mark.parametrize("case", list(HOSTILE))
def test_a_hostile_window_fails_every_hops_task_before_its_code_runs(
    dag_module: ModuleType, out_dir: Path, case: str, capsys: pytest.CaptureFixture[str]
) -> None:
    canary = out_dir / "canary"
    window = {key: _with_canary(value, shlex.quote(str(canary))) for key, value in HOSTILE[case].items()}
    states, seen, tries = run_counting_tries(dag_module, out_dir, logical_date=None, run_conf={"hops_window": window})
    assert states == {**dict.fromkeys(HOPS_TASKS, "failed"), "plain_first": "success", "plain_last": "success"}
    # Failed without a retry, though the DAG allows two (AirflowFailException).
    assert {tries[name] for name in HOPS_TASKS} == {1}
    # Only the plain tasks ran their code; the plain task after them saw nothing.
    assert set(seen) == {"plain_first", "plain_last"}
    assert seen["plain_last"]["env"] == {}
    assert not canary.exists()
    captured = capsys.readouterr()
    # Airflow 3.0 renders the task's traceback with rich, in colour: the codes split the message.
    logged = re.sub(r"\x1b\[[0-9;]*m", "", captured.out + captured.err)
    assert "HopsWindowError" in logged
    assert 'conf["hops_window"]' in logged
    assert sys.argv[1:2] != ["-start_time"]


def test_an_imported_dag_file_gives_its_job_the_window_and_the_legacy_argument(
    airflow_db: None, airflow_dags_folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The file ``hops-timetable import`` writes, run as Airflow runs it: the job sees its HOPS_* window and, as in
    Hopsworks, ``-start_time <HOPS_LOGICAL_DATE>`` among its arguments (written explicitly: legacy_args)."""
    from test_export_schedule import FULL

    from hops_timetable.cli.importer import import_schedules

    [result] = import_schedules({**FULL, "enabled": True}, "interval-start")
    source = result.dag_file()
    assert source is not None and '@hops_task(legacy_args="start_time")' in source
    # The template's job prints its window; the argument is checked by printing sys.argv too.
    source = source.replace('print(f"processing', 'print("argv", sys.argv[1:]); print(f"processing')
    source = source.replace("import os\n", "import os\nimport sys\n", 1)
    source = source.rstrip().removesuffix("feature_pipeline()") + "dag = feature_pipeline()\n"
    path = airflow_dags_folder / "imported_dag.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location("imported_dag", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    window = {"start_time": "2026-01-01T02:00:00Z", "end_time": "2026-01-01T03:00:00Z"}
    dag_run = module.dag.test(logical_date=datetime(2026, 1, 1, 3, tzinfo=UTC), run_conf={"hops_window": window})
    assert str(dag_run.state) == "success"
    out = capsys.readouterr()
    logged = re.sub(r"\x1b\[[0-9;]*m", "", out.out + out.err)
    assert "argv ['-start_time', '2026-01-01T02:00:00Z']" in logged
    assert "processing [2026-01-01T02:00:00Z, 2026-01-01T03:00:00Z)" in logged
