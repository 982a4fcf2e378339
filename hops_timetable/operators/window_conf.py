"""Which ``HOPS_*`` values a task sees: the per-run window from ``conf``, the author's values, the scheduler's window.

Pure: no Airflow import, so the rules can be tested with plain values. The Airflow side
(:mod:`hops_timetable.operators.runtime`) only gathers those values from the task context.

``dag_run.conf["hops_window"]`` is written by whoever may trigger the DAG, so it is parsed strictly and only
canonical ``YYYY-MM-DDTHH:MM:SSZ`` strings derived from the parsed values are ever emitted, never the raw text.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import datetime, timedelta, timezone
from typing import Any, Final, Literal

from hops_timetable.window import HOPS_ENV_KEYS, HopsWindow, format_hops_time, hops_window

__all__ = [
    "CONF_KEY",
    "LEGACY_ARG_MODES",
    "SCHEDULED_RUN_TYPES",
    "WINDOW_KEYS",
    "HopsWindowError",
    "LegacyArgs",
    "check_legacy_args",
    "legacy_arguments",
    "parse_conf_window",
    "parse_window_time",
    "resolve_hops_env",
]

CONF_KEY: Final = "hops_window"
"""The ``dag_run.conf`` key of a per-run window, as in Hopsworks' ``job.run(start_time=..., end_time=...)``."""

WINDOW_KEYS: Final = ("start_time", "end_time", "logical_date")

SCHEDULED_RUN_TYPES: Final = frozenset({"scheduled", "backfill"})
"""Run types that get the window of their data interval. Every other type (``manual``, ``asset_triggered``,
``operator_triggered``, ...) is a run "from outside", which in Hopsworks has a window only when one is passed."""

LegacyArgs = Literal["start_time", "papermill"]

LEGACY_ARG_MODES: Final[Mapping[str, tuple[str, ...]]] = {
    "start_time": ("-start_time",),
    "papermill": ("-p", "start_time"),
}

MAX_TIME_TEXT: Final = 64
"""Longest accepted date-time text; the longest valid form (9 fraction digits and an offset) has 35 characters."""

_REPR_LIMIT = 80

# re.ASCII: without it \d also matches other scripts' digits, which int() would then happily read.
_ISO_DATETIME = re.compile(
    r"(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})?",
    re.ASCII,
)

_EXPECTED = "an ISO-8601 date-time YYYY-MM-DDTHH:MM:SS[.fraction][Z|+HH:MM|-HH:MM] (no offset means UTC)"


def _short_repr(value: object) -> str:
    """``repr`` capped in length so that a huge hostile value cannot flood the log; never raises."""
    try:
        text = repr(value)
    except Exception:  # e.g. an int too long to print, or a structure too deep
        text = f"<unprintable {type(value).__name__}>"
    if len(text) > _REPR_LIMIT:
        text = text[: _REPR_LIMIT - 3] + "..."
    return text


class HopsWindowError(ValueError):
    """``dag_run.conf["hops_window"]`` is not a valid window; the message names the key and the value."""

    def __init__(self, key: str, value: object, problem: str) -> None:
        self.key = key
        self.value = value
        super().__init__(f'conf["{CONF_KEY}"]{key}={_short_repr(value)} {problem}')


def parse_window_time(key: str, value: object) -> datetime:
    """Parse one date-time of a conf window strictly; return it as an aware UTC datetime.

    Accepted: ``YYYY-MM-DDTHH:MM:SS`` with an optional fraction and an optional ``Z`` or ``±HH:MM`` offset; a
    value without offset is UTC. Everything else (dates without a time, spaces, lowercase ``t``/``z``, non-strings,
    texts longer than :data:`MAX_TIME_TEXT`, instants before the year 1000 UTC) raises :class:`HopsWindowError`,
    and nothing else is ever raised. *key* is only used in the message (for example ``["start_time"]``).
    """
    if not isinstance(value, str):
        raise HopsWindowError(key, value, f"is a {type(value).__name__}, not a string; expected {_EXPECTED}")
    if len(value) > MAX_TIME_TEXT:
        raise HopsWindowError(key, value, f"is {len(value)} characters long; expected {_EXPECTED}")
    match = _ISO_DATETIME.fullmatch(value)
    if match is None:
        raise HopsWindowError(key, value, f"is not {_EXPECTED}")
    year, month, day, hour, minute, second, fraction, zone = match.groups()
    try:
        tz = timezone.utc
        if zone is not None and zone != "Z":
            sign = -1 if zone[0] == "-" else 1
            tz = timezone(sign * timedelta(hours=int(zone[1:3]), minutes=int(zone[4:6])))
        micro = int((fraction or "0").ljust(6, "0")[:6])
        parsed = datetime(int(year), int(month), int(day), int(hour), int(minute), int(second), micro, tzinfo=tz)
        utc = parsed.astimezone(timezone.utc)
    except (ValueError, OverflowError) as exc:
        raise HopsWindowError(key, value, f"is not a valid date-time ({exc}); expected {_EXPECTED}") from None
    if utc.year < 1000:
        # Four-digit years keep the emitted text canonical; no data window lies that far back.
        raise HopsWindowError(key, value, "is before the year 1000 UTC; expected a date-time from 1000-01-01 on")
    return utc


