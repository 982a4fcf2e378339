"""Fuzzing 5-field cron against croniter, Airflow's engine: every random expression is either refused with a
``CronSyntaxError`` or gives croniter's next 20 and previous 20 fires from a random start instant.

The expressions put lists, ranges (equal, reversed, wrapping), steps, ``*`` (alone, inside lists, before a step),
names, ``L``, ``W``, ``#``, ``?`` and out-of-range or malformed values in every field, so most of them are the odd
shapes where croniter's reading is least obvious. They come from a seeded ``random.Random``, so a run is
reproducible from its seed (``CRON_FUZZ_SEED``); the count is 40,000 under the ``ci`` profile and a few hundred
locally, split in chunks that pytest-xdist spreads over the cores.

The only differences allowed are the deliberate ones of docs/cron-dialect.md (croniter gives up after 50 years
without a fire where the engine searches on, and the engine's calendar starts in 1970). Where the installed croniter
reads an expression otherwise (croniter 6.0, pinned by Airflow 3.0 and 3.1, on the forms docs/cron-dialect.md
lists), the schedule must be refused when it is built (``check_with_croniter``): a timetable either fires as
Airflow's croniter does or is never built. CI runs this module on each Airflow minor's pinned croniter.
"""

from __future__ import annotations

import os
import random
from dataclasses import dataclass
from datetime import datetime, timedelta

import pytest
from croniter import croniter
from croniter.croniter import CroniterBadDateError
from fuzzing import examples
from support import UTC

from hops_timetable.core.cron import CronSyntaxError, QuartzCron
from hops_timetable.core.validation import ArgumentError
from hops_timetable.croniter_check import check_with_croniter

FIRES = 20
CHUNKS = 4
PER_CHUNK = examples(10_000)
SEED = int(os.environ.get("CRON_FUZZ_SEED", "20261203"))
# croniter stops looking after this many years without a fire (its default, which Airflow keeps).
CRONITER_HORIZON_YEARS = 50
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
LAST = datetime(9999, 12, 31, 23, 59, tzinfo=UTC)

DOW_NAMES = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"]
MONTH_NAMES = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
# (low, high, names) per 5-field position; high is the largest value croniter takes (7 is Sunday in day-of-week).
FIELDS: list[tuple[int, int, list[str] | None]] = [
    (0, 59, None),
    (0, 23, None),
    (1, 31, None),
    (1, 12, MONTH_NAMES),
    (0, 7, DOW_NAMES),
]


def _case(rng: random.Random, text: str) -> str:
    return rng.choice([text, text.upper(), text.capitalize()])


def _value(rng: random.Random, field: int) -> str:
    lo, hi, names = FIELDS[field]
    roll = rng.random()
    if roll < 0.03:
        return str(rng.choice([hi + 1, lo - 1 if lo else 60, 99, 100]))
    if names is not None and roll < 0.3:
        return _case(rng, rng.choice(names))
    v = rng.randint(lo, hi)
    return f"0{v}" if roll > 0.98 else str(v)


def _step(rng: random.Random, field: int) -> str:
    hi = FIELDS[field][1]
    return str(rng.choice([1, 2, 2, 3, 5, rng.randint(1, hi), hi + 1, 0] if rng.random() < 0.1 else [1, 2, 3, 5, 7]))


def _item(rng: random.Random, field: int) -> str:
    """One list item of any shape croniter might read, in the position's field."""
    kinds = ["*", "value", "value", "range", "range", "*/step", "value/step", "range/step"]
    if field == 2:
        kinds += ["L", "a-L", "nW", "Wn", "LW", "L-n", "a-L/step"]
    if field == 4:
        kinds += ["n#k", "n#k", "Ln", "nL", "L", "a-b#k"]
    if rng.random() < 0.04:
        kinds += ["?", "", "H", "-", "L", "W", "#", "*-5", "5-*", "*/*", "**", "1-2-3", "/5", "5/", "1/2/3"]
    kind = rng.choice(kinds)
    if kind in ("*", "L", "LW", "?", "", "H", "-", "W", "#", "*-5", "5-*", "*/*", "**", "1-2-3", "/5", "5/", "1/2/3"):
        return kind
    if kind == "value":
        return _value(rng, field)
    if kind == "range":
        return f"{_value(rng, field)}-{_value(rng, field)}"
    if kind == "*/step":
        return f"*/{_step(rng, field)}"
    if kind == "value/step":
        return f"{_value(rng, field)}/{_step(rng, field)}"
    if kind == "range/step":
        return f"{_value(rng, field)}-{_value(rng, field)}/{_step(rng, field)}"
    if kind == "a-L":
        return f"{rng.randint(1, 31)}-L"
    if kind == "a-L/step":
        return f"{rng.randint(1, 31)}-L/{_step(rng, field)}"
    if kind == "nW":
        return f"{rng.randint(0, 32)}W"
    if kind == "Wn":
        return f"W{rng.randint(1, 31)}"
    if kind == "L-n":
        return f"L-{rng.randint(0, 31)}"
    if kind == "n#k":
        return f"{_value(rng, field)}#{rng.choice([1, 2, 3, 4, 5, 5, 0, 6])}"
    if kind == "Ln":
        return f"L{rng.randint(0, 8)}"
    if kind == "nL":
        return f"{_value(rng, field)}L"
    return f"{_value(rng, field)}-{_value(rng, field)}#{rng.randint(1, 5)}"  # a-b#k


