"""The harness's Airflow stack on PostgreSQL, for the high-availability and scale scenarios.

Needs ``E2E_POSTGRES_URL`` (``scripts/start-postgres`` prints one); each test uses a database of its own.
"""

from __future__ import annotations

import contextlib
import json
import os
import uuid
from collections.abc import Iterator, Mapping
from datetime import datetime
from pathlib import Path
from typing import Any

from harness import AirflowStack, run_migrate

POSTGRES_URL = os.environ.get("E2E_POSTGRES_URL", "")


def connect(url: str, database: str | None = None) -> Any:
    import psycopg2
    from sqlalchemy.engine import make_url

    parts = make_url(url)
    return psycopg2.connect(
        host=parts.host,
        port=parts.port or 5432,
        user=parts.username,
        password=parts.password,
        dbname=database or parts.database,
        connect_timeout=10,
    )


@contextlib.contextmanager
def fresh_database(url: str) -> Iterator[str]:
    """A new, empty database on the server of *url* for one test; its SQLAlchemy URL. Dropped afterwards."""
    from sqlalchemy.engine import make_url

    name = f"hops_ha_{uuid.uuid4().hex[:12]}"
    _admin(url, f'CREATE DATABASE "{name}"')
    try:
        yield make_url(url).set(database=name).render_as_string(hide_password=False)
    finally:
        # A connection of its own: the server may have been restarted by the test since the database was made.
        _admin(url, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _admin(url: str, statement: str) -> None:
    admin = connect(url)
    admin.autocommit = True
    try:
        with admin.cursor() as cursor:
            cursor.execute(statement)
    finally:
        admin.close()


def _as_text(value: object) -> object:
    # The harness parses timestamps and JSON columns from text, as SQLite returns them.
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, dict | list):
        return json.dumps(value)
    return value


class PostgresStack(AirflowStack):
    """The harness's stack on a PostgreSQL database, with any number of named schedulers.

    Reads go through psycopg2; timestamps come back as the harness's ISO text, so its ``runs()`` and
    ``dag_model()`` work unchanged.
    """

    def __init__(self, home: Path, dags_folder: Path, url: str, env: Mapping[str, str] | None = None) -> None:
        super().__init__(home, dags_folder, env)
        self.url = url
        self.env["AIRFLOW__DATABASE__SQL_ALCHEMY_CONN"] = url
        self.scheduler_jobs: dict[str, int] = {}

    def migrate(self) -> None:
        run_migrate(self.home, self.env)

    def start_scheduler(self, name: str, timeout: float = 90.0) -> int:
        """Start one more ``airflow scheduler`` as component *name*; returns its job id once it heartbeats."""
        known = {row["id"] for row in self.query("SELECT id FROM job WHERE job_type = 'SchedulerJob'")}
        self.start_component("scheduler")
        # The harness knows one component per name: file this one under its own.
        self._components[name] = self._components.pop("scheduler")

        def new_job() -> int | None:
            rows = self.query("SELECT id FROM job WHERE job_type = 'SchedulerJob' AND state = 'running'")
            fresh = [row["id"] for row in rows if row["id"] not in known]
            return fresh[0] if fresh else None

        job = self.wait_until(new_job, timeout=timeout, what=f"{name} registered as a scheduler job")
        self.scheduler_jobs[name] = job
        return job

    def query(self, sql: str, params: tuple[Any, ...] = ()) -> list[Any]:
        connection = connect(self.url)
        try:
            with connection.cursor() as cursor:
                cursor.execute(sql.replace("?", "%s"), params)
                if cursor.description is None:
                    return []
                names = [column.name for column in cursor.description]
                return [
                    {name: _as_text(value) for name, value in zip(names, row, strict=True)} for row in cursor.fetchall()
                ]
        finally:
            connection.close()

    def creating_jobs(self, dag_id: str) -> dict[str, int | None]:
        rows = self.query("SELECT run_id, creating_job_id FROM dag_run WHERE dag_id = ?", (dag_id,))
        return {row["run_id"]: row["creating_job_id"] for row in rows}
