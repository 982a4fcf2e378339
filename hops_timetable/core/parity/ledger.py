"""Reading a CSV ledger for ``parity``: the windows a job recorded itself, read row by row.

The header holds ``HOPS_START_TIME`` and ``HOPS_END_TIME`` (optionally ``HOPS_LOGICAL_DATE``, ``ID``, ``STATE`` and
``SUBMITTED``, when the run started). Like every export it is untrusted text: sizes are bounded and an error names
the file, the line, the field and what would be valid (:class:`ArgumentError`).

Pure: no Airflow import.
"""

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

__all__ = ["MAX_LEDGER_CHARS", "LedgerRow", "load_ledger"]

MAX_LEDGER_CHARS: Final = 512 * 1024 * 1024
"""The largest CSV ledger read: 512 MiB, read row by row (:func:`load_ledger`)."""


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
    """The rows of a CSV ledger: its whole *text*, or its lines (an open file), read one row at a time; see the
    module docstring. ``STATE`` may be SUCCEEDED, FINISHED, FAILED or RUNNING."""
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
    column = {name: i for i, name in enumerate(header)}
    rows: list[LedgerRow] = []
    for n, record in enumerate(_rows(reader, source), start=2):
        where = f"{source}: line {n}"
        if len(record) != len(header):
            raise ArgumentError("row", record, f"{where}: {len(record)} fields, the header has {len(header)}")
        start = _cell(where, record, column, "HOPS_START_TIME")
        end = _cell(where, record, column, "HOPS_END_TIME")
        logical = None
        if "HOPS_LOGICAL_DATE" in column:
            logical = _cell(where, record, column, "HOPS_LOGICAL_DATE")
        state = record[column["STATE"]].strip().upper() if "STATE" in column else "SUCCEEDED"
        outcome = _LEDGER_STATES.get(state, "running" if state == "RUNNING" else "")
        if not outcome:
            raise ArgumentError(
                "STATE",
                state,
                f"{where}: STATE={short_repr(state)} is invalid: expected SUCCEEDED, FINISHED, FAILED or RUNNING",
            )
        ident = record[column["ID"]].strip() if "ID" in column else f"line {n}"
        submitted = _cell(where, record, column, "SUBMITTED") if "SUBMITTED" in column else None
        rows.append(LedgerRow(ident[:64], start, end, logical, outcome, submitted))
    return rows


def _cell(where: str, record: list[str], column: dict[str, int], key: str) -> datetime:
    text = record[column[key]].strip()
    return _checked(where, lambda: parse_time(key, text, strict=True))


def _rows(reader: Iterable[list[str]], source: str) -> Iterable[list[str]]:
    for count, record in enumerate(reader):
        if count >= MAX_EXECUTIONS:
            raise ArgumentError(source, None, f"{source}: more than {MAX_EXECUTIONS:,} rows; split the range")
        if record:
            yield record
