"""The example DAGs in dags/: they import cleanly, use HopsworksTimetable, and their job code reads the window."""

from __future__ import annotations

import importlib.util
import shutil
from datetime import datetime
from pathlib import Path
from types import ModuleType

import pytest
from support import UTC

from hops_timetable import HopsworksTimetable

EXAMPLES = Path(__file__).resolve().parents[1] / "dags"


def test_every_example_dag_imports_and_uses_the_hopsworks_timetable() -> None:
    from hops_timetable._compat import dag_bag_class

    bag = dag_bag_class()(dag_folder=str(EXAMPLES))
    assert bag.import_errors == {}
    files = {path.name for path in EXAMPLES.glob("*.py")}
    assert {"hourly_feature_pipeline.py", "daily_job.py", "offset_25h.py", "bounded_catchup.py"} <= files
    assert {Path(dag.fileloc).name for dag in bag.dags.values()} == files
    for dag in bag.dags.values():
        assert isinstance(dag.timetable, HopsworksTimetable), dag.dag_id
    assert bag.dags["offset_25h"].timetable.start_time_offset_seconds == 25 * 3600
    assert bag.dags["bounded_catchup"].timetable.max_catchup_runs == 24
    assert bag.dags["bounded_catchup"].catchup is True


def load_example(name: str, dags_folder: Path) -> ModuleType:
    """Copy an example into the session's DAG folder (``dag.test()`` runs only DAGs found there) and import it."""
    path = dags_folder / name
    shutil.copyfile(EXAMPLES / name, path)
    spec = importlib.util.spec_from_file_location(f"example_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


WINDOW = {"hops_window": {"start_time": "2026-01-01T09:00:00Z", "end_time": "2026-01-01T10:00:00Z"}}


def test_the_seed_job_code_reads_the_passed_window(
    airflow_db: None, airflow_dags_folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    module = load_example("hourly_feature_pipeline.py", airflow_dags_folder)
    dag = module.hourly_feature_pipeline()
    dag.test(logical_date=datetime(2026, 1, 1, 10, tzinfo=UTC), run_conf=WINDOW)
    assert "Processing rows in [2026-01-01 09:00:00+00:00, 2026-01-01 10:00:00+00:00)" in capsys.readouterr().out
    dag.test(logical_date=None)
    assert "No HOPS_* window given; nothing to process" in capsys.readouterr().out


def test_the_daily_job_gets_the_legacy_argument_where_its_command_places_it(
    airflow_db: None, airflow_dags_folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    module = load_example("daily_job.py", airflow_dags_folder)
    module.dag.test(logical_date=datetime(2026, 1, 1, 10, tzinfo=UTC), run_conf=WINDOW)
    out = capsys.readouterr()
    assert "job arguments: -start_time 2026-01-01T09:00:00Z" in out.out + out.err
