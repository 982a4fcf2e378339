"""The Hopsworks tab's HTML: this DAG's settings in words, and nothing from a run or its conf unescaped."""

from __future__ import annotations

import json
import re
from datetime import datetime, timedelta, timezone
from html import unescape
from urllib.parse import quote, unquote, urljoin, urlsplit

from hops_timetable.core.catchup import CatchupPolicy
from hops_timetable.core.coverage import RunRecord, coverage, run_window, upcoming_windows
from hops_timetable.core.cron import QuartzCron
from hops_timetable.core.settings import ScheduleSettings
from hops_timetable.ui.render import PAGE_FIRES, build_page, dag_page, page_json, run_page, schedule_in_words

UTC = timezone.utc
START = datetime(2026, 1, 1, tzinfo=UTC)
HOURLY = QuartzCron("0 0 * ? * * *")


def settings(**kw: object) -> ScheduleSettings:
    return ScheduleSettings(cron=HOURLY, start=START, **kw)  # type: ignore[arg-type]


def test_the_words_describe_only_this_dags_catch_up_case_and_its_offset() -> None:
    bounded = " ".join(schedule_in_words(settings(catchup=True, max_catchup_runs=24, offset=25 * 3600)))
    assert "at most the newest 24 missed fire(s) run" in bounded
    assert "catchup=False" not in bounded
    assert "previous fire - 25 h" in bounded
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
    page = dag_page(hostile, settings(), built, upcoming_windows(policy, False, None, None, now, 2), False)
    assert "<script>" not in page
    assert "&lt;script&gt;" in page
    assert "<svg" in page and 'id="verdict"' in page
    for record in runs:
        assert "<script>" not in run_page(hostile, run_window(record, None), None)


def _links(page: str) -> list[str]:
    return [unescape(href) for href in re.findall(r'<a [^>]*href="([^"]*)"', page)]


def test_run_links_and_the_way_back_stay_inside_the_tab_under_any_root_airflow_is_served_at() -> None:
    dag_id, run_ids = "sales daily+v2", ["scheduled__2026-01-01T01:00:00+00:00", "manual/odd id?#%"]
    runs = [
        RunRecord(run_id, "scheduled", "success", START + timedelta(hours=1), START, START, START + timedelta(hours=1))
        for run_id in run_ids
    ]
    now = START + timedelta(hours=1, minutes=5)
    page = dag_page(dag_id, settings(), build_page(settings(), runs, now), [], False)
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
            back = _links(run_page(dag_id, run_window(runs[0], None), None))
            assert [urljoin(url, link) for link in back] == [tab]


# -- pages: bounded for any history ------------------------------------------------------------------------------------

MINUTE = timedelta(minutes=1)
HOUR = timedelta(hours=1)
MINUTELY = QuartzCron("0 * * ? * * *")
BUDGET = 300_000  # bytes of one page of the tab or of its JSON


def a_million_fires() -> tuple[ScheduleSettings, list[RunRecord], datetime]:
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
    settings = ScheduleSettings(cron=MINUTELY, start=START, catchup=True, max_catchup_runs=24)
    return settings, runs, START + 1_000_400 * MINUTE + timedelta(seconds=10)


def _hops(value: datetime) -> str:
    return value.strftime("%Y-%m-%dT%H:%M:%SZ")


def test_a_million_fires_of_history_make_pages_of_bounded_size_with_links_to_older_ones() -> None:
    settings, runs, now = a_million_fires()
    newest = build_page(settings, runs, now)
    assert newest.history.fires == 1_000_400 and newest.pages == -(-1_000_400 // PAGE_FIRES)
    assert len(newest.coverage.fires) == PAGE_FIRES and newest.coverage.fires[-1].fire == START + 1_000_400 * MINUTE
    html = dag_page("d", settings, newest, [], False)
    assert len(html.encode()) < BUDGET
    assert '<a id="older" href="?page=1">' in html and 'id="newer"' not in html
    # The bound dropped the 1,000,000 - 24 fires before the replayed ones, 2 minutes of them covered by the conf
    # window: the summary says so in one row, from the first fire to the last dropped one.
    history_rows = re.findall(
        r'<tr data-status="([^"]*)"><td class="mono">([^<]*)</td><td class="mono">([^<]*)</td>'
        r"<td>([^<]*)</td>",
        html,
    )
    dropped = [row for row in history_rows if row[0] == "dropped beyond max_catchup_runs"]
    assert sum(int(n.replace(",", "")) for *_, n in dropped) == 1_000_000 - 24
    assert dropped[-1][1] == "2026-01-01T00:01:00Z"
    data = page_json("d", newest)
    assert len(json.dumps(data).encode()) < BUDGET
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
        assert len(dag_page("d", settings, page, [], False).encode()) < BUDGET
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
