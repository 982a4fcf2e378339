"""A Hopsworks job schedule as one frozen value: its settings, its one validation sequence, its stored forms and its
words (the timetable's description, the tab's sentences). Each setting is a field whose metadata gives its Hopsworks
argument name and its check; the payload, the JSON and the argument lists derive from those fields.
"""

# ruff: noqa: RUF009
from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import cached_property
from typing import Any, Final

from hops_timetable.core.catchup import CatchupPolicy
from hops_timetable.core.cron import QuartzCron, parse_shared
from hops_timetable.core.time_text import parse_time
from hops_timetable.core.validation import (
    EARLIEST_WINDOW,
    ArgumentError,
    ArgumentTypeError,
    check_catchup_runs,
    check_offset,
    check_utc_datetime,
    short_repr,
    wrong_type,
)
from hops_timetable.core.window import HopsWindow, as_utc, format_hops_time, hops_window, window_rule

SERIALIZATION_VERSION: Final = 2  # bumped when the payload changes shape; 2 added start_time, end_time, catchup


def _check_catchup(name: str, value: object) -> bool | None:
    if value is not None and not isinstance(value, bool):
        raise wrong_type(
            name, value, "expected True or False, or None for a schedule that does not hold the DAG's restriction"
        )
    return value


def _setting(
    argument: str, check: Callable[[str, Any], Any] | None, doc: str, kind: str = "", default: Any = None
) -> Any:
    return field(default=default, metadata={"argument": argument, "kind": kind, "check": check, "doc": doc})


