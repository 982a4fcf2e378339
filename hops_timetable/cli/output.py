"""How every command prints: one JSON document with ``--json``, else aligned text; times as ``...Z``."""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any

from hops_timetable.core.window import format_hops_time


def emit(args: argparse.Namespace, payload: dict[str, Any], text: Callable[[], list[str]]) -> None:
    print(json.dumps(payload, indent=2) if args.json else "\n".join(text()))


def fmt_time(value: datetime | None) -> str | None:
    """A time as the ``HOPS_*`` values are written (``2026-01-01T10:00:00Z``); ``None`` for no time."""
    return None if value is None else format_hops_time(value)


def json_time(value: datetime | None) -> str | None:
    """A time as ``...Z``, keeping milliseconds when there are some (a clamped first window starts at one)."""
    if value is None or not value.microsecond:
        return fmt_time(value)
    return f"{format_hops_time(value)[:-1]}.{value.microsecond // 1000:03d}Z"


def render_table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> list[str]:
    cells = [[str(h) for h in headers], *[["" if c is None else str(c) for c in row] for row in rows]]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return lines
