"""The options the commands share (the schedule's, read from the flags or from a DAG file) and the parser that reports
a mistake as one line."""

from __future__ import annotations

import argparse
import difflib
import io
import logging
import os
from contextlib import redirect_stderr, redirect_stdout
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any, NoReturn

from hops_timetable.cli.errors import BadInput
from hops_timetable.core.schedule import Schedule
from hops_timetable.core.time_text import TimeTextError
from hops_timetable.core.time_text import parse_time as read_time
from hops_timetable.core.validation import MAX_OFFSET_SECONDS
from hops_timetable.core.window import as_utc
from hops_timetable.croniter_check import check_with_croniter

if TYPE_CHECKING:
    from hops_timetable.core.simulate import Event

PROG = "hops-timetable"

UTC = timezone.utc

MAX_COUNT = 10_000
"""The most fire times, runs or rows a command lists (``-n``, ``--limit``)."""
MAX_COMPARE = 200
"""The most runs ``compare`` asks of each timetable: Airflow's own take about a millisecond a run."""


class OneLineParser(argparse.ArgumentParser):
    """Reports a mistake in one line, naming the flag an unknown one was probably meant to be; takes no abbreviation
    (one that reads today would change meaning the day another flag starts the same way)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        # argparse prints the whole usage block; one line says the same and points to --help.
        raise BadInput(f"{message} (see {self.prog} --help)")

    def parse_known_args(self, *args: Any, **kwargs: Any) -> Any:
        # Before argparse reports anything else, such as a required option the misspelt flag was meant to be.
        given = (args[0] if args else kwargs.get("args")) or []
        known = list(self._option_string_actions)
        for token in given if self._subparsers is None else []:
            if token == "--":
                break
            flag = token.split("=", 1)[0]
            if not flag.startswith("-") or flag == "-" or flag in known or self._negative_number_matcher.match(flag):
                continue
            if not flag.startswith("--") and flag[:2] in known:  # -n5: a short flag with its value attached
                continue
            close = difflib.get_close_matches(flag, [k for k in known if k.startswith("--")], n=2, cutoff=0.6)
            longer = [k for k in known if k.startswith(flag) and flag.startswith("--")]
            hints = list(dict.fromkeys(longer + close))[:3]
            hint = f"; did you mean {' or '.join(hints)}?" if hints else ""
            self.error(f"unrecognized argument {flag}{hint}")
        return super().parse_known_args(*args, **kwargs)


def parse_time(flag: str, text: str, now: datetime | None = None) -> datetime:
    """A command-line time as aware UTC: the package's date-time grammar, or ``now`` (*now*, default the real
    clock); anything else raises :class:`BadInput` naming *flag*."""
    if text.strip().lower() == "now":
        return now if now is not None else datetime.now(UTC)
    try:
        return read_time(flag, text)
    except TimeTextError as exc:
        raise BadInput(f"{exc} or 'now'" if "not a date-time" in exc.problem else str(exc), flag, text) from None


def time_range(flag: str, text: str, kind: str, example: str) -> Event:
    """A ``FROM..TO`` range of *flag* as an event of *kind* (``outage`` or ``pause``)."""
    from hops_timetable.core.simulate import Event  # imported when used: ``next`` never loads the simulator

    left, sep, right = text.partition("..")
    if not sep:
        raise BadInput(f"{flag} {text!r} is not a time range: expected FROM..TO, e.g. {example}")
    start, end = parse_time(flag, left), parse_time(flag, right)
    try:
        return Event(kind, start, end)
    except ValueError as exc:
        raise BadInput(f"{flag} {text!r}: {exc}") from None


# The arguments of hops_schedule but the cron, which a --dag-file replaces (--now still applies); each one's flag.
FILE_SETTINGS = ("start_time", "end_time", "start_time_offset_seconds", "catchup", "max_catchup_runs", "skip_to_date")
FLAGS = {"cron_expression": "--cron"} | {name: "--" + name.replace("_", "-") for name in FILE_SETTINGS}


def settings_from_args(args: argparse.Namespace, now: datetime) -> Schedule:
    """The schedule of the shared options, validated as ``hops_schedule`` validates it at *now*: one that can never
    run is refused, not previewed as "no runs"."""
    settings = {name: getattr(args, name) for name in FILE_SETTINGS}
    for name in ("start_time", "end_time", "skip_to_date"):
        if settings[name] is not None:
            settings[name] = parse_time(FLAGS[name], settings[name], now)
    schedule = Schedule.build(args.cron, now=now, names=FLAGS, **settings)
    check_with_croniter(schedule.cron, "--cron")
    return schedule


def settings_from_dag_file(path: str, dag_id: str) -> Schedule:
    """The ``hops_schedule`` settings of DAG *dag_id* in the file *path*, parsed as Airflow's dag-processor does
    (``--dag-file``; imports Airflow)."""
    if not os.path.isfile(path):
        raise BadInput(f"--dag-file {path!r} is not a file")
    # Airflow logs and prints while it loads; the command's output is the preview only.
    logging.disable(logging.CRITICAL)
    try:
        with redirect_stdout(io.StringIO()), redirect_stderr(io.StringIO()):
            from hops_timetable._compat import dag_bag_class
            from hops_timetable.timetable import HopsworksTimetable

            bag = dag_bag_class()(dag_folder=path, safe_mode=False, load_op_links=False)
    finally:
        logging.disable(logging.NOTSET)
    if bag.import_errors:
        first = next(iter(bag.import_errors.values())).strip().splitlines()
        raise BadInput(f"--dag-file {path!r} does not import: {first[-1] if first else 'unknown error'}")
    if (dag := bag.dags.get(dag_id)) is None:
        found = ", ".join(sorted(bag.dags)) or "none"
        raise BadInput(f"--dag-id {dag_id!r} is not in {path!r}; the DAGs there are: {found}")
    if not isinstance(timetable := dag.timetable, HopsworksTimetable):
        raise BadInput(
            f"DAG {dag_id!r} is scheduled with {type(timetable).__name__}, not HopsworksTimetable; "
            "preview reads DAGs built with hops_schedule(...)"
        )
    # The DAG's own restriction, as the DAG policy binds it when Airflow parses the file.
    return timetable.schedule.replace(
        start=None if dag.start_date is None else as_utc(dag.start_date),
        end=None if dag.end_date is None else as_utc(dag.end_date),
        catchup=bool(dag.catchup),
    )


def check_count(flag: str, value: int, maximum: int, what: str) -> None:
    if not 1 <= value <= maximum:
        raise BadInput(f"{flag} {value} is invalid: give a count of {what} from 1 to {maximum:,}")


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