@dataclass(frozen=True)
class Schedule:
    """The settings of one Hopsworks job schedule; every datetime aware UTC. :meth:`build` (:meth:`from_payload`,
    :meth:`from_json`) validates; one made directly from its fields is trusted as valid."""

    cron: QuartzCron = _setting("cron_expression", None, "The cron expression, in UTC.", "cron", dataclasses.MISSING)
    offset: int | None = _setting("start_time_offset_seconds", check_offset, "Seconds the HOPS window moves earlier.")
    end_offset: int | None = _setting("end_time_offset_seconds", check_offset, "Accepted and ignored, as in Hopsworks.")
    max_catchup_runs: int | None = _setting("max_catchup_runs", check_catchup_runs, "The most runs after an outage.")
    skip_to: datetime | None = _setting("skip_to_date", check_utc_datetime, "Fires before this are never run.", "time")
    start: datetime | None = _setting("start_time", check_utc_datetime, "The DAG's (exclusive) start date.", "time")
    end: datetime | None = _setting("end_time", check_utc_datetime, "The DAG's (exclusive) end date.", "time")
    catchup: bool = _setting("catchup", _check_catchup, "The DAG's catchup, when bound to it.", default=False)
    bound: bool = False
    """Built with ``catchup`` given: ``start``, ``end`` and ``catchup`` are the DAG's (else ``None``)."""

    @classmethod
    def build(
        cls,
        cron_expression: str | QuartzCron,
        *,
        now: datetime | None = None,
        names: Mapping[str, str] | None = None,
        **settings: Any,
    ) -> Schedule:
        """The schedule of these Hopsworks arguments (those of ``hops_schedule``), validated; raises
        :class:`ArgumentError` naming the argument as *names* maps it (``--start-time``). A schedule that can never
        run is refused, by the rules that depend on the clock only with *now*."""
        names = names or {}
        if unknown := sorted(set(settings) - set(_ARGUMENTS)):
            listed = f"unknown schedule argument(s) {', '.join(unknown)}; the arguments are {', '.join(_ARGUMENTS)}"
            raise ArgumentTypeError(unknown[0], settings[unknown[0]], listed)
        cron = cron_expression if isinstance(cron_expression, QuartzCron) else parse_shared(cron_expression)
        values = {f.name: f.metadata["check"](names.get(a, a), settings.get(a)) for f, a in _CHECKED}
        return cls._joined({"cron": cron, **values}, now, names)

    @classmethod
    def _joined(cls, values: dict[str, Any], now: datetime | None, names: Mapping[str, str]) -> Schedule:
        """The schedule of settings each checked alone, refused when they do not go together or never run."""
        start, end, offset, catchup = (
            names.get(a, a) for a in ("start_time", "end_time", "start_time_offset_seconds", "catchup")
        )
        schedule = cls(**{**values, "catchup": bool(values["catchup"])}, bound=values["catchup"] is not None)
        first, last, shift = schedule.start, schedule.end, timedelta(seconds=schedule.offset or 0)
        if first is not None and last is not None and last <= first:
            never = f"the schedule could never fire ({end} is exclusive)"
            raise ArgumentError(
                end, last, f"{end}={last.isoformat()} is not after {start}={first.isoformat()}; {never}"
            )
        if first is not None and shift and first - EARLIEST_WINDOW < shift:  # HOPS_* values keep four-digit years
            raise ArgumentError(
                start,
                first,
                f"{start}={first.isoformat()} with {offset}={schedule.offset} would start the first HOPS window "
                f"before {EARLIEST_WINDOW.isoformat()}; give a {start} from {(EARLIEST_WINDOW + shift).isoformat()} "
                "on, or a smaller offset",
            )
        if not schedule.bound and (first is not None or last is not None):
            raise ArgumentError(
                catchup,
                None,
                "start_time/end_time are given without catchup: pass the DAG's catchup too (True or False), so "
                "that the schedule holds the DAG's whole restriction, or use hops_schedule(...), which passes all "
                "three",
            )
        schedule.policy().check_can_run(now, names)
        return schedule

    def validate(self, now: datetime | None = None) -> None:
        """Check the whole sequence again."""
        self.build(self.cron.source, now=now, **self.arguments())

    def replace(self, **changes: Any) -> Schedule:
        """This schedule with some fields changed, validated again (not by the clock)."""
        changed = dataclasses.replace(self, **changes)
        changed.validate()
        return changed

    def policy(self) -> CatchupPolicy:
        return self.policy_within(self.start, self.end)

    def policy_within(self, start: datetime | None, end: datetime | None) -> CatchupPolicy:
        """The catch-up policy between *start* and *end* (a DAG's restriction not held by the schedule)."""
        return CatchupPolicy(self.cron, start, end, self.skip_to, self.max_catchup_runs)

    @cached_property
    def range_policy(self) -> CatchupPolicy:
        """A backfill's: between the schedule's own start and end, never bounded."""
        return CatchupPolicy(self.cron, self.start, self.end, self.skip_to)

    @cached_property
    def manual_policy(self) -> CatchupPolicy:
        """The one a manual trigger is attributed by, whatever the start and end."""
        return CatchupPolicy(self.cron, skip_to=self.skip_to, max_catchup_runs=self.max_catchup_runs)

    def replayed_window(self, logical_date: datetime) -> HopsWindow | None:
        """The HOPS window a backfill gives the scheduled run of *logical_date* (``None``: no run has it)."""
        run = self.range_policy.scheduled_run_at(as_utc(logical_date))
        return None if run is None else hops_window(run.interval_start, run.fire, self.offset)

    def arguments(self) -> dict[str, Any]:
        """The keyword arguments but the cron expression that build this schedule again."""
        return {argument: self.argument(argument) for argument in _ARGUMENTS[1:]}

    def argument(self, name: str) -> Any:
        """The value of the argument *name* (``catchup`` is ``None`` for an unbound schedule)."""
        return None if name == "catchup" and not self.bound else getattr(self, _BY_ARGUMENT[name].name)

    def payload(self) -> dict[str, Any]:
        """The timetable's serialized form (format :data:`SERIALIZATION_VERSION`); unset settings are left out, as
        Airflow stores this in every serialized DAG (docs/performance.md)."""
        out: dict[str, Any] = {"version": SERIALIZATION_VERSION}
        for f in _FIELDS:
            if (value := self.argument(f.metadata["argument"])) is not None:
                out[f.metadata["argument"]] = _text(f, value, datetime.isoformat)
        return out

    @classmethod
    def from_payload(cls, data: object) -> Schedule:
        """The schedule :meth:`payload` wrote *data* for, not checked by the clock; other data raises one
        :class:`ArgumentError` naming the key, the value and the format versions understood."""
        understood = f"this hops-timetable reads format versions 1 to {SERIALIZATION_VERSION}"

        def fail(key: str, value: object, problem: str) -> ArgumentError:
            return ArgumentError(key, value, f"HopsworksTimetable payload ({understood}): {problem}")

        if not isinstance(data, dict):
            raise fail("", data, f"{short_repr(data)} is a {type(data).__name__}, expected an object")
        version = data.get("version", 1)
        if isinstance(version, bool) or not isinstance(version, int) or version < 1:
            raise fail("version", version, f"key 'version'={short_repr(version)} is not a format version")
        if version > SERIALIZATION_VERSION:
            newer = "is newer than this hops-timetable understands; upgrade hops-timetable on this Airflow component"
            raise fail("version", version, f"key 'version'={version} {newer}")
        if unknown := [key for key in data if key not in PAYLOAD_KEYS]:
            shown = ", ".join(sorted(short_repr(k) for k in unknown)[:10])
            raise fail(
                str(unknown[0]), data[unknown[0]], f"unknown key(s) {shown}; the keys are {', '.join(PAYLOAD_KEYS)}"
            )
        cron = data.get("cron_expression")
        if not isinstance(cron, str):
            problem = " is missing" if "cron_expression" not in data else f"={short_repr(cron)} is not a string"
            raise fail("cron_expression", cron, f"key 'cron_expression'{problem}")
        values: dict[str, Any] = {}  # each setting checked alone, named as its key
        for f, key in _CHECKED:
            value = data.get(key)
            try:
                values[f.name] = f.metadata["check"](f"key {key!r}", _read(f, f"key {key!r}", value))
            except ArgumentError as exc:
                raise fail(key, value, str(exc)) from None
        try:
            values["cron"] = parse_shared(cron)
        except ArgumentError as exc:
            raise fail("cron_expression", cron, f"key 'cron_expression': {exc}") from None
        try:
            return cls._joined(values, None, {})
        except ArgumentError as exc:  # values that do not go together
            raise fail("", data, str(exc)) from None

    def as_json(self) -> dict[str, Any]:
        """The settings as JSON (the plugin's API, ``--json`` output): times as ``HOPS_*`` values."""
        return {f.metadata["argument"]: _text(f, getattr(self, f.name), format_hops_time) for f in _FIELDS}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Schedule:
        """The schedule :meth:`as_json` wrote (other keys are ignored); raises :class:`ArgumentError`."""
        cron = data.get("cron_expression")
        if not isinstance(cron, str):
            raise ArgumentError("cron_expression", cron, f"cron_expression={short_repr(cron)} is not a string")
        return cls.build(cron, **{key: _read(f, key, data.get(key)) for f, key in _CHECKED})


