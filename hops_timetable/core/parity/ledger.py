"""Reading a CSV ledger for ``parity``: the windows a job recorded itself, row by row (untrusted). Pure."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Final

from hops_timetable.core.parity.exports import MAX_EXECUTIONS, _checked
from hops_timetable.core.time_text import parse_time
from hops_timetable.core.validation import ArgumentError, short_repr

MAX_LEDGER_CHARS: Final = 512 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class LedgerRow:
    """One window a job recorded; ``logical_date`` only when the ledger has that column."""

    id: str
    start: datetime
    end: datetime
    logical_date: datetime | None
    outcome: str = "succeeded"
    submitted: datetime | None = None


_LEDGER_STATES = {"SUCCEEDED": "succeeded", "SUCCESS": "succeeded", "FINISHED": "succeeded", "FAILED": "failed"}


def load_ledger(text: str | Iterable[str], source: str) -> list[LedgerRow]:
    """The rows of a CSV ledger: its whole *text*, or its lines (an open file), read one row at a time."""
    if isinstance(text, str) and len(text) > MAX_LEDGER_CHARS:
        raise ArgumentError(source, None, f"{source} is larger than {MAX_LEDGER_CHARS:,} characters")
    reader = csv.reader(io.StringIO(text) if isinstance(text, str) else text)
    header = [h.strip().upper() for h in next(reader, [])]
    missing = [k for k in ("HOPS_START_TIME", "HOPS_END_TIME") if k not in header]
    if missing:
        raise ArgumentError(
            "header",
            header,
            f"{source}: the CSV header {short_repr(header, 80)} lacks {', '.join(missing)}; expected "
            "HOPS_START_TIME,HOPS_END_TIME[,HOPS_LOGICAL_DATE,ID,STATE,SUBMITTED]",
        )
    rows: list[LedgerRow] = []
    for n, record in enumerate((r for r in reader if r), start=2):
        where = f"{source}: line {n}"
        if n - 2 >= MAX_EXECUTIONS:
            raise ArgumentError(source, None, f"{source}: more than {MAX_EXECUTIONS:,} rows; split the range")
        if len(record) != len(header):
            raise ArgumentError("row", record, f"{where}: {len(record)} fields, the header has {len(header)}")
        cell = dict(zip(header, (value.strip() for value in record), strict=True))
        start, end = _time(where, cell, "HOPS_START_TIME"), _time(where, cell, "HOPS_END_TIME")
        logical, submitted = _time(where, cell, "HOPS_LOGICAL_DATE"), _time(where, cell, "SUBMITTED")
        state = cell.get("STATE", "SUCCEEDED").upper()
        outcome = _LEDGER_STATES.get(state, "running" if state == "RUNNING" else "")
        if not outcome:
            raise ArgumentError(
                "STATE",
                state,
                f"{where}: STATE={short_repr(state)} is invalid: expected SUCCEEDED, FINISHED, FAILED or RUNNING",
            )
        assert start is not None and end is not None  # the header has both
        rows.append(LedgerRow(cell.get("ID", f"line {n}")[:64], start, end, logical, outcome, submitted))
    return rows


def _time(where: str, cell: dict[str, str], key: str) -> datetime | None:
    return _checked(where, lambda: parse_time(key, cell[key], strict=True)) if key in cell else None
