"""Command-line times: the trailing "Z" the CLI asks for is read as UTC on every supported Python."""

from __future__ import annotations

from datetime import datetime

import pytest
from support import UTC

from hops_timetable.cli import BadInput, parse_time


@pytest.mark.parametrize(
    "text",
    [
        "2026-01-01T10:30Z",
        "2026-01-01T10:30:00Z",
        "2026-01-01T10:30:00z",
        " 2026-01-01T10:30:00+00:00 ",
        "2026-01-01T11:30+01:00",
    ],
)
def test_utc_spellings(text: str) -> None:
    assert parse_time("--after", text) == datetime(2026, 1, 1, 10, 30, tzinfo=UTC)


def test_naive_is_utc_and_garbage_is_refused() -> None:
    assert parse_time("--after", "2026-01-01T10:30") == datetime(2026, 1, 1, 10, 30, tzinfo=UTC)
    with pytest.raises(BadInput, match="--after='Z' is not a date-time"):
        parse_time("--after", "Z")
