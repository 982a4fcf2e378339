"""The runs the tab reads (``ui/runs``) from a real SQLite metadata database: bounded queries, kept between views,
and pages that read exactly as the whole history read run by run."""

from __future__ import annotations

import itertools
import json
import threading
from collections.abc import Iterator
from dataclasses import asdict
from datetime import datetime
from typing import Any

import pytest
from fuzzing import examples
from hypothesis import HealthCheck, given, settings
from runs_by_hand import HOURLY, START, at, manual, scheduled
from test_coverage_blocks import assorted_runs

from hops_timetable import _compat
from hops_timetable.core.coverage import Blocks, RunRecord, now_key, page_of_fires, timeline_begin
from hops_timetable.core.schedule import Schedule
from hops_timetable.core.time_text import stored_time
from hops_timetable.ui import runs as tab_runs
from hops_timetable.ui.render import PAGE_FIRES, build_page, page_json

pytestmark = pytest.mark.usefixtures("airflow_db")

SETTINGS = Schedule(cron=HOURLY, start=START, catchup=True)


@pytest.fixture
def session() -> Iterator[Any]:
    yield from _compat.metadata_session()


def _insert(session: Any, dag_id: str, runs: list[RunRecord]) -> None:
    from airflow.models.dagrun import DagRun

    rows = [{"dag_id": dag_id, "clear_number": 0, **asdict(r)} for r in runs]
    for row in rows:
        row["conf"] = row["conf"] or {}
    session.execute(DagRun.__table__.insert(), rows)
    session.commit()


def _set_state(session: Any, dag_id: str, run_id: str, state: str) -> None:
    from airflow.models.dagrun import DagRun

    table = DagRun.__table__
    session.execute(table.update().where(table.c.dag_id == dag_id, table.c.run_id == run_id).values(state=state))
    session.commit()


def _page(session: Any, dag_id: str, page: int, now: datetime) -> dict[str, Any]:
    """Page *page* as the tab builds it: the runs kept between views, the page's own read whole, the history worked
    out for the page before carried over."""
    from hops_timetable.ui import app as tab_app

    policy = SETTINGS.policy()
    runs = tab_runs.dag_runs(session, dag_id, SETTINGS)
    found = page_of_fires(policy, timeline_begin(policy, runs.earliest_start, None), now, page, PAGE_FIRES)
    assert found is not None
    runs = tab_runs.with_page(session, dag_id, SETTINGS, runs, found[2], found[3])
    return page_json(dag_id, tab_app._page(SETTINGS, dag_id, runs, now, page))


def _whole(records: list[RunRecord], page: int, now: datetime) -> dict[str, Any]:
    """The same page from every run read whole (the tab's former way)."""
    return page_json("d", build_page(SETTINGS, records, now, page))


def _same(a: dict[str, Any], b: dict[str, Any]) -> bool:
    # Run order within the JSON's list of runs follows the order they were handed in.
    a, b = dict(a), dict(b)
    return sorted(map(json.dumps, a.pop("runs"))) == sorted(map(json.dumps, b.pop("runs"))) and a == b


