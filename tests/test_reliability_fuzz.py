"""Fuzzing what the scheduler and the DAG author feed the timetable: it builds or fails clearly, and once built it
never raises and never answers a run Airflow must not create.

Each target runs 5,000 examples per run:

* ``test_mutated_expressions_parse_or_raise_and_search_is_bounded``: valid expressions with random edits.
* ``test_never_firing_expressions_answer_none_within_a_bounded_search``: calendars with no fire time.
* ``test_timetable_arguments_build_or_fail_clearly``: any combination of constructor arguments.
* ``test_catchup_policy_never_answers_a_forbidden_run``: the pure policy, with an explicit ``now`` (the bulk).
* ``test_timetable_v1_and_v2_never_raise_nor_answer_a_forbidden_run``: the Airflow adapter itself, both protocol
  versions, with the clock frozen by time-machine inside the example.
* ``test_serialization_round_trips_every_built_timetable``: serialize/deserialize.

Why it matters: Airflow logs and swallows an exception raised while it schedules, and the DAG silently stops
being scheduled; and a timetable that is not a pure function of its inputs lets two schedulers disagree.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable
from datetime import date, datetime, timedelta, timezone
from typing import Any, ClassVar, TypeVar

import pendulum
import pytest
import time_machine
from airflow.timetables.base import DagRunInfo, DataInterval, TimeRestriction
from fuzzing import examples
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st
from support import UTC

from hops_timetable.core.catchup import CatchupPolicy
from hops_timetable.core.cron import LAST_YEAR, MAX_YEAR, MIN_YEAR, CronSyntaxError, QuartzCron
from hops_timetable.core.validation import MAX_OFFSET_SECONDS
from hops_timetable.timetable import SERIALIZATION_VERSION, HopsTimetableWarning, HopsworksTimetable

TICK = timedelta(microseconds=1)
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
T = TypeVar("T")


def _seconds(value: datetime) -> int:
    return int((value - EPOCH).total_seconds())


NEAR_LOW, NEAR_HIGH = _seconds(datetime(2025, 6, 1, tzinfo=UTC)), _seconds(datetime(2026, 6, 1, tzinfo=UTC))
WIDE_LOW, WIDE_HIGH = _seconds(datetime(1965, 1, 1, tzinfo=UTC)), _seconds(datetime(2105, 1, 1, tzinfo=UTC))
EDGES = [datetime(1970, 1, 1, tzinfo=UTC), datetime(2099, 12, 31, 23, 59, 59, tzinfo=UTC)]
FIXED_ZONES = [UTC, timezone(timedelta(hours=14)), timezone(timedelta(hours=-12)), timezone(timedelta(minutes=-1))]
AWARE_LOW, AWARE_HIGH = _seconds(datetime(1, 1, 3, tzinfo=UTC)), _seconds(datetime(9999, 12, 29, tzinfo=UTC))

FUZZ = settings(max_examples=examples(5000), deadline=None, suppress_health_check=[HealthCheck.too_slow])

# Every month of the supported calendar, plus the two probes just outside it.
MONTHS_IN_RANGE = (LAST_YEAR - MIN_YEAR + 1) * 12


class CountingCron(QuartzCron):
    """A QuartzCron that counts how many months its searches look at (the unit of work of every search)."""

    visits: ClassVar[int] = 0

    def _days(self, year: int, month: int) -> tuple[int, ...]:
        CountingCron.visits += 1
        return super()._days(year, month)


def bounded(call: Callable[..., T], *args: Any, searches: int = 1) -> T:
    """Call something that makes *searches* searches; check that none looked at a month twice: no loop."""
    CountingCron.visits = 0
    result = call(*args)
    assert CountingCron.visits <= searches * (MONTHS_IN_RANGE + 2), (call, args, CountingCron.visits)
    return result


class Decoder:
    """Reads choices from a byte string, zero bytes meaning the first choice, so that shrinking simplifies.

    One ``st.binary`` draw per example is several times cheaper than a dozen structured draws, which is what
    makes 5,000 examples per run affordable; a failing case is reported decoded, through ``note``.
    """

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.pos = 0

    def integer(self, low: int, high: int) -> int:
        chunk = self.data[self.pos : self.pos + 5]
        self.pos += 5
        return low + int.from_bytes(chunk, "big") % (high - low + 1)

    def choice(self, options: list[Any]) -> Any:
        return options[self.integer(0, len(options) - 1)]

    def moment(self) -> datetime:
        # Mostly a year around now, where the fires of every schedule are dense; sometimes anywhere, or an edge.
        kind = self.integer(0, 3)
        if kind == 3:
            return self.choice(EDGES)
        low, high = (NEAR_LOW, NEAR_HIGH) if kind < 2 else (WIDE_LOW, WIDE_HIGH)
        return EPOCH + timedelta(seconds=self.integer(low, high))

    def aware(self) -> datetime:
        """Any datetime a DAG file could hold, in one of a few zones, a day away from the ends of the calendar."""
        moment = EPOCH + timedelta(seconds=self.integer(AWARE_LOW, AWARE_HIGH), microseconds=self.integer(0, 999_999))
        return moment.astimezone(self.choice(FIXED_ZONES))

    def maybe_moment(self) -> datetime | None:
        return None if self.integer(0, 2) == 0 else self.moment()


def decoded(size: int, decode: Callable[[bytes], T]) -> st.SearchStrategy[T]:
    return st.binary(min_size=size, max_size=size).map(decode)


VALID = [
    "0 0 * ? * * *",
    "0 0 0 * * ?",
    "0 */5 * * * ?",
    "0/5 * * * * ?",
    "0 15 10 ? * MON-FRI",
    "0 0 12 1/5 * ?",
    "0 11 11 11 11 ?",
    "0 0 9,17 * * ?",
    "0 15 10 L * ?",
    "0 15 10 L-2 * ?",
    "0 0 0 15W * ?",
    "0 0 0 LW * ?",
    "0 15 10 ? * 6L",
    "0 15 10 ? * 6#3",
    "0 0 0 ? * 2#5 2024-2030",
    "0 0/30 8-9 5,20 * ?",
    "0 0 0 29 2 ? *",
    "0 0 0 1 JAN-MAR ? 2026",
    "*/15 * * * *",
    "0 0 * * 1-5",
    "0 12 1,15 * MON",
    "5 4 * * SUN",
    "@hourly",
    "@daily",
    "@weekly",
    "@monthly",
    "@yearly",
]
MUTATION_ALPHABET = "0123456789*?/-,#LW ?JANMONFRISUN@\t"


MUTATIONS = ["insert", "delete", "replace", "swap", "drop", "duplicate", "bump"]


def decode_mutation(data: bytes) -> str:
    """A valid expression after one to four random edits: character and token level."""
    d = Decoder(data)
    text = d.choice(VALID)
    for _ in range(d.choice([1, 1, 1, 2, 3, 4])):
        kind = d.choice(MUTATIONS)
        tokens = text.split(" ")
        if kind in ("insert", "replace", "delete") or not text:
            pos = d.integer(0, len(text))
            char = d.choice(MUTATION_ALPHABET)
            if kind == "insert" or not text:
                text = text[:pos] + char + text[pos:]
            elif kind == "replace":
                text = text[:pos] + char + text[pos + 1 :]
            else:
                text = text[:pos] + text[pos + 1 :]
        elif kind == "swap" and len(tokens) > 1:
            i, j = d.integer(0, len(tokens) - 1), d.integer(0, len(tokens) - 1)
            tokens[i], tokens[j] = tokens[j], tokens[i]
            text = " ".join(tokens)
        elif kind == "drop" and len(tokens) > 1:
            del tokens[d.integer(0, len(tokens) - 1)]
            text = " ".join(tokens)
        elif kind == "duplicate":
            i = d.integer(0, len(tokens) - 1)
            tokens.insert(i, tokens[i])
            text = " ".join(tokens)
        else:
            # Numbers moved by a little or a lot: off-by-one bounds are where parsers break.
            digits = [i for i, c in enumerate(text) if c.isdigit()]
            if digits:
                i = d.choice(digits)
                end = i
                while end < len(text) and text[end].isdigit():
                    end += 1
                delta = d.choice([-1, 1, 7, 100, 3000])
                text = text[:i] + str(max(0, int(text[i:end]) + delta)) + text[end:]
    return text


def mutated() -> st.SearchStrategy[str]:
    return decoded(100, decode_mutation)


PROBES = [
    datetime(1960, 1, 1, tzinfo=UTC),
    datetime(1970, 1, 1, tzinfo=UTC),
    datetime(2026, 2, 28, 23, 59, 59, 999_999, tzinfo=UTC),
    datetime(2099, 12, 31, 23, 59, 59, tzinfo=UTC),
    datetime(2150, 1, 1, tzinfo=UTC),
]


def check_searches(cron: CountingCron) -> None:
    for probe in PROBES:
        nxt = bounded(cron.next_after, probe)
        prv = bounded(cron.prev_before, probe)
        far = bounded(cron.nth_before, probe, 10_000)
        assert nxt is None or (nxt > probe and cron.matches(nxt))
        assert prv is None or (prv < probe and cron.matches(prv))
        assert far is None or (prv is not None and far <= prv and cron.matches(far))


@FUZZ
@given(mutated())
def test_mutated_expressions_parse_or_raise_and_search_is_bounded(text: str) -> None:
    try:
        cron = bounded(CountingCron, text, searches=2)
    except CronSyntaxError as error:
        assert str(error) and "\n" not in str(error)
        return
    check_searches(cron)
    assert cron.never_fires() == (cron.first_fire is None)


NON_LEAP_YEARS = [2025, 2026, 2027, 2029, 2030]


def decode_never_firing(data: bytes) -> str:
    """An expression whose calendar has no fire time in 1970-2099, with a random time of day."""
    d = Decoder(data)
    second = d.choice(["0", "*", "0/5", "59"])
    minute = d.choice(["0", "*", "*/15", "1,2,3"])
    hour = d.choice(["0", "*", "9-17", "23"])
    years = ",".join(str(y) for y in NON_LEAP_YEARS if d.integer(0, 1)) or "2026"
    day_rule = d.choice(
        [
            "30 2 ?",
            "31 2 ?",
            "31 4,6,9,11 ?",
            "30,31 FEB ?",
            f"29 2 ? {years}",
            f"? 2 6#5 {years}",
            f"? 2 2#5 {years}",
            "31 APR-APR ?",
        ]
    )
    return f"{second} {minute} {hour} {day_rule}"


def never_firing() -> st.SearchStrategy[str]:
    return decoded(60, decode_never_firing)


@FUZZ
@given(never_firing())
def test_never_firing_expressions_answer_none_within_a_bounded_search(text: str) -> None:
    # Some "never" calendars (for example a fifth Monday of February) do fire in a leap year; this
    # generator only picks years where they cannot.
    cron = bounded(CountingCron, text, searches=2)
    assert cron.never_fires(), text
    assert cron.first_fire is None and cron.last_fire is None
    for probe in PROBES:
        assert bounded(cron.next_after, probe) is None
        assert bounded(cron.prev_before, probe) is None
        assert bounded(cron.nth_before, probe, 3) is None
    policy = CatchupPolicy(cron=cron, start=PROBES[1], max_catchup_runs=3)
    assert policy.next_run(None, PROBES[2]) is None
    assert policy.manual_run(PROBES[2]).interval_start == PROBES[2]


# -- construction -----------------------------------------------------------------------------------------------

AWARE = st.builds(
    lambda seconds, zone: (EPOCH + timedelta(seconds=seconds)).astimezone(zone),
    st.integers(AWARE_LOW, AWARE_HIGH),
    st.sampled_from(FIXED_ZONES),
)
EXTREME_AWARE = st.sampled_from(
    [
        datetime.min.replace(tzinfo=UTC),
        datetime.max.replace(tzinfo=UTC),
        datetime.min.replace(tzinfo=timezone(timedelta(hours=5))),
        datetime.max.replace(tzinfo=timezone(timedelta(hours=-5))),
    ]
)
ANYTHING = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**20), max_value=10**20),
    st.floats(allow_nan=True),
    st.text(max_size=8),
    st.just(date(2026, 1, 1)),
    st.just(datetime(2026, 1, 1)),
    st.lists(st.integers(), max_size=2),
)
OFFSETS = st.one_of(st.none(), st.integers(min_value=-(10**12), max_value=10**12), ANYTHING)
BOUNDS = st.one_of(st.none(), st.integers(min_value=-5, max_value=10**9), ANYTHING)
DATES = st.one_of(st.none(), AWARE, EXTREME_AWARE, ANYTHING)
CRONS = st.one_of(st.sampled_from(VALID), mutated(), never_firing(), ANYTHING)
ARGUMENT_NAMES = ("start_time_offset_seconds", "end_time_offset_seconds", "max_catchup_runs", "skip_to_date")


@FUZZ
@given(
    cron=CRONS,
    offset=OFFSETS,
    end_offset=OFFSETS,
    bound=BOUNDS,
    skip_to=DATES,
    zone=st.one_of(st.none(), st.just("UTC")),
    now=st.sampled_from(PROBES),
)
def test_timetable_arguments_build_or_fail_clearly(
    cron: object, offset: object, end_offset: object, bound: object, skip_to: object, zone: object, now: datetime
) -> None:
    kwargs: dict[str, Any] = {
        "start_time_offset_seconds": offset,
        "end_time_offset_seconds": end_offset,
        "max_catchup_runs": bound,
        "skip_to_date": skip_to,
    }
    if zone is not None:
        kwargs["timezone"] = zone
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", HopsTimetableWarning)
            timetable = HopsworksTimetable(cron, **kwargs)  # type: ignore[arg-type]
    except CronSyntaxError as error:
        assert str(error) and "\n" not in str(error)
        return
    except (ValueError, TypeError) as error:
        message = str(error)
        # A schedule that can never run (never_firing) is refused naming the cron expression.
        assert any(name in message for name in (*ARGUMENT_NAMES, "timezone", "cron_expression")), message
        return
    assert zone is None
    timetable.validate()
    assert len(timetable.description) <= 1000
    # A built timetable schedules without raising, even with the most extreme skip_to_date.
    policy = CatchupPolicy(
        cron=timetable.cron,
        start=PROBES[1],
        skip_to=timetable.skip_to_date,
        max_catchup_runs=timetable.max_catchup_runs,
    )
    policy.next_run(None, now)
    policy.next_run(now, now)
    policy.manual_run(now)


# -- scheduling: random previous runs, restrictions and clocks ------------------------------------------------

SCHEDULES = [e for e in VALID if e.startswith("0 ") or e.startswith("*/") or e.startswith("@")] + [
    "0 0 0 1 1 ? 1970-1971",  # fired long ago, never again
    "0 0 0 1 1 ? 2099",  # fires once, at the end of the range
]


SHAPES = ["none", "aligned", "misaligned", "older cron", "future", "before start"]
PARSED = {expr: QuartzCron(expr) for expr in SCHEDULES}


def decode_scenario(data: bytes) -> dict[str, Any]:
    """A timetable, a restriction, a clock and a previous run of one of the shapes the scheduler can hold."""
    d = Decoder(data)
    expr = d.choice(SCHEDULES)
    cron = PARSED[expr]
    bound = d.choice([None, 1, 2, 3, 24, 10_000])
    skip_to = d.maybe_moment()
    offset = d.choice([None, 0, 3600, 90_000])
    earliest = d.maybe_moment()
    latest = d.maybe_moment()
    now = d.moment()
    shape = d.choice(SHAPES)
    last: datetime | None
    if shape == "none":
        last = None
    elif shape == "aligned":
        last = cron.prev_before(d.moment()) or d.moment()
    elif shape == "misaligned":
        last = d.moment() + timedelta(microseconds=d.integer(0, 999_999))
    elif shape == "older cron":
        last = PARSED[d.choice(SCHEDULES)].prev_before(d.moment()) or d.moment()
    elif shape == "future":
        last = now + timedelta(seconds=d.integer(1, 10**8))
    else:
        last = (earliest or now) - timedelta(seconds=d.integer(1, 10**8))
    # A previous run written by an older offset or cron has some interval start before its fire.
    width = timedelta(seconds=d.choice([0, 1, 300, 3600, 90_000]))
    return {
        "timetable": HopsworksTimetable(
            expr, start_time_offset_seconds=offset, max_catchup_runs=bound, skip_to_date=skip_to
        ),
        "earliest": earliest,
        "latest": latest,
        "catchup": d.integer(0, 1) == 1,
        "now": now,
        "shape": shape,
        "last": last,
        "last_start": None if last is None else last - width,
    }


def scenario() -> st.SearchStrategy[dict[str, Any]]:
    return st.binary(min_size=80, max_size=80).map(decode_scenario)


def check_answer(
    timetable: HopsworksTimetable,
    run_after: datetime | None,
    interval: tuple[datetime, datetime] | None,
    case: dict[str, Any],
) -> None:
    """What Airflow must never be given: a run at or before the last one, outside the DAG's dates, not a fire."""
    if run_after is None:
        return
    assert interval is not None
    start, end = interval
    last, earliest, latest = case["last"], case["earliest"], case["latest"]
    assert end == run_after and start <= end
    assert timetable.cron.matches(run_after)
    if last is not None:
        assert run_after > last, ("not after the previous run", run_after, last)
        # Intervals never overlap the previous run's, so logical dates stay unique (Airflow's unique key).
        assert start >= last, ("interval starts before the previous run's fire", start, last)
    if earliest is not None:
        assert start >= earliest, ("interval starts before start_date", start, earliest)
        assert run_after > earliest
    if latest is not None:
        assert run_after < latest, ("run at or after end_date", run_after, latest)
    if timetable.skip_to_date is not None:
        assert run_after >= timetable.skip_to_date
    bound = 1 if not case["catchup"] else timetable.max_catchup_runs
    now = case["now"]
    if bound is not None and run_after <= now:
        # At most `bound` fires in [run_after, now]: the run is no older than the bound-th newest fire.
        cap = now + TICK if latest is None else min(now + TICK, latest)
        oldest_allowed = timetable.cron.nth_before(cap, bound)
        assert oldest_allowed is None or run_after >= oldest_allowed, ("catch-up bound exceeded", run_after)


