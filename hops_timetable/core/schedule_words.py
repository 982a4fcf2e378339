"""A schedule in words: the timetable's description (Airflow shows it beside the DAG) and the tab's sentences,
both made of one wording of each rule (:func:`~hops_timetable.core.window.window_rule`, :func:`catchup_rule`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from hops_timetable.core.window import format_hops_time, window_rule

if TYPE_CHECKING:
    from hops_timetable.core.schedule import Schedule


DESCRIPTION_LIMIT: Final = 1000  # Airflow's DagModel.timetable_description is a 1000-character column


def catchup_rule(catchup: bool, max_catchup_runs: int | None) -> str:
    if not catchup:
        return "catchup=False: after an outage or a pause only the newest missed fire runs"
    if max_catchup_runs is None:
        return "catchup=True without a bound: after an outage or a pause every missed fire runs"
    return (
        f"catchup=True, max_catchup_runs={max_catchup_runs}: after an outage or a pause at most the newest "
        f"{max_catchup_runs} missed fire(s) run; older ones are dropped"
    )


def describe(schedule: Schedule) -> str:
    """The schedule in one paragraph of at most :data:`DESCRIPTION_LIMIT` characters (an unbound one says both
    catch-up cases)."""
    if schedule.bound:
        catchup = catchup_rule(schedule.catchup, schedule.max_catchup_runs)
    else:
        catchup = f"{catchup_rule(True, schedule.max_catchup_runs)}. {catchup_rule(False, None)}"
    text = f"{schedule.cron.describe()} (UTC). Window: {window_rule(schedule.offset)}. {catchup}."
    if schedule.skip_to is not None:
        text += f" Fires before skip_to_date {format_hops_time(schedule.skip_to)} never run."
    return text[:DESCRIPTION_LIMIT]


def sentences(schedule: Schedule, paused: bool | None = None) -> list[str]:
    """The schedule one sentence per setting (the Hopsworks tab)."""
    s = schedule
    lines = [f"Fires (UTC): {s.cron.describe()}: {s.cron.expression}"]
    if s.start is None:
        lines.append("No start_time: nothing before the DAG was first scheduled is replayed.")
    else:
        lines.append(f"Starts after {format_hops_time(s.start)}; the first window is clamped to it.")
    lines.append("No end." if s.end is None else f"Ends before {format_hops_time(s.end)} (exclusive).")
    if s.skip_to is not None:
        lines.append(f"Fires before skip_to_date {format_hops_time(s.skip_to)} never run.")
    lines.append(f"{catchup_rule(s.catchup, s.max_catchup_runs)}.")
    lines.append(f"Window: {window_rule(s.offset)}.")
    if paused:
        lines.append("The DAG is paused: its fires pass without runs until it is unpaused.")
    return lines
