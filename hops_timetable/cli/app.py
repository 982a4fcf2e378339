"""The console entry point: the parser of every command, and how an error becomes an exit status."""

from __future__ import annotations

import argparse
import contextlib
import importlib
import json
import logging
import os
import sys
from collections.abc import Sequence
from typing import Any

from hops_timetable import __version__
from hops_timetable.cli.errors import AuditError
from hops_timetable.cli.options import MAX_COMPARE, MAX_COUNT, PROG, OneLineParser, schedule_options
from hops_timetable.cli.simulate import MAX_EXPAND
from hops_timetable.core.cron import CronSyntaxError
from hops_timetable.core.export_schedule import OFFSET_MODELS
from hops_timetable.core.validation import ArgumentError

_MODULES = {"explain": "next", "import": "importer"}  # the module of a command not named after it


class _CommandParser(OneLineParser):
    """A command's parser; the options of module ``options_of`` are declared only when that command is parsed or
    its help shown, so ``next`` never loads the audit's client, the coverage or the simulator."""

    options_of: str | None = None

    def parse_known_args(self, *args: Any, **kwargs: Any) -> Any:
        self._declare()
        return super().parse_known_args(*args, **kwargs)

    def format_help(self) -> str:
        self._declare()
        return super().format_help()

    def _declare(self) -> None:
        module, self.options_of = self.options_of, None
        if module is not None:
            importlib.import_module(f"hops_timetable.cli.{module}").add_arguments(self)


def _parser() -> OneLineParser:
    common = OneLineParser(add_help=False)
    common.add_argument("--json", action="store_true", help="print machine-readable JSON")
    common.add_argument("--debug", action="store_true", help="show the traceback of an error")
    schedule, cron_or_file = schedule_options(cron_or_dag_file=False), schedule_options(cron_or_dag_file=True)
    expression = "a Quartz cron expression in UTC (quote it), a 5-field cron or an @preset"

    parser = OneLineParser(prog=PROG, description="Preview, explain, simulate and import Hopsworks job schedules.")
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    # Any: the commands' parents are the options module's parsers, whose class typeshed would make theirs too.
    sub: argparse._SubParsersAction[Any] = parser.add_subparsers(
        dest="command", required=True, parser_class=_CommandParser
    )

    p = sub.add_parser("next", parents=[common], help="the next (or previous) fire times of a cron expression")
    p.add_argument("expression", help=expression)
    p.add_argument("--after", help="count from this time (default: now)")
    p.add_argument("-n", type=int, default=5, help=f"how many fire times (default 5, at most {MAX_COUNT:,})")
    p.add_argument("--prev", action="store_true", help="previous fire times instead, newest first")

    p = sub.add_parser("explain", parents=[common], help="what a cron expression means, field by field, and lints")
    p.add_argument("expression", help=expression)
    p.add_argument("--now", help="the present moment for 'never fires again' (default: the real clock)")

    p = sub.add_parser("preview", parents=[common, cron_or_file], help="the next runs with Airflow and HOPS_* windows")
    p.add_argument("-n", type=int, default=5, help=f"how many runs (default 5, at most {MAX_COUNT:,})")
    p.add_argument("--dag-id", help="the DAG in --dag-file")

    p = sub.add_parser("simulate", parents=[common, schedule], help="replay scheduling through outages and pauses")
    p.add_argument("--outage", action="append", default=[], metavar="FROM..TO", help="Airflow down (repeatable)")
    p.add_argument("--pause", action="append", default=[], metavar="FROM..TO", help="the DAG paused (repeatable)")
    p.add_argument("--until", required=True, help="the end of the simulated timeline (inclusive)")
    p.add_argument("--limit", type=int, default=200, help=f"the most rows printed (default 200, at most {MAX_COUNT:,})")
    p.add_argument(
        "--expand", type=int, default=24, help=f"list ranges of up to this many fires one by one (at most {MAX_EXPAND})"
    )

    p = sub.add_parser("compare", parents=[common, schedule], help="side by side with Airflow's cron timetables")
    p.add_argument("-n", type=int, default=6, help=f"how many runs of each (default 6, at most {MAX_COMPARE})")

    p = sub.add_parser("import", parents=[common], help="turn a Hopsworks job schedule (JSON) into a DAG")
    p.add_argument("file", help="a JSON file as the Hopsworks REST API or Python SDK exports it, or - for stdin")
    p.add_argument("--output", help="write the DAG file there (a directory when there are several schedules)")
    p.add_argument("--force", action="store_true", help="overwrite DAG files that exist already")
    p.add_argument(
        "--offset-model",
        choices=OFFSET_MODELS,
        help="how to read a negative startTimeOffsetSeconds: relative to the interval start or to the fire",
    )

    audit = "which HOPS windows a live Airflow processed; --repair"
    for name, about in (("audit", audit), ("parity", "did Hopsworks and Airflow process the same windows?")):
        sub.add_parser(name, parents=[common], help=about).options_of = name
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line *argv* (default ``sys.argv[1:]``); returns the exit status (see the module docstring)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    debug, json_out = "--debug" in argv, "--json" in argv
    # httpx (audit's and parity's client) logs every request at INFO; where the process's logging prints INFO to
    # stdout (Airflow 3.0's configuration does, once Airflow is imported), it would mix with the --json output.
    logging.getLogger("httpx").setLevel(logging.WARNING)
    try:
        args = _parser().parse_args(argv)
        # Imported when it runs: `next` never loads what another command needs.
        module = importlib.import_module(f"hops_timetable.cli.{_MODULES.get(args.command, args.command)}")
        status: int = getattr(module, f"cmd_{args.command}")(args)
        sys.stdout.flush()
        return status
    except SystemExit as exc:  # --help
        return exc.code if isinstance(exc.code, int) else 0
    except BrokenPipeError:
        # The reader went away (| head): what it wanted is printed. Quiet, and no second error at exit's flush.
        _silence_stdout()
        return 0
    except Exception as exc:
        if debug:
            raise
        # The user's to fix (exit 2): every refusal of input. Airflow unreachable or refusing a request (exit 1) is the
        # environment's answer. Every other exception is a bug (exit 1), even a ValueError.
        bad = isinstance(exc, ArgumentError)
        text = str(exc).splitlines()[0] if str(exc) else ""
        message = text or type(exc).__name__
        if not (bad or isinstance(exc, AuditError)):
            message = (
                f"unexpected {type(exc).__name__}: {text[:200]} -- this is a bug in hops-timetable; run the "
                "same command with --debug to see the traceback, and report it"
            )
        # One prefix for every command, as argparse's own for the program: "hops-timetable: error: ...".
        print(f"{PROG}: error: {message}", file=sys.stderr)
        if json_out:
            try:
                keys = ("field", "token", "position", "hint") if isinstance(exc, CronSyntaxError) else ()
                print(json.dumps({"error": message, "status": 2 if bad else 1, **{k: getattr(exc, k) for k in keys}}))
            except BrokenPipeError:
                _silence_stdout()
        return 2 if bad else 1


def _silence_stdout() -> None:
    # Not a real file (a test's capture): nothing will flush into a closed pipe.
    with contextlib.suppress(OSError, ValueError, AttributeError):
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
