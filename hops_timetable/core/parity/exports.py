"""Reading Hopsworks' exports for ``parity``: schedule versions, the executions listing, a CSV ledger of windows.

Everything here is untrusted text from another system: sizes are bounded, every field is checked and an error
names the file, the field, the value and what would be valid (:class:`ArgumentError`).

* A schedule is the REST / ``JobSchedule.to_dict()`` object (camelCase, dates in epoch milliseconds) or a job object
  embedding ``jobSchedule``, read as ``import`` reads it (:mod:`hops_timetable.core.export_schedule`). Several
  versions are ``{"versions": [...]}``, each such an object with ``effectiveFrom`` (epoch milliseconds: when it took
  effect; the first may omit it).
* Executions are the REST listing ``{"items": [...], "count": n}`` (``items`` absent when empty), or a list of such
  pages. Pages are merged by ``id``: a failed execution re-run in place keeps its id, submission time and arguments
  and counts ``rerunCount`` up, so the copy with the highest ``rerunCount`` (then a final state) is the newest.
* A ledger is CSV with a header holding ``HOPS_START_TIME`` and ``HOPS_END_TIME`` (optionally ``HOPS_LOGICAL_DATE``,
  ``ID`` and ``STATE``): the windows a job recorded itself.

Pure: no Airflow import.
"""

from __future__ import annotations

import csv
import io
import itertools
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Final, TypeVar

from hops_timetable.core.export_schedule import read_schedule, schedule_of
from hops_timetable.core.schedule import Schedule
from hops_timetable.core.validation import (
    ArgumentError,
    check_epoch_millis,
    check_utc_datetime,
    short_repr,
)

__all__ = [
    "MAX_EXECUTIONS",
    "MAX_EXPORT_CHARS",
    "Execution",
    "ExecutionsExport",
    "LedgerRow",
    "ScheduleVersion",
    "load_executions",
    "load_ledger",
    "load_schedule_versions",
    "parse_instant",
]

MAX_EXPORT_CHARS: Final = 512 * 1024 * 1024
"""The largest executions export read: 512 MiB, over a million executions of a few hundred bytes each."""
MAX_EXECUTIONS: Final = 1_000_000
"""The most executions (or ledger rows) read; Hopsworks keeps 10,000 per job by default."""
MAX_VERSIONS: Final = 1_000
MAX_ARGS_CHARS: Final = 64 * 1024

FINAL_STATES: Final = frozenset(
    {"FINISHED", "FAILED", "KILLED", "FRAMEWORK_FAILURE", "APP_MASTER_START_FAILED", "INITIALIZATION_FAILED"}
)
_FAILED_FINAL: Final = frozenset({"FAILED", "KILLED"})

_T = TypeVar("_T")

_INSTANT = re.compile(r"(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d)(?::(\d\d)(?:\.(\d{1,9}))?)?Z")


def parse_instant(name: str, text: object) -> datetime:
    """A UTC instant as Java writes it (``2026-06-01T10:17:16Z``, ``...16.123Z``, up to nanoseconds, truncated to
    microseconds)."""
    match = _INSTANT.fullmatch(text) if isinstance(text, str) else None
    if match is None:
        raise ArgumentError(
            name, text, f"{name}={short_repr(text)} is invalid: expected a UTC instant such as 2026-06-01T10:17:16.123Z"
        )
    y, mo, d, h, mi, s, frac = match.groups()
    micros = int((frac or "0").ljust(6, "0")[:6])
    try:
        value = datetime(int(y), int(mo), int(d), int(h), int(mi), int(s or 0), micros, timezone.utc)
    except ValueError as exc:
        raise ArgumentError(name, text, f"{name}={short_repr(text)} is not a date: {exc}") from None
    checked = check_utc_datetime(name, value)
    assert checked is not None
    return checked


# -- schedules ------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ScheduleVersion:
    """One version of a job's schedule and when it took effect (``None``: from the beginning)."""

    effective_from: datetime | None
    settings: Schedule
    enabled: bool = True


