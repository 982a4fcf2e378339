"""A Hopsworks job schedule as its REST API and Python SDK export it: the one reading of its keys (``import`` and
``parity``). What does not carry over is a warning, never silently dropped; each key is checked alone, the errors
collected, then the whole by :meth:`Schedule.build`. A negative ``startTimeOffsetSeconds`` is read only as the offset
model the user names (docs/cli.md, ``import``). Pure.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Final, TypeVar

from hops_timetable.core.cron import CronSyntaxError, QuartzCron
from hops_timetable.core.schedule import Schedule
from hops_timetable.core.validation import (
    ArgumentError,
    check_bool,
    check_catchup_runs,
    check_epoch_millis,
    check_max_active_runs,
    check_offset,
    short_repr,
)

EXPORT_KEYS: Final = {
    "cron_expression": "cronExpression",
    "start_time": "startDateTime",
    "end_time": "endDateTime",
    "skip_to_date": "skipToDate",
    "catchup": "catchup",
    "max_active_runs": "maxActiveRuns",
    "start_time_offset_seconds": "startTimeOffsetSeconds",
    "max_catchup_runs": "maxCatchupRuns",
}
"""Each ``hops_schedule`` argument an export holds, under its key there, in the order of the generated call."""
KNOWN_KEYS: Final = (*EXPORT_KEYS.values(), "enabled", "endTimeOffsetSeconds", "jobName")  # carried over, or warned
IGNORED_KEYS: Final = frozenset({"id", "href", "type", "nextExecutionDateTime"})  # REST bookkeeping, not when it runs
_MAX_UNKNOWN_WARNINGS: Final = 20
OFFSET_MODELS: Final = ("interval-start", "fire")
_SAMPLE_FIRES = 400  # fires looked at to call a cron's interval constant: over a year of a daily cron, a leap day too
_SAMPLE_FROM = datetime(2026, 1, 1, tzinfo=timezone.utc)

_T = TypeVar("_T")


@dataclass(frozen=True)
class ExportedSchedule:
    """One schedule as read: the :class:`Schedule` (``None`` when refused), the settings beside it, the refusals."""

    job_name: str | None
    schedule: Schedule | None = None
    enabled: bool = True
    max_active_runs: int = 1
    warnings: tuple[str, ...] = ()
    errors: tuple[ArgumentError, ...] = ()

    def arguments(self) -> dict[str, object]:
        """The ``hops_schedule`` keyword arguments, in :data:`EXPORT_KEYS` order, those at their default left out."""
        if self.schedule is None:
            return {}
        values = {**self.schedule.arguments(), "cron_expression": self.schedule.cron.source}
        values["max_active_runs"] = self.max_active_runs
        defaults: dict[str, object] = {"catchup": False, "max_active_runs": 1, "start_time_offset_seconds": 0}
        return {
            name: value for name in EXPORT_KEYS if (value := values[name]) is not None and value != defaults.get(name)
        }


def schedule_of(obj: object) -> tuple[object, str | None]:
    """The schedule in *obj* and the job name around it (*obj* a job object holding ``jobSchedule``)."""
    if isinstance(obj, dict) and "cronExpression" not in obj and "jobSchedule" in obj:
        name = obj.get("name")
        return obj["jobSchedule"], name if isinstance(name, str) else None
    return obj, None


def read_schedule(obj: object, offset_model: str | None = None, *, job_name: str | None = None) -> ExportedSchedule:
    """Read one schedule object; *job_name* is the name found around it (``jobName`` inside wins)."""
    if not isinstance(obj, dict):
        error = f"expected a JSON object with cronExpression, got {type(obj).__name__} {short_repr(obj, 60)}"
        return ExportedSchedule(None, errors=(ArgumentError("schedule", obj, error),))
    warnings: list[str] = []
    errors: list[ArgumentError] = []

    def check(rule: Callable[..., _T], *args: object) -> _T | None:
        try:
            return rule(*args)
        except ArgumentError as exc:
            errors.append(exc)
            return None

    def flag(key: str, default: bool) -> bool:
        checked = None if obj.get(key) is None else check(check_bool, key, obj.get(key))
        return default if checked is None else checked

    cron = check(_cron, obj.get("cronExpression"))
    start, end, skip_to = (
        check(check_epoch_millis, k, obj.get(k)) for k in ("startDateTime", "endDateTime", "skipToDate")
    )
    enabled = flag("enabled", True)
    if not enabled:
        warnings.append("the schedule is disabled in Hopsworks: the DAG is created paused")
    catchup = flag("catchup", False)
    runs = obj.get("maxActiveRuns")
    max_active = 1 if runs is None else check(check_max_active_runs, "maxActiveRuns", runs)
    value, end_offset = obj.get("startTimeOffsetSeconds"), obj.get("endTimeOffsetSeconds")
    offset = check(_start_offset, value, offset_model, cron, start, end_offset)
    if isinstance(value, int) and not isinstance(value, bool) and value < 0 and offset is not None:
        relative_to = "interval start" if offset_model == "interval-start" else "fire"
        warnings.append(
            f"startTimeOffsetSeconds={value} read as --offset-model {offset_model} (relative to the {relative_to}): "
            f"today's offset {offset}"
        )
    if end_offset is not None:
        warnings.append(
            f"endTimeOffsetSeconds={short_repr(end_offset)} is ignored, as Hopsworks ignores it: "
            "HOPS_END_TIME is the fire moved by startTimeOffsetSeconds alone"
        )
    check(check_catchup_runs, "maxCatchupRuns", obj.get("maxCatchupRuns"))
    unknown = sorted(str(k) for k in set(obj) - set(KNOWN_KEYS) - IGNORED_KEYS)
    warnings += [f"unknown key {short_repr(key)} ignored" for key in unknown[:_MAX_UNKNOWN_WARNINGS]]
    schedule = None
    if cron is not None and not errors:
        try:
            schedule = Schedule.build(
                cron,
                names=EXPORT_KEYS,
                start_time=start,
                end_time=end,
                skip_to_date=skip_to,
                catchup=catchup,
                start_time_offset_seconds=offset,
                max_catchup_runs=obj.get("maxCatchupRuns"),
            )
        except ArgumentError as exc:  # values that do not go together: named by the key of the export
            errors.append(ArgumentError(EXPORT_KEYS.get(exc.name, exc.name), exc.value, str(exc)))
    name = obj.get("jobName", job_name)
    job, active = name if isinstance(name, str) and name else None, 1 if max_active is None else max_active
    return ExportedSchedule(job, schedule, enabled, active, tuple(warnings), tuple(errors))


def _cron(text: object) -> QuartzCron:
    if not isinstance(text, str):
        expected = "expected a Quartz cron expression string such as '0 0 * ? * * *'"
        raise ArgumentError("cronExpression", text, f"cronExpression={short_repr(text)} is invalid: {expected}")
    try:
        return QuartzCron(text)
    except CronSyntaxError as exc:
        raise ArgumentError("cronExpression", text, f"cronExpression is rejected by this engine: {exc}") from None


def _constant_interval(cron: QuartzCron, start: datetime | None) -> int | None:
    """The seconds between fires when the next :data:`_SAMPLE_FIRES` after *start* are evenly spaced."""
    fires = [cron.next_after(start or _SAMPLE_FROM)]
    while len(fires) <= _SAMPLE_FIRES and fires[-1] is not None:
        fires.append(cron.next_after(fires[-1]))
    gaps = {(b - a).total_seconds() for a, b in itertools.pairwise(f for f in fires if f is not None)}
    return int(gaps.pop()) if len(gaps) == 1 and next(iter(gaps)).is_integer() else None


def _start_offset(
    value: object, model: str | None, cron: QuartzCron | None, start: datetime | None, end_offset: object
) -> int | None:
    name = "startTimeOffsetSeconds"
    if isinstance(value, bool) or not isinstance(value, int) or value >= 0:
        return check_offset(name, value)
    back = -value
    if model == "interval-start":
        return check_offset(name, back)
    if model is not None and model != "fire":
        raise ArgumentError(
            "--offset-model", model, f"--offset-model {short_repr(model)} is invalid: expected one of {OFFSET_MODELS}"
        )
    interval = None if cron is None or model is None else _constant_interval(cron, start)
    end = 0 if end_offset is None else end_offset
    if model is None:
        problem = (
            f"is negative, and the generations of Hopsworks read it two ways: relative to the interval start (the "
            f"window starts {back} s before the previous fire: offset {back} today) or relative to the fire (the "
            f"window starts {back} s before the fire: on an hourly cron, offset 0 today); say which with "
            "--offset-model interval-start or --offset-model fire"
        )
    elif interval is None:
        problem = (
            "read relative to the fire has no equivalent today: the cron expression does not fire at one constant "
            "interval, and today's window is always one interval wide"
        )
    elif isinstance(end, bool) or not isinstance(end, int) or end + back != interval:
        problem = (
            f"with endTimeOffsetSeconds={short_repr(end_offset)} read relative to the fire is a window "
            f"{short_repr(end)} + {back} s wide; today's window is one cron interval ({interval} s) wide, so it has "
            "no equivalent"
        )
    else:
        return check_offset(name, back - interval)
    raise ArgumentError(name, value, f"{name}={value} {problem}")
