"""The tab's snapshots of a DAG's folded runs (``ui/run_snapshot``) on a real SQLite metadata database: an api-server
started again takes them up instead of reading the whole history, and reads every page as the whole history reads;
a snapshot that no longer fits the database or the schedule, or does not read back, is ignored."""

from __future__ import annotations

import itertools
import json
import logging
import os
import threading
from collections.abc import Iterator
from dataclasses import asdict
from pathlib import Path
from typing import Any

import pytest
from fuzzing import examples
from hypothesis import HealthCheck, given, settings
from runs_by_hand import HOURLY, START, at, manual, scheduled
from test_coverage_blocks import assorted_runs
from test_ui_runs import SETTINGS, _delete, _insert, _page, _same, _set_state, _whole

from hops_timetable import _compat, config
from hops_timetable.core.coverage import Blocks, RunRecord
from hops_timetable.core.schedule import Schedule
from hops_timetable.ui import run_snapshot
from hops_timetable.ui import runs as tab_runs

pytestmark = pytest.mark.usefixtures("airflow_db")


@pytest.fixture
def session() -> Iterator[Any]:
    yield from _compat.metadata_session()


@pytest.fixture
def restarted(monkeypatch: pytest.MonkeyPatch) -> Any:
    """Forget every DAG's runs kept in memory, as an api-server started again; *whole* tells whether the next view
    then read a DAG's whole history."""
    reads: list[str] = []
    whole_history = tab_runs.raw_run_rows

    def counted(session: Any, dag_id: str, after_id: int | None = None, limit: int | None = None) -> Any:
        if after_id is None:
            reads.append(dag_id)
        return whole_history(session, dag_id, after_id, limit)

    monkeypatch.setattr(tab_runs, "raw_run_rows", counted)

    def restart() -> list[str]:
        tab_runs._KEPT.clear()
        return reads

    return restart


def _history() -> list[RunRecord]:
    runs = [scheduled(h, "failed" if h % 150 == 0 else "success") for h in range(1, 901)]
    return [*runs, manual("manual__a", at(300, 30), at(302, 15)), manual("manual__b", at(700), at(701), "failed")]


def _pages_read_as_the_whole_history(session: Any, dag_id: str, runs: list[RunRecord], hour: int) -> None:
    now = at(hour, 30)
    for page in (0, 1, 4):
        assert _same(_page(session, dag_id, page, now), _whole(runs, page, now))


def test_an_api_server_started_again_takes_the_runs_up_and_follows_what_changed_meanwhile(
    session: Any, restarted: Any
) -> None:
    dag_id = "restart"
    runs = [*_history(), scheduled(901, "running")]
    _insert(session, dag_id, runs)
    _pages_read_as_the_whole_history(session, dag_id, runs, 901)
    assert restarted() == [dag_id]  # the first view read the history once, and wrote it down

    # Meanwhile: new runs, the running one ended, an old success failed, an old failure cleared.
    more = [scheduled(h) for h in range(902, 910)]
    _insert(session, dag_id, more)
    changes = {"scheduled__901": "success", "scheduled__20": "failed", "scheduled__150": "queued"}
    for run_id, state in changes.items():
        _set_state(session, dag_id, run_id, state)
    runs = [RunRecord(**{**asdict(r), "state": changes.get(r.run_id, r.state)}) for r in runs + more]
    _pages_read_as_the_whole_history(session, dag_id, runs, 909)
    assert restarted() == [dag_id]  # taken up from the snapshot: the history was not read again
    # The older runs that changed were written down again: the next start need not read them.
    path = run_snapshot._path(dag_id)
    assert path is not None
    failed = {row[1][0] for row in json.loads(path.read_text())["failed"]}
    assert {"scheduled__20", "manual__b"} <= failed and "scheduled__150" not in failed


