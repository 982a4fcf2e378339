"""The Hopsworks tab's data and Airflow 3.0's plain pages: this DAG's settings in words, bounded pages of any history,
what a run carried, and nothing from a run or its conf unescaped."""

from __future__ import annotations

import dataclasses
import json
import re
from datetime import datetime, timedelta, timezone
from html import unescape
from urllib.parse import quote, unquote, urljoin, urlsplit

from hops_timetable.core.catchup import CatchupPolicy
from hops_timetable.core.conf_window import mark_offset
from hops_timetable.core.coverage import RunRecord, coverage, run_window, upcoming_windows
from hops_timetable.core.cron import QuartzCron
from hops_timetable.core.schedule import Schedule
from hops_timetable.core.schedule import sentences as schedule_in_words
from hops_timetable.core.window import window_rule
from hops_timetable.ui.render import PAGE_FIRES, build_page, dag_data, dag_page, page_json
from hops_timetable.ui.run_tab import RunFacts, run_json, run_page

UTC = timezone.utc
START = datetime(2026, 1, 1, tzinfo=UTC)
HOURLY = QuartzCron("0 0 * ? * * *")


def settings(**kw: object) -> Schedule:
    return Schedule(cron=HOURLY, start=START, **kw)  # type: ignore[arg-type]


def test_the_words_describe_only_this_dags_catch_up_case_and_its_offset() -> None:
    bounded = " ".join(schedule_in_words(settings(catchup=True, max_catchup_runs=24, offset=25 * 3600)))
    assert "at most the newest 24 missed fire(s) run" in bounded
    assert "catchup=False" not in bounded
    assert f"Window: {window_rule(25 * 3600)}." in schedule_in_words(settings(offset=25 * 3600))
    off = " ".join(schedule_in_words(settings(skip_to=START + timedelta(days=1)), paused=True))
    assert "catchup=False: after an outage or a pause only the newest missed fire runs." in off
    assert "max_catchup_runs" not in off
    assert "skip_to_date 2026-01-02T00:00:00Z" in off
    assert "paused" in off


def test_run_ids_and_conf_values_are_escaped() -> None:
    hostile = '<script>alert("x")</script>'
    policy = CatchupPolicy(HOURLY, start=START)
    runs = [
        RunRecord(
            hostile, "scheduled", "success", START + timedelta(hours=1), START, START, START + timedelta(hours=1)
        ),
        RunRecord("m", "manual", "failed", START, conf={"hops_window": {"start_time": hostile}}),
    ]
    now = START + timedelta(hours=1, minutes=5)
    built = build_page(settings(), runs, now)
    page = dag_page(dag_data(hostile, settings(), False, built, upcoming_windows(policy, False, None, None, now, 2)))
    assert hostile not in page
    assert "&lt;script&gt;" in page
    assert 'id="verdict"' in page
    for record in runs:
        assert hostile not in run_page(hostile, RunFacts(run_window(record, None), None))


def _links(page: str) -> list[str]:
    return [unescape(href) for href in re.findall(r'<a [^>]*href="([^"]*)"', page)]


def test_run_links_and_the_way_back_stay_inside_the_tab_under_any_root_airflow_is_served_at() -> None:
    dag_id, run_ids = "sales daily+v2", ["scheduled__2026-01-01T01:00:00+00:00", "manual/odd id?#%"]
    runs = [
        RunRecord(run_id, "scheduled", "success", START + timedelta(hours=1), START, START, START + timedelta(hours=1))
        for run_id in run_ids
    ]
    now = START + timedelta(hours=1, minutes=5)
    page = dag_page(dag_data(dag_id, settings(), False, build_page(settings(), runs, now), []))
    links = _links(page)
    assert len(links) == len(run_ids), page
    # Airflow's UI sandboxes the tab's iframe without allow-top-navigation: a link must not try to leave it.
    assert "target=" not in page
    for root in ("http://airflow.test/", "https://proxy.test/teams/data/airflow/"):
        # Where Airflow's UI loads the tab from: <base href> (the path of [api] base_url) + the plugin's href.
        tab = urljoin(root, f"hops/dags/{quote(dag_id, safe='')}")
        reached = {urljoin(tab, link) for link in links}
        assert reached == {f"{tab}/runs/{quote(r, safe='')}" for r in run_ids}
        for url in reached:
            hops, dags, dag_part, runs_part, run_part = urlsplit(url).path[len(urlsplit(root).path) :].split("/")
            assert (hops, dags, unquote(dag_part), runs_part) == ("hops", "dags", dag_id, "runs")
            assert unquote(run_part) in run_ids
            back = _links(run_page(dag_id, RunFacts(run_window(runs[0], None), "scheduler")))
            assert [urljoin(url, link) for link in back] == [tab]