def load_schedule_versions(data: object, source: str, offset_model: str | None = None) -> list[ScheduleVersion]:
    """The versions in the parsed JSON *data*, oldest first; see the module docstring."""
    if isinstance(data, dict) and "versions" in data:
        entries = data["versions"]
        if not isinstance(entries, list) or not entries or len(entries) > MAX_VERSIONS:
            raise ArgumentError(
                "versions",
                entries,
                f"{source}: versions={short_repr(entries, 60)} is invalid: expected a list of 1 to {MAX_VERSIONS} "
                "schedule objects",
            )
        versions = [_version(entry, f"{source}: versions[{i}]", offset_model) for i, entry in enumerate(entries)]
    else:
        versions = [_version(data, source, offset_model)]
    versions.sort(key=lambda v: (v.effective_from is not None, v.effective_from))
    for earlier, later in itertools.pairwise(versions):
        if later.effective_from is None or later.effective_from == earlier.effective_from:
            raise ArgumentError(
                "effectiveFrom",
                None,
                f"{source}: two schedule versions take effect at the same time; give each later version its own "
                "effectiveFrom (epoch milliseconds)",
            )
    return versions


def _version(obj: object, where: str, offset_model: str | None) -> ScheduleVersion:
    if not isinstance(obj, dict):
        raise ArgumentError("schedule", obj, f"{where}: expected a schedule object, got {type(obj).__name__}")
    effective = _checked(where, lambda: check_epoch_millis("effectiveFrom", obj.get("effectiveFrom")))
    schedule, _ = schedule_of(obj)
    read = read_schedule(schedule, offset_model)  # the one reading of a schedule export: import's too
    if read.schedule is None:
        first = read.errors[0]
        raise ArgumentError(first.name, first.value, f"{where}: {first}")
    return ScheduleVersion(effective, read.schedule, read.enabled)


def _checked(where: str, rule: Callable[[], _T]) -> _T:
    try:
        return rule()
    except ArgumentError as exc:
        raise ArgumentError(exc.name, exc.value, f"{where}: {exc}") from None


# -- executions -----------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Execution:
    """One execution as the REST API lists it; ``start_time`` is its ``-start_time`` argument, if any."""

    id: int
    submitted: datetime
    state: str
    final_status: str | None
    start_time: datetime | None
    rerun_count: int = 0

    @property
    def outcome(self) -> str:
        """``succeeded``, ``failed`` or ``running`` (not in a final state).

        The SDK decides success by ``finalStatus`` for Spark jobs and by ``state`` otherwise; the job type is not in
        an execution, so a failure on either counts: a Spark job can be ``FINISHED`` with ``finalStatus: FAILED``.
        """
        if self.state not in FINAL_STATES:
            return "running"
        if self.state != "FINISHED" or self.final_status in _FAILED_FINAL:
            return "failed"
        return "succeeded"


@dataclass(frozen=True, slots=True)
class ExecutionsExport:
    """The merged executions (by id), the largest ``count`` the pages declared, and how many copies were merged."""

    executions: list[Execution]
    declared_count: int | None
    merged_copies: int

    @property
    def incomplete(self) -> bool:
        """The pages hold fewer executions than the API said match: some pages are missing."""
        return self.declared_count is not None and len(self.executions) < self.declared_count


def load_executions(data: object, source: str) -> ExecutionsExport:
    """The executions in the parsed JSON *data*: one listing page or a list of pages."""
    pages = data if isinstance(data, list) else [data]
    found: dict[int, Execution] = {}
    declared: int | None = None
    copies = 0
    for p, page in enumerate(pages):
        where = f"{source}: page {p}" if isinstance(data, list) else source
        if not isinstance(page, dict):
            raise ArgumentError(
                "page", page, f'{where}: expected an object {{"items": [...], "count": n}}, got {type(page).__name__}'
            )
        count = page.get("count")
        if count is not None:
            if isinstance(count, bool) or not isinstance(count, int) or count < 0:
                raise ArgumentError("count", count, f"{where}: count={short_repr(count)} is not a whole number >= 0")
            declared = count if declared is None else max(declared, count)
        items = page.get("items", [])
        if not isinstance(items, list):
            raise ArgumentError("items", items, f"{where}: items={short_repr(items, 60)} is not a list")
        for i, item in enumerate(items):
            execution = _execution(item, f"{where}: items[{i}]")
            known = found.get(execution.id)
            if known is not None:
                copies += 1
                execution = max(known, execution, key=_newest_first)
            elif len(found) >= MAX_EXECUTIONS:
                raise ArgumentError(
                    "items", None, f"{source}: more than {MAX_EXECUTIONS:,} executions; split the range"
                )
            found[execution.id] = execution
    return ExecutionsExport(sorted(found.values(), key=lambda e: e.id), declared, copies)


