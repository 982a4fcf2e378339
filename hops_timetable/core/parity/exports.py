"""Reading Hopsworks' exports for ``parity`` (untrusted: sizes bounded, every field checked, errors named).

* A schedule is read as ``import`` reads it (:mod:`hops_timetable.core.export_schedule`); several versions are
  ``{"versions": [...]}``, each with ``effectiveFrom`` (epoch milliseconds; the first may omit it).
* Executions (shapes in docs/cli.md) are read piece by piece (a million are half a gigabyte of text): only the outer
  shape is walked here, each value parsed by :meth:`json.JSONDecoder.raw_decode`. Pages are merged by ``id``: the
  copy with the highest ``rerunCount`` (then a final state) is the newest. Held as numbers (instants as integer
  microseconds in :class:`array.array` columns: tens of bytes, not the kilobyte of objects). Pure.
"""

from __future__ import annotations

import itertools
import json
import sys
from array import array
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any, Final, NoReturn, TypeGuard, TypeVar

from hops_timetable.core.export_schedule import read_schedule, schedule_of
from hops_timetable.core.schedule import Schedule
from hops_timetable.core.time_text import parse_time
from hops_timetable.core.validation import ArgumentError, check_epoch_millis, short_repr

MAX_EXPORT_CHARS: Final = 2 * 1024 * 1024 * 1024
"""A million executions as the REST API writes them (about 550 bytes each) with room to spare; read piecewise."""
MAX_EXECUTIONS: Final = 1_000_000
"""The most executions (or ledger rows) read; Hopsworks keeps 10,000 per job by default."""
MAX_VERSIONS: Final = 1_000
MAX_ARGS_CHARS: Final = 64 * 1024
PROGRESS_EVERY: Final = 100_000

FINAL_STATES: Final = frozenset(
    {"FINISHED", "FAILED", "KILLED", "FRAMEWORK_FAILURE", "APP_MASTER_START_FAILED", "INITIALIZATION_FAILED"}
)
_FAILED_FINAL: Final = frozenset({"FAILED", "KILLED"})

_T = TypeVar("_T")
_EPOCH: Final = datetime(1970, 1, 1, tzinfo=timezone.utc)
_US: Final = timedelta(microseconds=1)
NO_TIME: Final = -(2**63)  # no instant lies that far back


def to_us(value: datetime) -> int:
    return (value - _EPOCH) // _US


def from_us(value: int) -> datetime:
    return _EPOCH + _US * value  # twice as fast as timedelta(microseconds=value): it is called millions of times


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
    read = read_schedule(schedule_of(obj)[0], offset_model)  # the one reading of a schedule export: import's too
    if read.schedule is None:
        raise ArgumentError(read.errors[0].name, read.errors[0].value, f"{where}: {read.errors[0]}")
    return ScheduleVersion(effective, read.schedule, read.enabled)


def _checked(where: str, rule: Callable[[], _T]) -> _T:
    try:
        return rule()
    except ArgumentError as exc:
        raise ArgumentError(exc.name, exc.value, f"{where}: {exc}") from None


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
        # The SDK reads finalStatus for Spark jobs, state for others; no job type is listed: a failure on either counts.
        if self.state not in FINAL_STATES:
            return "running"
        return "failed" if self.state != "FINISHED" or self.final_status in _FAILED_FINAL else "succeeded"


class _Stored(Sequence[Execution]):
    """Executions as numbers, about 30 bytes each (a million objects take 200 MB), their few kinds held once."""

    def __init__(self) -> None:
        self.columns = (array("q"), array("q"), array("q"), array("L"))
        self.kinds: list[tuple[str, str | None, int]] = []
        self.known: dict[tuple[str, str | None, int], int] = {}

    def put(self, e: Execution, at: int | None = None) -> None:
        kind = (e.state, e.final_status, e.rerun_count)
        if self.known.setdefault(kind, len(self.kinds)) == len(self.kinds):
            self.kinds.append(kind)
        start = NO_TIME if e.start_time is None else to_us(e.start_time)
        for column, value in zip(self.columns, (e.id, to_us(e.submitted), start, self.known[kind]), strict=True):
            if at is None:
                column.append(value)
            else:
                column[at] = value

    def by_id(self) -> _Stored:
        ids = self.columns[0]
        if any(a > b for a, b in itertools.pairwise(ids)):
            order = sorted(range(len(ids)), key=ids.__getitem__)
            for column in self.columns:
                column[:] = array(column.typecode, map(column.__getitem__, order))
        return self

    def __len__(self) -> int:
        return len(self.columns[0])

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Sequence) and list(self) == list(other)

    __hash__ = None  # type: ignore[assignment]

    def __getitem__(self, i: int | slice) -> Any:
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        ids, submitted, start, kind = self.columns
        state, final, reruns = self.kinds[kind[i]]
        arg = None if start[i] == NO_TIME else from_us(start[i])
        return Execution(ids[i], from_us(submitted[i]), state, final, arg, reruns)