def _field(rng: random.Random, field: int) -> str:
    if rng.random() < 0.3:
        return "*"
    if field in (2, 4) and rng.random() < 0.05:
        return "?"
    count = rng.choice([1, 1, 1, 2, 2, 3])
    return ",".join(_item(rng, field) for _ in range(count))


def random_expression(rng: random.Random) -> str:
    """A 5-field expression: each field ``*`` or a list of 1-3 items of any shape."""
    return " ".join(_field(rng, field) for field in range(5)).replace("L", rng.choice(["L", "l"]))


def random_start(rng: random.Random) -> datetime:
    """A start instant in 1995-2060 in whole seconds, now and then exactly on a minute."""
    start = datetime(1995, 1, 1, tzinfo=UTC) + timedelta(seconds=rng.randrange(65 * 365 * 86400))
    return start.replace(second=0) if rng.random() < 0.3 else start


@dataclass
class Outcome:
    expression: str
    start: datetime
    problem: str  # empty when the engine agrees with croniter


def _croniter_fires(it: croniter, start: datetime, forward: bool) -> tuple[list[datetime], bool]:
    """croniter's next (or previous) fires from *start*; the flag says croniter stopped finding any."""
    it.set_current(start.replace(tzinfo=None), force=True)  # as croniter(expression, start) does; parsed once
    fires: list[datetime] = []
    for _ in range(FIRES):
        try:
            found = it.get_next(datetime) if forward else it.get_prev(datetime)
        except CroniterBadDateError:
            return fires, True
        fire = found.replace(tzinfo=UTC)
        if not EPOCH <= fire <= LAST:
            break  # outside the engine's calendar, where its None is the deliberate difference
        fires.append(fire)
    return fires, False


def _engine_fires(cron: QuartzCron, start: datetime, forward: bool, count: int) -> list[datetime | None]:
    fires: list[datetime | None] = []
    at: datetime | None = start
    for _ in range(count):
        at = cron.next_after(at) if forward else cron.prev_before(at)  # type: ignore[arg-type]
        fires.append(at)
        if at is None:
            break
    return fires


def _compare(cron: QuartzCron, it: croniter, start: datetime, forward: bool) -> str:
    expected, gave_up = _croniter_fires(it, start, forward)
    got = _engine_fires(cron, start, forward, len(expected) + (1 if gave_up else 0))
    direction = "next" if forward else "prev"
    for i, want in enumerate(expected):
        if got[i] != want:
            return f"{direction} fire {i + 1}: croniter {want}, engine {got[i]}"
    if gave_up:
        after = expected[-1] if expected else start
        extra = got[len(expected)] if len(got) > len(expected) else None
        # croniter looks at most 50 years on (from its last fire); a later fire of the engine is the deliberate
        # difference, an earlier one is not.
        if extra is not None and abs(extra.year - after.year) <= CRONITER_HORIZON_YEARS:
            return f"{direction} fire {len(expected) + 1}: croniter none within 50 years, engine {extra}"
    return ""


def check(expression: str, start: datetime) -> Outcome:
    """Whether the engine refuses *expression* or agrees with croniter on it from *start*."""
    try:
        cron = QuartzCron(expression)
    except CronSyntaxError:
        return Outcome(expression, start, "")
    problem = ""
    try:
        it = croniter(expression)
    except Exception as error:  # any refusal of croniter's, whatever its class
        problem = f"croniter refuses it ({type(error).__name__}: {error}), engine accepts"
    else:
        for forward in (True, False):
            problem = problem or _compare(cron, it, start, forward)
    if problem:
        # Where the installed croniter differs, the schedule is refused when it is built.
        try:
            check_with_croniter(cron)
        except ArgumentError:
            return Outcome(expression, start, "")
        return Outcome(expression, start, f"{problem}, and check_with_croniter accepts it")
    return Outcome(expression, start, "")


def run_chunk(seed: int, count: int) -> list[Outcome]:
    rng = random.Random(seed)
    bad = []
    for _ in range(count):
        outcome = check(random_expression(rng), random_start(rng))
        if outcome.problem:
            bad.append(outcome)
    return bad


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_five_field_expressions_are_refused_or_give_croniters_fires(chunk: int) -> None:
    seed = SEED * CHUNKS + chunk
    bad = run_chunk(seed, PER_CHUNK)
    shown = "\n".join(f"  {o.expression!r} from {o.start.isoformat()}: {o.problem}" for o in bad[:15])
    assert not bad, f"{len(bad)} of {PER_CHUNK} expressions differ from croniter (seed {seed}):\n{shown}"