@FUZZ
@given(scenario())
def test_catchup_policy_never_answers_a_forbidden_run(case: dict[str, Any]) -> None:
    note(case)
    timetable: HopsworksTimetable = case["timetable"]
    policy = CatchupPolicy(
        cron=timetable.cron,
        start=case["earliest"],
        end=case["latest"],
        skip_to=timetable.skip_to_date,
        max_catchup_runs=timetable.max_catchup_runs,
    )
    run = policy.next_run(case["last"], case["now"], catchup=case["catchup"])
    check_answer(
        timetable,
        None if run is None else run.fire,
        None if run is None else (run.interval_start, run.fire),
        case,
    )
    # A pure function: the same question gets the same answer.
    assert policy.next_run(case["last"], case["now"], catchup=case["catchup"]) == run


def restriction_of(case: dict[str, Any]) -> TimeRestriction:
    def pd(value: datetime | None) -> pendulum.DateTime | None:
        return None if value is None else pendulum.instance(value)

    return TimeRestriction(earliest=pd(case["earliest"]), latest=pd(case["latest"]), catchup=case["catchup"])


@FUZZ
@given(scenario())
def test_timetable_v1_and_v2_never_raise_nor_answer_a_forbidden_run(case: dict[str, Any]) -> None:
    note(case)
    timetable: HopsworksTimetable = case["timetable"]
    restriction = restriction_of(case)
    last_v2 = None
    last_v1 = None
    if case["last"] is not None:
        start, end = pendulum.instance(case["last_start"]), pendulum.instance(case["last"])
        last_v2 = DagRunInfo.interval(start, end)
        last_v1 = DataInterval(start, end)
    with time_machine.travel(case["now"], tick=False):
        v2 = timetable.next_dagrun_info_v2(last_dagrun_info=last_v2, restriction=restriction)
        v1 = timetable.next_dagrun_info(last_automated_data_interval=last_v1, restriction=restriction)
        # A second scheduler with its own copy of the timetable, loaded from the serialized DAG.
        other = HopsworksTimetable.deserialize(timetable.serialize())
        again = other.next_dagrun_info_v2(last_dagrun_info=last_v2, restriction=restriction)
    assert v1 == v2 == again
    for info in (v1, v2):
        if info is not None:
            assert info.data_interval is not None
            assert isinstance(info.run_after, pendulum.DateTime)
            check_answer(timetable, info.run_after, (info.data_interval.start, info.data_interval.end), case)
            assert info.logical_date == info.data_interval.start


