"""The tab's timeline (SVG): the whole history as one strip, and the newest fires of a page row by row.

* The strip: every fire since the first, as the history's stretches (:class:`~hops_timetable.core.coverage.Stretch`)
  on a time axis, one colour per status, at most one shape per pixel column (the most telling status in it wins),
  so a million fires draw as a few hundred shapes; a frame marks the range drawn row by row below.
* The rows: the newest :data:`TIMELINE_ROWS` fires of the page, each with its Airflow interval (thin) and HOPS window
  (thick); the conf windows of manual runs that meet them; gaps as bands; a time axis with ticks, and now.

The range of the rows is that of those fires' own intervals and windows, so nothing else can squeeze them: a conf
window or a gap reaching beyond it is cut at the edge with an arrow and its full extent in its tooltip, and a conf
window outside it is listed under the picture. Labels are never cut: the label column is as wide as the longest.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from html import escape

from hops_timetable.core.coverage import Coverage, FireCoverage, RunWindow, Span, Stretch
from hops_timetable.core.simulate import CATCH_UP_DROPS, Decision
from hops_timetable.core.window import format_hops_time

__all__ = ["LISTED_OUTSIDE", "TIMELINE_ROWS", "status_class", "timeline"]

TIMELINE_ROWS = 48
"""Fires drawn row by row (the newest of the page); the strip above them shows every fire of the history."""
LISTED_OUTSIDE = 10
"""Conf windows outside the rows' range listed under the picture (the newest); the rest are counted."""

_PLOT = 720  # pixels of the time axis
_ROW = 15
_CHAR = 6.7  # width of one character of the 11 px monospace labels
_STRIP = 14

# When several statuses share a pixel column of the strip, the first of these is drawn: a failure must show.
_PRIORITY = ("failed", "missed", "running", "due", "conf", "ran", "dropped", "skipped")


def status_class(fire: FireCoverage) -> str:
    """The class a fire is drawn with (one of :data:`~hops_timetable.ui.style.STATUS_CLASSES`)."""
    if fire.decision is Decision.CREATED:
        return {"ran": "ran", "running": "running"}.get(fire.status, "failed")
    if fire.decision is Decision.DUE:
        return "due"
    if fire.decision in CATCH_UP_DROPS:
        return "dropped"
    return "skipped" if fire.by_design else "missed"


def _t(value: datetime) -> str:
    return format_hops_time(value)


class _Axis:
    """Pixels of the time range ``[lo, hi]``, starting at *left*."""

    def __init__(self, lo: datetime, hi: datetime, left: float, width: float = _PLOT) -> None:
        self.lo, self.hi, self.left, self.width = lo, hi, left, width
        self.total = max((hi - lo).total_seconds(), 1.0)

    def x(self, value: datetime) -> float:
        clamped = min(max(value, self.lo), self.hi)
        return self.left + (clamped - self.lo).total_seconds() / self.total * self.width

    def bar(self, start: datetime, end: datetime) -> tuple[float, float, str, str]:
        """x, width and the arrows of ``[start, end)`` cut to the range (``"◀"``/``"▶"`` where it goes beyond)."""
        x0, x1 = self.x(start), self.x(end)
        return x0, max(x1 - x0, 1.0), "◀" if start < self.lo else "", "▶" if end > self.hi else ""


_STEPS = [
    timedelta(seconds=s) for s in (1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200)
] + [timedelta(days=d) for d in (1, 2, 7, 14, 30, 61, 91, 182, 365, 730, 1826, 3652)]