def test_a_snapshot_that_no_longer_fits_is_ignored_and_the_runs_fold_again(session: Any, restarted: Any) -> None:
    dag_id = "no-fit"
    runs = _history()
    _insert(session, dag_id, runs)
    _pages_read_as_the_whole_history(session, dag_id, runs, 900)

    # A successful run deleted (as `airflow db clean` does): no state count changes, the number of runs does.
    _delete(session, dag_id, "scheduled__400")
    runs = [r for r in runs if r.run_id != "scheduled__400"]
    restarted()
    _pages_read_as_the_whole_history(session, dag_id, runs, 900)
    assert restarted() == [dag_id, dag_id]

    # Another schedule: the snapshot was folded for the one before.
    other = Schedule(cron=HOURLY, start=START, catchup=True, max_catchup_runs=3)
    tab_runs.dag_runs(session, dag_id, other)
    assert restarted() == [dag_id, dag_id, dag_id]

    # The database reset and filled again with other runs: the run at the snapshot's highest id is another.
    tab_runs.dag_runs(session, dag_id, SETTINGS)
    from airflow.models.dagrun import DagRun

    session.execute(DagRun.__table__.delete().where(DagRun.__table__.c.dag_id == dag_id))
    session.commit()
    again = [scheduled(h) for h in range(1, 899)] + [manual("manual__c", at(1), at(2))]
    _insert(session, dag_id, again)
    restarted()
    _pages_read_as_the_whole_history(session, dag_id, again, 900)
    assert restarted() == [dag_id] * 5


def test_a_snapshot_that_does_not_read_back_is_ignored_with_a_warning(
    session: Any, restarted: Any, caplog: pytest.LogCaptureFixture
) -> None:
    dag_id = "odd/name with spaces"
    runs = _history()
    _insert(session, dag_id, runs)
    tab_runs.dag_runs(session, dag_id, SETTINGS)
    path = run_snapshot._path(dag_id)
    assert path is not None and path.parent == Path(_compat.airflow_home()) / "hops_timetable" / "tab-runs"
    data = json.loads(path.read_text())
    assert data["dag_id"] == dag_id and data["upto"] == max(row.id for row in tab_runs.run_rows(session, dag_id))
    path.write_text(json.dumps({**data, "blocks": [["scheduled", "success", "yesterday"]]}))
    restarted()
    with caplog.at_level(logging.WARNING, logger=run_snapshot.__name__):
        _pages_read_as_the_whole_history(session, dag_id, runs, 900)
    assert restarted() == [dag_id, dag_id] and "Ignoring the tab's snapshot" in caplog.text


