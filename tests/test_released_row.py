"""A serialized DAG row written by release 0.1.0 still loads: the class path Airflow stores stays, and so do its
runs.

``tests/data/serialized_dag_0.1.0.json`` is ``to_dict`` of a DAG built with ``hops_schedule(...)`` by 0.1.0 (every
argument set), as the dag-processor stores it in ``serialized_dag``; only its two file paths were made neutral.
"""

from __future__ import annotations

import importlib
import json
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import airflow_versions
import pendulum
import time_machine
from airflow.timetables.base import DataInterval, TimeRestriction

from hops_timetable.core.cron import QuartzCron
from hops_timetable.core.window import hops_window
from hops_timetable.timetable import HopsworksTimetable

ROW = Path(__file__).parent / "data" / "serialized_dag_0.1.0.json"
UTC = timezone.utc


def stored_timetable(data: dict[str, Any]) -> Any:
    """The timetable of the row, as the scheduler loads it: the whole row where this Airflow reads its format."""
    try:
        return airflow_versions.dag_serialization_class().from_dict(data).timetable
    except ValueError as exc:
        if "Unsure how to deserialize version" not in str(exc):
            raise
    # The row is DAG format 3, written on Airflow 3.3; older minors read format 2 rows only (they never meet a
    # format 3 row). What they do with the timetable entry of a row is this: the class at the stored path, given the
    # stored payload.
    entry = data["dag"]["timetable"]
    module, _, name = entry["__type"].rpartition(".")
    return getattr(importlib.import_module(module), name).deserialize(entry["__var"])


def test_the_row_of_the_previous_release_deserializes_to_the_same_schedule() -> None:
    data = json.loads(ROW.read_text())
    assert data["dag"]["timetable"]["__type"] == "hops_timetable.timetable.HopsworksTimetable"
    timetable = stored_timetable(data)
    assert isinstance(timetable, HopsworksTimetable)
    assert timetable.cron == QuartzCron("0 15 10 ? * MON-FRI")
    # Written again, the same payload but for its unset settings, which are now left out.
    stored = data["dag"]["timetable"]["__var"]
    assert timetable.serialize() == {key: value for key, value in stored.items() if value is not None}
    assert timetable.serialize() != stored and HopsworksTimetable.deserialize(timetable.serialize()) == timetable
    # Its runs, by hand from the arguments: weekdays at 10:15 from skip_to_date (Monday 2026-02-02) on; seen on
    # Friday 2026-02-06 at noon with catchup and a bound of 3, the three newest of the five due fires; the HOPS
    # window an hour before the data interval.
    restriction = TimeRestriction(
        earliest=pendulum.datetime(2026, 1, 5, 9, 30, tz="UTC"), latest=pendulum.datetime(2027, 1, 1), catchup=True
    )
    with time_machine.travel(datetime(2026, 2, 6, 12, tzinfo=UTC), tick=False):
        info = timetable.next_dagrun_info(last_automated_data_interval=None, restriction=restriction)
    assert info is not None
    assert info.data_interval == DataInterval(at(3), at(4)) and info.run_after == at(4)
    assert hops_window(at(3), at(4), 3600).as_env() == {
        "HOPS_START_TIME": "2026-02-03T09:15:00Z",
        "HOPS_END_TIME": "2026-02-04T09:15:00Z",
        "HOPS_LOGICAL_DATE": "2026-02-03T10:15:00Z",
    }


def at(day: int) -> datetime:
    return datetime(2026, 2, day, 10, 15, tzinfo=UTC)
