"""Which HOPS window a DAG run processed (the one its tasks see, by the operators' own rule), and the windows of
the runs to come."""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from hops_timetable.core.catchup import CatchupPolicy
from hops_timetable.core.conf_window import HopsWindowError, RunWindowError, conf_with_form_window, resolve_run_window
from hops_timetable.core.simulate import scheduled_runs
from hops_timetable.core.window import HopsWindow, hops_window

DONE_STATES = frozenset({"success"})
IN_FLIGHT_STATES = frozenset({"queued", "running"})
PROCESSED_STATES = DONE_STATES | IN_FLIGHT_STATES  # a run in these states counts its window as processed


@dataclass(frozen=True)
class RunRecord:
    """One DAG run as Airflow's REST API or metadata database gives it; datetimes aware (UTC)."""

    run_id: str
    run_type: str
    state: str
    run_after: datetime
    logical_date: datetime | None = None
    data_interval_start: datetime | None = None
    data_interval_end: datetime | None = None
    queued_at: datetime | None = None
    conf: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class RunWindow:
    """The HOPS window a run's tasks see, and where it comes from: ``scheduler``, ``conf`` or ``None``. ``error``:
    why ``conf["hops_window"]`` is invalid (the tasks fail); ``carried``: the source as the run tab shows it."""

    run: RunRecord
    window: HopsWindow | None
    source: str | None
    error: str | None = None
    carried: str | None = None

    @property
    def processed(self) -> bool:
        return self.window is not None and self.run.state in PROCESSED_STATES


def run_window(run: RunRecord, offset_seconds: int | None, policy: CatchupPolicy | None = None) -> RunWindow:
    """The HOPS window *run*'s tasks see, by the operators' rule (operator ``env`` aside, which runs do not record).

    *policy* is the DAG's schedule: a backfill's takeover of a manual run processes the scheduled window of its
    logical date, which only the schedule knows (without it, the interval the run carries is read).
    """
    start, end = run.data_interval_start, run.data_interval_end

    def replay(logical_date: datetime) -> HopsWindow | None:
        assert policy is not None
        scheduled = policy.scheduled_run_at(logical_date)
        return None if scheduled is None else hops_window(scheduled.interval_start, scheduled.fire, offset_seconds)

    try:
        resolved = resolve_run_window(
            run_type=run.run_type,
            data_interval=None if start is None or end is None else (start, end),
            conf=conf_with_form_window(run.conf),
            offset_seconds=offset_seconds,
            run_after=run.run_after,
            logical_date=run.logical_date,
            replay=None if policy is None else replay,
            run_id=run.run_id,
        )
    except HopsWindowError as exc:
        return RunWindow(run, None, "conf", str(exc), carried="conf")
    except RunWindowError as exc:
        return RunWindow(run, None, None, str(exc))
    if resolved.window is None:
        return RunWindow(run, None, None)
    source = "conf" if resolved.source == "conf" else "scheduler"
    return RunWindow(run, resolved.window, source, carried=resolved.source)


_STATE_RANK = {"success": 3, "running": 2, "queued": 1}


def best_state(runs: Sequence[RunRecord]) -> str:
    """The state that says most of the runs of one fire: ``success``, else ``running``, ``queued``, else another."""
    return runs[0].state if len(runs) == 1 else max(runs, key=lambda r: _STATE_RANK.get(r.state, 0)).state


def upcoming_windows(
    policy: CatchupPolicy, catchup: bool, offset_seconds: int | None, last_fire: datetime | None, now: datetime, n: int
) -> list[tuple[datetime, datetime, HopsWindow]]:
    """The next *n* runs as (fire, interval start, HOPS window), as the scheduler would make them from *now* on."""
    runs = itertools.islice(scheduled_runs(policy, last_fire, now, catchup=catchup), n)
    return [(run.fire, run.interval_start, hops_window(run.interval_start, run.fire, offset_seconds)) for run in runs]
