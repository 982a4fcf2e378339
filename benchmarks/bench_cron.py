"""Warm next/previous fire time: QuartzCron against croniter and cronsim on equivalent expressions.

Run with ``python -m benchmarks.bench_cron`` (add ``--quick`` for a short run). ``run()`` returns the rows
so a larger suite can collect them. Each library gets the same start times; a croniter object is built
once per expression and re-pointed with ``start_time`` (warm). cronsim cannot be re-pointed, so its
figure is a construction plus one step per call, which is how a caller has to use it.

``corpus()`` times the engine on the Quartz 2.3.2 golden corpus (``tests/oracle``): the same chains of 6
``next_after`` calls per start that the Java driver timed with ``getTimeAfter`` when it made the vectors (its
figure is stored in the corpus header), over the expressions both accept.
"""

from __future__ import annotations

import argparse
import json
import lzma
import random
import time
from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from functools import partial
from pathlib import Path
from typing import Any

from croniter import croniter
from cronsim import CronSim

from hops_timetable.core.cron import CronSyntaxError, QuartzCron

VECTORS = Path(__file__).resolve().parent.parent / "tests" / "oracle" / "quartz_vectors.jsonl.xz"
GOAL_CRONITER_SPEEDUP = 25.0

# (name, Quartz expression, the same schedule in croniter/cronsim 5-field syntax)
CASES: list[tuple[str, str, str]] = [
    ("hourly", "0 0 * ? * *", "0 * * * *"),
    ("every 5 minutes", "0 */5 * ? * *", "*/5 * * * *"),
    ("09:00 and 17:00", "0 0 9,17 * * ?", "0 9,17 * * *"),
    ("last day of month", "0 0 0 L * ?", "0 0 L * *"),
    ("weekdays 06:30", "0 30 6 ? * MON-FRI", "30 6 * * 1-5"),
    ("third Friday 10:15", "0 15 10 ? * 6#3", "15 10 * * 5#3"),
]


def _starts(count: int, seed: int = 7) -> list[datetime]:
    rng = random.Random(seed)
    base = datetime(2020, 1, 1, tzinfo=timezone.utc)
    span = 10 * 365 * 86400
    return [base + timedelta(seconds=rng.randrange(span)) for _ in range(count)]


def _per_call_ns(call: Callable[[datetime], Any], starts: list[datetime], repeats: int) -> float:
    """The best over repeats of the mean time per call, in nanoseconds (the least disturbed by other load)."""
    samples = []
    for _ in range(repeats):
        begin = time.perf_counter_ns()
        for t in starts:
            call(t)
        samples.append((time.perf_counter_ns() - begin) / len(starts))
    return min(samples)


def _check_agreement(ours: QuartzCron, unix: str, starts: list[datetime]) -> None:
    """The comparison only means something if the three engines give the same answers."""
    it = croniter(unix, starts[0])
    for t in starts[:50]:
        expected = it.get_next(datetime, start_time=t)
        got = ours.next_after(t)
        if got != expected:
            raise AssertionError(f"{ours.expression}: next_after({t}) = {got}, croniter says {expected}")
        sim = next(CronSim(unix, t))
        if got != sim:
            raise AssertionError(f"{ours.expression}: next_after({t}) = {got}, cronsim says {sim}")


def _croniter_next(it: croniter, t: datetime) -> Any:
    return it.get_next(datetime, start_time=t)


def _croniter_prev(it: croniter, t: datetime) -> Any:
    return it.get_prev(datetime, start_time=t)


def _cronsim_call(unix: str, reverse: bool, t: datetime) -> datetime:
    return next(CronSim(unix, t, reverse=reverse))


