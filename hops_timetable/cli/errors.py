"""What the command line reports as the user's to fix (exit status 2)."""

from __future__ import annotations

from hops_timetable.core.validation import ArgumentError


class BadInput(ArgumentError):
    """Input the user must fix; reported as one line with exit status 2, as every :class:`ArgumentError` is."""

    def __init__(self, message: str, name: str = "", value: object = None) -> None:
        super().__init__(name, value, message)
