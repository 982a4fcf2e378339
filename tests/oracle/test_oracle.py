"""The engine against golden vectors from the real Quartz 2.3.2 (made by ``generate.py``; no Java needed here).

Per start instant the vectors hold Quartz's next 6 and previous 6 fires; per expression whether Quartz accepts
it. The engine must give the same fires wherever both accept, refuse whatever Quartz refuses, refuse whatever
Quartz cannot evaluate (``getTimeAfter`` never returns, throws, or is not monotone), and refuse what Quartz
accepts only for one of the documented reasons of the dialect (docs/cron-dialect.md).

By default a fixed sample runs (the hand-picked expressions and every 12th other one); ``ORACLE_FULL=1`` runs
all of them.
"""

from __future__ import annotations

import json
import lzma
import os
from collections import Counter
from datetime import datetime, timezone
from functools import lru_cache
from pathlib import Path
from typing import Any

import pytest

from hops_timetable.core.cron import MAX_YEAR, CronSyntaxError, QuartzCron

UTC = timezone.utc
VECTORS = Path(__file__).with_name("quartz_vectors.jsonl.xz")
FULL = os.environ.get("ORACLE_FULL", "") not in ("", "0")
SAMPLE_EVERY = 12
HAND_PICKED = 110  # the first records are generate.HAND_PICKED, in order

# Why the engine refuses expressions that Quartz 2.3.2 accepts: each is a rule of the dialect, in docs/cron-dialect.md.
DELIBERATE = (
    "Quartz 2.3.2 ignores a step after a name",  # Quartz drops the step: MON/2 is every Monday
    "'#' cannot be used in a list",  # Quartz fires only on the n-th of the lowest day of the list
    "takes a single day, not a range",  # 1-3#2, 1-3L
    "L-n belongs in day-of-month",  # L-2 in day-of-week
    "Quartz and cron-utils disagree when day",  # 29W-31W: Quartz's getTimeAfter is not even monotone
    "L and W cannot be used in a list",
    "L-n cannot be combined with W",
    "not a valid use of L or W",  # 1-5W
    "offset after L must be 1-30",  # L-0
    "is larger than the field",  # a step longer than the field's span
    "is out of range 1970-2099",  # year values outside cron-utils' range
    "wrap-around ranges are only allowed in Quartz day-of-week",
    "a step on a wrap-around range is not supported",
    "expected 6 or 7 Quartz fields",  # Quartz ignores tokens after the year
    "long name",  # Quartz reads MONDAY as MON and ignores the rest
)


@lru_cache(maxsize=1)
def load() -> tuple[dict[str, Any], list[list[Any]]]:
    with lzma.open(VECTORS, "rt", encoding="utf-8") as fh:
        header = json.loads(fh.readline())
        records = [json.loads(line) for line in fh]
    return header, records


def selected() -> list[list[Any]]:
    _, records = load()
    if FULL:
        return records
    return [r for i, r in enumerate(records) if i < HAND_PICKED or i % SAMPLE_EVERY == 0]


def parse(text: str) -> QuartzCron | CronSyntaxError:
    try:
        return QuartzCron(text)
    except CronSyntaxError as error:
        return error


def at(epoch: int) -> datetime:
    return datetime.fromtimestamp(epoch, UTC)


def test_corpus_is_large_enough() -> None:
    header, records = load()
    starts = sum(len(r[2]) for r in records if r[1] is None and isinstance(r[2], list))
    assert len(records) == header["expressions"] >= 20_000
    assert starts == header["starts"] >= 100_000
    assert sum(1 for r in records if r[1] is None) == header["accepted"]
    assert header["engine"].startswith("Quartz 2.3.2")


def compare(cron: QuartzCron, cases: list[list[Any]], horizon: int) -> list[str]:
    """Differences between the engine and Quartz's fires for these starts, as readable lines."""
    out: list[str] = []
    for start, next_deltas, prev_deltas in cases:
        t = start
        for delta in next_deltas:
            got = cron.next_after(at(t))
            t += delta
            if got != at(t):
                out.append(f"next after {at(t - delta)}: engine {got}, Quartz {at(t)}")
                break
        else:
            if len(next_deltas) < 6:
                # Quartz gave up: either nothing follows, or it lies past Quartz's own horizon (current year + 100).
                got = cron.next_after(at(t))
                if got is not None and got.year <= horizon:
                    out.append(f"next after {at(t)}: engine {got}, Quartz none")
        if prev_deltas is None:
            out.append(f"Quartz has no consistent previous fires before {at(start)}, yet the engine accepts")
            continue
        t = start
        for delta in prev_deltas:
            got = cron.prev_before(at(t))
            t -= delta
            if got != at(t):
                out.append(f"previous before {at(t + delta)}: engine {got}, Quartz {at(t)}")
                break
        else:
            if len(prev_deltas) < 6 and (got := cron.prev_before(at(t))) is not None:
                out.append(f"previous before {at(t)}: engine {got}, Quartz none")
    return out


