"""The Hopsworks tab's HTML: this DAG's settings in words, and nothing from a run or its conf unescaped."""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone
from html import unescape
from urllib.parse import quote, unquote, urljoin, urlsplit

from hops_timetable.core.catchup import CatchupPolicy
from hops_timetable.core.coverage import RunRecord, coverage, run_window, upcoming_windows
from hops_timetable.core.cron import QuartzCron
from hops_timetable.core.settings import ScheduleSettings
from hops_timetable.ui.render import dag_page, run_page, schedule_in_words

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
    cov = coverage(policy, False, None, runs, now)
    page = dag_page(hostile, settings(), cov, upcoming_windows(policy, False, None, None, now, 2), False)
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
    policy = CatchupPolicy(HOURLY, start=START)
    now = START + timedelta(hours=1, minutes=5)
    page = dag_page(dag_id, settings(), coverage(policy, False, None, runs, now), [], False)
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
