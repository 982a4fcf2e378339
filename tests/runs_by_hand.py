"""Runs of an hourly DAG written out by hand as Airflow records them, shared by the coverage, history and repair
tests: scheduled runs of the fire at ``START + hour``, manual runs carrying a conf window."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from hops_timetable.core.conf_window import mark_offset
from hops_timetable.core.coverage import RunRecord
from hops_timetable.core.cron import QuartzCron

UTC = timezone.utc
HOUR = timedelta(hours=1)
QUARTER = timedelta(minutes=15)
START = datetime(2026, 1, 1, tzinfo=UTC)
HOURLY = QuartzCron("0 0 * ? * * *")


def at(hour: int, minute: int = 0) -> datetime:
    return START + timedelta(hours=hour, minutes=minute)


def scheduled(
    hour: int, state: str = "success", queued: datetime | None = None, offset: int | None = None
) -> RunRecord:
    """The scheduled run of the fire at START + hour, queued at its fire unless said otherwise, made with *offset*
    (its id carries it, as the timetable's do)."""
    return RunRecord(
        run_id=mark_offset(f"scheduled__{hour:02d}", offset),
        run_type="scheduled",
        state=state,
        run_after=at(hour),
        logical_date=at(hour - 1),
        data_interval_start=at(hour - 1),
        data_interval_end=at(hour),
        queued_at=queued or at(hour) + timedelta(seconds=1),
    )


def manual(run_id: str, start: datetime, end: datetime, state: str = "success") -> RunRecord:
    """A manual run with the window ``[start, end)`` in ``conf["hops_window"]`` (two spellings of a time)."""
    conf = {"hops_window": {"start_time": start.strftime("%Y-%m-%dT%H:%M:%SZ"), "end_time": end.isoformat()}}
    return RunRecord(run_id=run_id, run_type="manual", state=state, run_after=end, conf=conf)
