"""Which ``HOPS_*`` values a task sees: the per-run window from ``conf``, the author's values, the scheduler's window
moved by the offset the run was made with (carried in its run id).

``dag_run.conf["hops_window"]`` is written by whoever may trigger the DAG, so it is parsed strictly and only
canonical ``YYYY-MM-DDTHH:MM:SSZ`` strings of the parsed values are emitted, never the raw text.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import Any, Final

from hops_timetable.core.time_text import EXPECTED, TimeTextError, parse_time
from hops_timetable.core.validation import ArgumentError, ArgumentTypeError, HopsTimetableError, short_repr
from hops_timetable.core.window import HOPS_ENV_KEYS, HopsWindow, as_utc, format_hops_time, hops_window

CONF_KEY: Final = "hops_window"  # as in Hopsworks' job.run(start_time=..., end_time=...)

WINDOW_KEYS: Final = ("start_time", "end_time", "logical_date")

SCHEDULED_RUN_TYPES: Final = frozenset({"scheduled", "backfill"})
"""Run types that get the window of their data interval; a run of any other type has one only when it is passed."""

_MAX_PROBLEMS = 4
_EXPECTED_TAIL = f"; expected {EXPECTED}"


class HopsWindowError(ArgumentError):
    """``dag_run.conf["hops_window"]`` is not a valid window: ``problems`` lists each as ``(key, value, problem)``,
    unknown keys first; ``key`` and ``value`` are the first's."""

    def __init__(self, problems: Sequence[tuple[str, object, str]]) -> None:
        self.problems = list(problems)
        self.key, value, problem = self.problems[0]
        if len(self.problems) == 1:
            super().__init__(self.key, value, f'conf["{CONF_KEY}"]{self.key}={short_repr(value)} {problem}')
            return
        # The expected form is said once at the end rather than after every date-time.
        shown = [
            f'conf["{CONF_KEY}"]{k}={short_repr(v, 40)} {p.removesuffix(_EXPECTED_TAIL)}'
            for k, v, p in self.problems[:_MAX_PROBLEMS]
        ]
        if len(self.problems) > _MAX_PROBLEMS:
            shown.append(f"and {len(self.problems) - _MAX_PROBLEMS} more problem(s)")
        if any(p.endswith(_EXPECTED_TAIL) for _, _, p in self.problems[:_MAX_PROBLEMS]):
            shown.append(f"date-times are expected as {EXPECTED}")
        super().__init__(self.key, value, "; ".join(shown))


def parse_window_time(key: str, value: object) -> datetime:
    """One date-time of a conf window, read strictly; raises only :class:`HopsWindowError`."""
    try:
        return parse_time(key, value, strict=True)
    except TimeTextError as exc:
        raise HopsWindowError([(key, value, exc.problem)]) from None


def parse_conf_window(conf: Mapping[str, Any] | None) -> HopsWindow | None:
    """The window in ``conf["hops_window"]`` (``None`` without that key): ``start_time < end_time`` in whole seconds
    and optionally ``logical_date`` (default ``start_time``); one :class:`HopsWindowError` reports every problem."""
    if not isinstance(conf, Mapping) or CONF_KEY not in conf:
        return None
    raw = conf[CONF_KEY]
    if not isinstance(raw, Mapping):
        example = '{"start_time": "2026-01-01T09:00:00Z", "end_time": "2026-01-01T10:00:00Z"}'
        raise HopsWindowError([("", raw, f"is a {type(raw).__name__}; expected an object such as {example}")])
    valid = f"is an unknown key; valid keys are {', '.join(WINDOW_KEYS)}"
    problems = [(f"[{short_repr(key)}]", raw[key], valid) for key in raw if key not in WINDOW_KEYS]
    missing = "is missing; start_time and end_time are both required"
    problems += [(f'["{key}"]', None, missing) for key in ("start_time", "end_time") if key not in raw]
    parsed: dict[str, datetime] = {}
    for key in WINDOW_KEYS:
        if key in raw:
            try:
                parsed[key] = parse_window_time(f'["{key}"]', raw[key]).replace(microsecond=0)
            except HopsWindowError as exc:
                problems += exc.problems
    start, end = parsed.get("start_time"), parsed.get("end_time")
    if start is not None and end is not None and not start < end:
        after = f"is not after start_time={format_hops_time(start)}; the window is [start_time, end_time)"
        problems.append(('["end_time"]', raw["end_time"], after))
    if problems:
        raise HopsWindowError(problems)
    assert start is not None and end is not None
    return HopsWindow(start=start, end=end, logical_date=parsed.get("logical_date", start))