def _newest_first(e: Execution) -> tuple[int, bool, str, str, str]:
    # Deterministic whatever the page order: a rerun counts up, a final state comes after a running one.
    return (e.rerun_count, e.state in FINAL_STATES, e.state, e.final_status or "", str(e.start_time))


def _execution(item: object, where: str) -> Execution:
    if not isinstance(item, dict):
        raise ArgumentError("item", item, f"{where}: expected an execution object, got {type(item).__name__}")
    ident = item.get("id")
    if isinstance(ident, bool) or not isinstance(ident, int) or ident < 0:
        raise ArgumentError("id", ident, f"{where}: id={short_repr(ident)} is invalid: expected a whole number >= 0")
    where = f"{where} (id {ident})"
    submitted = _checked(where, lambda: parse_instant("submissionTime", item.get("submissionTime")))
    state, final = item.get("state"), item.get("finalStatus")
    if not isinstance(state, str) or len(state) > 64:
        raise ArgumentError("state", state, f"{where}: state={short_repr(state)} is invalid: expected a state name")
    if final is not None and (not isinstance(final, str) or len(final) > 64):
        raise ArgumentError("finalStatus", final, f"{where}: finalStatus={short_repr(final)} is invalid")
    reruns = item.get("rerunCount", 0)
    if isinstance(reruns, bool) or not isinstance(reruns, int) or reruns < 0:
        raise ArgumentError("rerunCount", reruns, f"{where}: rerunCount={short_repr(reruns)} is not a whole number")
    return Execution(ident, submitted, state, final, _start_time_arg(item.get("args"), where), reruns)


def _start_time_arg(args: object, where: str) -> datetime | None:
    """The value after the last ``-start_time`` in *args*: the scheduler appends it after the job's own args."""
    if args is None:
        return None
    if not isinstance(args, str) or len(args) > MAX_ARGS_CHARS:
        raise ArgumentError("args", args, f"{where}: args={short_repr(args)} is invalid: expected a string")
    tokens = args.split()
    if "-start_time" not in tokens:
        return None
    at = len(tokens) - 1 - tokens[::-1].index("-start_time")
    value = tokens[at + 1] if at + 1 < len(tokens) else None
    return _checked(where, lambda: parse_instant("-start_time", value))


# -- ledger ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class LedgerRow:
    """One window a job recorded; ``logical_date`` only when the ledger has that column."""

    id: str
    start: datetime
    end: datetime
    logical_date: datetime | None
    outcome: str = "succeeded"


_LEDGER_STATES = {"SUCCEEDED": "succeeded", "SUCCESS": "succeeded", "FINISHED": "succeeded", "FAILED": "failed"}


def load_ledger(text: str, source: str) -> list[LedgerRow]:
    """The rows of a CSV ledger; see the module docstring. ``STATE`` may be SUCCEEDED, FINISHED, FAILED or RUNNING."""
    if len(text) > MAX_EXPORT_CHARS:
        raise ArgumentError(source, None, f"{source} is larger than {MAX_EXPORT_CHARS:,} characters")
    reader = csv.reader(io.StringIO(text))
    header = [h.strip().upper() for h in next(reader, [])]
    missing = [k for k in ("HOPS_START_TIME", "HOPS_END_TIME") if k not in header]
    if missing:
        raise ArgumentError(
            "header",
            header,
            f"{source}: the CSV header {short_repr(header, 80)} lacks {', '.join(missing)}; expected "
            "HOPS_START_TIME,HOPS_END_TIME[,HOPS_LOGICAL_DATE,ID,STATE]",
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
        rows.append(LedgerRow(ident[:64], start, end, logical, outcome))
    return rows


def _cell(where: str, record: list[str], column: dict[str, int], key: str) -> datetime:
    text = record[column[key]].strip()
    return _checked(where, lambda: parse_instant(key, text))


def _rows(reader: Iterable[list[str]], source: str) -> Iterable[list[str]]:
    for count, record in enumerate(reader):
        if count >= MAX_EXECUTIONS:
            raise ArgumentError(source, None, f"{source}: more than {MAX_EXECUTIONS:,} rows; split the range")
        if record:
            yield record