# -- pages: bounded for any history ------------------------------------------------------------------------------------

MINUTE = timedelta(minutes=1)
HOUR = timedelta(hours=1)
MINUTELY = QuartzCron("0 * * ? * * *")
BUDGET = 300_000  # bytes of one page of the tab or of its JSON


def a_million_fires() -> tuple[Schedule, list[RunRecord], datetime]:
    """Every minute since START, first scheduled 1,000,000 minutes later with max_catchup_runs=24 (the 24 newest
    fires run at once), then 400 fires on time with every seventh run failed, and one conf window a year back."""
    deployed = START + 1_000_000 * MINUTE + timedelta(seconds=30)
    runs = []
    for k in range(1, 425):
        fire = START + (1_000_000 - 24 + k) * MINUTE
        queued = deployed if k <= 24 else fire + timedelta(seconds=1)
        state = "failed" if k % 7 == 0 else "success"
        runs.append(RunRecord(f"scheduled__{k}", "scheduled", state, fire, fire - MINUTE, fire - MINUTE, fire, queued))
    far = START + timedelta(days=30)
    conf = {"hops_window": {"start_time": _hops(far), "end_time": _hops(far + timedelta(hours=2))}}
    runs.append(RunRecord("manual__far", "manual", "success", far + timedelta(days=400), conf=conf))
    settings = Schedule(cron=MINUTELY, start=START, catchup=True, max_catchup_runs=24)
    return settings, runs, START + 1_000_400 * MINUTE + timedelta(seconds=10)


def _hops(value: datetime) -> str:
    return value.strftime("%Y-%m-%dT%H:%M:%SZ")


