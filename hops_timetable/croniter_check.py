"""A 5-field cron checked against the croniter installed beside Airflow, when a schedule is built: accepted only when
croniter accepts it and fires on the same instants from a fixed one, the day rule checked only where croniter's
releases are known to differ (docs/cron-dialect.md, "Which croniter"), each expression once per process."""

from __future__ import annotations

import functools
import importlib.metadata
import re
from datetime import datetime, timezone

from hops_timetable.core.cron import QuartzCron
from hops_timetable.core.validation import ArgumentError
from hops_timetable.core.window import format_hops_time

FIRST_FIRES = 16
DAY_RULE_YEARS = 5  # from 2024, a leap year
DAY_RULE_FIRES = 120  # at most
_FROM = datetime(2024, 1, 1, tzinfo=timezone.utc)
_DAY_RULE_END = _FROM.replace(year=_FROM.year + DAY_RULE_YEARS)
# A day field of plain values, names, ranges and lists: every croniter release Airflow 3 pins reads it alike.
_PLAIN_DAYS = re.compile(r"[0-9A-KM-VX-Za-km-vx-z*?,\-]+")


def check_with_croniter(cron: QuartzCron, name: str = "cron_expression") -> None:
    """Refuse a 5-field *cron* that the installed croniter refuses or fires differently (an ``ArgumentError``)."""
    if cron.dialect != "unix":
        return
    if (problem := _problem(cron.source, cron)) is not None:
        raise ArgumentError(name, cron.source, f"{name}={cron.source!r} is refused: {problem}")


@functools.lru_cache(maxsize=256)
def _problem(source: str, cron: QuartzCron) -> str | None:
    # Keyed by the text as well: two spellings of one parsed form are two strings croniter may read apart.
    from croniter import croniter

    try:
        croniter(source)
    except Exception as exc:  # every croniter release words its refusals with exception types of its own
        return f"{_whose()} refuses it ({exc}); {_rewrite(cron)}"
    difference = _first_difference(source, cron, FIRST_FIRES, None)
    tokens = source.split()
    if difference is None and not all(_PLAIN_DAYS.fullmatch(tokens[i]) for i in (2, 4)):
        day_rule = " ".join(["0", "0", *tokens[2:]])
        difference = _first_difference(day_rule, QuartzCron(day_rule), DAY_RULE_FIRES, _DAY_RULE_END)
    if difference is None:
        return None
    after, theirs, ours = difference
    return (
        f"{_whose()} fires it after {after} at {theirs}, where this package (which reads 5-field cron as "
        f"croniter 6.2 and later do) fires at {ours}; {_rewrite(cron)}"
    )


def _first_difference(source: str, cron: QuartzCron, count: int, end: datetime | None) -> tuple[str, str, str] | None:
    """The first fire after :data:`_FROM` where croniter and the engine part: (after, croniter's, the engine's)."""
    from croniter import croniter

    # Timestamps: croniter's float answers cost about half its datetime ones.
    iterator = croniter(source, _FROM.timestamp())
    previous = _FROM
    for _ in range(count):
        ours = cron.next_after(previous)
        try:
            theirs: datetime | None = datetime.fromtimestamp(iterator.get_next(float), timezone.utc)
        except Exception:  # croniter gives up after 50 years without a fire
            theirs = None
        if ours != theirs:
            return _shown(previous), _shown(theirs), _shown(ours)
        if ours is None or (end is not None and ours >= end):
            return None
        previous = ours
    return None


@functools.lru_cache(maxsize=1)
def _whose() -> str:
    # The installed version is read for a refusal's words only: reading it costs tens of ms.
    return f"croniter {importlib.metadata.version('croniter')}, with which Airflow evaluates 5-field cron,"


def _shown(value: datetime | None) -> str:
    return "no fire" if value is None else format_hops_time(value)


def _rewrite(cron: QuartzCron) -> str:
    spelled = f" such as {cron.expression!r}," if len(cron.expression.split()) >= 6 else ""
    return (
        "install croniter 6.2 or later beside Airflow (Airflow 3.2 and later pin it), or write the schedule as a "
        f"Quartz expression{spelled} which this package evaluates alike with every croniter "
        "(hops-timetable explain shows how it reads)"
    )