class RunWindowError(HopsTimetableError, ValueError):
    """A scheduled or backfill run whose interval gives no window: the task fails rather than run on a wrong one."""


Replay = Callable[[datetime], "HopsWindow | None"]  # the scheduled run's window of a logical date, if any


# The HOPS offset a scheduled run was made with, carried in its run id (Airflow keeps no other record of it, and a
# run cleared after an offset edit must keep its window): ``scheduled__2026-01-01T10:00:00+00:00__hops_offset_3600s``.
# A run made with none keeps Airflow's exact id, which dashboards and scripts expect.
MARKER: Final = "__hops_offset_"
# Digits only, as mark_offset writes them: an id edited by hand into anything else is not read as marked.
_MARKED = re.compile(r"__hops_offset_(0|[1-9][0-9]{0,9})s\Z", re.ASCII)


def mark_offset(run_id: str, offset_seconds: int | None) -> str:
    """*run_id* with the offset the run is made with; *run_id* itself when there is none (``None`` or 0)."""
    return f"{run_id}{MARKER}{offset_seconds}s" if offset_seconds else run_id


def marked_offset(run_id: object) -> int | None:
    """The offset :func:`mark_offset` wrote into *run_id*; ``None`` for an id without one."""
    match = _MARKED.search(run_id) if isinstance(run_id, str) else None
    return None if match is None else int(match.group(1))


def offset_made_with(run_id: str | None, scheduled: bool, offset_seconds: int | None) -> int | None:
    """The offset a run was made with: its id's; 0 for a scheduled run's id without one; else the DAG's."""
    if (made_with := marked_offset(run_id)) is None:
        return 0 if scheduled and run_id is not None else offset_seconds
    return made_with