def test_a_million_fires_of_history_make_pages_of_bounded_size_with_links_to_older_ones() -> None:
    settings, runs, now = a_million_fires()
    newest = build_page(settings, runs, now)
    assert newest.history.fires == 1_000_400 and newest.pages == -(-1_000_400 // PAGE_FIRES)
    assert len(newest.coverage.fires) == PAGE_FIRES and newest.coverage.fires[-1].fire == START + 1_000_400 * MINUTE
    html = dag_page(dag_data("d", settings, False, newest, []))
    assert len(html.encode()) < BUDGET
    assert '<a id="older" href="?page=1">' in html and 'id="newer"' not in html
    # The bound dropped the 1,000,000 - 24 fires before the replayed ones, 2 minutes of them covered by the conf
    # window: the summary says so in one row, from the first fire to the last dropped one.
    history_rows = re.findall(
        r'<tr data-status="([^"]*)"><td class="mono">([^<]*)</td><td class="mono">([^<]*)</td>'
        r'<td class="num">([^<]*)</td>',
        html,
    )
    dropped = [row for row in history_rows if row[0] == "dropped beyond max_catchup_runs"]
    assert sum(int(n.replace(",", "")) for *_, n in dropped) == 1_000_000 - 24
    assert dropped[-1][1] == "2026-01-01T00:01:00Z"
    data = page_json("d", newest)
    assert len(json.dumps(data).encode()) < BUDGET
    # Every seventh run failed: 60 gaps, 28 among the page's 200 fires. The plain page lists those and counts all,
    # as the tab does.
    assert (len(data["gaps"]), data["gaps_total"]) == (28, 60) and "<p>32 more not listed here.</p>" in html
    assert data["page"] == {
        "number": 0,
        "pages": newest.pages,
        "size": PAGE_FIRES,
        "fires_total": 1_000_400,
        "newer": None,
        "older": "?page=1",
    }
    assert [f["fire"] for f in data["fires"]][-1] == _hops(START + 1_000_400 * MINUTE)
    # The runs listed are those of the page's fires; the conf window a year back meets none of theirs.
    assert {r["run_id"] for r in data["runs"]} == {r for f in data["fires"] for r in f["run_ids"]}
    for number in (1, 2_500, newest.pages - 1, newest.pages + 5):
        page = build_page(settings, runs, now, number)
        assert page.number == min(number, newest.pages - 1)
        assert len(dag_page(dag_data("d", settings, False, page, [])).encode()) < BUDGET
        assert len(json.dumps(page_json("d", page)).encode()) < BUDGET
    oldest = build_page(settings, runs, now, newest.pages - 1)
    assert oldest.coverage.fires[0].fire == START + MINUTE and oldest.older == []


def test_pages_partition_the_fires_and_read_as_the_whole_coverage() -> None:
    # Hourly for 450 fires, every third run failed: three pages of 200, 200 and 50 fires.
    settings_ = settings(catchup=True)
    runs = [
        RunRecord(
            f"s{h}",
            "scheduled",
            "failed" if h % 3 == 0 else "success",
            START + h * HOUR,
            START + (h - 1) * HOUR,
            START + (h - 1) * HOUR,
            START + h * HOUR,
            START + h * HOUR,
        )
        for h in range(1, 451)
    ]
    now = START + 450 * HOUR + timedelta(minutes=5)
    whole = coverage(settings_.policy(), True, None, runs, now)
    seen: list[tuple[datetime, str, bool]] = []
    for number in range(3):
        page = build_page(settings_, runs, now, number)
        assert page.pages == 3
        seen = [(f.fire, f.status, f.covered) for f in page.coverage.fires] + seen
        assert page.history.verdict() == whole.verdict()
    assert seen == [(f.fire, f.status, f.covered) for f in whole.fires]


# -- the look: Airflow's colours, the timeline's range, labels and dates -----------------------------------------------

LONG_ID = "manual__2026-12-03T20:15:31.123456+00:00"


def _hourly_with_conf_windows() -> tuple[Schedule, list[RunRecord], datetime]:
    """60 hourly fires with their runs, a conf window two weeks back and one over the newest fires."""
    settings_ = settings(catchup=True)
    runs = [
        RunRecord(f"s{h}", "scheduled", "success", START + h * HOUR, *(START + (h - 1) * HOUR,) * 2, START + h * HOUR)
        for h in range(1, 61)
    ]
    far = START + 60 * HOUR - timedelta(days=14)
    near = START + 50 * HOUR
    runs += [
        RunRecord("manual__far", "manual", "success", START + 61 * HOUR, conf=_window(far, far + 2 * HOUR)),
        RunRecord(LONG_ID, "manual", "success", START + 61 * HOUR, conf=_window(near, near + 3 * HOUR)),
    ]
    return settings_, runs, START + 60 * HOUR + timedelta(minutes=5)


def _window(start: datetime, end: datetime) -> dict[str, object]:
    return {"hops_window": {"start_time": _hops(start), "end_time": _hops(end)}}


def test_dates_in_tables_are_single_unwrapped_cells() -> None:
    settings_, runs, now = _hourly_with_conf_windows()
    html = dag_page(dag_data("d", settings_, False, build_page(settings_, runs, now), []))
    cells = re.findall(r"<td([^>]*)>([^<]*\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ[^<]*)</td>", html)
    assert len(cells) > 60 * 4
    assert all('class="mono"' in attrs for attrs, _ in cells), [c for c in cells if "mono" not in c[0]][:3]
    assert "td{white-space:nowrap}" in html


def test_the_plain_pages_follow_the_browsers_colours_and_fetch_nothing() -> None:
    settings_, runs, now = _hourly_with_conf_windows()
    for html in (
        dag_page(dag_data("d", settings_, False, build_page(settings_, runs, now), [])),
        run_page("d", RunFacts(run_window(runs[0], None), "scheduler")),
    ):
        assert "color-scheme:light dark" in html and "<script" not in html
        # Nothing from another origin: no stylesheet, font or image of its own, no absolute address.
        assert not re.search(r'<(link|img|iframe)\b|\b(src|href)="(https?:)?//|url\(|@import', html)


def test_the_json_gives_each_fire_the_tone_it_is_shown_in() -> None:
    settings_, runs, now = _hourly_with_conf_windows()
    runs[5] = RunRecord("s6", "scheduled", "failed", START + 6 * HOUR, *(START + 5 * HOUR,) * 2, START + 6 * HOUR)
    fires = page_json("d", build_page(settings_, runs, now))["fires"]
    tones = {f["fire"]: f["tone"] for f in fires}
    assert tones[_hops(START + 6 * HOUR)] == "failed"
    assert tones[_hops(START + 7 * HOUR)] == "ran"
    assert set(tones.values()) <= {"ran", "running", "failed", "due", "dropped", "skipped", "missed"}


# -- the run tab -------------------------------------------------------------------------------------------------------


def _facts(run: RunRecord, offset: int | None = None, **legacy: list[str]) -> str:
    item = run_window(run, offset, settings().policy())
    return run_page("d", RunFacts(item, item.carried, legacy))  # type: ignore[arg-type]


def _source(page: str) -> str:
    found = re.search(r'<td id="source">(.*?)</td>', page)
    assert found is not None, page
    return unescape(found.group(1))


def test_the_run_tab_names_what_the_run_carried() -> None:
    fire = START + 5 * HOUR
    scheduled = RunRecord("s", "scheduled", "success", fire, fire - HOUR, fire - HOUR, fire)
    assert _source(_facts(scheduled)) == (
        "scheduler: the run's data interval [2026-01-01T04:00:00Z, 2026-01-01T05:00:00Z)"
    )
    moved = dataclasses.replace(scheduled, run_id=mark_offset("s", 90 * 60))
    assert _source(_facts(moved, 90 * 60)).endswith(", the window moved 1 h 30 min earlier (start_time_offset_seconds)")
    form = {"hops_window_start_time": "2026-01-01T01:00:00Z", "hops_window_end_time": "2026-01-01T02:00:00Z"}
    by_form = _source(_facts(RunRecord("m", "manual", "success", fire, conf=form)))
    assert by_form == (
        'conf: the Trigger form\'s hops_window_start_time and hops_window_end_time, read as conf["hops_window"]'
    )
    by_conf = _source(_facts(RunRecord("m", "manual", "success", fire, conf=_window(START, fire))))
    assert by_conf == 'conf: conf["hops_window"] of the run'
    # A backfill that took over a manual run processes the scheduled window of its logical date.
    taken = RunRecord("b", "backfill", "success", fire, fire, fire, fire + timedelta(minutes=7))
    item = run_window(taken, None, settings().policy())
    assert item.carried == "scheduled run replayed"
    page = run_page("d", RunFacts(item, item.carried))
    assert _source(page).startswith("scheduled run replayed: a backfill took this run over")


def test_the_legacy_arguments_show_only_where_the_dags_operators_pass_them() -> None:
    fire = START + 5 * HOUR
    scheduled = RunRecord("s", "scheduled", "success", fire, fire - HOUR, fire - HOUR, fire)
    assert "legacy" not in _facts(scheduled) and "-start_time" not in _facts(scheduled)
    page = unescape(_facts(scheduled, start_time=["job"], papermill=["nb"]))
    assert "-start_time 2026-01-01T04:00:00Z (legacy_args='start_time' of job)" in page
    assert "-p start_time 2026-01-01T04:00:00Z (legacy_args='papermill' of nb)" in page
    item = run_window(scheduled, None, settings().policy())
    data = run_json("d", RunFacts(item, item.carried, {"start_time": ["job"]}))
    assert data["legacy"] == [{"mode": "start_time", "arguments": "-start_time 2026-01-01T04:00:00Z", "tasks": ["job"]}]
    assert (data["data_interval_start"], data["data_interval_end"]) == ("2026-01-01T04:00:00Z", "2026-01-01T05:00:00Z")
    assert data["env"]["HOPS_START_TIME"] == "2026-01-01T04:00:00Z" and data["source"] == "scheduler"
    # No window, no arguments: a plain manual run.
    manual = _facts(RunRecord("m", "manual", "success", fire), start_time=["job"])
    assert "-start_time" not in manual and "hops_window_start_time" in manual


def test_the_scheduler_side_dag_keeps_which_tasks_pass_legacy_arguments() -> None:
    from airflow.sdk import DAG
    from airflow_versions import dag_serialization_class

    from hops_timetable import HopsworksTimetable
    from hops_timetable.operators import HopsBashOperator, HopsPythonOperator
    from hops_timetable.ui.app import _legacy_modes

    with DAG("d", schedule=HopsworksTimetable("0 0 0 * * ?"), start_date=START) as dag:
        HopsBashOperator(task_id="job", bash_command="job.sh {{ hops.legacy_args }}", legacy_args="start_time")
        HopsBashOperator(task_id="plain", bash_command="job.sh")
        HopsPythonOperator(task_id="notebook", python_callable=print, legacy_args="papermill")
    serialization = dag_serialization_class()
    stored = serialization.from_dict(serialization.to_dict(dag))
    assert _legacy_modes(stored) == {"start_time": ["job"], "papermill": ["notebook"]}
