"""The two readings of a negative ``startTimeOffsetSeconds``, and today's offset that each one means.

Today's model subtracts a positive offset from the previous fire (``HOPS_START_TIME = previous fire - offset``,
the window one cron interval wide). A negative value was written by an older generation, and two of them read it
differently:

* ``interval-start``: signed and added to the interval start (the previous fire), so ``-3600`` is today's ``3600``;
* ``fire``: added to the fire itself (``start = fire + offset``, ``end = fire + endTimeOffsetSeconds``), so on an
  hourly cron ``-3600`` is today's ``0``. Only a cron with one constant interval ``D`` and a window exactly ``D``
  wide has such an equivalent: ``-offset - D``.

The export does not say which generation wrote it, so the value is refused unless the user names the model. Used by
``hops-timetable import`` and ``parity``. Pure: no Airflow import.
"""

from __future__ import annotations

import itertools
from datetime import datetime, timezone
from typing import Final

from hops_timetable.core.cron import QuartzCron
from hops_timetable.core.validation import ArgumentError, check_offset, short_repr

OFFSET_MODELS: Final = ("interval-start", "fire")

_SAMPLE_FIRES = 400
"""Fires looked at to call a cron's interval constant: more than a year of a daily cron, a leap day included."""
_SAMPLE_FROM = datetime(2026, 1, 1, tzinfo=timezone.utc)


def constant_interval(cron: QuartzCron, start: datetime | None) -> int | None:
    """The seconds between consecutive fires when the next :data:`_SAMPLE_FIRES` fires after *start* are evenly
    spaced, else ``None``."""
    fires = [cron.next_after(start or _SAMPLE_FROM)]
    while len(fires) <= _SAMPLE_FIRES and fires[-1] is not None:
        fires.append(cron.next_after(fires[-1]))
    gaps = {(b - a).total_seconds() for a, b in itertools.pairwise(f for f in fires if f is not None)}
    return int(gaps.pop()) if len(gaps) == 1 and next(iter(gaps)).is_integer() else None


def resolve_start_offset(
    name: str,
    value: object,
    model: str | None,
    cron: QuartzCron | None,
    start: datetime | None,
    end_offset: object,
) -> int | None:
    """The offset today's model means by *value*; a negative one needs *model* (one of :data:`OFFSET_MODELS`).

    Raises :class:`ArgumentError` naming both readings when *model* is ``None``, and naming what is missing when
    the chosen reading has no equivalent today.
    """
    if isinstance(value, bool) or not isinstance(value, int) or value >= 0:
        return check_offset(name, value)
    back = -value
    if model is None:
        raise ArgumentError(
            name,
            value,
            f"{name}={value} is negative, and the generations of Hopsworks read it two ways: relative to the "
            f"interval start (the window starts {back} s before the previous fire: offset {back} today) or relative "
            f"to the fire (the window starts {back} s before the fire: on an hourly cron, offset 0 today); say which "
            "with --offset-model interval-start or --offset-model fire",
        )
    if model == "interval-start":
        return check_offset(name, back)
    if model != "fire":
        raise ArgumentError(
            "--offset-model", model, f"--offset-model {short_repr(model)} is invalid: expected one of {OFFSET_MODELS}"
        )
    interval = None if cron is None else constant_interval(cron, start)
    if interval is None:
        raise ArgumentError(
            name,
            value,
            f"{name}={value} read relative to the fire has no equivalent today: the cron expression does not fire at "
            "one constant interval, and today's window is always one interval wide",
        )
    end = 0 if end_offset is None else end_offset
    if isinstance(end, bool) or not isinstance(end, int) or end + back != interval:
        raise ArgumentError(
            name,
            value,
            f"{name}={value} with endTimeOffsetSeconds={short_repr(end_offset)} read relative to the fire is a "
            f"window {short_repr(end)} + {back} s wide; today's window is one cron interval ({interval} s) wide, "
            "so it has no equivalent",
        )
    return check_offset(name, back - interval)