def run(quick: bool = False) -> list[dict[str, Any]]:
    """Measure every case; one row per (expression, direction) with best-of-repeats ns and ratios."""
    starts = _starts(200 if quick else 2000)
    repeats = 3 if quick else 7
    rows: list[dict[str, Any]] = []
    for name, quartz, unix in CASES:
        ours = QuartzCron(quartz)
        it = croniter(unix, starts[0])
        _check_agreement(ours, unix, starts)
        directions = [
            ("next", ours.next_after, partial(_croniter_next, it), partial(_cronsim_call, unix, False)),
            ("prev", ours.prev_before, partial(_croniter_prev, it), partial(_cronsim_call, unix, True)),
        ]
        for direction, ours_call, croniter_call, cronsim_call in directions:
            ours_ns = _per_call_ns(ours_call, starts, repeats)
            croniter_ns = _per_call_ns(croniter_call, starts, repeats)
            cronsim_ns = _per_call_ns(cronsim_call, starts, repeats)
            rows.append(
                {
                    "name": f"{name} ({direction})",
                    "expression": quartz,
                    "ours_ns": round(ours_ns),
                    "croniter_ns": round(croniter_ns),
                    "cronsim_ns": round(cronsim_ns),
                    "ours_vs_croniter": round(ours_ns / croniter_ns, 3),
                    "croniter_speedup": round(croniter_ns / ours_ns, 1),
                    "ours_vs_cronsim": round(ours_ns / cronsim_ns, 3),
                }
            )
    return rows


def corpus(quick: bool = False) -> dict[str, Any]:
    """Engine ns per next_after on the golden corpus's chains, against Java Quartz's stored getTimeAfter figure."""
    with lzma.open(VECTORS, "rt", encoding="utf-8") as fh:
        header = json.loads(fh.readline())
        records = [json.loads(line) for line in fh]
    chains: list[tuple[QuartzCron, list[datetime]]] = []
    for record in records:
        text, error, cases = record[0], record[1], record[2] if len(record) > 2 else None
        if error is not None or not isinstance(cases, list):
            continue
        try:
            cron = QuartzCron(text)
        except CronSyntaxError:
            continue
        chains.append((cron, [datetime.fromtimestamp(case[0], timezone.utc) for case in cases]))
    if quick:
        chains = chains[::10]
    calls = 0
    begin = time.perf_counter_ns()
    for cron, starts in chains:
        for t in starts:
            at: datetime | None = t
            for _ in range(6):
                if at is None:
                    break
                calls += 1
                at = cron.next_after(at)
    ours_ns = (time.perf_counter_ns() - begin) / calls
    java_ns = header["next_nanos"] / header["next_calls"]
    return {
        "expressions": len(chains),
        "calls": calls,
        "ours_ns": round(ours_ns),
        "java_ns": round(java_ns),
        "java_vs_ours": round(java_ns / ours_ns, 2),
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help="fewer start times and repeats")
    args = parser.parse_args(argv)
    rows = run(quick=args.quick)
    header = (
        f"{'case':<32}{'ours ns':>10}{'croniter ns':>13}{'cronsim ns':>12}{'ours/croniter':>15}{'ours/cronsim':>14}"
    )
    print(header)
    print("-" * len(header))
    for row in rows:
        print(
            f"{row['name']:<32}{row['ours_ns']:>10}{row['croniter_ns']:>13}{row['cronsim_ns']:>12}"
            f"{row['ours_vs_croniter']:>15.3f}{row['ours_vs_cronsim']:>14.3f}"
        )
    slowest = min(row["croniter_speedup"] for row in rows)
    print(f"\nsmallest speed-up over croniter: {slowest:.1f}x (goal: at least {GOAL_CRONITER_SPEEDUP:.0f}x)")
    quartz = corpus(quick=args.quick)
    print(
        f"Quartz 2.3.2 corpus: {quartz['calls']} next_after calls on {quartz['expressions']} expressions, "
        f"{quartz['ours_ns']} ns per call; Java getTimeAfter {quartz['java_ns']} ns per call when the corpus was "
        f"made: engine {quartz['java_vs_ours']:.2f}x as fast (goal: at least 1x)"
    )


if __name__ == "__main__":
    main()
