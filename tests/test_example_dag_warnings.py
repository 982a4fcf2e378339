"""The example DAGs in dags/ trigger none of Airflow's own DAG warnings when they are parsed.

Airflow 3.2 and later run a static check on every DAG file before parsing it and record a "runtime varying value"
DAG warning (a red banner on the DAG page) for a DAG constructor argument that changes with the clock, such as a
start date from ``pendulum.today()``: the DAG's version then grows as the value moves. The real dag-processor's
recorded warnings are checked in ``tests/e2e/test_e2e_example_dags.py``; this is the same check, called directly.
"""

from __future__ import annotations

import importlib
import warnings
from pathlib import Path

import pytest

from hops_timetable._compat import dag_bag_class

EXAMPLES = Path(__file__).resolve().parents[1] / "dags"
FILES = sorted(EXAMPLES.glob("*.py"))


def _stability_check() -> object:
    try:
        module = importlib.import_module("airflow.utils.dag_version_inflation_checker")
    except ImportError:
        pytest.skip("this Airflow has no DAG version inflation check (added in 3.2)")
    return module.check_dag_file_stability


@pytest.mark.parametrize("path", FILES, ids=[path.name for path in FILES])
def test_the_dag_processor_check_finds_no_runtime_varying_value(path: Path) -> None:
    check = _stability_check()
    result = check(str(path))  # type: ignore[operator]
    assert result.warnings == {}, result.format_warnings()
    assert result.runtime_varying_values == {}, result.format_warnings()


def test_the_check_does_flag_a_start_date_from_the_clock(tmp_path: Path) -> None:
    """The check above can fail: the example's former start date is flagged."""
    check = _stability_check()
    source = (EXAMPLES / "bounded_catchup.py").read_text()
    fixed = "start_time=datetime(2026, 1, 1, tzinfo=timezone.utc),"
    assert fixed in source
    varying = tmp_path / "varying.py"
    varying.write_text(
        source.replace(fixed, 'start_time=pendulum.today("UTC").subtract(days=7),').replace(
            "import os\n", "import os\n\nimport pendulum\n"
        )
    )
    result = check(str(varying))  # type: ignore[operator]
    assert result.warnings, "a start date computed from the clock was not flagged"


def test_parsing_the_examples_warns_about_nothing_in_them() -> None:
    """No Python warning (deprecations included) points into an example DAG file while Airflow parses it."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        bag = dag_bag_class()(dag_folder=str(EXAMPLES))
    assert bag.import_errors == {}
    ours = [w for w in caught if Path(w.filename).resolve().parent == EXAMPLES]
    assert ours == [], [f"{w.filename}:{w.lineno}: {w.category.__name__}: {w.message}" for w in ours]
