"""Assertions and waits shared by the end-to-end scenarios."""

from __future__ import annotations

import itertools
import json
import os
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path

from harness import AirflowStack, Run


def fires(runs: list[Run]) -> list[datetime]:
    """The fire (``run_after``) of each run."""
    return [run.run_after for run in runs]


def assert_tiles(runs: list[Run], step: timedelta) -> None:
    """Consecutive scheduled runs, one per fire, each window [previous fire, fire)."""
    for run in runs:
        assert run.run_type == "scheduled", run
        assert run.data_interval_end == run.run_after, run
        assert run.data_interval_start == run.run_after - step, run
        assert run.logical_date == run.data_interval_start, run
    for before, after in itertools.pairwise(runs):
        assert after.run_after - before.run_after == step, (before, after)


def wait_runs(
    stack: AirflowStack, dag_id: str, predicate: Callable[[list[Run]], bool], timeout: float, what: str
) -> list[Run]:
    """Wait until the runs of ``dag_id`` satisfy ``predicate``; returns them."""

    def satisfied() -> list[Run] | None:
        runs = stack.runs(dag_id)
        return runs if runs and predicate(runs) else None

    return stack.wait_until(satisfied, timeout=timeout, what=what)


def report(name: str, **payload: object) -> None:
    """Save a scenario's observed runs as ``$E2E_REPORT_DIR/<name>.json`` when that variable is set.

    ``scripts/e2e_report.py`` turns these files into the run lists of docs/testing.md.
    """
    folder = os.environ.get("E2E_REPORT_DIR")
    if not folder:
        return
    path = Path(folder) / f"{name}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(payload, indent=2, default=_json_default))


def run_rows(runs: list[Run]) -> list[dict[str, object]]:
    """The report form of runs: fire, data interval and when Airflow created the row."""
    return [
        {
            "fire": run.run_after,
            "start": run.data_interval_start,
            "end": run.data_interval_end,
            "created_at": run.created_at,
        }
        for run in runs
    ]


def _json_default(value: object) -> str:
    if isinstance(value, datetime):
        return value.isoformat()
    raise TypeError(f"cannot report {value!r}")
