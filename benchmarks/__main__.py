"""Run every benchmark and print one Markdown table of medians, ratios and goals.

``python -m benchmarks`` (about two minutes on two cores), ``python -m benchmarks --quick`` for a rough pass.
Ratios are measured side by side in the same run; absolute times depend on the machine and its load.
"""

from __future__ import annotations

import platform
import sys
import time

from benchmarks import bench_cron, bench_history, bench_scheduler
from benchmarks.bench_scheduler import Row


def cron_rows(quick: bool) -> list[Row]:
    rows = []
    for result in bench_cron.run(quick=quick):
        for engine in ("croniter", "cronsim"):
            speedup = bench_cron.GOAL_CRONITER_SPEEDUP
            goal = f">= {speedup:.0f}x faster than croniter's own get_next/get_prev" if engine == "croniter" else ""
            row = Row(
                "cron engine, warm",
                f"{result['name']} `{result['expression']}`",
                result["ours_ns"],
                engine,
                result[f"{engine}_ns"],
                goal,
                result["ours_ns"] * speedup <= result[f"{engine}_ns"] if goal else None,
                kind="speed-up",
            )
            rows.append(row)
    quartz = bench_cron.corpus(quick=quick)
    rows.append(
        Row(
            "cron engine, Quartz 2.3.2 corpus",
            f"{quartz['calls']} next_after calls on {quartz['expressions']} expressions",
            quartz["ours_ns"],
            "Java getTimeAfter",
            quartz["java_ns"],
            "no slower than Java Quartz 2.3.2",
            quartz["ours_ns"] <= quartz["java_ns"],
            kind="speed-up",
        )
    )
    return rows


def main() -> int:
    quick = "--quick" in sys.argv
    started = time.perf_counter()
    rows = bench_scheduler.run(quick) + cron_rows(quick)
    growth = bench_history.run(quick)
    elapsed = time.perf_counter() - started
    print(f"Machine: {platform.machine()}, {platform.system()}, Python {platform.python_version()}")
    print(bench_scheduler.report(rows))
    print("\nGrowth with the history (x per decade: about 10x is linear, about 1x does not grow):")
    print(bench_history.report(growth))
    goals = [row for row in rows if row.met is not None]
    missed = [row for row in goals if not row.met]
    page_goals = [p for p in growth if p.met is not None]
    page_missed = [p for p in page_goals if not p.met]
    met = len(goals) - len(missed) + len(page_goals) - len(page_missed)
    print(f"\n{met} of {len(goals) + len(page_goals)} goals met in {elapsed:.0f} s.")
    for row in missed:
        print(f"  missed: {row.section}: {row.name} ({row.ratio_text}; goal {row.goal})")
    for point in page_missed:
        print(f"  missed: {point.case} at {point.n:,} fires (goal {point.goal})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
