"""Assertions and waits shared by the end-to-end scenarios."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from datetime import datetime, timedelta

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
