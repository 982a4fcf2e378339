"""A schedule's settings: the arguments of ``hops_schedule`` as the tools read them (command line, DAG file)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from hops_timetable.core.catchup import CatchupPolicy
from hops_timetable.core.cron import QuartzCron
from hops_timetable.core.window import format_hops_time


@dataclass(frozen=True)
class ScheduleSettings:
    """The arguments of ``hops_schedule`` as read from the command line or a DAG file; dates aware UTC."""

    cron: QuartzCron
    start: datetime | None = None
    end: datetime | None = None
    offset: int | None = None
    catchup: bool = False
    max_catchup_runs: int | None = None
    skip_to: datetime | None = None

    def policy(self) -> CatchupPolicy:
        return CatchupPolicy(self.cron, self.start, self.end, self.skip_to, self.max_catchup_runs)

    def as_json(self) -> dict[str, Any]:
        return {
            "cron_expression": self.cron.source,
            "start_time": fmt_time(self.start),
            "end_time": fmt_time(self.end),
            "start_time_offset_seconds": self.offset,
            "catchup": self.catchup,
            "max_catchup_runs": self.max_catchup_runs,
            "skip_to_date": fmt_time(self.skip_to),
        }


def fmt_time(value: datetime | None) -> str | None:
    """:func:`format_hops_time`, with ``None`` for no time: how every tool prints an optional time."""
    return None if value is None else format_hops_time(value)
