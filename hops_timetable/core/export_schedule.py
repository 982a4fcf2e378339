"""A Hopsworks job schedule as its REST API and Python SDK export it: the one reading of its keys.

``hops-timetable import`` turns it into ``hops_schedule`` arguments and ``parity`` replays it; both read it here, so
a key means one thing to both. The object is the REST / ``JobSchedule.to_dict()`` one (camelCase, dates in epoch
milliseconds UTC): :data:`KNOWN_KEYS`; a job object holding ``jobSchedule`` names the job (:func:`schedule_of`).

What does not carry over is a warning, never silently dropped: a disabled schedule, a negative start offset read
as the offset model says (two older generations read it differently, so without a model it is an error naming both
readings: :mod:`hops_timetable.core.offset_model`), an end offset (ignored, as in Hopsworks) and unknown keys. Every
value is checked by :mod:`hops_timetable.core.validation`, and a schedule that would never fire after its start is
an error. Errors are collected, not raised, so a report can name them all. Pure: no Airflow import.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Final, TypeVar

from hops_timetable.core.cron import CronSyntaxError, QuartzCron
from hops_timetable.core.offset_model import resolve_start_offset
from hops_timetable.core.validation import (
    ArgumentError,
    check_bool,
    check_catchup_runs,
    check_end_after_start,
    check_epoch_millis,
    check_max_active_runs,
    check_window_start,
    short_repr,
)

__all__ = ["IGNORED_KEYS", "KNOWN_KEYS", "ExportedSchedule", "read_schedule", "schedule_of"]

KNOWN_KEYS: Final = (
    "cronExpression",
    "startDateTime",
    "endDateTime",
    "skipToDate",
    "enabled",
    "catchup",
    "maxActiveRuns",
    "startTimeOffsetSeconds",
    "endTimeOffsetSeconds",
    "maxCatchupRuns",
    "jobName",
)
"""The keys of a schedule that are read (each carries over or is a warning)."""
IGNORED_KEYS: Final = frozenset({"id", "href", "type", "nextExecutionDateTime"})
"""REST bookkeeping that says nothing about when the job runs."""
_MAX_UNKNOWN_WARNINGS: Final = 20

_T = TypeVar("_T")


@dataclass(frozen=True)
class ExportedSchedule:
    """One schedule as read: its values (``None`` where absent or refused), what did not carry over, the refusals.

    ``offset`` is today's reading of ``startTimeOffsetSeconds``; ``errors`` non-empty means it cannot be scheduled.
    """

    job_name: str | None
    cron: QuartzCron | None = None
    start: datetime | None = None
    end: datetime | None = None
    skip_to: datetime | None = None
    enabled: bool = True
    catchup: bool = False
    max_active_runs: int = 1
    offset: int | None = None
    max_catchup_runs: int | None = None
    warnings: tuple[str, ...] = ()
    errors: tuple[ArgumentError, ...] = ()

    def arguments(self) -> dict[str, object]:
        """The ``hops_schedule`` keyword arguments of the values read, in its order; those at their default and
        those refused are left out (``start_time_offset_seconds`` only when positive: today's model has no other)."""
        pairs: list[tuple[str, object]] = [
            ("cron_expression", None if self.cron is None else self.cron.source),
            ("start_time", self.start),
            ("end_time", self.end),
            ("skip_to_date", self.skip_to),
            ("catchup", self.catchup or None),
            ("max_active_runs", self.max_active_runs if self.max_active_runs != 1 else None),
            ("start_time_offset_seconds", self.offset if self.offset is not None and self.offset > 0 else None),
            ("max_catchup_runs", self.max_catchup_runs),
        ]
        return {name: value for name, value in pairs if value is not None}


def schedule_of(obj: object) -> tuple[object, str | None]:
    """The schedule in *obj* and the job name around it: an object with ``cronExpression`` is a schedule; one
    without it holding ``jobSchedule`` is a job object, its ``name`` the job name."""
    if isinstance(obj, dict) and "cronExpression" not in obj and "jobSchedule" in obj:
        name = obj.get("name")
        return obj["jobSchedule"], name if isinstance(name, str) else None
    return obj, None


def read_schedule(obj: object, offset_model: str | None = None, *, job_name: str | None = None) -> ExportedSchedule:
    """Read one schedule object; *job_name* is the name found around it (``jobName`` inside wins).

    *offset_model* reads a negative ``startTimeOffsetSeconds`` (:mod:`hops_timetable.core.offset_model`).
    """
    if not isinstance(obj, dict):
        error = f"expected a JSON object with cronExpression, got {type(obj).__name__} {short_repr(obj, 60)}"
        return ExportedSchedule(None, errors=(ArgumentError("schedule", obj, error),))
    return _Reading(obj, offset_model, job_name).result()


class _Reading:
    """The values of one schedule object, read in order, every refusal collected."""

    def __init__(self, obj: dict[str, Any], offset_model: str | None, outer_name: str | None) -> None:
        self.obj = obj
        self.model = offset_model
        name = obj.get("jobName", outer_name)
        self.job_name = name if isinstance(name, str) and name else None
        self.warnings: list[str] = []
        self.errors: list[ArgumentError] = []

    def check(self, rule: Callable[[], _T]) -> _T | None:
        try:
            return rule()
        except ArgumentError as exc:
            self.errors.append(exc)
            return None

    def result(self) -> ExportedSchedule:
        obj = self.obj
        cron = self.cron()
        start = self.check(lambda: check_epoch_millis("startDateTime", obj.get("startDateTime")))
        end = self.check(lambda: check_epoch_millis("endDateTime", obj.get("endDateTime")))
        skip_to = self.check(lambda: check_epoch_millis("skipToDate", obj.get("skipToDate")))
        if cron is not None and start is not None:
            try:
                cron.check_fires_from("startDateTime", start)  # else it would never run
            except ValueError as exc:
                self.errors.append(ArgumentError("startDateTime", obj.get("startDateTime"), str(exc)))
        self.check(lambda: check_end_after_start("startDateTime", start, "endDateTime", end))
        enabled = self.flag("enabled", True)
        if not enabled:
            self.warnings.append("the schedule is disabled in Hopsworks: the DAG is created paused")
        catchup = self.flag("catchup", False)
        runs = obj.get("maxActiveRuns")
        max_active = 1 if runs is None else self.check(lambda: check_max_active_runs("maxActiveRuns", runs))
        offset = self.offset(cron, start)
        max_catchup = self.check(lambda: check_catchup_runs("maxCatchupRuns", obj.get("maxCatchupRuns")))
        positive = offset if offset is not None and offset > 0 else None
        self.check(lambda: check_window_start("startDateTime", start, "startTimeOffsetSeconds", positive))
        unknown = sorted(str(k) for k in set(obj) - set(KNOWN_KEYS) - IGNORED_KEYS)
        self.warnings += [f"unknown key {short_repr(key)} ignored" for key in unknown[:_MAX_UNKNOWN_WARNINGS]]
        return ExportedSchedule(
            job_name=self.job_name,
            cron=cron,
            start=start,
            end=end,
            skip_to=skip_to,
            enabled=enabled,
            catchup=catchup,
            max_active_runs=1 if max_active is None else max_active,
            offset=offset,
            max_catchup_runs=max_catchup,
            warnings=tuple(self.warnings),
            errors=tuple(self.errors),
        )

    def cron(self) -> QuartzCron | None:
        text = self.obj.get("cronExpression")
        if not isinstance(text, str):
            self.errors.append(
                ArgumentError(
                    "cronExpression",
                    text,
                    f"cronExpression={short_repr(text)} is invalid: expected a Quartz cron expression string such as "
                    "'0 0 * ? * * *'",
                )
            )
            return None
        try:
            return QuartzCron(text)
        except CronSyntaxError as exc:
            self.errors.append(
                ArgumentError("cronExpression", text, f"cronExpression is rejected by this engine: {exc}")
            )
            return None

    def flag(self, key: str, default: bool) -> bool:
        value = self.obj.get(key)
        if value is None:
            return default
        checked = self.check(lambda: check_bool(key, value))
        return default if checked is None else checked

    def offset(self, cron: QuartzCron | None, start: datetime | None) -> int | None:
        obj = self.obj
        value, end_offset = obj.get("startTimeOffsetSeconds"), obj.get("endTimeOffsetSeconds")
        seconds = self.check(
            lambda: resolve_start_offset("startTimeOffsetSeconds", value, self.model, cron, start, end_offset)
        )
        negative = isinstance(value, int) and not isinstance(value, bool) and value < 0
        if negative and seconds is not None:
            relative_to = "interval start" if self.model == "interval-start" else "fire"
            self.warnings.append(
                f"startTimeOffsetSeconds={value} read as --offset-model {self.model} (relative to the "
                f"{relative_to}): today's offset {seconds}"
            )
        if end_offset is not None:
            self.warnings.append(
                f"endTimeOffsetSeconds={short_repr(end_offset)} is ignored, as Hopsworks ignores it: "
                "HOPS_END_TIME is the fire moved by startTimeOffsetSeconds alone"
            )
        return seconds