def _ticks(lo: datetime, hi: datetime, most: int = 7) -> tuple[list[datetime], timedelta]:
    span = hi - lo
    step = next((s for s in _STEPS if span / s <= most), _STEPS[-1])
    epoch = datetime(2000, 1, 1, tzinfo=lo.tzinfo)
    first = epoch + -(-(lo - epoch) // step) * step
    ticks = []
    while first <= hi:
        ticks.append(first)
        first += step
    return ticks, step


def _tick_label(value: datetime, step: timedelta) -> str:
    text = _t(value)
    if step < timedelta(minutes=1):
        return text[11:19]
    if step < timedelta(days=1):
        return text[5:16].replace("T", " ")
    return text[:10]


def _strip(stretches: Sequence[Stretch], near: tuple[datetime, datetime], left: float, y: float) -> list[str]:
    """The whole history in one row: its stretches by time, one shape per run of pixel columns of one status."""
    if not stretches:
        return []
    axis = _Axis(stretches[0].sample.window.start, max(stretches[-1].window_end, stretches[-1].last), left)
    columns: list[str | None] = [None] * (_PLOT + 1)
    for stretch in stretches:
        cls = status_class(stretch.sample)
        a = int(axis.x(min(stretch.sample.window.start, stretch.first)) - left)
        b = int(axis.x(max(stretch.window_end, stretch.last)) - left)
        for column in range(a, max(b, a + 1)):
            if column <= _PLOT:
                held = columns[column]
                if held is None or _PRIORITY.index(cls) < _PRIORITY.index(held):
                    columns[column] = cls
    parts = [
        f'<text x="4" y="{y + 11}">history</text>',
        f'<text class="axis" x="{left}" y="{y - 3}">{escape(_t(axis.lo))}</text>',
        f'<text class="axis" x="{left + _PLOT}" y="{y - 3}" text-anchor="end">{escape(_t(axis.hi))}</text>',
    ]
    start = 0
    for column in range(1, len(columns) + 1):
        if column == len(columns) or columns[column] != columns[start]:
            held = columns[start]
            if held is not None:
                parts.append(
                    f'<rect class="strip f-{held}" x="{left + start}" y="{y + 1}" width="{column - start}" '
                    f'height="{_STRIP - 2}"/>'
                )
            start = column
    fires = sum(s.count for s in stretches)
    parts.append(
        f"<title>the whole history: {fires:,} fire(s), {escape(_t(stretches[0].first))} .. "
        f"{escape(_t(stretches[-1].last))}</title>"
    )
    x0, w, _, _ = axis.bar(*near)
    parts.append(f'<rect class="range" x="{x0:.1f}" y="{y - 1}" width="{max(w, 3):.1f}" height="{_STRIP + 2}"/>')
    return parts


def _conf_windows(cov: Coverage) -> list[RunWindow]:
    return [w for w in cov.runs if w.source == "conf" and w.window is not None]


def _outside(items: Sequence[RunWindow]) -> str:
    if not items:
        return ""
    shown = items[-LISTED_OUTSIDE:]
    more = f" and {len(items) - len(shown):,} more" if len(items) > len(shown) else ""
    listed = "; ".join(
        f'<span class="mono">{escape(w.run.run_id)}</span> [{escape(_t(w.window.start))}, {escape(_t(w.window.end))})'
        for w in shown
        if w.window is not None
    )
    return f'<p class="note" id="outside">Conf windows outside the range drawn: {listed}{more}.</p>'


def timeline(cov: Coverage, stretches: Sequence[Stretch], dag_id: str) -> str:
    """The SVG timeline of a page (*cov*: its fires) in the history *stretches*, with its legend."""
    fires = cov.fires[-TIMELINE_ROWS:]
    if not fires:
        return "<p>No fires yet.</p>"
    lo = min(min(f.interval_start, f.window.start) for f in fires)
    hi = max(max(f.fire, f.window.end) for f in fires)
    confs = _conf_windows(cov)
    inside = [w for w in confs if w.window is not None and w.window.start < hi and lo < w.window.end]
    outside = [w for w in confs if w not in inside]
    inside = inside[-TIMELINE_ROWS:]
    labels = [_t(f.fire) for f in fires] + [f"conf {w.run.run_id}" for w in inside]
    left = 8 + max(len(label) for label in labels) * _CHAR + 8
    top = 36 if stretches else 4
    axis = _Axis(lo, hi, left)
    rows = len(fires) + len(inside)
    y0 = top + 22
    height = y0 + rows * _ROW + 6
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{left + _PLOT + 14:.0f}" height="{height}" role="img" '
        f'aria-label="coverage timeline of {escape(dag_id)}" id="timeline">',
        *_strip(stretches, (lo, hi), left, 14),
    ]
    ticks, step = _ticks(lo, hi)
    for tick in ticks:
        tx = axis.x(tick)
        parts.append(f'<line class="grid" x1="{tx:.1f}" x2="{tx:.1f}" y1="{y0 - 4}" y2="{height - 4}"/>')
        label = _tick_label(tick, step)
        # A label that would run past the picture's right edge ends at its tick instead.
        anchor = "end" if tx + len(label) * _CHAR / 2 > left + _PLOT + 12 else "middle"
        parts.append(f'<text class="axis" x="{tx:.1f}" y="{y0 - 8}" text-anchor="{anchor}">{escape(label)}</text>')
    for gap in cov.gaps:
        if gap.end <= lo or gap.start >= hi:
            continue
        parts.append(_gap(axis, gap, y0, rows))
    if lo <= cov.now <= hi:
        nx = axis.x(cov.now)
        parts.append(
            f'<line class="now" x1="{nx:.1f}" x2="{nx:.1f}" y1="{y0 - 4}" y2="{height - 4}">'
            f"<title>now {escape(_t(cov.now))}</title></line>"
        )
    y = y0
    for f in fires:
        parts += _fire_row(axis, f, y)
        y += _ROW
    for w in inside:
        parts += _conf_row(axis, w, y)
        y += _ROW
    parts.append("</svg>")
    return f'<div class="scroll">{"".join(parts)}</div>{_outside(outside)}{_legend(len(cov.fires) - len(fires))}'


