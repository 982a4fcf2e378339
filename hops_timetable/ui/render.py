"""One page of a DAG's coverage (:func:`build_page`) as the tab's JSON (:func:`dag_data`), and that JSON as the plain
page of Airflow 3.0 (:func:`dag_page`), where every value from a DAG, a run or its ``conf`` is escaped."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from html import escape
from typing import Any
from urllib.parse import quote

from hops_timetable.core.conf_window import END_PARAM, START_PARAM
from hops_timetable.core.coverage import (
    Coverage,
    FireCoverage,
    History,
    RunBlock,
    RunRecord,
    Span,
    Stretch,
    history,
    page_of_fires,
)
from hops_timetable.core.decision import CATCH_UP_DROPS, Decision
from hops_timetable.core.schedule import Schedule, sentences
from hops_timetable.core.window import HOPS_ENV_KEYS, HopsWindow, format_hops_time

PAGE_FIRES = 200  # fires listed one by one on a page; older ones on the next pages, and summarized as stretches
HISTORY_ROWS = 40  # rows of the older history listed, about
SPAN_ROWS = 50  # gaps, drops, duplicates and overlaps listed per page, the newest first


# 3.0's plain pages, opened by URL: the browser's own colours, imitating nothing (3.1 on, the tab is the React app).
_CSS = (
    ":root{color-scheme:light dark}body{font-family:system-ui,sans-serif;font-size:14px;margin:16px}"
    "table{border-collapse:collapse;margin:4px 0 12px}th,td{border-bottom:1px solid #8884;padding:3px 8px;"
    "text-align:left;vertical-align:top}td{white-space:nowrap}h1{font-size:20px}h2{font-size:16px;margin-top:20px}"
)


def plain_page(title: str, body: str) -> str:
    """A whole HTML page around *body* (already escaped)."""
    return (
        f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{escape(title)}</title>'
        f"<style>{_CSS}</style></head><body>{body}</body></html>"
    )


def status_class(fire: FireCoverage) -> str:
    """The tone a fire is shown in: ran, running, failed, due, dropped, skipped or missed."""
    if fire.decision is Decision.CREATED:
        return {"ran": "ran", "running": "running"}.get(fire.status, "failed")
    if fire.decision is Decision.DUE:
        return "due"
    if fire.decision in CATCH_UP_DROPS:
        return "dropped"
    return "skipped" if fire.by_design else "missed"


def _mono(value: str) -> str:
    return f'<td class="mono">{escape(value)}</td>'


def _interval(start: str, end: str) -> str:
    return f'<td class="mono">[{escape(start)}, {escape(end)})</td>'


def _table(table_id: str, head: Sequence[str], rows: str) -> str:
    """A table that scrolls sideways in a narrow tab rather than wrap its dates."""
    cells = "".join(f"<th>{escape(h)}</th>" for h in head)
    return f'<div class="scroll"><table id="{table_id}"><tr>{cells}</tr>{rows}</table></div>'


def _run_link(dag_id: str, run_id: str) -> str:
    # To this plain page of the run, relative to <root>/hops/dags/<dag_id>, so it holds under any path Airflow is
    # served at; the ids are quoted whole, so the depth never changes.
    href = f"{quote(dag_id, safe='')}/runs/{quote(run_id, safe='')}"
    return f'<a href="{escape(href)}">{escape(run_id)}</a>'


def _fire_table(cov: Mapping[str, Any], dag_id: str) -> str:
    rows = []
    for f in reversed(cov["fires"]):
        runs = ", ".join(_run_link(dag_id, r) for r in f["run_ids"])
        covered = " (window covered by another run)" if f["decision"] != Decision.CREATED and f["covered"] else ""
        rows.append(
            f'<tr data-fire="{escape(f["fire"])}" data-status="{escape(f["status"])}">{_mono(f["fire"])}'
            f"<td>{escape(f['status'])}{escape(covered)}</td>"
            f"{_interval(f['data_interval_start'], f['data_interval_end'])}"
            + "".join(_mono(f[key]) for key in HOPS_ENV_KEYS)
            + f'<td class="mono">{runs}</td></tr>'
        )
    head = ("fire", "status", "Airflow data interval", *HOPS_ENV_KEYS, "runs")
    return _table("fires", head, "".join(rows))


def _spans_table(title: str, cov: Mapping[str, Any], table_id: str) -> str:
    items = cov[table_id][::-1]
    if not items:
        return ""
    total = cov[f"{table_id}_total"]
    more = f"<p>{total - len(items):,} more not listed here.</p>" if total > len(items) else ""
    # A range dropped by design has no run: no empty column for it.
    runs = table_id != "dropped"
    rows = "".join(
        f"<tr>{_mono(s['start'])}{_mono(s['end'])}<td>{escape(', '.join(s['reasons']))}</td>"
        + (f'<td class="mono">{escape(", ".join(s["run_ids"]))}</td>' if runs else "")
        + "</tr>"
        for s in items
    )
    head = ("from", "to", "why", "runs") if runs else ("from", "to", "why")
    return f"<h2>{escape(title)}</h2>{_table(table_id, head, rows)}{more}"


@dataclass(frozen=True)
class DagPage:
    """One page of a DAG's tab: the whole history's verdict and stretches, and one page of fires in detail."""

    history: History
    coverage: Coverage  # the fires of this page only, decided against the whole history
    number: int  # 0: the newest fires
    pages: int
    older: list[Stretch]  # the history before this page's fires
    # What is worked out once, shared by a copy of the page at another now.
    kept: dict[str, list[dict[str, Any]]] = field(default_factory=dict, repr=False, compare=False)

    @property
    def summary(self) -> list[dict[str, Any]]:
        """The older history in at most about :data:`HISTORY_ROWS` rows, worked out once."""
        if "summary" not in self.kept:
            self.kept["summary"] = _summary(self.older)
        return self.kept["summary"]


def build_page(
    settings: Schedule,
    records: Sequence[RunRecord],
    now: datetime,
    page: int = 0,
    size: int = PAGE_FIRES,
    blocks: Sequence[RunBlock] = (),
    previous: History | None = None,
) -> DagPage:
    """Page *page* (0: the newest; clamped to the last) of *size* fires, and the history around it, at the cost of
    the runs and one page (:func:`history`'s stretches, *blocks* and *previous*)."""
    policy = settings.policy()
    hist = history(policy, settings.catchup, settings.offset, records, now, blocks=blocks, previous=previous)
    found = page_of_fires(policy, hist.begin, hist.now, page, size)
    if found is None:
        return DagPage(hist, hist.coverage(max_fires=size), 0, 1, [])
    number, pages, oldest, newest = found
    cov = hist.coverage(since=oldest - timedelta(microseconds=1), until=newest, max_fires=size)
    return DagPage(hist, cov, number, pages, hist.older_than(oldest))


def _meets(page: DagPage, span: Span | HopsWindow) -> bool:
    fires = page.coverage.fires
    return bool(fires) and span.start < fires[-1].window.end and fires[0].window.start < span.end


def _pager(page: Mapping[str, Any]) -> str:
    """Links to the newer and the older pages, relative to this page, so they hold under any root."""
    number, pages, links = page["number"], page["pages"], []
    if number > 0:
        links.append('<a id="newest" href="?page=0">newest fires</a>')
        links.append(f'<a id="newer" href="?page={number - 1}">newer</a>')
    if number + 1 < pages:
        links.append(f'<a id="older" href="?page={number + 1}">older</a>')
        links.append(f'<a id="oldest" href="?page={pages - 1}">oldest fires</a>')
    where = f"page {number + 1:,} of {pages:,} ({page['fires_total']:,} fires in all)"
    return f'<p class="pager" id="pages">{where} {" ".join(links)}</p>'


def _summary(stretches: Sequence[Stretch], rows: int = HISTORY_ROWS) -> list[dict[str, Any]]:
    """At most about *rows* rows for *stretches*, newest first: the largest stretches keep a row of their own and
    the stretches between two of them share one, counted by status, so a long drop always reads as one line."""
    keep = set(sorted(range(len(stretches)), key=lambda i: -stretches[i].count)[: max(rows // 2, 1)])
    groups: list[list[Stretch]] = [[]]
    for index, stretch in enumerate(stretches):
        if index in keep:
            groups += [[stretch], []]
        else:
            groups[-1].append(stretch)
    out = []
    for group in filter(None, groups):
        counts: dict[str, int] = {}
        for m in group:
            counts[m.sample.status] = counts.get(m.sample.status, 0) + m.count
        first, last = format_hops_time(group[0].first), format_hops_time(group[-1].last)
        out.append({"first": first, "last": last, "count": sum(counts.values()), "by_status": counts})
    return out[::-1]


def _older_table(rows: Sequence[Mapping[str, Any]]) -> str:
    if not rows:
        return ""
    html = []
    for row in rows:
        counts, total = row["by_status"], row["count"]
        words = ", ".join(f"{n:,} {why}" for why, n in sorted(counts.items(), key=lambda kv: -kv[1]))
        words = f"{total:,} window(s) {next(iter(counts))}" if len(counts) == 1 else f"{total:,} window(s): {words}"
        html.append(
            f'<tr data-status="{escape(next(iter(counts)) if len(counts) == 1 else "mixed")}">'
            f'{_mono(row["first"])}{_mono(row["last"])}<td class="num">{total:,}</td><td>{escape(words)}</td></tr>'
        )
    head = ("from fire", "to fire", "windows", "what happened")
    return f"<h2>Older history</h2>{_table('history', head, ''.join(html))}"


def dag_data(
    dag_id: str,
    settings: Schedule,
    paused: bool | None,
    page: DagPage,
    upcoming: Sequence[tuple[datetime, datetime, HopsWindow]],
) -> dict[str, Any]:
    """The DAG as the tab shows it: its settings (as ``audit`` reads them back) and in words, the next windows, and
    one page of its coverage (:func:`page_json`)."""
    return {
        "dag_id": dag_id,
        "settings": settings_json(settings, paused),
        "words": sentences(settings, paused),
        "upcoming": [
            {"fire": format_hops_time(fire), "data_interval_start": format_hops_time(start), **w.as_env()}
            for fire, start, w in upcoming
        ],
        "coverage": page_json(dag_id, page),
    }


def settings_json(settings: Schedule, paused: bool | None) -> dict[str, Any]:
    return {**settings.as_json(), "is_paused": paused}


def dag_page(data: Mapping[str, Any]) -> str:
    """The plain page of :func:`dag_data`, every value escaped."""
    dag_id, cov = data["dag_id"], data["coverage"]
    words = "".join(f"<li>{escape(line)}</li>" for line in data["words"])
    nxt = "".join(
        f"<tr>{_mono(w['fire'])}{_interval(w['data_interval_start'], w['fire'])}"
        + "".join(_mono(w[key]) for key in HOPS_ENV_KEYS)
        + "</tr>"
        for w in data["upcoming"]
    )
    head = ("fire", "Airflow data interval", *HOPS_ENV_KEYS)
    upcoming_html = _table("upcoming", head, nxt) if nxt else "<p>No further fires.</p>"
    title = "Every fire" if cov["page"]["pages"] == 1 else "Fires of this page"
    body = (
        f"<h1>Hopsworks schedule of {escape(dag_id)}</h1>"
        f'<ul class="words" id="schedule">{words}</ul>'
        f"<h2>Next windows</h2>{upcoming_html}"
        "<p>Airflow 3.0 shows no plugin tab; from 3.1 on this is the DAG's Hopsworks tab, with a form to run the "
        f"DAG with a time window. Here, Airflow's Trigger form takes the window ({START_PARAM}, {END_PARAM}).</p>"
        f"<h2>Coverage up to {escape(cov['now'])}</h2>"
        f'<p id="verdict">{escape(cov["verdict"])}</p>'
        f"{_pager(cov['page'])}"
        f"{_spans_table('Gaps', cov, 'gaps')}"
        f"{_spans_table('Windows processed more than once', cov, 'duplicates')}"
        f"{_spans_table('Overlaps', cov, 'overlaps')}"
        f"{_spans_table('Dropped by design', cov, 'dropped')}"
        f"<h2>{title}</h2>{_fire_table(cov, dag_id)}"
        f"{_older_table(cov['history'])}"
    )
    return plain_page(f"Hopsworks: {dag_id}", body)


def page_json(dag_id: str, page: DagPage) -> dict[str, Any]:
    """One page of the DAG's coverage, bounded: the spans that meet its fires, the newest :data:`SPAN_ROWS` of each
    (``*_total``: how many there are)."""
    hist, cov = page.history, page.coverage
    on_page = {r for f in cov.fires for r in f.run_ids}
    # Only what meets this page is written (the runs of its fires, and those whose window meets theirs): the whole
    # history's runs, overlaps and duplicates grow with it.
    near = [w for w in cov.runs if w.run.run_id in on_page or (w.window is not None and _meets(page, w.window))]
    duplicates = [s for s in cov.duplicates if _meets(page, s)]
    overlaps = [s for s in cov.overlaps if _meets(page, s)]
    cov = replace(cov, runs=near[-2 * PAGE_FIRES :], duplicates=duplicates[-SPAN_ROWS:], overlaps=overlaps[-SPAN_ROWS:])
    data = cov.as_json()
    for shown, fire in zip(data["fires"], cov.fires, strict=True):
        shown["tone"] = status_class(fire)
    return {
        **data,
        **hist.summary(),
        "gaps": data["gaps"][-SPAN_ROWS:],
        "dropped": data["dropped"][-SPAN_ROWS:],
        "gaps_total": len(hist.gaps),
        "dropped_total": len(hist.dropped),
        "duplicates_total": len(duplicates),
        "overlaps_total": len(overlaps),
        "page": {
            "number": page.number,
            "pages": page.pages,
            "size": PAGE_FIRES,
            "fires_total": hist.fires,
            "newer": None if page.number == 0 else f"?page={page.number - 1}",
            "older": None if page.number + 1 >= page.pages else f"?page={page.number + 1}",
        },
        "history": page.summary,
    }
