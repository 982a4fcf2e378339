"""What the commands report as an error that is no bug: the user's to fix (exit status 2), Airflow's refusal (1)."""

from __future__ import annotations

from hops_timetable.core.validation import ArgumentError, HopsTimetableError


class BadInput(ArgumentError):
    """Input the user must fix; reported as one line with exit status 2, as every :class:`ArgumentError` is."""

    def __init__(self, message: str, name: str = "", value: object = None) -> None:
        super().__init__(name, value, message)


class AuditError(HopsTimetableError, RuntimeError):
    """Airflow could not be read or written (``audit``, ``parity --airflow-api``); the message says which request
    failed and why. Reported as one line with exit status 1: the environment's answer, not a bug."""

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status
