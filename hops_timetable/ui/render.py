"""The Hopsworks tab's HTML: the schedule in words, the next windows, the coverage as a timeline (SVG) and a table.

One page (:func:`build_page`): the verdict over the whole history, :data:`PAGE_FIRES` fires, the older ones summarized.
Server-rendered, no script, no front-end build; every value from a DAG, a run or its ``conf`` escaped; no Airflow.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from html import escape
from typing import Any
from urllib.parse import quote

from hops_timetable.core.coverage import (
    Coverage,
    FireCoverage,
    History,
    RunRecord,
    RunWindow,
    Span,
    Stretch,
    history,
)
from hops_timetable.core.settings import ScheduleSettings
from hops_timetable.core.simulate import CATCH_UP_DROPS, Decision
from hops_timetable.core.window import HopsWindow, format_hops_time

__all__ = [
    "HISTORY_ROWS",
    "PAGE_FIRES",
    "SPAN_ROWS",
    "TIMELINE_ROWS",
    "DagPage",
    "build_page",
    "dag_page",
    "page_json",
    "run_page",
    "schedule_in_words",
]

TIMELINE_ROWS = 48
"""Fires drawn in the timeline (the newest of the page)."""
PAGE_FIRES = 200
"""Fires listed one by one on a page of the tab; older ones are on the next pages and summarized as stretches."""
HISTORY_ROWS = 40
"""Stretches of the older history listed (the newest); the rest are counted by status in one line."""
SPAN_ROWS = 50
"""Gaps, drops, duplicates and overlaps listed per page (those among the page's fires, the newest first)."""

_COLOURS = {
    "ran": "#2e7d32",
    "running": "#1565c0",
    "failed": "#c62828",
    Decision.DUE.value: "#9e9e9e",
}
_MISSING = "#ef6c00"
_DROPPED = "#f9d27a"  # dropped by design: the catch-up rule's own doing, not a failure
_SKIPPED = "#bdbdbd"

_STYLE = """
body{font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;margin:16px;color:#1f2933;font-size:14px}
h1{font-size:20px;margin:0 0 8px}h2{font-size:16px;margin:20px 0 8px}
table{border-collapse:collapse;font-size:13px}td,th{border-bottom:1px solid #e4e7eb;padding:3px 8px;text-align:left}
th{background:#f5f7fa}code,.mono{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:12px}
.verdict{padding:8px 12px;border-radius:4px;display:inline-block;font-weight:600}
.ok{background:#e8f5e9;color:#1b5e20}.bad{background:#fff3e0;color:#bf360c}
.status{font-weight:600}.legend span{display:inline-block;margin-right:12px}
.legend i{display:inline-block;width:12px;height:12px;margin-right:4px;vertical-align:middle}
ul.words{margin:0;padding-left:18px}
"""


def _t(value: datetime | None) -> str:
    return "" if value is None else format_hops_time(value)


def _seconds(seconds: int) -> str:
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    parts = [f"{hours} h" if hours else "", f"{minutes} min" if minutes else "", f"{secs} s" if secs else ""]
    return " ".join(p for p in parts if p) or "0 s"


def schedule_in_words(settings: ScheduleSettings, paused: bool | None = None) -> list[str]:
    """This DAG's schedule, one sentence per setting, for its actual settings (not both catch-up cases)."""
    s = settings
    lines = [f"Fires (UTC): {s.cron.describe()}: {s.cron.expression}"]
    if s.start is None:
        lines.append("No start_time: nothing before the DAG was first scheduled is replayed.")
    else:
        lines.append(f"Starts after {_t(s.start)}; the first window is clamped to it.")
    lines.append("No end." if s.end is None else f"Ends before {_t(s.end)} (exclusive).")
    if s.skip_to is not None:
        lines.append(f"Fires before skip_to_date {_t(s.skip_to)} never run.")
    if not s.catchup:
        lines.append("catchup=False: after an outage or a pause only the newest missed fire runs.")
    elif s.max_catchup_runs is None:
        lines.append("catchup=True without a bound: after an outage or a pause every missed fire runs.")
    else:
        lines.append(
            f"catchup=True, max_catchup_runs={s.max_catchup_runs}: after an outage or a pause at most the newest "
            f"{s.max_catchup_runs} missed fire(s) run; older ones are dropped."
        )
    if s.offset:
        lines.append(
            f"Window: HOPS_START_TIME = previous fire - {_seconds(s.offset)}, HOPS_END_TIME = fire - "
            f"{_seconds(s.offset)}, HOPS_LOGICAL_DATE = previous fire."
        )
    else:
        lines.append(
            "Window: HOPS_START_TIME = previous fire, HOPS_END_TIME = fire, HOPS_LOGICAL_DATE = previous fire."
        )
    if paused:
        lines.append("The DAG is paused: its fires pass without runs until it is unpaused.")
    return lines


def _colour(fire: FireCoverage) -> str:
    if fire.decision is Decision.CREATED:
        return _COLOURS.get(fire.status, _COLOURS["failed"])
    if fire.decision is Decision.DUE:
        return _COLOURS[Decision.DUE.value]
    if fire.decision in CATCH_UP_DROPS:
        return _DROPPED
    if fire.by_design:
        return _SKIPPED
    return _MISSING


def _timeline(cov: Coverage, dag_id: str) -> str:
    """One row per fire (the newest :data:`TIMELINE_ROWS`): a thin bar for the Airflow interval, a thick one for the
    HOPS window, in the colour of its status; conf windows below; gaps as red bands across the whole picture.

    The range drawn is that of the fires' own intervals and windows: a conf window far from them is listed in the
    tables, not drawn, so that it cannot squeeze the fires into a sliver."""
    fires = cov.fires[-TIMELINE_ROWS:]
    if not fires:
        return "<p>No fires yet.</p>"
    spans: list[tuple[datetime, datetime]] = []
    for f in fires:
        spans += [(f.interval_start, f.fire), (f.window.start, f.window.end)]
    near_lo, near_hi = min(s for s, _ in spans), max(e for _, e in spans)
    extra = [
        w
        for w in cov.runs
        if w.source == "conf" and w.window is not None and w.window.start < near_hi and near_lo < w.window.end
    ][-TIMELINE_ROWS:]
    spans += [(w.window.start, w.window.end) for w in extra if w.window is not None]
    lo = min(s for s, _ in spans)
    hi = max(e for _, e in spans)
    total = max((hi - lo).total_seconds(), 1.0)
    left, width, row = 170, 760, 14
    rows = len(fires) + len(extra)
    height = 30 + rows * row + 20

    def x(value: datetime) -> float:
        return left + (value - lo).total_seconds() / total * width

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{left + width + 10}" height="{height}" '
        f'role="img" aria-label="coverage timeline of {escape(dag_id)}" id="timeline">',
        f'<text x="{left}" y="12" font-size="11">{escape(_t(lo))}</text>',
        f'<text x="{left + width}" y="12" font-size="11" text-anchor="end">{escape(_t(hi))}</text>',
    ]
    for gap in cov.gaps:
        if gap.end <= lo or gap.start >= hi:
            continue
        gx, gw = x(max(gap.start, lo)), max(x(min(gap.end, hi)) - x(max(gap.start, lo)), 1.0)
        parts.append(
            f'<rect class="gap" x="{gx:.1f}" y="18" width="{gw:.1f}" height="{rows * row + 4}" fill="#ffcdd2" '
            f'fill-opacity="0.6"><title>gap {escape(_t(gap.start))} .. {escape(_t(gap.end))}: '
            f"{escape(', '.join(gap.reasons))}</title></rect>"
        )
    y = 22
    for f in fires:
        colour = _colour(f)
        label = escape(f"{_t(f.fire)} {f.status}")
        parts.append(f'<text x="4" y="{y + 10}" font-size="10">{escape(_t(f.fire))}</text>')
        ax, aw = x(f.interval_start), max(x(f.fire) - x(f.interval_start), 1.0)
        hx, hw = x(f.window.start), max(x(f.window.end) - x(f.window.start), 1.0)
        dash = "" if f.decision is Decision.CREATED else ' stroke="#555" stroke-dasharray="2,2"'
        parts.append(
            f'<rect x="{ax:.1f}" y="{y + 1}" width="{aw:.1f}" height="3" fill="#78909c"><title>Airflow interval '
            f"[{escape(_t(f.interval_start))}, {escape(_t(f.fire))})</title></rect>"
        )
        parts.append(
            f'<rect class="window" data-status="{escape(f.status)}" x="{hx:.1f}" y="{y + 5}" width="{hw:.1f}" '
            f'height="7" fill="{colour}"{dash}><title>{label}: HOPS window [{escape(_t(f.window.start))}, '
            f"{escape(_t(f.window.end))})</title></rect>"
        )
        y += row
    for w in extra:
        assert w.window is not None
        parts.append(f'<text x="4" y="{y + 10}" font-size="10">conf {escape(w.run.run_id[:22])}</text>')
        hx, hw = x(w.window.start), max(x(w.window.end) - x(w.window.start), 1.0)
        parts.append(
            f'<rect class="window conf" x="{hx:.1f}" y="{y + 5}" width="{hw:.1f}" height="7" fill="#6a1b9a">'
            f"<title>{escape(w.run.run_id)} ({escape(w.run.state)}): conf window [{escape(_t(w.window.start))}, "
            f"{escape(_t(w.window.end))})</title></rect>"
        )
        y += row
    parts.append("</svg>")
    legend = (
        '<p class="legend">'
        + "".join(
            f'<span><i style="background:{c}"></i>{escape(name)}</span>'
            for name, c in [
                ("ran", _COLOURS["ran"]),
                ("running", _COLOURS["running"]),
                ("failed", _COLOURS["failed"]),
                ("missed", _MISSING),
                ("dropped by design", _DROPPED),
                ("due", _COLOURS[Decision.DUE.value]),
                ("skipped", _SKIPPED),
                ("conf window", "#6a1b9a"),
                ("gap", "#ffcdd2"),
            ]
        )
        + '<span><i style="background:#78909c;height:3px"></i>Airflow interval (thin)</span></p>'
    )
    return "".join(parts) + legend


