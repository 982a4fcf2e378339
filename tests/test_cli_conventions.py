"""What every command shares: ``--version``, one error prefix, and ``compare``'s text within 100 columns."""

from __future__ import annotations

import importlib.metadata
import re

import pytest

from hops_timetable.cli import main
from hops_timetable.cli.app import _parser
from tests.test_cli import console

PREFIX = "hops-timetable: error: "


def _commands() -> list[str]:
    # From the parser itself, so that a command added later is checked too.
    (action,) = [a for a in _parser()._subparsers._group_actions if a.choices]  # type: ignore[union-attr]
    assert action.choices is not None
    return sorted(action.choices)


def test_version_is_the_installed_distributions() -> None:
    done = console("--version")
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"hops-timetable {importlib.metadata.version('hops-timetable')}\n"


def test_every_command_is_listed() -> None:
    assert {"next", "explain", "preview", "simulate", "compare", "import", "audit"} <= set(_commands())


@pytest.mark.parametrize("command", _commands())
def test_every_command_reports_a_usage_error_with_the_one_prefix(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    status = main([command, "--no-such-option-anywhere"])
    _, err = capsys.readouterr()
    assert status == 2
    assert err.startswith(PREFIX) and err.count("\n") == 1, err
    # A required argument left out is reported by the command's own parser: same prefix.
    status = main([command])
    _, err = capsys.readouterr()
    assert status == 2
    assert err.startswith(PREFIX) and err.count("\n") == 1, err


@pytest.mark.parametrize(
    ("argv", "named", "hint"),
    [
        # An abbreviation is refused, even where only one flag starts so: it names the whole flag.
        (["preview", "--max-catchup", "3", "--cron", "@daily"], "--max-catchup", "--max-catchup-runs"),
        # Reported before the required --cron it seems to lack.
        (["preview", "--cronn", "@daily"], "--cronn", "--cron"),
        (["audit", "--dag-idd", "d"], "--dag-idd", "--dag-id"),
        (["next", "--jsn", "@daily"], "--jsn", "--json"),
        (["simulate", "--cron=@daily", "--utnil=2026-01-02"], "--utnil", "--until"),
    ],
)
def test_an_unknown_or_abbreviated_flag_is_refused_with_the_flag_it_was_probably_meant_to_be(
    argv: list[str], named: str, hint: str, capsys: pytest.CaptureFixture[str]
) -> None:
    status = main(argv)
    _, err = capsys.readouterr()
    assert status == 2
    assert err.startswith(f"{PREFIX}unrecognized argument {named}; did you mean {hint}"), err
    assert err.count("\n") == 1, err


def test_negative_numbers_and_values_attached_to_short_flags_are_no_unknown_flags(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["next", "-n2", "0 0 * ? * * *"]) == 0
    assert main(["preview", "--cron", "@daily", "--start-time-offset-seconds", "-3600"]) == 2
    _, err = capsys.readouterr()
    assert "is negative" in err and "unrecognized" not in err


@pytest.mark.parametrize(
    "argv",
    [
        ["next", "0 0 * * * MON"],
        ["explain", "61 0 * ? * * *"],
        ["preview", "--cron", "@daily", "--start-time", "yesterday-ish"],
        ["simulate", "--cron", "@daily", "--until", "2026-01-02", "--outage", "backwards"],
        ["compare", "--cron", "0 0 * ? * * *"],
        ["audit", "--api", "not a url"],
        ["no-such-command"],
    ],
)
def test_errors_found_while_a_command_runs_have_the_same_prefix(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    status = main(argv)
    _, err = capsys.readouterr()
    assert status == 2, err
    assert err.startswith(PREFIX) and err.count("\n") == 1, err


ISO_Z = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"


@pytest.mark.parametrize(
    "argv",
    [
        ["--cron", "@daily", "--start-time", "2026-01-01T06:00", "--catchup", "--now", "2026-01-04"],
        [
            "--cron",
            "0 * * * *",
            "--start-time",
            "2026-01-01T00:30",
            "--end-time",
            "2026-01-01T03:00",
            "--start-time-offset-seconds",
            "3600",
            "--catchup",
            "--now",
            "2026-01-01T05:00",
            "-n",
            "4",
        ],
        ["--cron", "*/7 * * * *", "--start-time", "2026-03-01T00:01", "--no-catchup", "--now", "2026-03-02T10:03"],
        ["--cron", "0 0 29 2 *", "--start-time", "0001-01-02", "--now", "0001-06-01", "-n", "2"],
    ],
)
def test_compare_prints_within_100_columns_with_one_time_format(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["compare", *argv]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert max(len(line) for line in lines) <= 100, max(lines, key=len)
    # Every date printed is a whole ISO-8601 UTC instant: no "2026-01-01 10:00:00" beside "2026-01-01T10:00:00Z".
    dates = re.findall(r"\d{4}-\d\d-\d\d\S*", out)
    assert dates and all(re.fullmatch(ISO_Z + r"[,;)]?", date) for date in dates), dates
    # Each row of the table has its fire and one cell per timetable.
    header = next(line for line in lines if "fire (run_after)" in line)
    assert header.split() == ["fire", "(run_after)", "Hopsworks", "CronDataInterval", "CronTrigger"]