def test_pages_from_the_kept_runs_read_as_the_whole_history_and_follow_changes(session: Any) -> None:
    dag_id = "d"
    runs = [scheduled(h, "failed" if h % 150 == 0 else "success") for h in range(1, 901)]
    runs += [manual("manual__a", at(300, 30), at(302, 15)), manual("manual__b", at(700), at(701), "failed")]
    _insert(session, dag_id, runs)
    now = at(900, 30)
    for page in (0, 1, 3, 4):
        assert _same(_page(session, dag_id, page, now), _whole(runs, page, now))
    folded = tab_runs._KEPT[dag_id]
    assert sum(b.count for b in folded.builder.blocks) > 850  # kept as a handful of blocks, not 900 runs

    # New runs, one still running: read by id, not again from the start.
    more = [scheduled(h) for h in range(901, 911)] + [scheduled(911, "running")]
    _insert(session, dag_id, more)
    runs += more
    now = at(911, 30)
    assert _same(_page(session, dag_id, 0, now), _whole(runs, 0, now))
    assert tab_runs._KEPT[dag_id] is folded and next(iter(folded.in_flight.values())).run_id == "scheduled__911"

    # The running one ends; an old success is marked failed, an old failure marked success, one cleared (queued),
    # a failed run deleted: each is read by the state index and cut out of its block, nothing is folded again.
    changes = {"scheduled__911": "success", "scheduled__20": "failed", "scheduled__150": "success"}
    changes["scheduled__40"] = "queued"
    for run_id, state in changes.items():
        _set_state(session, dag_id, run_id, state)
    _delete(session, dag_id, "scheduled__300")
    runs = [RunRecord(**{**asdict(r), "state": changes.get(r.run_id, r.state)}) for r in runs]
    runs = [r for r in runs if r.run_id != "scheduled__300"]
    for page in (0, 4):
        assert _same(_page(session, dag_id, page, now), _whole(runs, page, now))
    assert tab_runs._KEPT[dag_id] is folded

    # A schedule changed: the runs are folded again.
    other = Schedule(cron=HOURLY, start=START, catchup=True, max_catchup_runs=3)
    tab_runs.dag_runs(session, dag_id, other)
    assert tab_runs._KEPT[dag_id] is not folded


def _delete(session: Any, dag_id: str, run_id: str) -> None:
    from airflow.models.dagrun import DagRun

    table = DagRun.__table__
    session.execute(table.delete().where(table.c.dag_id == dag_id, table.c.run_id == run_id))
    session.commit()


def test_a_run_is_read_by_its_id_alone(session: Any) -> None:
    _insert(session, "one", [scheduled(1), manual("manual__x", at(0), at(1))])
    found = tab_runs.one_run(session, "one", "manual__x")
    assert found is not None and found.conf == {"hops_window": manual("m", at(0), at(1)).conf["hops_window"]}
    assert found.run_after == at(1) and found.run_after.tzinfo is not None
    assert tab_runs.one_run(session, "one", "nope") is None


def test_the_page_query_reads_only_the_page_and_counts_read_only_the_states_asked(session: Any) -> None:
    _insert(session, "q", [scheduled(h, "failed" if h in (5, 6) else "success") for h in range(1, 101)])
    query = tab_runs.RunQuery(logical_from=at(40), logical_to=at(49))
    assert [row.run_id for row in tab_runs.run_rows(session, "q", query)] == [
        f"scheduled__{h:02d}" for h in range(41, 51)
    ]
    newest = max(row.id for row in tab_runs.run_rows(session, "q"))
    assert tab_runs.run_state_counts(session, "q", ("failed", "running"), newest) == {"failed": 2}
    assert tab_runs.run_state_counts(session, "q", ("failed",), newest - 98) == {}