def _run_link(dag_id: str, run_id: str) -> str:
    # To this tab's own page of the run: Airflow's UI sandboxes the tab's iframe without allow-top-navigation, so a
    # link to Airflow's page of the run could never leave the frame. Relative to this page, <root>/hops/dags/<dag_id>,
    # so it holds under any path Airflow is served at; the ids are quoted whole, so the depth never changes.
    href = f"{quote(dag_id, safe='')}/runs/{quote(run_id, safe='')}"
    return f'<a href="{escape(href)}">{escape(run_id)}</a>'


def _fire_table(cov: Coverage, dag_id: str) -> str:
    rows = []
    for f in reversed(cov.fires):
        env = f.window.as_env()
        runs = ", ".join(_run_link(dag_id, r) for r in f.run_ids)
        covered = "" if f.decision is Decision.CREATED or not f.covered else " (window covered by another run)"
        rows.append(
            f'<tr data-fire="{escape(_t(f.fire))}" data-status="{escape(f.status)}">'
            f'<td class="mono">{escape(_t(f.fire))}</td>'
            f'<td class="status" style="color:{_colour(f)}">{escape(f.status)}{escape(covered)}</td>'
            f'<td class="mono">[{escape(_t(f.interval_start))}, {escape(_t(f.fire))})</td>'
            f'<td class="mono">{escape(env["HOPS_START_TIME"])}</td>'
            f'<td class="mono">{escape(env["HOPS_END_TIME"])}</td>'
            f'<td class="mono">{escape(env["HOPS_LOGICAL_DATE"])}</td><td>{runs}</td></tr>'
        )
    head = (
        "<tr><th>fire</th><th>status</th><th>Airflow data interval</th><th>HOPS_START_TIME</th>"
        "<th>HOPS_END_TIME</th><th>HOPS_LOGICAL_DATE</th><th>runs</th></tr>"
    )
    return f'<table id="fires">{head}{"".join(rows)}</table>'


