"""Stretches of HOPS time: merging windows, what a set of windows leaves uncovered, what two of them cover twice.

Every span is half-open, ``[start, end)``. Pure: no Airflow import.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from hops_timetable.core.window import format_hops_time


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


def gaps_in(
    windows: Sequence[tuple[datetime, datetime, str, tuple[str, ...]]], processed: Sequence[tuple[datetime, datetime]]
) -> list[Span]:
    """The parts of *windows* (start, end, reason, run ids) no merged span of *processed* covers, each with the
    reasons and runs of the windows it meets. The windows follow fires: their starts and ends both grow, and so do
    the holes, so one pass finds the windows each hole meets."""
    out = []
    first = 0
    for lo, hi in uncovered(merge_spans((start, end) for start, end, _, _ in windows), processed):
        while first < len(windows) and windows[first][1] <= lo:
            first += 1
        index = first
        while index < len(windows) and windows[index][0] < hi:
            index += 1
        there = windows[first:index]
        reasons = tuple(dict.fromkeys(reason for _, _, reason, _ in there))
        out.append(Span(lo, hi, reasons, tuple(dict.fromkeys(r for *_, ids in there for r in ids))))
    return out
