"""A user who may not read a DAG may not read its Hopsworks tab either, with Airflow's own per-DAG permissions.

Airflow's simple auth manager restricts DAGs by team: in multi-team mode a DAG belongs to the team of its DAG
bundle, and a user sees only the DAGs of their teams. Here the DAG folder is a bundle of team ``analytics``;
``insider`` is a viewer in that team, ``outsider`` a viewer in another. No scheduler is needed: the tab reads what
the dag-processor stored.
"""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import httpx
import pytest
from dagfiles import DagSpec, Schedule, write_dag
from harness import StackFactory, utcnow

from hops_timetable import _compat

pytestmark = pytest.mark.e2e

DAG_ID = "team_secret"


@pytest.mark.skipif(
    _compat.AIRFLOW_VERSION < (3, 2),
    reason="per-DAG read access with the simple auth manager needs multi-team bundles, from Airflow 3.2",
)
def test_a_user_who_cannot_read_the_dag_gets_403_from_its_tab_and_does_not_see_it_listed(
    stacks: StackFactory, tmp_path: Path
) -> None:
    stack = stacks(
        "teams",
        env={
            "AIRFLOW__CORE__MULTI_TEAM": "True",
            "AIRFLOW__CORE__SIMPLE_AUTH_MANAGER_ALL_ADMINS": "False",
            "AIRFLOW__CORE__SIMPLE_AUTH_MANAGER_USERS": "insider:viewer:analytics,outsider:viewer:marketing",
        },
        start=False,
    )
    bundles = [
        {
            "name": "analytics-dags",
            "classpath": "airflow.dag_processing.bundles.local.LocalDagBundle",
            "kwargs": {"path": str(stack.dags_folder)},
            "team_name": "analytics",
        }
    ]
    stack.env["AIRFLOW__DAG_PROCESSOR__DAG_BUNDLE_CONFIG_LIST"] = json.dumps(bundles)
    for team in ("analytics", "marketing"):
        subprocess.run(
            [sys.executable, "-m", "airflow", "teams", "create", team],
            env=stack.env,
            check=True,
            capture_output=True,
            timeout=120,
        )
    write_dag(
        stack.dags_folder, DagSpec(DAG_ID, Schedule("0 0 * ? * * *", start_time=utcnow() - timedelta(days=1))), tmp_path
    )
    stack.start_component("api-server")
    stack.start_component("control-api")
    stack.start_component("dag-processor")
    stack.wait_healthy()
    stack.wait_for_dag(DAG_ID, timeout=120)
    passwords = json.loads((stack.home / "simple_auth_manager_passwords.json.generated").read_text())

    def get(user: str, path: str) -> httpx.Response:
        login = httpx.post(f"{stack.base_url}/auth/token", json={"username": user, "password": passwords[user]})
        login.raise_for_status()
        token = login.json()["access_token"]
        return httpx.get(stack.base_url + path, headers={"Authorization": f"Bearer {token}"})

    # Airflow's own REST API and the tab agree on who may read the DAG.
    assert get("insider", f"/api/v2/dags/{DAG_ID}").status_code == 200
    assert get("outsider", f"/api/v2/dags/{DAG_ID}").status_code == 403
    inside = get("insider", f"/hops/dags/{DAG_ID}")
    assert inside.status_code == 200 and DAG_ID in inside.text
    for path in (
        f"/hops/dags/{DAG_ID}",
        f"/hops/api/dags/{DAG_ID}",
        f"/hops/dags/{DAG_ID}/runs/any",
        f"/hops/api/dags/{DAG_ID}/spans/gaps",
        f"/hops/api/dags/{DAG_ID}/window-runs",
    ):
        refused = get("outsider", path)
        assert refused.status_code == 403, (path, refused.status_code, refused.text)
        assert DAG_ID not in refused.text and "HOPS_" not in refused.text
    assert [d["dag_id"] for d in get("insider", "/hops/api/dags").json()["dags"]] == [DAG_ID]
    assert get("outsider", "/hops/api/dags").json()["dags"] == []
