"""Stretches of HOPS time: merging windows, what a set of windows leaves uncovered, what two of them cover twice.

Every span is half-open, ``[start, end)``. Pure: no Airflow import.
"""

from __future__ import annotations

from bisect import bisect_right
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from hops_timetable.core.coverage.runs import RunWindow
from hops_timetable.core.window import format_hops_time

__all__ = ["Span", "inside", "merge_spans", "overlaps_and_duplicates", "uncovered"]


@dataclass(frozen=True)
class Span:
    """A half-open stretch ``[start, end)`` of HOPS time, with the reasons and runs that explain it."""

    start: datetime
    end: datetime
    reasons: tuple[str, ...] = ()
    run_ids: tuple[str, ...] = ()

    def as_json(self) -> dict[str, Any]:
        return {
            "start": format_hops_time(self.start),
            "end": format_hops_time(self.end),
            "reasons": list(self.reasons),
            "run_ids": list(self.run_ids),
        }


def merge_spans(spans: Iterable[tuple[datetime, datetime]]) -> list[tuple[datetime, datetime]]:
    merged: list[tuple[datetime, datetime]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def inside(merged: Sequence[tuple[datetime, datetime]], starts: Sequence[datetime], lo: datetime, hi: datetime) -> bool:
    """Whether ``[lo, hi)`` lies inside one of the disjoint, sorted *merged* spans (*starts*: their starts)."""
    # Only the last span starting at or before lo can hold it: the spans are disjoint and sorted.
    index = bisect_right(starts, lo) - 1
    return index >= 0 and hi <= merged[index][1]


def uncovered(
    wanted: Sequence[tuple[datetime, datetime]], processed: Sequence[tuple[datetime, datetime]]
) -> list[tuple[datetime, datetime]]:
    """The parts of the merged spans *wanted* that no merged span of *processed* covers; both sorted and disjoint."""
    holes: list[tuple[datetime, datetime]] = []
    index = 0
    for lo, hi in wanted:
        # Processed spans ending at or before lo cannot touch this or any later wanted span.
        while index < len(processed) and processed[index][1] <= lo:
            index += 1
        cursor = lo
        scan = index
        while scan < len(processed) and processed[scan][0] < hi:
            plo, phi = processed[scan]
            if plo > cursor:
                holes.append((cursor, plo))
            cursor = max(cursor, phi)
            scan += 1
        if cursor < hi:
            holes.append((cursor, hi))
    return holes


def overlaps_and_duplicates(windows: Sequence[RunWindow]) -> tuple[list[Span], list[Span]]:
    """Stretches covered by two or more processed windows, and identical windows of two or more runs."""
    done = [w for w in windows if w.processed and w.window is not None]
    same: dict[tuple[datetime, datetime], list[str]] = defaultdict(list)
    for w in done:
        assert w.window is not None
        same[(w.window.start, w.window.end)].append(w.run.run_id)
    duplicates = [Span(s, e, ("processed more than once",), tuple(ids)) for (s, e), ids in sorted(same.items())]
    duplicates = [d for d in duplicates if len(d.run_ids) > 1]
    # Sweep over window edges, counting how many windows are open.
    edges: list[tuple[datetime, int, str]] = []
    for w in done:
        assert w.window is not None
        edges += [(w.window.start, 1, w.run.run_id), (w.window.end, -1, w.run.run_id)]
    edges.sort(key=lambda e: (e[0], e[1]))
    open_ids: list[str] = []
    overlaps: list[Span] = []
    previous: datetime | None = None
    for at, step, run_id in edges:
        if previous is not None and at > previous and len(open_ids) > 1:
            ids = tuple(sorted(open_ids))
            if overlaps and overlaps[-1].end == previous and overlaps[-1].run_ids == ids:
                overlaps[-1] = Span(overlaps[-1].start, at, overlaps[-1].reasons, ids)
            else:
                overlaps.append(Span(previous, at, ("covered by more than one run",), ids))
        if step > 0:
            open_ids.append(run_id)
        else:
            open_ids.remove(run_id)
        previous = at
    return overlaps, duplicates