@dataclass(frozen=True, slots=True)
class ExecutionsExport:
    """The merged executions (by id), the largest ``count`` the pages declared, and how many copies were merged."""

    executions: Sequence[Execution]
    declared_count: int | None
    merged_copies: int

    @property
    def incomplete(self) -> bool:
        return self.declared_count is not None and len(self.executions) < self.declared_count

    @property
    def note(self) -> str | None:
        if not self.incomplete:
            return None
        return (
            f"the export holds {len(self.executions):,} of the {self.declared_count:,} executions its pages count "
            "(a page is missing: export every page, e.g. with offset and limit until count is reached)"
        )


def load_executions(data: object, source: str, progress: Callable[[int], None] | None = None) -> ExecutionsExport:
    """The executions in the parsed JSON *data* (a page or a list of pages); *progress* gets the count read."""
    return read_executions([json.dumps(data)], source, progress)  # one reading of a listing: the streamed one


def read_executions(
    chunks: Iterable[str], source: str, progress: Callable[[int], None] | None = None
) -> ExecutionsExport:
    """As :func:`load_executions`, from the listing's text in *chunks*, one execution parsed at a time."""
    found, stored, copies = dict[int, int](), _Stored(), 0  # found: id -> where it is stored, only while reading
    declared: int | None = None
    for where, what, value in events(chunks, source):
        if what == "count":
            if value is not None and not _whole(value):
                raise ArgumentError("count", value, f"{where}: count={short_repr(value)} is not a whole number >= 0")
            declared = declared if value is None else max(declared or 0, value)
            continue
        execution = _execution(value, f"{where}: {what}")
        if progress is not None and (copies + len(found) + 1) % PROGRESS_EVERY == 0:
            progress(copies + len(found) + 1)
        at = found.get(execution.id)
        if at is not None:
            copies += 1
            if _newest_first(execution) > _newest_first(stored[at]):
                stored.put(execution, at)
        elif len(found) >= MAX_EXECUTIONS:
            raise ArgumentError("items", None, f"{source}: more than {MAX_EXECUTIONS:,} executions; split the range")
        else:
            found[execution.id] = len(stored)
            stored.put(execution)
    del found
    return ExecutionsExport(stored.by_id(), declared, copies)


