"""Stretches of HOPS time, each half-open (``[start, end)``): merging them, and what a set of them leaves uncovered."""

from __future__ import annotations

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


def gaps_in(
    windows: Sequence[tuple[datetime, datetime, str, tuple[str, ...]]], processed: Sequence[tuple[datetime, datetime]]
) -> list[Span]:
    """The parts of *windows* (start, end, reason, run ids) no span of *processed* (merged) covers, each with the
    reasons and runs of the windows it meets. The windows follow fires: their starts and ends both grow, and so do
    the holes, so one pass finds the holes and another the windows each meets."""
    holes: list[tuple[datetime, datetime]] = []
    index = 0
    for lo, hi in merge_spans((start, end) for start, end, _, _ in windows):
        # Processed spans ending at or before lo cannot touch this or any later window.
        while index < len(processed) and processed[index][1] <= lo:
            index += 1
        cursor, scan = lo, index
        while scan < len(processed) and processed[scan][0] < hi:
            plo, phi = processed[scan]
            if plo > cursor:
                holes.append((cursor, plo))
            cursor = max(cursor, phi)
            scan += 1
        if cursor < hi:
            holes.append((cursor, hi))
    out = []
    first = 0
    for lo, hi in holes:
        while first < len(windows) and windows[first][1] <= lo:
            first += 1
        index = first
        while index < len(windows) and windows[index][0] < hi:
            index += 1
        there = windows[first:index]
        reasons = tuple(dict.fromkeys(reason for _, _, reason, _ in there))
        out.append(Span(lo, hi, reasons, tuple(dict.fromkeys(r for *_, ids in there for r in ids))))
    return out
