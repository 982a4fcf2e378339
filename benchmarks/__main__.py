"""Run every benchmark and print the goals of the default DAG first, then Markdown tables of medians, ratios and goals.

``python -m benchmarks`` (about five minutes on two cores), ``python -m benchmarks --quick`` for a rough pass.
The goals of the DAG ``hops_schedule(...)`` builds by default (:mod:`benchmarks.goals`) come first: the
dag-processor's are measured in every run; the real scheduler's only with ``--real-scheduler`` (it starts a
scheduler per trial: about an hour with its defaults), which takes the options of
``python -m benchmarks.bench_real_scheduler`` (``--dags``, ``--repeats``, ``--profile DIR``, ...).
``--goals-only`` stops after the goals. Ratios are measured side by side in the same run; absolute times depend on
the machine and its load.
"""

from __future__ import annotations

import argparse
import platform
import time
from datetime import datetime, timezone

from benchmarks import bench_cron, bench_history, bench_real_scheduler, bench_scheduler, goals
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


def goal_section(real_scheduler: bool, options: argparse.Namespace) -> str:
    """The goals of the default DAG: the dag-processor's always, the real scheduler's when asked for."""
    if real_scheduler:
        return bench_real_scheduler.run(options)
    sizes = [int(size) for size in options.sizes.split(",")]
    today = bench_real_scheduler.midnight(datetime.now(timezone.utc))
    rows = [
        row
        for tasks in sizes
        for row in bench_real_scheduler.dag_processor_rows(tasks, options.runs, today, 5 if options.quick else 9)
    ]
    return (
        "Goals for the DAG hops_schedule(...) builds by default ('after'), and the same DAG with trigger_form=True "
        "('before'): ratios are ours / built-in, medians over paired samples. The real scheduler's goals are "
        "measured with --real-scheduler.\n\n" + goals.report(goals.parse_goals(rows) + goals.scheduler_goals({}, sizes))
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a rough pass (and 20 DAGs for the real scheduler)")
    parser.add_argument("--goals-only", action="store_true", help="stop after the goals of the default DAG")
    parser.add_argument("--real-scheduler", action="store_true", help="also run the real scheduler's trials")
    args, rest = parser.parse_known_args(argv)
    options = bench_real_scheduler.parser().parse_args([*rest, *(["--quick"] if args.quick else [])])
    quick = args.quick
    started = time.perf_counter()
    print(f"Machine: {platform.machine()}, {platform.system()}, Python {platform.python_version()}")
    print(goal_section(args.real_scheduler, options), flush=True)
    if args.goals_only:
        print(f"\nGoals measured in {time.perf_counter() - started:.0f} s.")
        return 0
    rows = bench_scheduler.run(quick) + cron_rows(quick)
    growth = bench_history.run(quick)
    elapsed = time.perf_counter() - started
    print()
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