def _spans_table(title: str, table_id: str, spans: Sequence[Span], total: int | None = None) -> str:
    """At most :data:`SPAN_ROWS` of *spans* (the newest), and how many there are in all (*total*, else theirs)."""
    items = list(spans[-SPAN_ROWS:])
    total = len(spans) if total is None else total
    if not items:
        return ""
    more = f"<p>{total - len(items):,} more not listed here.</p>" if total > len(items) else ""
    rows = "".join(
        f'<tr><td class="mono">{escape(_t(s.start))}</td><td class="mono">{escape(_t(s.end))}</td>'
        f"<td>{escape(', '.join(s.reasons))}</td><td class=mono>{escape(', '.join(s.run_ids))}</td></tr>"
        for s in items
    )
    return (
        f'<h2>{escape(title)}</h2><table id="{table_id}"><tr><th>from</th><th>to</th><th>why</th><th>runs</th></tr>'
        f"{rows}</table>{more}"
    )


def _page(title: str, body: str) -> str:
    return (
        f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{escape(title)}</title>'
        f"<style>{_STYLE}</style></head><body>{body}</body></html>"
    )


@dataclass(frozen=True)
class DagPage:
    """One page of a DAG's tab: the whole history's verdict and stretches, and one page of fires in detail."""

    history: History
    coverage: Coverage  # the fires of this page only, decided against the whole history
    number: int  # 0: the newest fires
    pages: int
    older: list[Stretch]  # the history before this page's fires