def resolve_run_window(
    *,
    run_type: str | None,
    data_interval: tuple[datetime, datetime] | None,
    conf: Mapping[str, Any] | None,
    offset_seconds: int | None,
    explicit: Mapping[str, str] | None = None,
    run_after: datetime | None = None,
    logical_date: datetime | None = None,
    replay: Replay | None = None,
    run_id: str | None = None,
) -> ResolvedWindow:
    """The ``HOPS_*`` variables of one task run and their source, by Hopsworks' precedence (docs/rules.md):
    ``conf["hops_window"]`` (but for a backfill; a bad one raises :class:`HopsWindowError`), else the entries of
    *explicit* (the operator's) and, for the rest, the window of a scheduled or backfill run's data interval moved by
    its offset, or *replay* of its logical date for a run a backfill took over (:class:`RunWindowError` when neither
    gives one). Unpacks as ``values, source``; ``window``: the one used."""
    kind = getattr(run_type, "value", run_type)  # DagRunType is a str enum; compare its value
    # A backfill run's conf is the backfill-wide one, or a taken-over manual run's: no window of this run.
    ignored = kind == "backfill" and isinstance(conf, Mapping) and CONF_KEY in conf
    passed = None if ignored else parse_conf_window(conf)
    if passed is not None:
        return ResolvedWindow(passed.as_env(), "conf", passed)
    own = {key: explicit[key] for key in HOPS_ENV_KEYS if explicit is not None and key in explicit}
    for name, value in ((f"env[{key!r}]", value) for key, value in own.items() if not isinstance(value, str)):
        raise ArgumentTypeError(name, value, f"{name}={short_repr(value)} must be a string, as environment values are")
    if len(own) == len(HOPS_ENV_KEYS) or kind not in SCHEDULED_RUN_TYPES or data_interval is None:
        return ResolvedWindow(own, "operator env" if own else None, None)
    start, end = (as_utc(value) for value in data_interval)
    # A timetable's run has its logical date at its interval's start and run_after at its end (Airflow 3.0 gives a
    # manual run run_after = logical date). Any other was taken over by a backfill with its old interval.
    made_by_timetable = (
        start < end
        and (logical_date is None or as_utc(logical_date) == start)
        and (run_after is None or as_utc(run_after) == end)
    )
    if made_by_timetable:
        window = hops_window(start, end, offset_made_with(run_id, kind == "scheduled", offset_seconds))
        source = "scheduler"
    elif replay is not None:
        moment = start if logical_date is None else as_utc(logical_date)
        if (replayed := replay(moment)) is None:
            raise RunWindowError(
                f"this run's logical date {format_hops_time(moment)} is not the logical date of any run of the DAG's "
                f"schedule, and its data interval [{format_hops_time(start)}, {format_hops_time(end)}) was not made "
                "by the schedule, so it has no HOPS window; re-run it with conf "
                '{"hops_window": {"start_time": ..., "end_time": ...}} or backfill the scheduled runs instead'
            )
        window, source = replayed, "scheduled run replayed"
    elif start < end:
        window, source = hops_window(start, end, offset_seconds), "scheduler"
    else:
        raise RunWindowError(
            f"this run's data interval [{format_hops_time(start)}, {format_hops_time(end)}) is empty: the DAG's "
            "timetable gives runs no data window (CronTriggerTimetable, DeltaTriggerTimetable and the like), so "
            "HOPS_START_TIME would equal HOPS_END_TIME. Schedule the DAG with HopsworksTimetable (or a data-interval "
            'timetable), or pass the window in conf {"hops_window": {"start_time": ..., "end_time": ...}}'
        )
    if own:
        source = f"{source} and operator env"
    if ignored:
        source = f'{source}; conf["{CONF_KEY}"] ignored: a backfill run processes its scheduled window'
    return ResolvedWindow({**window.as_env(), **own}, source, window)  # as_env's key order, own values


class ResolvedWindow(tuple[dict[str, str], "str | None"]):
    """``(values, source)``, and the ``window`` they came from."""

    window: HopsWindow | None

    def __new__(cls, values: dict[str, str], source: str | None, window: HopsWindow | None) -> ResolvedWindow:
        resolved = super().__new__(cls, (values, source))
        resolved.window = window
        return resolved

    @property
    def source(self) -> str | None:
        return self[1]


def resolve_hops_env(**arguments: Any) -> dict[str, str]:
    """The ``HOPS_*`` variables of :func:`resolve_run_window` (same keyword arguments), without their source."""
    return resolve_run_window(**arguments)[0]


# The Trigger form's window fields (DAG params land in dag_run.conf by name), folded into conf["hops_window"].
START_PARAM = "hops_window_start_time"
END_PARAM = "hops_window_end_time"


# Airflow 3.0.6's form appends ":00+00:00" to its picker's value, which already ends in ".fffZ": only that exact
# shape is repaired, anything else is validated as typed.
_AIRFLOW_3_0_FORM_VALUE = re.compile(r"(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z):00\+00:00", re.ASCII)


def conf_with_form_window(conf: Mapping[str, Any] | None) -> Mapping[str, Any] | None:
    """*conf* with the form's window fields as ``conf["hops_window"]`` (an explicit one wins; both empty: unchanged;
    one empty: missing, so that the validation names it)."""
    if not isinstance(conf, Mapping) or CONF_KEY in conf:
        return conf
    window: dict[str, object] = {}
    for key, param in (("start_time", START_PARAM), ("end_time", END_PARAM)):
        if isinstance(value := conf.get(param), str) and (match := _AIRFLOW_3_0_FORM_VALUE.fullmatch(value)):
            value = match.group(1)
        if value not in (None, ""):
            window[key] = value
    return {**conf, CONF_KEY: window} if window else conf