# -- serialization ------------------------------------------------------------------------------------------------


def decode_built(data: bytes) -> HopsworksTimetable:
    d = Decoder(data)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HopsTimetableWarning)
        return HopsworksTimetable(
            d.choice(VALID),
            start_time_offset_seconds=d.choice([None, d.integer(0, MAX_OFFSET_SECONDS)]),
            end_time_offset_seconds=d.choice([None, d.integer(0, MAX_OFFSET_SECONDS)]),
            max_catchup_runs=d.choice([None, d.integer(1, 10**12)]),
            skip_to_date=d.choice([None, d.aware()]),
        )


def built() -> st.SearchStrategy[HopsworksTimetable]:
    return decoded(80, decode_built)


@FUZZ
@given(built())
def test_serialization_round_trips_every_built_timetable(timetable: HopsworksTimetable) -> None:
    payload = timetable.serialize()
    assert payload["version"] == SERIALIZATION_VERSION
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # loading must not warn on every scheduler loop
        loaded = HopsworksTimetable.deserialize(payload)
    assert loaded == timetable
    assert loaded.serialize() == payload
    assert loaded.description == timetable.description
    assert (loaded.cron, loaded.start_time_offset_seconds, loaded.end_time_offset_seconds) == (
        timetable.cron,
        timetable.start_time_offset_seconds,
        timetable.end_time_offset_seconds,
    )
    assert (loaded.max_catchup_runs, loaded.skip_to_date) == (timetable.max_catchup_runs, timetable.skip_to_date)
    # Payloads written before the format had a version, and with only the keys that were set, still load.
    legacy = {key: value for key, value in payload.items() if key != "version" and value is not None}
    assert HopsworksTimetable.deserialize(legacy) == timetable


