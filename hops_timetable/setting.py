"""The timetable's settings as read-only attributes, read from the schedule it holds (documented there)."""

from __future__ import annotations

from typing import Generic, Protocol, TypeVar, overload

from hops_timetable.core.schedule import Schedule, setting_doc

_T = TypeVar("_T")


class _HoldsSchedule(Protocol):
    @property
    def schedule(self) -> Schedule: ...


class Setting(Generic[_T]):
    """A read-only setting: the argument of the same name of the owner's ``schedule``."""

    def __set_name__(self, owner: type, name: str) -> None:
        self._name = name
        self.__doc__ = setting_doc(name)

    @overload
    def __get__(self, obj: None, owner: type) -> Setting[_T]: ...
    @overload
    def __get__(self, obj: _HoldsSchedule, owner: type) -> _T: ...
    def __get__(self, obj: _HoldsSchedule | None, owner: type) -> Setting[_T] | _T:
        if obj is None:
            return self
        value: _T = obj.schedule.argument(self._name)
        return value

    def __set__(self, obj: object, value: object) -> None:
        raise AttributeError(f"{self._name} is read-only: a timetable never changes after it is built")