def parse_conf_window(conf: Mapping[str, Any] | None) -> HopsWindow | None:
    """The window passed explicitly in ``conf["hops_window"]``, or ``None`` when the conf has no such key.

    The value must be a mapping with ``start_time`` and ``end_time`` and optionally ``logical_date`` (default:
    ``start_time``), each accepted by :func:`parse_window_time`, with ``start_time < end_time`` once truncated
    to whole seconds (the precision of the emitted values). Unknown keys are refused. Any problem raises
    :class:`HopsWindowError`; nothing else is raised.
    """
    if conf is None or not isinstance(conf, Mapping) or CONF_KEY not in conf:
        return None
    raw = conf[CONF_KEY]
    if not isinstance(raw, Mapping):
        raise HopsWindowError(
            "",
            raw,
            f"is a {type(raw).__name__}; expected an object such as "
            '{"start_time": "2026-01-01T09:00:00Z", "end_time": "2026-01-01T10:00:00Z"}',
        )
    unknown = [key for key in raw if key not in WINDOW_KEYS]
    if unknown:
        name = unknown[0]
        raise HopsWindowError(
            f"[{_short_repr(name)}]", raw[name], f"is an unknown key; valid keys are {', '.join(WINDOW_KEYS)}"
        )
    for required in ("start_time", "end_time"):
        if required not in raw:
            raise HopsWindowError(f'["{required}"]', None, "is missing; start_time and end_time are both required")
    start = _whole_seconds(parse_window_time('["start_time"]', raw["start_time"]))
    end = _whole_seconds(parse_window_time('["end_time"]', raw["end_time"]))
    if not start < end:
        raise HopsWindowError(
            '["end_time"]',
            raw["end_time"],
            f"is not after start_time={format_hops_time(start)}; the window is [start_time, end_time)",
        )
    logical = start
    if "logical_date" in raw:
        logical = _whole_seconds(parse_window_time('["logical_date"]', raw["logical_date"]))
    return HopsWindow(start=start, end=end, logical_date=logical)


def _whole_seconds(value: datetime) -> datetime:
    return value.replace(microsecond=0)


def resolve_hops_env(
    *,
    run_type: str | None,
    data_interval: tuple[datetime, datetime] | None,
    conf: Mapping[str, Any] | None,
    offset_seconds: int | None,
    explicit: Mapping[str, str] | None = None,
) -> dict[str, str]:
    """The ``HOPS_*`` variables of one task run, by Hopsworks' precedence.

    1. A window in ``conf["hops_window"]`` sets all three variables, for every run type.
    2. Otherwise ``HOPS_*`` entries of *explicit* (the variables the DAG author set on the operator) are kept.
    3. The rest come from the scheduler's window, which only ``scheduled`` and ``backfill`` runs with a data
       interval have: ``hops_window(data_interval, offset_seconds)``.

    A run with none of these (a plain manual run) gets an empty dict: job code must check for the variables.
    Raises :class:`HopsWindowError` for a bad conf window; non-``HOPS_*`` keys of *explicit* are ignored.
    """
    passed = parse_conf_window(conf)
    if passed is not None:
        return passed.as_env()
    values: dict[str, str] = {}
    kind = getattr(run_type, "value", run_type)  # DagRunType is a str enum; compare its value
    if kind in SCHEDULED_RUN_TYPES and data_interval is not None:
        start, end = data_interval
        values = hops_window(start, end, offset_seconds).as_env()
    for key in HOPS_ENV_KEYS:
        if explicit is not None and key in explicit:
            value = explicit[key]
            if not isinstance(value, str):
                raise TypeError(f"env[{key!r}]={_short_repr(value)} must be a string, as environment values are")
            values[key] = value
    return {key: values[key] for key in HOPS_ENV_KEYS if key in values}


def check_legacy_args(value: object) -> LegacyArgs | None:
    """Validate an operator's ``legacy_args`` setting: ``None``, ``"start_time"`` or ``"papermill"``."""
    if value is None:
        return None
    if value == "start_time" and isinstance(value, str):
        return "start_time"
    if value == "papermill" and isinstance(value, str):
        return "papermill"
    raise ValueError(
        f"legacy_args={_short_repr(value)} is not supported; use None, 'start_time' (appends "
        "-start_time <HOPS_LOGICAL_DATE>) or 'papermill' (appends -p start_time <HOPS_LOGICAL_DATE>)"
    )


def legacy_arguments(mode: LegacyArgs | None, env: Mapping[str, str]) -> list[str]:
    """The job arguments Hopsworks appends for *mode*: ``[]`` when there is no mode or no ``HOPS_LOGICAL_DATE``."""
    if mode is None or "HOPS_LOGICAL_DATE" not in env:
        return []
    return [*LEGACY_ARG_MODES[mode], env["HOPS_LOGICAL_DATE"]]
