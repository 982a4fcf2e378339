"""The caches of the fresh path: one parsed cron and one timetable per distinct payload, shared, and never a
wrong answer for a payload that differs only in a value's type."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from hops_timetable.core.cron import CronSyntaxError, QuartzCron, parse_shared
from hops_timetable.core.validation import ArgumentError
from hops_timetable.timetable import HopsworksTimetable

PAYLOAD: dict[str, Any] = {
    "version": 2,
    "cron_expression": "0 0 * ? * *",
    "start_time_offset_seconds": 3600,
    "end_time_offset_seconds": None,
    "max_catchup_runs": 3,
    "skip_to_date": None,
    "start_time": "2026-01-01T00:00:00+00:00",
    "end_time": None,
    "catchup": True,
}
# What serialize() writes for it: the unset settings left out.
STORED = {key: value for key, value in PAYLOAD.items() if value is not None}


def test_equal_payloads_give_the_same_timetable_and_different_ones_do_not() -> None:
    first = HopsworksTimetable.deserialize(dict(PAYLOAD))
    assert HopsworksTimetable.deserialize(dict(PAYLOAD)) is first
    # Keys in another order: the same settings (the key follows the stored order, which Airflow keeps).
    assert HopsworksTimetable.deserialize(dict(reversed(list(PAYLOAD.items())))).serialize() == STORED
    other = HopsworksTimetable.deserialize({**PAYLOAD, "max_catchup_runs": 4})
    assert other is not first and other.max_catchup_runs == 4 and first.max_catchup_runs == 3
    assert first.serialize() == STORED
    # The stored form, without the nulls, is the same schedule.
    assert HopsworksTimetable.deserialize(dict(STORED)) == first
    assert HopsworksTimetable.deserialize(dict(STORED)).end_time is None


@pytest.mark.parametrize(
    ("key", "value"),
    [("catchup", 1), ("version", True), ("max_catchup_runs", 3.0), ("start_time_offset_seconds", True)],
)
def test_a_value_of_another_type_is_refused_even_when_its_equal_twin_is_cached(key: str, value: Any) -> None:
    # True == 1 == 1.0 in Python: a cache keyed by values alone would answer these with the cached timetable.
    HopsworksTimetable.deserialize(dict(PAYLOAD))
    for _ in range(2):
        with pytest.raises(ArgumentError, match=key):
            HopsworksTimetable.deserialize({**PAYLOAD, key: value})


def test_unhashable_and_odd_payloads_take_the_checked_path() -> None:
    with pytest.raises(ArgumentError, match="skip_to_date"):
        HopsworksTimetable.deserialize({**PAYLOAD, "skip_to_date": ["2026-01-01"]})
    with pytest.raises(ArgumentError):
        HopsworksTimetable.deserialize({**PAYLOAD, 1: "x"})  # type: ignore[dict-item]
    with pytest.raises(ArgumentError, match="expected an object"):
        HopsworksTimetable.deserialize([("cron_expression", "0 0 * ? * *")])  # type: ignore[arg-type]


def test_a_parsed_cron_is_shared_and_a_refused_one_raises_every_time() -> None:
    assert parse_shared("0 15 10 ? * MON-FRI") is parse_shared("0 15 10 ? * MON-FRI")
    assert parse_shared("0 15 10 ? * MON-FRI") == QuartzCron("0 15 10 ? * MON-FRI")
    for _ in range(2):
        with pytest.raises(CronSyntaxError):
            parse_shared("0 0 0 ? * MON/2")
    with pytest.raises(CronSyntaxError, match="must be a string"):
        parse_shared(5)  # type: ignore[arg-type]


def test_threads_deserializing_at_once_all_get_a_correct_timetable() -> None:
    payloads = [{**PAYLOAD, "max_catchup_runs": n} for n in range(1, 41)]
    seen: list[tuple[int, int | None]] = []
    lock = threading.Lock()

    def work() -> None:
        for payload in payloads:
            timetable = HopsworksTimetable.deserialize(dict(payload))
            with lock:
                seen.append((payload["max_catchup_runs"], timetable.max_catchup_runs))

    threads = [threading.Thread(target=work) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(seen) == 8 * len(payloads) and all(want == got for want, got in seen)