def test_the_runs_route_pages_by_row_id_as_audit_reads_it(session: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    from fastapi.testclient import TestClient

    from hops_timetable.ui import app as tab_app

    runs = [scheduled(h) for h in range(1, 8)] + [manual("manual__m", at(2), at(3))]
    _insert(session, "paged", runs)
    tab_app.app.dependency_overrides[tab_app._user] = lambda: "someone"
    monkeypatch.setattr(tab_app._compat, "require_dag_read", lambda request, user, dag_id, runs=False: None)
    monkeypatch.setattr(tab_app, "_dag", lambda session, dag_id: None)
    try:
        with TestClient(tab_app.app) as client:
            read, after = [], 0
            while after is not None:
                page = client.get("/api/dags/paged/runs", params={"after": after, "limit": 3}).json()
                read += page["dag_runs"]
                after = page["next"]
            assert client.get("/api/dags/paged/runs", params={"limit": 5_001}).status_code == 422
    finally:
        tab_app.app.dependency_overrides.clear()
    assert [r["dag_run_id"] for r in read] == [r.run_id for r in runs]
    assert read[0]["data_interval_end"] == at(1).isoformat() and read[-1]["conf"] == runs[-1].conf
    # Every field as SQLAlchemy's own conversion of the row reads it (the route reads the driver's values).
    for item, row in zip(read, tab_runs.run_rows(session, "paged"), strict=True):
        record = tab_runs.record_of(row)
        fields = ("run_after", "logical_date", "data_interval_start", "data_interval_end", "queued_at")
        assert {name: item[name] for name in fields} == {
            name: None if getattr(record, name) is None else getattr(record, name).isoformat() for name in fields
        }
        assert (item["run_type"], item["state"], item["conf"]) == (record.run_type, record.state, record.conf)


def test_a_page_shown_again_at_an_instant_that_sees_the_runs_alike_is_kept_and_reads_as_worked_out_anew(
    session: Any,
) -> None:
    from hops_timetable.ui import app as tab_app

    dag_id = "again"
    runs = [scheduled(h, "failed" if h % 70 == 0 else "success") for h in range(1, 301)]
    _insert(session, dag_id, runs)

    def shown(page: int, now: datetime) -> Any:
        policy = SETTINGS.policy()
        kept = tab_runs.dag_runs(session, dag_id, SETTINGS)
        found = page_of_fires(policy, timeline_begin(policy, kept.earliest_start, None), now, page, PAGE_FIRES)
        assert found is not None
        kept = tab_runs.with_page(session, dag_id, SETTINGS, kept, found[2], found[3])
        return tab_app._page(SETTINGS, dag_id, kept, now, page)

    first = shown(0, at(305, 10))
    for page, now in ((0, at(305, 40)), (1, at(305, 40)), (0, at(306, 0)), (0, at(306, 30))):
        again = shown(page, now)
        assert _same(page_json(dag_id, again), _whole(runs, page, now))
        assert (again.history.rules is first.history.rules) == (page == 0 and now == at(305, 40))
    # A new run: the page is worked out anew, and those of the runs before are let go.
    _insert(session, dag_id, [scheduled(301)])
    runs.append(scheduled(301))
    assert _same(page_json(dag_id, shown(0, at(306, 30))), _whole(runs, 0, at(306, 30)))
    assert {key[2:] for key in tab_app._PAGES if key[0] == dag_id} == {
        (tab_runs._KEPT[dag_id].version, 0, now_key(SETTINGS.policy(), at(306, 30)))
    }


def test_the_api_server_keeps_as_many_dags_as_the_deployment_says(session: Any, monkeypatch: Any) -> None:
    from hops_timetable import config

    monkeypatch.setenv("AIRFLOW__HOPS_TIMETABLE__TAB_KEPT_DAGS", "2")
    config.settings.cache_clear()
    try:
        tab_runs._KEPT.clear()
        for dag_id in ("kept_a", "kept_b", "kept_c"):
            _insert(session, dag_id, [scheduled(1), scheduled(2)])
            tab_runs.dag_runs(session, dag_id, SETTINGS)
        assert list(tab_runs._KEPT) == ["kept_b", "kept_c"]  # the least recently viewed is let go
        assert _same(_page(session, "kept_a", 0, at(3)), _whole([scheduled(1), scheduled(2)], 0, at(3)))
        assert list(tab_runs._KEPT) == ["kept_c", "kept_a"]
    finally:
        monkeypatch.delenv("AIRFLOW__HOPS_TIMETABLE__TAB_KEPT_DAGS")
        config.settings.cache_clear()


_DAGS = itertools.count()


@settings(max_examples=examples(200), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(assorted_runs())
def test_a_first_read_folds_the_runs_as_reading_them_one_by_one(
    session: Any, case: tuple[int | None, list[RunRecord]]
) -> None:
    # The first read takes the runs the timetable made as they are, by the columns the driver gives, and every
    # other run whole: the same blocks, runs kept whole, failed and in-flight runs as the rows read one by one.
    offset, assorted = case
    dag_id = f"first-read-{next(_DAGS)}"
    taken: set[object] = set()
    runs = [r for r in assorted if r.logical_date is None or not (r.logical_date in taken or taken.add(r.logical_date))]
    from airflow.models.dagrun import DagRun

    rows = [{"dag_id": dag_id, "clear_number": n % 2, **asdict(r)} for n, r in enumerate(runs)]
    if rows:
        session.execute(DagRun.__table__.insert(), rows)
        session.commit()
    settings_ = Schedule(cron=HOURLY, start=START, catchup=True, offset=offset)
    first, by_row = (tab_runs._Folded(settings_, Blocks(settings_.policy(), offset)) for _ in range(2))
    first.fold_all(session, dag_id, trusting=False)
    by_row.fold(tab_runs.run_rows(session, dag_id))
    records, blocks = by_row.builder.finish()
    assert first.builder.finish() == (records, blocks)
    assert (first.upto, first.failed, first.in_flight) == (by_row.upto, by_row.failed, by_row.in_flight)
    # What a view starts from: read trusting the cron, and read again when a block's runs skipped a fire.
    viewed = tab_runs.dag_runs(session, dag_id, settings_)
    assert (viewed.records, viewed.blocks) == ([*records, *by_row.in_flight.values()], blocks)


def test_a_long_first_read_goes_on_in_the_background_while_views_say_how_far_it_is(
    session: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from fastapi.testclient import TestClient

    from hops_timetable.ui import app as tab_app

    dag_id = "long-read"
    runs = [scheduled(h) for h in range(1, 10_051)]
    _insert(session, dag_id, runs)
    held, go_on, reads = threading.Event(), threading.Event(), []
    whole_history = tab_runs.raw_run_rows

    def slow(session: Any, dag_id: str, after_id: int | None = None, limit: int | None = None) -> Any:
        if after_id is None:
            reads.append(dag_id)
        for n, row in enumerate(whole_history(session, dag_id, after_id, limit), start=1):
            if after_id is None and n == 10_001:
                held.set()
                assert go_on.wait(60)
            yield row

    monkeypatch.setattr(tab_runs, "raw_run_rows", slow)
    monkeypatch.setattr(tab_app, "_load", lambda session, dag_id: (SETTINGS, False))
    monkeypatch.setattr(tab_app._compat, "require_dag_read", lambda request, user, dag_id, runs=False: None)
    tab_app.app.dependency_overrides[tab_app._user] = lambda: "someone"
    try:
        with TestClient(tab_app.app) as client:
            for _ in range(2):  # answered once the read is long, not when it ends
                answer = client.get(f"/api/dags/{dag_id}")
                reading = {"dag_id": dag_id, "reading": {"runs_read": 10_000}}
                assert (answer.status_code, answer.json()) == (202, reading)
            assert held.wait(60)  # the read is held half way, not ended
            plain = client.get(f"/dags/{dag_id}")
            assert (plain.status_code, plain.headers["refresh"]) == (202, "1")
            assert f"Reading the runs of {dag_id}: 10,000 so far." in plain.text
            go_on.set()
            for thread in threading.enumerate():
                if thread.name == "hops-tab-read":
                    thread.join(60)
            page = client.get(f"/api/dags/{dag_id}")
            assert page.status_code == 200
            coverage = page.json()["coverage"]
            assert _same(coverage, _whole(runs, 0, stored_time(coverage["now"])))
            assert client.get(f"/dags/{dag_id}").status_code == 200
    finally:
        go_on.set()
        tab_app.app.dependency_overrides.clear()
    assert reads == [dag_id]  # one read of the whole history, however many views came during it