def test_snapshots_switched_off_or_not_writable_leave_the_tab_working(
    session: Any, restarted: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    runs = [scheduled(h) for h in range(1, 30)]
    _insert(session, "off", runs)
    _insert(session, "blocked", runs)
    blocked = tmp_path / "file"
    blocked.write_text("not a directory")
    try:
        monkeypatch.setenv("AIRFLOW__HOPS_TIMETABLE__TAB_SNAPSHOTS", "False")
        config.settings.cache_clear()
        _pages_read_as_the_whole_history(session, "off", runs, 29)
        assert run_snapshot._path("off") is None
        monkeypatch.setenv("AIRFLOW__HOPS_TIMETABLE__TAB_SNAPSHOTS", "True")
        config.settings.cache_clear()
        path = run_snapshot._path("off")
        assert path is not None and not path.exists()
        monkeypatch.setenv("AIRFLOW__HOPS_TIMETABLE__TAB_SNAPSHOT_DIR", str(blocked / "below"))
        config.settings.cache_clear()
        with caplog.at_level(logging.WARNING, logger=run_snapshot.__name__):
            _pages_read_as_the_whole_history(session, "blocked", runs, 29)
        assert "Could not write the tab's snapshot" in caplog.text
    finally:
        monkeypatch.undo()
        config.settings.cache_clear()
    assert restarted() == ["off", "blocked"]


def test_an_api_server_starting_takes_up_the_snapshots_of_the_dags_viewed_last(
    session: Any, restarted: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from fastapi import HTTPException
    from fastapi.testclient import TestClient

    from hops_timetable.ui import app as tab_app

    runs = [scheduled(h) for h in range(1, 30)]
    dag_ids = ("first", "second", "third", "gone")
    for written, dag_id in enumerate(dag_ids, start=1):
        _insert(session, dag_id, runs)
        tab_runs.dag_runs(session, dag_id, SETTINGS)
        path = run_snapshot._path(dag_id)
        assert path is not None
        os.utime(path, (written * 1000, written * 1000))
    restarted()

    def load(session: Any, dag_id: str) -> tuple[Schedule, bool]:
        if dag_id == "gone":
            raise HTTPException(404, "no longer scheduled with HopsworksTimetable")
        return SETTINGS, False

    monkeypatch.setattr(tab_app, "_load", load)
    monkeypatch.setattr(tab_app._compat, "dag_pause_flags", lambda session: [(d, False) for d in ("never", *dag_ids)])
    monkeypatch.setenv("AIRFLOW__HOPS_TIMETABLE__TAB_KEPT_DAGS", "3")
    config.settings.cache_clear()
    try:
        with TestClient(tab_app.app):  # its lifespan: the api-server starting
            for thread in threading.enumerate():
                if thread.name == "hops-tab-warm-up":
                    thread.join(60)
        # The three written last, the oldest first; the one no longer the timetable's skipped.
        assert list(tab_runs._KEPT) == ["second", "third"]
        _pages_read_as_the_whole_history(session, "third", runs, 29)
    finally:
        monkeypatch.undo()
        config.settings.cache_clear()
    assert restarted() == list(dag_ids)  # each history read once, by the views before the start


def test_the_snapshot_is_written_again_after_every_thousand_new_runs(session: Any, restarted: Any) -> None:
    dag_id = "thousand"
    _insert(session, dag_id, [scheduled(h) for h in range(1, 11)])
    tab_runs.dag_runs(session, dag_id, SETTINGS)
    path = run_snapshot._path(dag_id)
    assert path is not None
    written = [json.loads(path.read_text())["upto"]]
    for lo, hi in ((11, 1000), (1000, 1011), (1011, 1012)):
        _insert(session, dag_id, [scheduled(h) for h in range(lo, hi)])
        tab_runs.dag_runs(session, dag_id, SETTINGS)
        written.append(json.loads(path.read_text())["upto"])
    assert [w - written[0] for w in written] == [0, 0, 1000, 1000]  # row ids, the first 10 runs' highest first
    restarted()
    runs = [scheduled(h) for h in range(1, 1012)]
    _pages_read_as_the_whole_history(session, dag_id, runs, 1011)
    assert restarted() == [dag_id]


_DAGS = itertools.count()


def _restarted_half_way(session: Any, dag_id: str, offset: int | None, runs: list[RunRecord], half: int) -> None:
    """The runs before *half* viewed, the api-server started again, the rest added: the view then starts from what
    the rows read one by one give."""
    settings_ = Schedule(cron=HOURLY, start=START, catchup=True, offset=offset)
    for part in (runs[:half], runs[half:]):
        if part:
            _insert(session, dag_id, part)
        tab_runs.dag_runs(session, dag_id, settings_)
        tab_runs._KEPT.clear()
    by_row = tab_runs._Folded(settings_, Blocks(settings_.policy(), offset))
    by_row.fold(tab_runs.run_rows(session, dag_id))
    records, blocks = by_row.builder.finish()
    after = tab_runs.dag_runs(session, dag_id, settings_)
    assert (after.records, after.blocks) == ([*records, *by_row.in_flight.values()], blocks)


def test_a_run_older_than_the_newest_one_kept_whole_is_kept_whole_after_a_restart(session: Any) -> None:
    # The newest fire folded is part of what is taken up: a run at an older fire does not join the block then.
    odd = RunRecord("scheduled__odd", "scheduled", "success", at(4), at(1, 30), at(1, 30), at(4), at(4))
    _restarted_half_way(session, "older", None, [scheduled(1), scheduled(2), odd, scheduled(3)], 3)


@settings(max_examples=examples(200), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(assorted_runs())
def test_runs_taken_up_from_a_snapshot_fold_on_as_the_runs_read_one_by_one(
    session: Any, case: tuple[int | None, list[RunRecord]]
) -> None:
    offset, assorted = case
    taken: set[object] = set()
    runs = [r for r in assorted if r.logical_date is None or not (r.logical_date in taken or taken.add(r.logical_date))]
    _restarted_half_way(session, f"taken-up-{next(_DAGS)}", offset, runs, len(runs) // 2)
