"""cli/dag_source.py: the DAG file ``import`` writes holds the schedule's values as literals, and nothing else."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

import pytest

from hops_timetable.cli.dag_source import call_source, dag_file, function_name, verify_dag_file

UTC = timezone.utc
HOURLY = "0 0 * ? * * *"


@dataclass
class Dag:
    dag_id: str
    kwargs: dict[str, Any] = field(default_factory=lambda: {"cron_expression": HOURLY})
    paused: bool = False
    text: str = "a DAG"

    def docstring(self) -> str:
        return self.text


def test_the_produced_call_builds_the_same_schedule_as_written_by_hand() -> None:
    from hops_timetable.schedule import hops_schedule

    kwargs = {
        "cron_expression": HOURLY,
        "start_time": datetime(2026, 1, 1, tzinfo=UTC),
        "end_time": datetime(2026, 1, 2, 0, 0, 0, 1000, tzinfo=UTC),
        "skip_to_date": datetime(2026, 1, 1, 1, tzinfo=UTC),
        "catchup": True,
        "max_active_runs": 2,
        "start_time_offset_seconds": 3600,
        "max_catchup_runs": 24,
    }
    namespace: dict[str, Any] = {"hops_schedule": hops_schedule, "datetime": datetime, "timezone": timezone}
    built = eval(call_source(kwargs), namespace)
    expected = hops_schedule(
        HOURLY,
        start_time=datetime(2026, 1, 1, tzinfo=UTC),
        end_time=datetime(2026, 1, 2, 0, 0, 0, 1000, tzinfo=UTC),
        start_time_offset_seconds=3600,
        catchup=True,
        max_active_runs=2,
        max_catchup_runs=24,
        skip_to_date=datetime(2026, 1, 1, 1, tzinfo=UTC),
    )
    assert built == expected
    assert "start_time=datetime(2026, 1, 1, tzinfo=timezone.utc)" in call_source(kwargs)


def test_only_the_values_the_importer_builds_have_a_literal() -> None:
    with pytest.raises(AssertionError, match="no literal for float"):
        call_source({"start_time_offset_seconds": 1.5})


@pytest.mark.parametrize(
    ("dag_id", "name"),
    [("feature_pipeline", "feature_pipeline"), ("a.b-c", "a_b_c"), ("class", "dag_class"), ("9am", "dag_9am")],
)
def test_the_dag_function_is_named_after_the_dag_id(dag_id: str, name: str) -> None:
    assert function_name(dag_id) == name
    source = dag_file(Dag(dag_id))
    [definition] = [node for node in ast.parse(source).body if isinstance(node, ast.FunctionDef)]
    assert definition.name == name


def test_a_generated_file_holds_its_docstring_and_values_and_passes_its_own_check() -> None:
    dag = Dag("job", paused=True, text="first line\n'''\"\"\"\\ second line")
    source = dag_file(dag)
    tree = ast.parse(source)
    assert ast.get_docstring(tree, clean=False) == dag.text
    assert "is_paused_upon_creation=True" in source
    verify_dag_file(source, dag)
    with pytest.raises(AssertionError, match="@dag arguments"):
        verify_dag_file(source, Dag("job", text=dag.text))  # the file pauses the DAG, the schedule does not
    with pytest.raises(AssertionError, match="docstring differs"):
        verify_dag_file(source, Dag("job", paused=True, text="another"))