_FIELDS: Final = tuple(f for f in dataclasses.fields(Schedule) if "argument" in f.metadata)
_BY_ARGUMENT: Final = {f.metadata["argument"]: f for f in _FIELDS}
_ARGUMENTS: Final = tuple(f.metadata["argument"] for f in _FIELDS)
_CHECKED: Final = tuple((f, f.metadata["argument"]) for f in _FIELDS[1:])  # every setting but the cron
PAYLOAD_KEYS: Final = ("version", *_ARGUMENTS)
"""Every key :meth:`Schedule.payload` has written; any other is refused, never silently dropped."""


def argument_names() -> tuple[str, ...]:
    """The Hopsworks argument names of a schedule, the cron expression first."""
    return _ARGUMENTS


def setting_doc(argument: str) -> str:
    """The one-line documentation of the setting named *argument*."""
    return str(_BY_ARGUMENT[argument].metadata["doc"])


PayloadKey = tuple[tuple[tuple[str, Any], ...], tuple[type, ...]]
_SCALARS: Final = frozenset({str, int, float, bool, type(None)})
_STRING: Final = frozenset({str})


def payload_key(data: object) -> PayloadKey | None:
    """A payload as a hashable key (``None`` unless a flat object of scalars with string keys); with the values'
    types, since ``True == 1 == 1.0`` and ``catchup=1`` must be refused."""
    if type(data) is not dict:
        return None
    # Checked in C (set inclusion over map): the scheduler loads a payload for each decision of each DAG.
    types = tuple(map(type, data.values()))
    if not _SCALARS.issuperset(types) or not _STRING.issuperset(map(type, data)):
        return None
    return tuple(data.items()), types


def _text(f: dataclasses.Field[Any], value: Any, time_text: Callable[[datetime], str]) -> Any:
    if f.metadata["kind"] == "cron":
        return value.source
    return time_text(value) if f.metadata["kind"] == "time" and value is not None else value


def _read(f: dataclasses.Field[Any], name: str, value: object) -> Any:
    return parse_time(name, value) if f.metadata["kind"] == "time" and value is not None else value


DESCRIPTION_LIMIT: Final = 1000  # Airflow's DagModel.timetable_description is a 1000-character column


def catchup_rule(catchup: bool, max_catchup_runs: int | None) -> str:
    if not catchup:
        return "catchup=False: after an outage or a pause only the newest missed fire runs"
    if max_catchup_runs is None:
        return "catchup=True without a bound: after an outage or a pause every missed fire runs"
    return (
        f"catchup=True, max_catchup_runs={max_catchup_runs}: after an outage or a pause at most the newest "
        f"{max_catchup_runs} missed fire(s) run; older ones are dropped"
    )


def describe(schedule: Schedule) -> str:
    """The schedule in at most :data:`DESCRIPTION_LIMIT` characters (an unbound one says both catch-up cases)."""
    if schedule.bound:
        catchup = catchup_rule(schedule.catchup, schedule.max_catchup_runs)
    else:
        catchup = f"{catchup_rule(True, schedule.max_catchup_runs)}. {catchup_rule(False, None)}"
    text = f"{schedule.cron.describe()} (UTC). Window: {window_rule(schedule.offset)}. {catchup}."
    if schedule.skip_to is not None:
        text += f" Fires before skip_to_date {format_hops_time(schedule.skip_to)} never run."
    return text[:DESCRIPTION_LIMIT]


def sentences(schedule: Schedule, paused: bool | None = None) -> list[str]:
    """The schedule one sentence per setting (the Hopsworks tab)."""
    s = schedule
    lines = [f"Fires (UTC): {s.cron.describe()}: {s.cron.expression}"]
    if s.start is None:
        lines.append("No start_time: nothing before the DAG was first scheduled is replayed.")
    else:
        lines.append(f"Starts after {format_hops_time(s.start)}; the first window is clamped to it.")
    lines.append("No end." if s.end is None else f"Ends before {format_hops_time(s.end)} (exclusive).")
    if s.skip_to is not None:
        lines.append(f"Fires before skip_to_date {format_hops_time(s.skip_to)} never run.")
    lines.append(f"{catchup_rule(s.catchup, s.max_catchup_runs)}.")
    lines.append(f"Window: {window_rule(s.offset)}.")
    if paused:
        lines.append("The DAG is paused: its fires pass without runs until it is unpaused.")
    return lines