def build_page(
    settings: ScheduleSettings, records: Sequence[RunRecord], now: datetime, page: int = 0, size: int = PAGE_FIRES
) -> DagPage:
    """Page *page* (0: the newest; clamped to the last) of *size* fires, and the history around it.

    The cost is that of the runs and of one page: the history is read in stretches (:func:`history`), and only this
    page's fires are taken one by one, so a million fires of history cost what their runs cost.
    """
    policy = settings.policy()
    hist = history(policy, settings.catchup, settings.offset, records, now)
    pages = max(1, -(-hist.fires // size))
    number = min(max(page, 0), pages - 1)
    newest = hist.nth_newest(number * size)
    oldest = hist.nth_newest(min((number + 1) * size, hist.fires) - 1)
    if newest is None or oldest is None:
        return DagPage(hist, hist.coverage(max_fires=size), 0, 1, [])
    cov = hist.coverage(since=oldest - timedelta(microseconds=1), until=newest, max_fires=size)
    return DagPage(hist, cov, number, pages, hist.older_than(oldest))


def _near(page: DagPage, spans: Iterable[Span]) -> list[Span]:
    """The spans that meet this page's windows."""
    fires = page.coverage.fires
    if not fires:
        return []
    lo, hi = fires[0].window.start, fires[-1].window.end
    return [s for s in spans if s.start < hi and lo < s.end]


def _pager(page: DagPage) -> str:
    """Links to the newer and the older pages, relative to this page, so they hold under any root."""
    links = []
    if page.number > 0:
        links.append('<a id="newest" href="?page=0">newest fires</a>')
        links.append(f'<a id="newer" href="?page={page.number - 1}">newer</a>')
    if page.number + 1 < page.pages:
        links.append(f'<a id="older" href="?page={page.number + 1}">older</a>')
        links.append(f'<a id="oldest" href="?page={page.pages - 1}">oldest fires</a>')
    where = f"page {page.number + 1:,} of {page.pages:,} ({page.history.fires:,} fires in all)"
    return f'<p class="pager" id="pages">{where} {" ".join(links)}</p>'


@dataclass(frozen=True)
class _Summary:
    """One row of the older history: fires ``first`` .. ``last``, counted by status."""

    first: datetime
    last: datetime
    counts: dict[str, int]
    colour: str

    def words(self) -> str:
        total = sum(self.counts.values())
        if len(self.counts) == 1:
            return f"{total:,} window(s) {next(iter(self.counts))}"
        listed = ", ".join(f"{n:,} {why}" for why, n in sorted(self.counts.items(), key=lambda kv: -kv[1]))
        return f"{total:,} window(s): {listed}"

    def as_json(self) -> dict[str, Any]:
        return {
            "first": _t(self.first),
            "last": _t(self.last),
            "count": sum(self.counts.values()),
            "by_status": self.counts,
        }


def _summary(stretches: Sequence[Stretch], rows: int = HISTORY_ROWS) -> list[_Summary]:
    """At most about *rows* rows for *stretches*, newest first: the largest stretches keep a row of their own and
    the stretches between two of them share one, counted by status, so a long drop always reads as one line."""
    keep = set(sorted(range(len(stretches)), key=lambda i: -stretches[i].count)[: max(rows // 2, 1)])
    out: list[_Summary] = []
    mixed: list[Stretch] = []

    def flush() -> None:
        if mixed:
            counts: dict[str, int] = {}
            for m in mixed:
                counts[m.sample.status] = counts.get(m.sample.status, 0) + m.count
            colour = _colour(mixed[0].sample) if len(counts) == 1 else "inherit"
            out.append(_Summary(mixed[0].first, mixed[-1].last, counts, colour))
            mixed.clear()

    for index, stretch in enumerate(stretches):
        if index in keep:
            flush()
            out.append(
                _Summary(stretch.first, stretch.last, {stretch.sample.status: stretch.count}, _colour(stretch.sample))
            )
        else:
            mixed.append(stretch)
    flush()
    return out[::-1]


def _older_table(page: DagPage) -> str:
    """The history before this page's fires, in at most about :data:`HISTORY_ROWS` rows."""
    if not page.older:
        return ""
    rows = "".join(
        f'<tr data-status="{escape(next(iter(row.counts)) if len(row.counts) == 1 else "mixed")}">'
        f'<td class="mono">{escape(_t(row.first))}</td><td class="mono">{escape(_t(row.last))}</td>'
        f"<td>{sum(row.counts.values()):,}</td>"
        f'<td class="status" style="color:{row.colour}">{escape(row.words())}</td></tr>'
        for row in _summary(page.older)
    )
    return (
        "<h2>Older history</h2>"
        '<table id="history"><tr><th>from fire</th><th>to fire</th><th>windows</th><th>what happened</th></tr>'
        f"{rows}</table>"
    )


def dag_page(
    dag_id: str,
    settings: ScheduleSettings,
    page: DagPage,
    upcoming: Sequence[tuple[datetime, datetime, HopsWindow]],
    paused: bool | None,
) -> str:
    """The DAG tab: schedule in words, the next windows, the verdict over the whole history, one page of fires with
    its timeline, gaps, overlaps and drops, and the older history summarized as stretches."""
    cov = page.coverage
    hist = page.history
    words = "".join(f"<li>{escape(line)}</li>" for line in schedule_in_words(settings, paused))
    nxt = "".join(
        f'<tr><td class="mono">{escape(_t(fire))}</td><td class="mono">[{escape(_t(start))}, {escape(_t(fire))})</td>'
        f'<td class="mono">{escape(_t(w.start))}</td><td class="mono">{escape(_t(w.end))}</td>'
        f'<td class="mono">{escape(_t(w.logical_date))}</td></tr>'
        for fire, start, w in upcoming
    )
    upcoming_html = (
        '<table id="upcoming"><tr><th>fire</th><th>Airflow data interval</th><th>HOPS_START_TIME</th>'
        f"<th>HOPS_END_TIME</th><th>HOPS_LOGICAL_DATE</th></tr>{nxt}</table>"
        if upcoming
        else "<p>No further fires.</p>"
    )
    verdict_class = "ok" if hist.ok else "bad"
    title = "Every fire" if page.pages == 1 else "Fires of this page"
    body = (
        f"<h1>Hopsworks schedule of {escape(dag_id)}</h1>"
        f'<ul class="words" id="schedule">{words}</ul>'
        f"<h2>Next windows</h2>{upcoming_html}"
        f"<h2>Coverage up to {escape(_t(hist.now))}</h2>"
        f'<p><span class="verdict {verdict_class}" id="verdict">{escape(hist.verdict())}</span></p>'
        f"{_pager(page)}"
        f"{_timeline(cov, dag_id)}"
        f"{_spans_table('Gaps', 'gaps', cov.gaps)}"
        f"{_spans_table('Windows processed more than once', 'duplicates', _near(page, cov.duplicates))}"
        f"{_spans_table('Overlaps', 'overlaps', _near(page, cov.overlaps))}"
        f"{_spans_table('Dropped by design', 'dropped', cov.dropped)}"
        f"<h2>{title}</h2>{_fire_table(cov, dag_id)}"
        f"{_older_table(page)}"
    )
    return _page(f"Hopsworks: {dag_id}", body)


def page_json(dag_id: str, page: DagPage) -> dict[str, Any]:
    """The JSON twin of :func:`dag_page`'s coverage part: the verdict over the whole history, this page's fires,
    the spans among them and the older history's newest stretches; bounded like the page."""
    hist = page.history
    fires = page.coverage.fires
    on_page = {r for f in fires for r in f.run_ids}

    def near(item: RunWindow) -> bool:
        # The runs of this page's fires, and those whose window meets theirs: the JSON stays the page's size.
        if item.run.run_id in on_page:
            return True
        w = item.window
        return bool(fires) and w is not None and w.start < fires[-1].window.end and fires[0].window.start < w.end

    cov = replace(page.coverage, runs=[w for w in page.coverage.runs if near(w)][-2 * PAGE_FIRES :])
    data = cov.as_json()

    data.update(
        {
            "complete": hist.complete,
            "ok": hist.ok,
            "verdict": hist.verdict(),
            "counts": hist.counts(),
            "gaps": data["gaps"][-SPAN_ROWS:],
            "dropped": data["dropped"][-SPAN_ROWS:],
            "duplicates": [s.as_json() for s in _near(page, cov.duplicates)][-SPAN_ROWS:],
            "overlaps": [s.as_json() for s in _near(page, cov.overlaps)][-SPAN_ROWS:],
            "gaps_total": len(hist.gaps),
            "dropped_total": len(hist.dropped),
            "page": {
                "number": page.number,
                "pages": page.pages,
                "size": PAGE_FIRES,
                "fires_total": hist.fires,
                "newer": None if page.number == 0 else f"?page={page.number - 1}",
                "older": None if page.number + 1 >= page.pages else f"?page={page.number + 1}",
            },
            "history": [row.as_json() for row in _summary(page.older)],
        }
    )
    return data


def run_page(dag_id: str, item: RunWindow, offset: int | None) -> str:
    """The run tab: the run's HOPS_* values, where they come from, and the ``-start_time`` legacy argument."""
    run = item.run
    facts = [
        ("run", escape(run.run_id)),
        ("type", escape(run.run_type)),
        ("state", escape(run.state)),
        (
            "Airflow data interval",
            "none"
            if run.data_interval_start is None
            else f"[{escape(_t(run.data_interval_start))}, {escape(_t(run.data_interval_end))})",
        ),
    ]
    if item.window is not None:
        env = item.window.as_env()
        facts += [(key, f'<span class="mono" id="{key}">{escape(value)}</span>') for key, value in env.items()]
        facts.append(("source", escape(_source_text(item.source, offset))))
        facts.append(("-start_time", f'<code id="legacy">-start_time {escape(env["HOPS_LOGICAL_DATE"])}</code>'))
    elif item.error is not None:
        facts.append(("HOPS_*", f"none: {escape(item.error)}"))
    else:
        facts.append(("HOPS_*", "none: a manual run without conf[&quot;hops_window&quot;] gets no window"))
    rows = "".join(f"<tr><th>{name}</th><td>{value}</td></tr>" for name, value in facts)
    # Back to <root>/hops/dags/<dag_id> from <root>/hops/dags/<dag_id>/runs/<run_id>.
    back = f'<p><a id="back" href="../../{escape(quote(dag_id, safe=""))}">Every window of {escape(dag_id)}</a></p>'
    body = f'<h1>Hopsworks window of {escape(run.run_id)}</h1><table id="run">{rows}</table>{back}'
    return _page(f"Hopsworks: {dag_id} {run.run_id}", body)


def _source_text(source: str | None, offset: int | None) -> str:
    if source == "conf":
        return 'conf["hops_window"] of the run'
    shift = f", moved {_seconds(offset)} earlier (start_time_offset_seconds)" if offset else ""
    return f"the scheduler: the run's data interval{shift}"