def _whole(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _newest_first(e: Execution) -> tuple[int, bool, str, str, str]:
    # Deterministic whatever the page order: a rerun counts up, a final state comes after a running one.
    return (e.rerun_count, e.state in FINAL_STATES, e.state, e.final_status or "", str(e.start_time))


def _execution(item: object, where: str) -> Execution:
    if not isinstance(item, dict):
        raise ArgumentError("item", item, f"{where}: expected an execution object, got {type(item).__name__}")
    ident = item.get("id")
    if not _whole(ident):
        raise ArgumentError("id", ident, f"{where}: id={short_repr(ident)} is invalid: expected a whole number >= 0")
    where = f"{where} (id {ident})"
    submitted = _checked(where, lambda: parse_time("submissionTime", item.get("submissionTime"), strict=True))
    state, final = item.get("state"), item.get("finalStatus")
    if not isinstance(state, str) or len(state) > 64:
        raise ArgumentError("state", state, f"{where}: state={short_repr(state)} is invalid: expected a state name")
    if final is not None and (not isinstance(final, str) or len(final) > 64):
        raise ArgumentError("finalStatus", final, f"{where}: finalStatus={short_repr(final)} is invalid")
    reruns = item.get("rerunCount", 0)
    if not _whole(reruns):
        raise ArgumentError("rerunCount", reruns, f"{where}: rerunCount={short_repr(reruns)} is not a whole number")
    args = item.get("args")
    if args is not None and (not isinstance(args, str) or len(args) > MAX_ARGS_CHARS):
        raise ArgumentError("args", args, f"{where}: args={short_repr(args)} is invalid: expected a string")
    # The value after the last -start_time counts: the scheduler appends it after the job's own args.
    tokens = (args or "").split()[::-1]
    at = tokens.index("-start_time") if "-start_time" in tokens else None
    value = tokens[at - 1] if at else None
    arg = None if at is None else _checked(where, lambda: parse_time("-start_time", value, strict=True))
    # Interned: a million executions share a handful of state names.
    final = None if final is None else sys.intern(final)
    return Execution(ident, submitted, sys.intern(state), final, arg, reruns)


class _Text:
    def __init__(self, chunks: Iterable[str], source: str) -> None:
        self.chunks, self.source = iter(chunks), source
        self.buf, self.pos, self.decoder = "", 0, json.JSONDecoder()

    def more(self) -> bool:
        chunk = next(self.chunks, None)  # an iterator stays exhausted: None again at the end
        if chunk is not None:
            self.buf, self.pos = self.buf[self.pos :] + chunk, 0
        return chunk is not None

    def peek(self) -> str:
        while True:
            while self.pos < len(self.buf) and self.buf[self.pos] in " \t\n\r":
                self.pos += 1
            if self.pos < len(self.buf) or not self.more():
                return self.buf[self.pos : self.pos + 1]

    def expect(self, chars: str, what: str) -> str:
        found = self.peek()
        if not found or found not in chars:
            self.fail(f"expected {what}, found {found!r}" if found else f"ended where {what} was expected")
        self.pos += 1
        return found

    def value(self) -> object:
        self.peek()
        while True:
            try:
                value, end = self.decoder.raw_decode(self.buf, self.pos)
            except json.JSONDecodeError as exc:
                if self.more():  # a value cut by the chunk's end: read on and try again
                    continue
                self.fail(exc.msg)
            except RecursionError:
                self.fail("nests deeper than Python's parser allows")
            if end == len(self.buf) and isinstance(value, (int, float)) and self.more():
                continue  # a number may go on in the next chunk
            self.pos = end
            return value

    def each(self, close: str, what: str) -> Iterator[None]:
        """Once before each element of the array or object just opened; consumes the separators and *close*."""
        self.pos += 1
        if self.peek() == close:
            self.pos += 1
            return
        while True:
            yield
            if self.expect("," + close, f"',' or '{close}' {what}") == close:
                return

    def fail(self, problem: str) -> NoReturn:
        raise ArgumentError(self.source, None, f"{self.source} is not a JSON executions listing: {problem}")


def events(chunks: Iterable[str], source: str) -> Iterator[tuple[str, str, object]]:
    """(where, ``count`` or ``items[i]``, value) of each page's ``count`` and each of its items in *chunks*."""
    text = _Text(chunks, source)
    pages = (f"{source}: page {n}" for n, _ in enumerate(text.each("]", "after a page")))
    for where in pages if text.peek() == "[" else [source]:
        if text.peek() != "{":
            page = text.value()
            what = f'expected an object {{"items": [...], "count": n}}, got {type(page).__name__}'
            raise ArgumentError("page", page, f"{where}: {what}")
        for _ in text.each("}", "in a page"):
            name = text.value()
            if not isinstance(name, str):
                text.fail("an object key is not a string")
            text.expect(":", "':' after a key")
            if name == "items" and text.peek() == "[":
                yield from ((where, f"items[{i}]", text.value()) for i, _ in enumerate(text.each("]", "after an item")))
            elif name == "items":
                items = text.value()
                raise ArgumentError("items", items, f"{where}: items={short_repr(items, 60)} is not a list")
            elif name == "count":
                yield where, name, text.value()
            else:
                text.value()
    if text.peek():
        text.fail("text after the listing")
