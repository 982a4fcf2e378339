"""The options the commands share: times, counts, the schedule (the arguments of ``hops_schedule``) and the
argument parser that reports a mistake as one line."""

from __future__ import annotations

import argparse
from datetime import datetime, timezone
from typing import NoReturn

from hops_timetable.cli.errors import BadInput
from hops_timetable.core.cron import QuartzCron
from hops_timetable.core.settings import ScheduleSettings
from hops_timetable.core.validation import (
    MAX_OFFSET_SECONDS,
    ArgumentError,
    check_catchup_runs,
    check_end_after_start,
    check_iso_datetime,
    check_offset,
    check_window_start,
)

PROG = "hops-timetable"

UTC = timezone.utc

MAX_COUNT = 10_000
"""The most fire times, runs or rows a command lists (``-n``, ``--limit``)."""
MAX_COMPARE = 200
"""The most runs ``compare`` asks of each timetable: Airflow's own take about a millisecond a run."""
MAX_EXPAND = 100
"""The largest ``simulate --expand``: ranges of up to this many fires are listed fire by fire."""


class OneLineParser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        # argparse prints the whole usage block; one line says the same and points to --help.
        raise BadInput(f"{message} (see {self.prog} --help)")


def parse_time(flag: str, text: str, now: datetime | None = None) -> datetime:
    """An ISO-8601 command-line time as aware UTC; naive means UTC, ``now`` means *now* (the real clock if None).

    The accepted range is that of :func:`~hops_timetable.core.validation.check_utc_datetime`; anything else raises
    :class:`BadInput` naming *flag*.
    """
    if text.strip().lower() == "now":
        return now if now is not None else datetime.now(UTC)
    try:
        value = check_iso_datetime(flag, text)
    except ArgumentError as exc:
        raise BadInput(f"{exc} or 'now'" if "not a date-time" in str(exc) else str(exc)) from None
    assert value is not None
    return value


def settings_from_args(args: argparse.Namespace, now: datetime) -> ScheduleSettings:
    """Validated settings from the shared schedule options, with the messages ``hops_schedule`` gives."""
    start = None if args.start_time is None else parse_time("--start-time", args.start_time, now)
    end = None if args.end_time is None else parse_time("--end-time", args.end_time, now)
    skip = None if args.skip_to_date is None else parse_time("--skip-to-date", args.skip_to_date, now)
    check_end_after_start("--start-time", start, "--end-time", end)
    offset = check_offset("--start-time-offset-seconds", args.start_time_offset_seconds)
    check_window_start("--start-time", start, "--start-time-offset-seconds", offset)
    check_catchup_runs("--max-catchup-runs", args.max_catchup_runs)
    settings = ScheduleSettings(
        cron=QuartzCron(args.cron),
        start=start,
        end=end,
        offset=offset,
        catchup=args.catchup,
        max_catchup_runs=args.max_catchup_runs,
        skip_to=skip,
    )
    # The rule the timetable applies when a DAG is built: a schedule that can never run is refused (exit 2), not
    # previewed as "no runs".
    settings.policy().check_can_run(now)
    return settings


FILE_SETTINGS = ("start_time", "end_time", "start_time_offset_seconds", "catchup", "max_catchup_runs", "skip_to_date")
"""The schedule options a ``--dag-file`` replaces (``--now`` still applies)."""


def check_count(flag: str, value: int, maximum: int, what: str) -> int:
    if not 1 <= value <= maximum:
        raise BadInput(f"{flag} {value} is invalid: give a count of {what} from 1 to {maximum:,}")
    return value


def now_from_args(args: argparse.Namespace) -> datetime:
    real = datetime.now(UTC)
    return real if args.now is None else parse_time("--now", args.now, real)


def schedule_options(*, cron_or_dag_file: bool) -> OneLineParser:
    """The arguments of ``hops_schedule``; ``--cron`` is required, or with *cron_or_dag_file* it or ``--dag-file``."""
    schedule = OneLineParser(add_help=False)
    g = schedule.add_argument_group("schedule (the arguments of hops_schedule)")
    cron_help = "Quartz cron expression in UTC, a 5-field cron or an @preset"
    if cron_or_dag_file:
        source = g.add_mutually_exclusive_group(required=True)
        source.add_argument("--cron", help=cron_help)
        source.add_argument("--dag-file", help="read the schedule from this DAG file instead (imports Airflow)")
    else:
        g.add_argument("--cron", required=True, help=cron_help)
    g.add_argument("--start-time", help="start_time (ISO-8601, naive = UTC); fires at or before it never run")
    g.add_argument("--end-time", help="end_time (exclusive)")
    g.add_argument(
        "--start-time-offset-seconds",
        type=int,
        help=f"seconds the HOPS window is moved earlier (0 to {MAX_OFFSET_SECONDS:,})",
    )
    g.add_argument("--catchup", action=argparse.BooleanOptionalAction, default=False, help="replay missed fires")
    g.add_argument("--max-catchup-runs", type=int, help="the most missed fires replayed (default: no bound)")
    g.add_argument("--skip-to-date", help="fires before this time never run")
    g.add_argument("--now", help="the present moment (default: the real clock)")
    return schedule
