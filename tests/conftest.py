"""Shared test set-up: every test session gets its own throw-away Airflow home.

This runs when pytest loads the file, before any test module imports Airflow, because Airflow reads its
configuration once at import. Nothing here imports Airflow: the pure tests stay fast, and only tests that ask for
the ``airflow_db`` fixture pay for a migrated metadata database.

Hypothesis profiles: ``dev`` (the default) runs few examples per property so that a local run stays fast; ``ci``
runs 2,000 per property (unless a test names its own count) and is selected with ``HYPOTHESIS_PROFILE=ci``.
Neither has a deadline: a test never asserts wall-clock time (a loaded CI machine made examples of 0.1 s take
1.8 s); unbounded work is refused by the size limits the fuzz targets check instead. A test that names its own
count passes it through ``fuzzing.examples``: that count under ``ci``, a few under ``dev``.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

_AIRFLOW_HOME = Path(tempfile.mkdtemp(prefix="hops-timetable-tests-"))
atexit.register(shutil.rmtree, _AIRFLOW_HOME, ignore_errors=True)
(_AIRFLOW_HOME / "dags").mkdir()

# Never the developer's own Airflow home or database, whatever the shell exports.
os.environ["AIRFLOW_HOME"] = str(_AIRFLOW_HOME)
os.environ["AIRFLOW__DATABASE__SQL_ALCHEMY_CONN"] = f"sqlite:///{_AIRFLOW_HOME / 'airflow.db'}"
os.environ["AIRFLOW__CORE__DAGS_FOLDER"] = str(_AIRFLOW_HOME / "dags")
os.environ["AIRFLOW__CORE__LOAD_EXAMPLES"] = "False"

# With few examples, an assume() that filters many out trips the health check by chance; CI's counts check it.
settings.register_profile(
    "dev", max_examples=50, deadline=None, suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow]
)
settings.register_profile(
    "ci", max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow], print_blob=True
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))


@pytest.fixture(scope="session")
def airflow_dags_folder() -> Path:
    """The DAG folder of the session's Airflow home; ``dag.test()`` only runs DAGs defined in files found here."""
    return _AIRFLOW_HOME / "dags"


@pytest.fixture(scope="session")
def airflow_db() -> None:
    """A freshly migrated SQLite metadata database in the session's Airflow home."""
    from airflow.utils import db

    db.resetdb()
    # The tab's snapshots of runs belong to the database just reset (a deployment's would be checked and ignored).
    shutil.rmtree(_AIRFLOW_HOME / "hops_timetable", ignore_errors=True)
    _share_the_in_process_execution_api()


def _share_the_in_process_execution_api() -> None:
    """One in-process Execution API app for every task ``dag.test()`` runs, as one api-server serves every task.

    ``dag.test()`` builds a new ``InProcessExecutionAPI`` for each task, and before Airflow 3.3 building its app
    (cadwyn generating every API version's routes) costs 3-8 s of CPU: most of this suite's time on 3.0-3.2. So
    there the first app built is the one every later instance hands out. From 3.3 on each app has its own lifespan
    and services registry, and is cheap; it is left as Airflow makes it.
    """
    from hops_timetable import _compat

    if _compat.AIRFLOW_VERSION >= (3, 3):
        return
    from airflow.api_fastapi.execution_api.app import InProcessExecutionAPI

    shared = InProcessExecutionAPI().app
    InProcessExecutionAPI.app = property(lambda _self: shared)  # type: ignore[method-assign,assignment]
