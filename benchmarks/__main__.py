"""Run every benchmark and print one Markdown table of medians, ratios and goals.

``python -m benchmarks`` (about two minutes on two cores), ``python -m benchmarks --quick`` for a rough pass.
Ratios are measured side by side in the same run; absolute times depend on the machine and its load.
"""

from __future__ import annotations

import platform
import sys
import time

from benchmarks import bench_cron, bench_scheduler
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
    elapsed = time.perf_counter() - started
    print(f"Machine: {platform.machine()}, {platform.system()}, Python {platform.python_version()}")
    print(bench_scheduler.report(rows))
    goals = [row for row in rows if row.met is not None]
    missed = [row for row in goals if not row.met]
    print(f"\n{len(goals) - len(missed)} of {len(goals)} goals met in {elapsed:.0f} s.")
    for row in missed:
        print(f"  missed: {row.section}: {row.name} ({row.ratio_text}; goal {row.goal})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
