"""Holding a million of something as numbers: instants as integer microseconds in :class:`array.array` columns (tens
of bytes, not the kilobyte of objects), and sequences whose objects are made when a step reads them (:class:`Lazy`).
Pure.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Sequence
from datetime import datetime, timedelta, timezone
from typing import Any, Final, TypeVar

_EPOCH: Final = datetime(1970, 1, 1, tzinfo=timezone.utc)
_US: Final = timedelta(microseconds=1)
NO_TIME: Final = -(2**63)  # no instant lies that far back

_T = TypeVar("_T")


def to_us(value: datetime) -> int:
    return (value - _EPOCH) // _US


def from_us(value: int) -> datetime:
    return _EPOCH + _US * value  # twice as fast as timedelta(microseconds=value): it is called millions of times


class Lazy(Sequence[_T]):
    """A sequence whose items *make* makes again each time they are read (never stored); indexing walks them."""

    def __init__(self, make: Callable[[], Iterator[_T]], length: int | None = None) -> None:
        self._make = make
        self._length = length

    def __iter__(self) -> Iterator[_T]:
        return self._make()

    def __len__(self) -> int:
        if self._length is None:
            self._length = sum(1 for _ in self._make())
        return self._length

    def __getitem__(self, index: int | slice) -> Any:
        if isinstance(index, slice):
            return list(self)[index]
        at = index + len(self) if index < 0 else index
        for item in itertools.islice(self._make(), at, None) if at >= 0 else ():
            return item
        raise IndexError(index)

    def __repr__(self) -> str:
        return f"Lazy({list(self)!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Sequence) and list(self) == list(other)

    __hash__ = None  # type: ignore[assignment]


class Ordered(Lazy[_T]):
    """Runs on no fire first, then in fire order: :func:`~hops_timetable.core.parity.compare.compare` sorts others."""