@pytest.mark.parametrize(
    ("version", "says"),
    [
        (SERIALIZATION_VERSION + 1, "is newer than this hops-timetable understands; upgrade hops-timetable"),
        (99, "is newer than this hops-timetable understands; upgrade hops-timetable"),
        ("2", "is not a format version"),
        (1.5, "is not a format version"),
        (None, "is not a format version"),
        ([1], "is not a format version"),
    ],
)
def test_unknown_serialization_versions_fail_with_a_clear_message(version: object, says: str) -> None:
    payload = {**HopsworksTimetable("0 0 * ? * * *").serialize(), "version": version}
    with pytest.raises(ValueError, match=r"reads format versions? 1.*key 'version'=.* " + re.escape(says)):
        HopsworksTimetable.deserialize(payload)


def test_a_payload_of_the_first_format_loads() -> None:
    # Written by version 1 of the format, as stored in serialized_dag rows of an existing installation.
    payload = {
        "version": 1,
        "cron_expression": "0 0 * ? * * *",
        "start_time_offset_seconds": 3600,
        "end_time_offset_seconds": None,
        "max_catchup_runs": 24,
        "skip_to_date": "2026-01-05T03:00:00+00:00",
    }
    loaded = HopsworksTimetable.deserialize(payload)
    assert loaded == HopsworksTimetable(
        "0 0 * ? * * *",
        start_time_offset_seconds=3600,
        max_catchup_runs=24,
        skip_to_date=datetime(2026, 1, 5, 3, tzinfo=UTC),
    )


def test_extremes_are_in_the_generators() -> None:
    # Guards the generators above: if the calendar range changed, the probes would silently stop probing its edges.
    assert PROBES[0].year < MIN_YEAR and PROBES[-1].year > MAX_YEAR


@pytest.mark.parametrize(
    "skip_to",
    [
        datetime.min.replace(tzinfo=UTC),  # found by the fuzzer: built, then raised OverflowError while scheduling
        datetime.max.replace(tzinfo=UTC),
        datetime.min.replace(tzinfo=timezone(timedelta(hours=5))),  # raised OverflowError when the DAG was built
        datetime.max.replace(tzinfo=timezone(timedelta(hours=-5))),
    ],
)
def test_dates_at_the_ends_of_the_calendar_are_refused_when_the_dag_is_built(skip_to: datetime) -> None:
    with pytest.raises(ValueError, match=r"skip_to_date=.* is out of range"):
        HopsworksTimetable("0 0 * ? * * *", skip_to_date=skip_to)