def test_fires_agree_with_quartz() -> None:
    header, _ = load()
    horizon = header["quartz_max_year"]
    failures: list[str] = []
    compared = 0
    for text, _, cases in (r for r in selected() if r[1] is None and isinstance(r[2], list)):
        cron = parse(text)
        if isinstance(cron, CronSyntaxError):
            continue  # covered by the acceptance test
        compared += len(cases)
        failures += [f"{text!r}: {line}" for line in compare(cron, cases, horizon)]
    assert compared >= (100_000 if FULL else 5_000)
    assert not failures, f"{len(failures)} differences, first: " + "\n".join(failures[:20])


def test_refuses_what_quartz_refuses() -> None:
    # A 5-token string is 5-field cron here (Airflow's dialect), which Quartz has no notion of.
    accepted = [
        text
        for text, error, *_ in selected()
        if error is not None and len(text.split()) != 5
        if not isinstance(parse(text), CronSyntaxError)
    ]
    assert not accepted, accepted[:20]


def test_refuses_what_quartz_cannot_evaluate() -> None:
    """Quartz accepts these but its getTimeAfter loops, throws, or is not monotone (no consistent previous)."""
    broken = [
        text
        for text, error, cases in (r for r in selected() if r[1] is None)
        if isinstance(cases, str) or any(case[2] is None for case in cases)
    ]
    assert broken
    # One exception: a calendar with no fire at all (the 31st of 30-day months), on which Quartz loops without
    # end; the engine accepts it and says it never fires.
    accepted = [
        text
        for text in broken
        if not isinstance(cron := parse(text), CronSyntaxError) and not (cron.never_fires() and cron.lints())
    ]
    assert not accepted, accepted[:20]


def test_refuses_what_quartz_accepts_only_for_documented_reasons() -> None:
    reasons: Counter[str] = Counter()
    undocumented: list[str] = []
    for text, *_ in (r for r in selected() if r[1] is None and isinstance(r[2], list)):
        result = parse(text)
        if isinstance(result, CronSyntaxError):
            reason = next((d for d in DELIBERATE if d in result.why), None)
            if reason is None:
                undocumented.append(f"{text!r}: {result}")
            else:
                reasons[reason] += 1
    assert not undocumented, undocumented[:20]
    assert reasons["Quartz 2.3.2 ignores a step after a name"] > 0
    assert reasons["'#' cannot be used in a list"] > 0


@pytest.mark.parametrize(
    ("expression", "quartz_reading"),
    [
        # Quartz's own answers, from the vectors: a name followed by a step keeps only the name.
        ("0 0 0 ? * MON/2", "0 0 0 ? * MON"),
        ("0 0 0 1 JAN/3 ?", "0 0 0 1 JAN ?"),
        ("0 0 0 1 MAY-JUN/6 ?", "0 0 0 1 MAY-JUN ?"),
        ("0 0 0 ? * SUN-THU/7", "0 0 0 ? * SUN-THU"),
        ("0 0 0 1 FEB-AUG/8 ?", "0 0 0 1 FEB-AUG ?"),
        # A single # term in a list: the n-th of the list's lowest day only.
        ("0 0 0 ? * 2#1,3", "0 0 0 ? * 2#1"),
        ("0 0 0 ? * 3,2#1", "0 0 0 ? * 2#1"),
    ],
)
def test_the_vectors_show_quartzs_reading_of_the_refused_constructs(expression: str, quartz_reading: str) -> None:
    header, records = load()
    record = next(r for r in records if r[0] == expression)
    assert record[1] is None  # Quartz accepts it ...
    assert isinstance(parse(expression), CronSyntaxError)  # ... the engine refuses it ...
    reading = QuartzCron(quartz_reading)  # ... because Quartz means this, not what the text says
    assert not compare(reading, record[2], header["quartz_max_year"])


@pytest.mark.parametrize("expression", ["0 0 0 ? * 2-SEP", "0 0 0 ? * SUN-2", "0 0 0 1 1-OCT ?", "0 0 0 1 JUN-9 ?"])
def test_quartz_refuses_ranges_mixing_a_number_and_a_name(expression: str) -> None:
    _, records = load()
    record = next(r for r in records if r[0] == expression)
    assert record[1] is not None
    assert isinstance(parse(expression), CronSyntaxError)


def test_year_field_values_match_quartz_up_to_2099() -> None:
    # Year values above 2099 are refused (cron-utils' range), though Quartz takes them.
    _, records = load()
    record = next(r for r in records if r[0] == "0 0 0 * * ? 2100")
    assert record[1] is None
    error = parse("0 0 0 * * ? 2100")
    assert isinstance(error, CronSyntaxError) and f"1970-{MAX_YEAR}" in error.why
