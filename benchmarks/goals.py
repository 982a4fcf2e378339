"""The goals for the DAG ``hops_schedule(...)`` builds by default, against Airflow's own cron timetables.

Each figure is measured for the default DAG (the Trigger form's params off) and, in the same run, for the same DAG
with ``trigger_form=True`` (the default before): "after" and "before" in the table. The goals, for 1-task and
50-task DAGs:

- the dag-processor's work per DAG file (execute it, run the cluster policies, serialize the DAG): at most 1.0x
  either built-in;
- the serialized DAG's size: at most 1.05x either built-in;
- a real scheduler's time to all runs and its CPU seconds: at most 0.97x either built-in;
- the timetable code's share of the scheduler's time, by cProfile: at most 2.5%.

Ratios are medians over paired trials (each ours / theirs measured back to back); ``python -m benchmarks`` prints
this table first.
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

GOAL_PARSE = 1.0
GOAL_SIZE = 1.05
GOAL_SCHEDULER = 0.97
GOAL_SHARE = 2.5  # percent

BUILT_INS = {"interval": "CronDataIntervalTimetable", "trigger": "CronTriggerTimetable"}


@dataclass(frozen=True)
class Goal:
    """One figure of the default DAG (*after*) beside the same DAG with the Trigger form (*before*).

    ``unit`` is ``"x"`` (a ratio to *baseline*) or ``"%"``; *spread* is ``(min, max)`` of the paired ratios.
    A figure not measured in this run is ``None``.
    """

    tasks: int
    figure: str
    baseline: str
    after: float | None
    before: float | None
    limit: float
    unit: str = "x"
    spread: tuple[float, float] | None = None

    @property
    def met(self) -> bool | None:
        return None if self.after is None else self.after <= self.limit

    def cell(self, value: float | None, spread: tuple[float, float] | None = None) -> str:
        if value is None:
            return "not measured"
        if self.unit == "%":
            return f"{value:.1f}%"
        text = f"{value:.3f}x" if self.figure.startswith("serialized") else f"{value:.2f}x"
        if spread is not None:
            text += f" [{spread[0]:.2f} - {spread[1]:.2f}]"
        return text


def paired(ours: Sequence[float], theirs: Sequence[float]) -> tuple[float, tuple[float, float]]:
    """Median and (min, max) of ours[i] / theirs[i]: each pair was measured back to back."""
    ratios = [a / b for a, b in zip(ours, theirs, strict=True)]
    return statistics.median(ratios), (min(ratios), max(ratios))


def parse_goals(rows: Sequence[Mapping[str, object]]) -> list[Goal]:
    """The dag-processor's goals from ``bench_real_scheduler.dag_processor_rows`` (one row per kind and size)."""
    goals = []
    for tasks in sorted({int(str(row["tasks"])) for row in rows}):
        by_kind = {str(row["kind"]): row for row in rows if int(str(row["tasks"])) == tasks}
        for kind, name in BUILT_INS.items():
            theirs = by_kind[kind]
            after, spread = paired(_samples(by_kind["hops"]), _samples(theirs))
            before, _ = paired(_samples(by_kind["hops_form"]), _samples(theirs))
            goals.append(
                Goal(
                    tasks, "dag-processor: execute + policies + serialize", name, after, before, GOAL_PARSE, "x", spread
                )
            )
        for kind, name in BUILT_INS.items():
            size = float(str(by_kind[kind]["bytes"]))
            goals.append(
                Goal(
                    tasks,
                    "serialized DAG size",
                    name,
                    float(str(by_kind["hops"]["bytes"])) / size,
                    float(str(by_kind["hops_form"]["bytes"])) / size,
                    GOAL_SIZE,
                )
            )
    return goals


def _samples(row: Mapping[str, object]) -> list[float]:
    samples = row["samples"]
    assert isinstance(samples, list)
    return [float(value) for value in samples]


def scheduler_goals(
    trials: Mapping[tuple[str, int], Sequence[Mapping[str, float]]], sizes: Sequence[int]
) -> list[Goal]:
    """The real scheduler's goals from its paired trials: ``trials[(kind, tasks)]`` lists one dict per repeat."""
    goals = []
    for tasks in sizes:
        for metric, figure in (("seconds", "real scheduler: time to all runs"), ("cpu", "real scheduler: CPU")):
            for kind, name in BUILT_INS.items():
                if (kind, tasks) not in trials:
                    goals.append(Goal(tasks, figure, name, None, None, GOAL_SCHEDULER))
                    continue
                theirs = [trial[metric] for trial in trials[(kind, tasks)]]
                after, spread = paired([trial[metric] for trial in trials[("hops", tasks)]], theirs)
                before, _ = paired([trial[metric] for trial in trials[("hops_form", tasks)]], theirs)
                goals.append(Goal(tasks, figure, name, after, before, GOAL_SCHEDULER, "x", spread))
    return goals


def share_goals(shares: Mapping[tuple[str, int], float], sizes: Sequence[int]) -> list[Goal]:
    """The timetable code's share (percent) of a profiled scheduler's time; the built-ins' shares are in the
    figure's name for comparison."""
    goals = []
    for tasks in sizes:
        theirs = ", ".join(
            f"{name} {shares[(kind, tasks)]:.1f}%" for kind, name in BUILT_INS.items() if (kind, tasks) in shares
        )
        goals.append(
            Goal(
                tasks,
                "timetable code's share of the scheduler's time (cProfile)",
                f"built-ins: {theirs}" if theirs else "",
                shares.get(("hops", tasks)),
                shares.get(("hops_form", tasks)),
                GOAL_SHARE,
                "%",
            )
        )
    return goals


def report(goals: Sequence[Goal]) -> str:
    """The goals as a Markdown table: after (the default) and before (``trigger_form=True``), the goal, met."""
    lines = [
        "| DAG size | figure | baseline | after: hops_schedule's default | before: trigger_form=True | goal | met |",
        "|---|---|---|---|---|---|---|",
    ]
    for goal in goals:
        met = {None: "not measured", True: "yes", False: "NO"}[goal.met]
        limit = f"<= {goal.limit:g}%" if goal.unit == "%" else f"<= {goal.limit:.2f}x"
        lines.append(
            f"| {goal.tasks} | {goal.figure} | {goal.baseline} | {goal.cell(goal.after, goal.spread)} | "
            f"{goal.cell(goal.before)} | {limit} | {met} |"
        )
    measured = [goal for goal in goals if goal.met is not None]
    lines += ["", f"{sum(1 for goal in measured if goal.met)} of {len(measured)} goals met"]
    return "\n".join(lines)
