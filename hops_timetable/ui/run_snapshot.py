"""A DAG's folded runs on disk, taken up by an api-server started again instead of reading its whole history
(docs/audit-and-ui.md). A cache, never the truth: it names the schedule and the row it was folded up to, which
:mod:`hops_timetable.ui.runs` checks; a file that does not read back is ignored. One JSON file per DAG, written whole
and renamed into place."""

from __future__ import annotations

import hashlib
import json
import logging
import os
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, TypeVar

from hops_timetable import _compat, config
from hops_timetable.core.coverage import RunBlock, RunRecord
from hops_timetable.core.schedule import Schedule

FORMAT = 1
_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
_MICROSECOND = timedelta(microseconds=1)
_log = logging.getLogger(__name__)
_T = TypeVar("_T")


@dataclass(frozen=True)
class Snapshot:
    """What a DAG's folded runs are: the runs kept whole, the blocks, those failed and in flight by row id, the
    highest row id folded (``upto``, whose run is ``upto_run_id``) and how many runs that covers (:attr:`runs`)."""

    dag_id: str
    upto: int
    upto_run_id: str
    newest: datetime | None
    singles: list[RunRecord]
    blocks: list[RunBlock]
    failed: dict[int, RunRecord]
    in_flight: dict[int, RunRecord]

    @property
    def runs(self) -> int:
        return len(self.singles) + sum(b.count for b in self.blocks) + len(self.in_flight)


def read(dag_id: str, settings: Schedule) -> Snapshot | None:
    """The snapshot of *dag_id*'s runs, if one is on disk, was folded for *settings* and reads back whole."""
    path = _path(dag_id)
    if path is None or not path.exists():
        return None
    try:
        data = json.loads(path.read_bytes())
        if data["format"] != FORMAT or data["dag_id"] != dag_id or data["schedule"] != _schedule(settings):
            return None
        return Snapshot(
            dag_id,
            int(data["upto"]),
            str(data["upto_run_id"]),
            _time(data["newest"]),
            [_from_row(RunRecord, _RECORD_ROW, r) for r in data["singles"]],
            [_from_row(RunBlock, _BLOCK_ROW, b) for b in data["blocks"]],
            {int(i): _from_row(RunRecord, _RECORD_ROW, r) for i, r in data["failed"]},
            {int(i): _from_row(RunRecord, _RECORD_ROW, r) for i, r in data["in_flight"]},
        )
    except (OSError, ValueError, TypeError, KeyError, IndexError, OverflowError) as exc:
        _log.warning("Ignoring the tab's snapshot of DAG %r's runs at %s: %s", dag_id, path, exc)
        return None


def write(settings: Schedule, snapshot: Snapshot) -> None:
    """Put *snapshot*, folded for *settings*, on disk in place of the one before (a failure is logged: the tab works
    without)."""
    path = _path(snapshot.dag_id)
    if path is None:
        return
    data = {
        "format": FORMAT,
        "dag_id": snapshot.dag_id,
        "schedule": _schedule(settings),
        "upto": snapshot.upto,
        "upto_run_id": snapshot.upto_run_id,
        "newest": _micros(snapshot.newest),
        "singles": [_row(r, _RECORD_ROW) for r in snapshot.singles],
        "blocks": [_row(b, _BLOCK_ROW) for b in snapshot.blocks],
        "failed": [[i, _row(r, _RECORD_ROW)] for i, r in snapshot.failed.items()],
        "in_flight": [[i, _row(r, _RECORD_ROW)] for i, r in snapshot.in_flight.items()],
    }
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile("wb", dir=path.parent, prefix=".", suffix=".tmp", delete=False) as out:
            out.write(json.dumps(data, separators=(",", ":")).encode())
        os.replace(out.name, path)
    except (OSError, TypeError, ValueError) as exc:
        _log.warning("Could not write the tab's snapshot of DAG %r's runs to %s: %s", snapshot.dag_id, path, exc)


def newest_first(dag_ids: list[str], limit: int) -> list[str]:
    """Those of *dag_ids* with a snapshot on disk, the *limit* written last, the newest first."""
    paths = [(dag_id, _path(dag_id)) for dag_id in dag_ids]
    written = [(path.stat().st_mtime, dag_id) for dag_id, path in paths if path is not None and path.exists()]
    return [dag_id for _, dag_id in sorted(written, reverse=True)[:limit]]


def _schedule(settings: Schedule) -> Any:
    """The schedule's stored form as JSON reads it back (a snapshot of other settings folded other runs)."""
    return json.loads(json.dumps(settings.payload()))


def _path(dag_id: str) -> Path | None:
    settings = config.settings()
    if not settings.tab_snapshots:
        return None
    folder = settings.tab_snapshot_dir
    if not folder:
        folder = os.path.join(_compat.airflow_home(), "hops_timetable", "tab-runs")
    # A DAG id may hold characters a file name cannot: named by its hash, the id itself inside.
    return Path(folder) / f"{hashlib.sha256(dag_id.encode()).hexdigest()[:32]}.json"


def _micros(value: datetime | None) -> int | None:
    return None if value is None else (value - _EPOCH) // _MICROSECOND


def _at(value: Any) -> datetime:
    return _EPOCH + int(value) * _MICROSECOND  # a null where a time is set is a TypeError: the file is ignored


def _time(value: Any) -> datetime | None:
    return None if value is None else _at(value)


# A row's fields in the order written, each with how it reads back (a block's run_ids are not kept).
_RECORD_ROW: dict[str, Callable[[Any], Any]] = {
    **dict.fromkeys(("run_id", "run_type", "state"), str),
    "run_after": _at,
    **dict.fromkeys(("logical_date", "data_interval_start", "data_interval_end", "queued_at"), _time),
    "conf": lambda conf: conf and dict(conf),
}
_BLOCK_ROW: dict[str, Callable[[Any], Any]] = {
    **dict.fromkeys(("run_type", "state"), str),
    **dict.fromkeys(("first_start", "first_fire", "last_fire"), _at),
    **{"count": int, "first_queued": _time, "first_id": str, "last_id": str, "last_queued": _time},
}


def _row(item: RunRecord | RunBlock, fields: dict[str, Callable[[Any], Any]]) -> list[Any]:
    values = (getattr(item, name) for name in fields)
    return [_micros(v) if isinstance(v, datetime) else dict(v) if isinstance(v, Mapping) else v for v in values]


def _from_row(kind: Callable[..., _T], fields: dict[str, Callable[[Any], Any]], row: list[Any]) -> _T:
    return kind(**{name: read(value) for (name, read), value in zip(fields.items(), row, strict=True)})