def _gap(axis: _Axis, gap: Span, y0: float, rows: int) -> str:
    gx, gw, _, _ = axis.bar(gap.start, gap.end)
    return (
        f'<rect class="gap" x="{gx:.1f}" y="{y0 - 2}" width="{gw:.1f}" height="{rows * _ROW + 2}">'
        f"<title>gap [{escape(_t(gap.start))}, {escape(_t(gap.end))}): {escape(', '.join(gap.reasons))}</title></rect>"
    )


def _arrows(x: float, w: float, y: float, before: str, after: str) -> list[str]:
    out = []
    if before:
        out.append(f'<text class="edge" x="{x - 2:.1f}" y="{y + 11}" text-anchor="end">{before}</text>')
    if after:
        out.append(f'<text class="edge" x="{x + w + 2:.1f}" y="{y + 11}">{after}</text>')
    return out


def _fire_row(axis: _Axis, f: FireCoverage, y: float) -> list[str]:
    cls = status_class(f)
    ax, aw, _, _ = axis.bar(f.interval_start, f.fire)
    hx, hw, before, after = axis.bar(f.window.start, f.window.end)
    planned = "" if f.decision is Decision.CREATED else " planned"
    runs = f" ({', '.join(f.run_ids)})" if f.run_ids else ""
    return [
        f'<text x="8" y="{y + 11}">{escape(_t(f.fire))}</text>',
        f'<rect class="interval" x="{ax:.1f}" y="{y + 1}" width="{aw:.1f}" height="3"><title>Airflow data interval '
        f"[{escape(_t(f.interval_start))}, {escape(_t(f.fire))})</title></rect>",
        f'<rect class="window f-{cls}{planned}" data-status="{escape(f.status)}" x="{hx:.1f}" y="{y + 5}" '
        f'width="{hw:.1f}" height="8"><title>{escape(_t(f.fire))} {escape(f.status)}{escape(runs)}: HOPS window '
        f"[{escape(_t(f.window.start))}, {escape(_t(f.window.end))})</title></rect>",
        *_arrows(hx, hw, y, before, after),
    ]


def _conf_row(axis: _Axis, w: RunWindow, y: float) -> list[str]:
    assert w.window is not None
    hx, hw, before, after = axis.bar(w.window.start, w.window.end)
    return [
        f'<text x="8" y="{y + 11}">conf {escape(w.run.run_id)}</text>',
        f'<rect class="window conf f-conf" x="{hx:.1f}" y="{y + 5}" width="{hw:.1f}" height="8">'
        f"<title>{escape(w.run.run_id)} ({escape(w.run.state)}): conf window [{escape(_t(w.window.start))}, "
        f"{escape(_t(w.window.end))})</title></rect>",
        *_arrows(hx, hw, y, before, after),
    ]


_LEGEND = (
    ("ran", "ran"),
    ("running", "running"),
    ("failed", "failed"),
    ("missed", "missed"),
    ("dropped", "dropped by design"),
    ("skipped", "skipped by design"),
    ("due", "due"),
    ("conf", "conf window"),
)


def _legend(not_drawn: int) -> str:
    rows = "" if not_drawn <= 0 else f" The {not_drawn:,} older fire(s) of this page are in the table below."
    items = "".join(f'<span><i class="f-{cls}"></i>{escape(name)}</span>' for cls, name in _LEGEND)
    return (
        f'<p class="legend">{items}<span><i class="gap"></i>gap</span>'
        '<span><i class="interval" style="height:3px"></i>Airflow data interval (thin)</span>'
        f"<span>◀ ▶ goes on beyond the range drawn</span></p>"
        f'<p class="note">The top strip is the whole history; the frame on it is the range of the rows: the newest '
        f"{TIMELINE_ROWS} fire(s) of this page, each with its HOPS window (thick).{rows}</p>"
    )
