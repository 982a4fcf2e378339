"""Stretches of HOPS time: merging windows, what a set of windows leaves uncovered, what two of them cover twice.

Every span is half-open, ``[start, end)``. Pure: no Airflow import.
"""

from __future__ import annotations

from bisect import bisect_right
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from hops_timetable.core.coverage.blocks import RunBlock
from hops_timetable.core.coverage.runs import DONE_STATES, IN_FLIGHT_STATES, RunWindow
from hops_timetable.core.window import format_hops_time

__all__ = ["Span", "gaps_in", "inside", "merge_spans", "overlaps_and_duplicates", "uncovered"]


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


def overlaps_and_duplicates(
    windows: Sequence[RunWindow],
    blocks: Sequence[RunBlock],
    block_spans: Sequence[tuple[datetime, datetime]],
    block_window: Callable[[tuple[datetime, datetime]], str | None],
    block_pieces: Callable[[RunBlock, datetime, datetime], Sequence[tuple[datetime, datetime, str]]],
) -> tuple[list[Span], list[Span]]:
    """Stretches covered by two or more processed windows, and identical windows of two or more runs.

    A block's windows meet end to end, never each other: it counts as one window (its *block_spans*), named by its
    runs; *block_window* names the processed block run whose window is exactly a given one, if any (a run kept whole
    duplicating it), and *block_pieces* cuts a stretch a block covers into its runs' windows, so an overlap reads
    as it does with the runs whole.
    """
    done = [(w.window.start, w.window.end, w.run.run_id) for w in windows if w.processed and w.window is not None]
    same: dict[tuple[datetime, datetime], list[str]] = defaultdict(list)
    for start, end, run_id in done:
        same[(start, end)].append(run_id)
    for key, names in same.items():
        named = block_window(key)
        if named is not None:
            names.insert(0, named)
    duplicates = [Span(s, e, ("processed more than once",), tuple(ids)) for (s, e), ids in sorted(same.items())]
    duplicates = [d for d in duplicates if len(d.run_ids) > 1]
    # Sweep over window edges, counting how many windows are open.
    edges: list[tuple[datetime, int, str]] = []
    for start, end, run_id in done:
        edges += [(start, 1, run_id), (end, -1, run_id)]
    by_label: dict[str, RunBlock] = {}
    for block, (lo, hi) in zip(blocks, block_spans, strict=True):
        if block.state in DONE_STATES or block.state in IN_FLIGHT_STATES:
            edges += [(lo, 1, block.label), (hi, -1, block.label)]
            by_label[block.label] = block
    edges.sort(key=lambda e: (e[0], e[1]))
    open_ids: list[str] = []
    overlaps: list[Span] = []
    previous: datetime | None = None

    def emit(lo: datetime, hi: datetime, names: list[str]) -> None:
        ids = tuple(sorted(names))
        if overlaps and overlaps[-1].end == lo and overlaps[-1].run_ids == ids:
            overlaps[-1] = Span(overlaps[-1].start, hi, overlaps[-1].reasons, ids)
        else:
            overlaps.append(Span(lo, hi, ("covered by more than one run",), ids))

    for at, step, run_id in edges:
        if previous is not None and at > previous and len(open_ids) > 1:
            # Blocks never meet each other's windows: at most one is open, cut into its runs' windows.
            inside = next((by_label[n] for n in open_ids if n in by_label), None)
            if inside is None:
                emit(previous, at, open_ids)
            else:
                others = [n for n in open_ids if n != inside.label]
                for lo, hi, name in block_pieces(inside, previous, at):
                    emit(lo, hi, [*others, name])
        if step > 0:
            open_ids.append(run_id)
        else:
            open_ids.remove(run_id)
        previous = at
    return overlaps, duplicates
