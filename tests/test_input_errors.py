"""Hostile and careless input through every entry point: one rule, one clear error, nothing lost.

Each test names the finding it covers. The CLI is run in-process through ``main`` where only its output and status
matter, and as the installed console script where the process itself matters (closed pipes, tracebacks).
"""

from __future__ import annotations

import ast
import copy
import json
import os
import shutil
import subprocess
import sys
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from support import HOURLY, UTC

from hops_timetable import _compat, hops_schedule
from hops_timetable.cli import MAX_COMPARE, MAX_COUNT, main
from hops_timetable.cli import app as cli_app
from hops_timetable.cli import next as cli_next
from hops_timetable.cli.dag_source import verify_dag_file
from hops_timetable.cli.importer import ImportedSchedule, import_schedules, load_json, write_dag_files
from hops_timetable.core.conf_window import HopsWindowError, parse_conf_window, parse_window_time
from hops_timetable.core.validation import MAX_JSON_DEPTH, MAX_OFFSET_SECONDS, ArgumentError
from hops_timetable.core.window import hops_window
from hops_timetable.timetable import SERIALIZATION_VERSION, HopsworksTimetable

JAN_1_2026_MS = 1_767_225_600_000
UNDERSTOOD = f"reads format versions 1 to {SERIALIZATION_VERSION}"
INJECTION = 'x"""; open("PWNED","w").write("1"); """'


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def console(
    *argv: str, stdin: str | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    exe = shutil.which("hops-timetable", path=str(Path(sys.executable).parent))
    assert exe is not None
    environ = None if env is None else {**os.environ, **env}
    return subprocess.run([exe, *argv], capture_output=True, text=True, input=stdin, timeout=300, env=environ)


def one_line_error(status: int, err: str, *needles: str) -> None:
    assert status == 2, err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    for needle in needles:
        assert needle in err, err


# -- offsets that break every task (issue 11, point 7) ------------------------------------------------------


@pytest.mark.parametrize("offset", [10**11, int(3.3e10), MAX_OFFSET_SECONDS + 1])
def test_offsets_that_would_leave_four_digit_years_are_refused_at_build(offset: int) -> None:
    with pytest.raises(ValueError, match=rf"start_time_offset_seconds={offset} is too large: .* 0 to 3,153,600,000"):
        HopsworksTimetable(HOURLY, start_time_offset_seconds=offset)
    with pytest.raises(ValueError, match="start_time_offset_seconds"):
        hops_schedule(HOURLY, start_time_offset_seconds=offset)


@pytest.mark.parametrize("value", [3.3e10, 3600.0, True, "3600"])
def test_offsets_must_be_whole_numbers_not_floats_or_bools(value: object) -> None:
    with pytest.raises(TypeError, match=r"start_time_offset_seconds=.* is invalid: expected None or a whole number"):
        HopsworksTimetable(HOURLY, start_time_offset_seconds=value)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="end_time_offset_seconds"):
        HopsworksTimetable(HOURLY, end_time_offset_seconds=value)  # type: ignore[arg-type]


def test_the_largest_offset_keeps_every_window_in_four_digit_years() -> None:
    # Fires lie in 1970-2099: the earliest window the largest offset can make starts after the year 1000.
    window = hops_window(datetime(1970, 1, 1, tzinfo=UTC), datetime(1970, 1, 1, 1, tzinfo=UTC), MAX_OFFSET_SECONDS)
    assert window.start.year >= 1000
    assert all(datetime.fromisoformat(v.replace("Z", "+00:00")) for v in window.as_env().values())


def test_a_start_date_before_1970_is_checked_against_the_offset() -> None:
    start = datetime(1000, 1, 1, tzinfo=UTC)
    with pytest.raises(ValueError, match=r"start_time=1000-01-01.* would start the first HOPS window before 1000"):
        hops_schedule(HOURLY, start_time=start, start_time_offset_seconds=1)
    assert hops_schedule(HOURLY, start_time=start)["start_date"] == start
    assert hops_schedule(HOURLY, start_time=start + timedelta(seconds=60), start_time_offset_seconds=60)


# -- deserialization ----------------------------------------------------------------------------------------

PAYLOAD = HopsworksTimetable(HOURLY, skip_to_date=datetime(2026, 1, 1, tzinfo=UTC)).serialize()


@pytest.mark.parametrize(
    ("payload", "needle"),
    [
        ({k: v for k, v in PAYLOAD.items() if k != "cron_expression"}, "key 'cron_expression' is missing"),
        ([PAYLOAD], "is a list, expected an object"),
        ("payload", "is a str, expected an object"),
        ({**PAYLOAD, "skip_to_date": 1767225600}, "key 'skip_to_date'=1767225600 is invalid"),
        ({**PAYLOAD, "version": None}, "key 'version'=None is not a format version"),
        ({**PAYLOAD, "version": "1"}, "key 'version'='1' is not a format version"),
        ({**PAYLOAD, "version": 1.0}, "key 'version'=1.0 is not a format version"),
        ({**PAYLOAD, "version": 0}, "key 'version'=0 is not a format version"),
        ({**PAYLOAD, "version": -1}, "key 'version'=-1 is not a format version"),
        ({**PAYLOAD, "version": True}, "key 'version'=True is not a format version"),
        ({**PAYLOAD, "version": 3}, "key 'version'=3 is newer than this hops-timetable understands"),
        ({**PAYLOAD, "catchup": 1}, "key 'catchup'=1 is invalid: expected True or False"),
        ({**PAYLOAD, "start_time": "2026-01-01T00:00:00Z"}, "start_time/end_time are given without catchup"),
        ({**PAYLOAD, "cron_expression": 5}, "key 'cron_expression'=5 is not a string"),
        ({**PAYLOAD, "cron_expression": "0 0 12 * * MON"}, "key 'cron_expression': invalid day-of-month"),
        ({**PAYLOAD, "max_catchup_runs": "3"}, "key 'max_catchup_runs'='3' is invalid"),
        ({**PAYLOAD, "start_time_offset_seconds": 10**11}, "key 'start_time_offset_seconds'=100000000000 is too"),
        ({**PAYLOAD, "max_catchup_run": 3}, "unknown key(s) 'max_catchup_run'"),
    ],
)
def test_bad_payloads_name_the_key_and_the_versions_understood(payload: Any, needle: str) -> None:
    with pytest.raises(ValueError) as caught:
        HopsworksTimetable.deserialize(payload)
    message = str(caught.value)
    assert needle in message and UNDERSTOOD in message and "\n" not in message
    assert type(caught.value).__name__ == "ArgumentError"


def test_payloads_without_a_version_are_version_1() -> None:
    legacy = {k: v for k, v in PAYLOAD.items() if k != "version"}
    assert HopsworksTimetable.deserialize(legacy) == HopsworksTimetable.deserialize(PAYLOAD)


_TWO_DAGS = """
from datetime import datetime, timezone
from airflow.sdk import DAG
from hops_timetable import hops_schedule
for name in ("healthy_{tag}", "corrupted_{tag}"):
    with DAG(name, **hops_schedule("0 0 * ? * * *", start_time=datetime(2026, 1, 1, tzinfo=timezone.utc))):
        pass
"""


@pytest.mark.parametrize(
    ("change", "needle"),
    [
        ({"version": True}, "key 'version'=True is not a format version"),
        ({"version": 7}, "key 'version'=7 is newer"),
        ({"skip_to_date": 1767225600}, "key 'skip_to_date'=1767225600"),
        ({"cron_expression": None}, "key 'cron_expression'=None is not a string"),
    ],
)
def test_a_corrupted_payload_fails_only_its_dag_when_airflow_loads_dags(
    airflow_db: None, tmp_path: Path, change: dict[str, Any], needle: str
) -> None:
    """Through Airflow's own path: a DAG folder parsed, synced to the metadata DB and read back per DAG."""
    import importlib

    from airflow.dag_processing.bundles.manager import DagBundlesManager
    from airflow.models.serialized_dag import SerializedDagModel
    from airflow.utils.session import create_session
    from sqlalchemy import update

    folder = tmp_path / "dags"
    folder.mkdir()
    tag = "".join(c for c in tmp_path.name if c.isalnum())  # one metadata DB for the session: fresh DAGs per case
    healthy_id, corrupted_id = f"healthy_{tag}", f"corrupted_{tag}"
    (folder / "two.py").write_text(_TWO_DAGS.replace("{tag}", tag))
    bag_class = _compat.dag_bag_class()
    bag = bag_class(dag_folder=str(folder))
    assert not bag.import_errors and sorted(bag.dags) == [corrupted_id, healthy_id]
    DagBundlesManager().sync_bundles_to_db()
    # The dag-processor's write: a method of DagBag in 3.0, a function beside DagBag from 3.1.
    if _compat.AIRFLOW_VERSION >= (3, 1):
        importlib.import_module(bag_class.__module__).sync_bag_to_db(bag, "dags-folder", None)
    else:
        bag.sync_to_db("dags-folder", None)
    with create_session() as session:
        row = session.query(SerializedDagModel).filter_by(dag_id=corrupted_id).one()
        data = copy.deepcopy(row.data)
        data["dag"]["timetable"]["__var"].update(change)
        table = SerializedDagModel.__table__
        session.execute(update(table).where(table.c.dag_id == corrupted_id).values(data=data, data_compressed=None))
    with create_session() as session:
        # The scheduler's read: DBDagBag from 3.1, a DagBag reading from the database in 3.0.
        # 3.1 wraps the timetable's error in DeserializationError; 3.0 lets it through as it is.
        if _compat.AIRFLOW_VERSION >= (3, 1):
            from airflow.exceptions import DeserializationError
            from airflow.models.dagbag import DBDagBag

            read, wrapper = DBDagBag().get_latest_version_of_dag, DeserializationError
        else:
            read, wrapper = bag_class(read_dags_from_db=True).get_dag, None
        healthy = read(healthy_id, session=session)
        assert healthy is not None and isinstance(healthy.timetable, HopsworksTimetable)
        with pytest.raises(wrapper or ArgumentError) as caught:
            read(corrupted_id, session=session)
    assert needle in str(caught.value.__cause__ if wrapper else caught.value)


# -- the CLI: one line, the right status ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "needles"),
    [
        (["next", HOURLY, "--after", "9999-12-31T23:59:59-01:00"], ["--after='9999-12-31T23:59:59-01:00' is out"]),
        (["preview", "--cron", "@daily", "--skip-to-date", "0001-01-01"], ["--skip-to-date='0001-01-01' is out"]),
        (["preview", "--cron", "@daily", "--start-time", "0001-01-01"], ["--start-time='0001-01-01' is out"]),
        (
            ["preview", "--cron", "@daily", "--start-time-offset-seconds", "99999999999999999999"],
            ["--start-time-offset-seconds=99999999999999999999 is too large", "3,153,600,000"],
        ),
        (
            ["simulate", "--cron", "@daily", "--start-time", "2026-01-01", "--until", "9999-12-31T23:59:59.999999"],
            ["--until='9999-12-31T23:59:59.999999' is out of range"],
        ),
        (["simulate", "--cron", "@daily", "--start-time", "2026-01-02", "--until", "2026-01-01"], ["is not after"]),
        (
            ["next", HOURLY, "-n", "2000000"],
            [f"-n 2000000 is invalid: give a count of fire times from 1 to {MAX_COUNT:,}"],
        ),
        (["preview", "--cron", "@daily", "-n", "2000000"], ["-n 2000000 is invalid"]),
        (["preview", "--cron", "@daily", "-n", "0"], ["-n 0 is invalid"]),
        (["compare", "--cron", "@daily", "-n", "100000"], [f"from 1 to {MAX_COMPARE}"]),
        (
            ["simulate", "--cron", "* * * ? * *", "--start-time", "1970-01-01", "--until", "2099-01-01"],
            ["holds about", "fires of '* * * ? * *'", "simulate at most 100,000,000"],
        ),
        (
            ["simulate", "--cron", "@daily", "--start-time", "2026-01-01", "--until", "2026-02-01", "--limit", "0"],
            ["--limit 0"],
        ),
        (
            ["simulate", "--cron", "@daily", "--start-time", "2026-01-01", "--until", "2026-02-01", "--expand", "5000"],
            ["--expand 5000"],
        ),
        (["next", HOURLY, "--after", "x" * 10_000], ["characters long"]),
        (
            ["preview", "--dag-file", "d.py", "--dag-id", "d", "--catchup"],
            ["--catchup cannot be combined with --dag-file"],
        ),
        (["preview", "--cron", "@daily", "--dag-id", "d"], ["--dag-id needs --dag-file"]),
        (
            ["simulate", "--cron", "@daily", "--until", "2026-02-01"]
            + [x for d in range(1, 7) for x in ("--pause", f"2026-01-{d:02d}..2026-01-{d:02d}T01:00")],
            ["6 --outage/--pause events: give at most 5"],
        ),
    ],
)
def test_bad_cli_input_is_one_line_with_status_2(
    capsys: pytest.CaptureFixture[str], argv: list[str], needles: list[str]
) -> None:
    status, out, err = run(capsys, *argv)
    assert out == ""
    one_line_error(status, err, *needles)


def test_a_trailing_z_is_utc_on_every_python(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(capsys, "next", HOURLY, "--after", "2026-01-01T10:30:00Z", "-n", "1", "--json")
    assert status == 0, err
    assert json.loads(out)["times"] == ["2026-01-01T11:00:00Z"]


def test_compare_prints_four_digit_years(capsys: pytest.CaptureFixture[str]) -> None:
    # With a start: without one, the first fire after now (1970-01-01, the engine's first) would have no window.
    argv = ["--cron", "@daily", "--now", "0001-01-02", "--start-time", "0001-01-02", "-n", "2", "--json"]
    status, out, err = run(capsys, "compare", *argv)
    assert status == 0, err
    data = json.loads(out)
    assert data["now"] == "0001-01-02T00:00:00Z"
    assert all(row["fire"].startswith("0001-01-0") for row in data["rows"])


def test_an_unexpected_exception_is_a_bug_with_status_1_and_a_pointer_to_debug(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # A ValueError from a defect (not from a check) must not pass for bad input.
    def broken(args: object) -> int:
        raise ValueError("internal invariant broken")

    monkeypatch.setattr(cli_next, "cmd_next", broken)
    status, out, err = run(capsys, "next", HOURLY)
    assert status == 1 and out == "" and err.count("\n") == 1
    assert "unexpected ValueError: internal invariant broken" in err
    assert "this is a bug in hops-timetable" in err and "--debug" in err
    with pytest.raises(ValueError, match="internal invariant broken"):
        main(["next", HOURLY, "--debug"])


def test_a_closed_pipe_is_quiet_and_status_0() -> None:
    exe = shutil.which("hops-timetable", path=str(Path(sys.executable).parent))
    assert exe is not None
    for extra in ([], ["--json"]):
        proc = subprocess.Popen(
            [exe, "next", "* * * ? * *", "-n", str(MAX_COUNT), "--after", "2026-01-01", *extra],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        assert proc.stdout is not None and proc.stderr is not None
        proc.stdout.readline()  # as `| head -1` does, then goes away
        proc.stdout.close()
        err = proc.stderr.read().decode()
        assert proc.wait(timeout=60) == 0, err
        assert err == ""


@pytest.mark.parametrize(
    ("command", "shown"),
    [
        ("simulate", ["--cron CRON", "--until UNTIL"]),
        ("compare", ["--cron CRON"]),
        ("preview", ["(--cron CRON | --dag-file DAG_FILE)"]),
    ],
)
def test_usage_lines_show_required_arguments_as_required(command: str, shown: list[str]) -> None:
    usage = " ".join(cli_app._parser()._subparsers._group_actions[0].choices[command].format_usage().split())  # type: ignore[union-attr]
    for text in shown:
        assert text in usage and f"[{text}]" not in usage, usage


@pytest.mark.parametrize("command", ["next", "explain", "import"])
def test_every_positional_argument_has_help(command: str) -> None:
    parser = cli_app._parser()._subparsers._group_actions[0].choices[command]  # type: ignore[union-attr]
    positionals = [a for a in parser._actions if not a.option_strings]
    assert positionals and all(a.help for a in positionals)


def test_import_of_a_rejected_cron_prints_the_error_once(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "one.json"
    path.write_text(json.dumps({"jobName": "j", "cronExpression": "0 0 12 * * MON"}))
    status, out, err = run(capsys, "import", str(path))
    assert status == 2
    assert (out + err).count("exactly one of day-of-month and day-of-week") == 1
    assert err.count("\n") == 1


# -- the importer: untrusted names, collisions, overwrites, milliseconds, limits -----------------------------


@pytest.mark.parametrize(
    "name",
    [
        INJECTION,
        "x'''; import os; os.system('id'); '''",
        "a\nimport os\nos.system('id')",
        "a\r\nb",
        "tail\\",
        "\\N{LATIN SMALL LETTER A}",
        "nul\x00byte",
        "# -*- coding: rot13 -*-",
        "{0.__class__}",
        "\u2028\u2029\x0c\x0b",
        "name " * 300,
    ],
)
def test_hostile_job_names_stay_literals_in_the_generated_file(name: str) -> None:
    [result] = import_schedules({"jobName": name, "cronExpression": HOURLY, "endTimeOffsetSeconds": name})
    source = result.dag_file()
    assert source is not None
    tree = ast.parse(source)  # valid Python...
    assert ast.get_docstring(tree, clean=False) == result.docstring()  # ...holding the name only in literals
    assert repr(name) in result.docstring()
    assert len(result.dag_id) <= 200 and result.dag_id.replace("_", "a").replace("-", "a").replace(".", "a").isalnum()


def test_the_verifier_refuses_code_pasted_into_a_dag_file() -> None:
    [result] = import_schedules({"jobName": "job", "cronExpression": HOURLY})
    source = result.dag_file()
    assert source is not None
    pasted = source.replace("import os\n", 'import os\nopen("PWNED", "w")\n', 1)
    with pytest.raises(AssertionError, match="unexpected statements"):
        verify_dag_file(pasted, result)
    edited = source.replace(repr(HOURLY), repr("0 0 0 * * ?"))
    with pytest.raises(AssertionError, match="hops_schedule arguments differ"):
        verify_dag_file(edited, result)
    smuggled = source.replace(
        "manual run without a window", "manual run without a window\" + __import__('os').name + \""
    )
    with pytest.raises(AssertionError):
        verify_dag_file(smuggled, result)


def test_sanitised_dag_id_collisions_get_distinct_ids_and_files(tmp_path: Path) -> None:
    results = import_schedules(
        [{"jobName": n, "cronExpression": HOURLY} for n in ("a b", "a_b", "A_B", "a_b_2", "a?b")]
    )
    ids = [r.dag_id for r in results]
    assert ids == ["a_b", "a_b_3", "A_B_4", "a_b_2", "a_b_5"]
    assert len({i.lower() for i in ids}) == len(ids)
    assert "is already the DAG of schedule 1 (job 'a b')" in results[1].warnings[0]
    written = write_dag_files(results, str(tmp_path / "out"))
    assert len(written) == 5 and len(set(written)) == 5
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == sorted(f"{i}.py" for i in ids)


def test_existing_files_are_never_overwritten_without_force(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "jobs.json"
    source.write_text(json.dumps([{"jobName": n, "cronExpression": HOURLY} for n in ("one", "two")]))
    out = tmp_path / "out"
    out.mkdir()
    (out / "two.py").write_text("# mine\n")
    status, _, err = run(capsys, "import", str(source), "--output", str(out))
    one_line_error(status, err, "1 DAG file(s) exist already", "nothing was written", "--force")
    assert (out / "two.py").read_text() == "# mine\n" and not (out / "one.py").exists()
    status, _, err = run(capsys, "import", str(source), "--output", str(out), "--force")
    assert status == 0, err
    assert "hops_schedule" in (out / "two.py").read_text()
    single = tmp_path / "single.py"
    single.write_text("# mine\n")
    results = import_schedules({"jobName": "solo", "cronExpression": HOURLY})
    with pytest.raises(ArgumentError, match="exist already"):
        write_dag_files(results, str(single))
    assert single.read_text() == "# mine\n"


def test_milliseconds_are_kept_so_airflow_runs_what_hopsworks_runs(tmp_path: Path) -> None:
    """``endDateTime`` 03:00:00.001 and ``skipToDate`` 01:00:00.999: Hopsworks runs 02:00 and 03:00."""
    schedule = {
        "jobName": "millis",
        "cronExpression": HOURLY,
        "startDateTime": JAN_1_2026_MS,
        "endDateTime": JAN_1_2026_MS + 3 * 3_600_000 + 1,
        "skipToDate": JAN_1_2026_MS + 3_600_000 + 999,
        "catchup": True,
    }
    [result] = import_schedules(schedule)
    assert result.kwargs["end_time"] == datetime(2026, 1, 1, 3, 0, 0, 1000, tzinfo=UTC)
    assert result.kwargs["skip_to_date"] == datetime(2026, 1, 1, 1, 0, 0, 999_000, tzinfo=UTC)
    dag_file = tmp_path / "millis.py"
    write_dag_files([result], str(dag_file))
    # Airflow reads and writes its home while loading DAG files; keep it inside the test's directory.
    env = {"AIRFLOW_HOME": str(tmp_path / "airflow_home")}
    argv = ["--dag-file", str(dag_file), "--dag-id", "millis", "--now", "2026-01-02", "-n", "5", "--json"]
    done = console("preview", *argv, env=env)
    assert done.returncode == 0, done.stderr
    assert [r["fire"] for r in json.loads(done.stdout)["runs"]] == ["2026-01-01T02:00:00Z", "2026-01-01T03:00:00Z"]


@pytest.mark.parametrize(
    ("value", "needle"),
    [
        (1e20, "startDateTime=1e+20 is out of range"),
        (float("inf"), "startDateTime=inf is invalid"),
        (float("nan"), "startDateTime=nan is invalid"),
        (1e300, "startDateTime=1e+300 is out of range"),
        (1.5, "startDateTime=1.5 is invalid"),
        (-(10**20), "is out of range"),
        (True, "startDateTime=True is invalid"),
    ],
)
def test_overflowing_dates_are_errors_naming_the_key(value: object, needle: str) -> None:
    [result] = import_schedules({"cronExpression": HOURLY, "startDateTime": value})
    assert any(needle in e for e in result.errors), result.errors
    assert all("epoch milliseconds" in e for e in result.errors)


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ('{"cronExpression": "0 0 * ? * * *", "startDateTime": 1e20}', "startDateTime=1e+20 is out of range"),
        ('{"cronExpression": "0 0 * ? * * *", "startDateTime": Infinity}', "startDateTime=inf is invalid"),
        ('{"cronExpression": "0 0 * ? * * *", "startDateTime": NaN}', "startDateTime=nan is invalid"),
        ("[" * 100_000 + "]" * 100_000, f"deeper than {MAX_JSON_DEPTH} levels"),
        ("[" * 40 + "]" * 40, f"deeper than {MAX_JSON_DEPTH} levels"),
        ("1" * 5000, "is not readable JSON"),
        ("{not json", "is not JSON"),
        ("[]", "holds no schedule"),
        ('{"cronExpression": "0 0 * ? * * *", "startTimeOffsetSeconds": 33000000000}', "is too large"),
        ('{"cronExpression": "0 0 * ? * * *", "maxActiveRuns": 0}', "maxActiveRuns=0 is invalid"),
    ],
    # Short ids: pytest puts the test's id in PYTEST_CURRENT_TEST, and a 200,000-character one makes the
    # environment too large for the console script's exec (E2BIG) on the pytest the older pinned sets hold.
    ids=lambda value: value if len(value) <= 40 else f"{value[:12]}...({len(value):,} characters)",
)
def test_hostile_json_exits_2_with_one_line_per_problem(text: str, needle: str) -> None:
    done = console("import", "-", stdin=text)
    assert done.returncode == 2, done.stderr
    assert needle in done.stderr and "Traceback" not in done.stderr
    assert done.stderr.count("\n") == 1


def test_json_documents_are_size_limited() -> None:
    with pytest.raises(ArgumentError, match="larger than 16,777,216 characters"):
        load_json(" " * (16 * 1024 * 1024 + 1), "<stdin>")


def test_the_importer_uses_the_shared_rules() -> None:
    # The same rule, the same words, whoever asks: a JSON key here, a Python argument in hops_schedule.
    [result] = import_schedules({"cronExpression": HOURLY, "maxCatchupRuns": 0, "maxActiveRuns": True})
    with pytest.raises(ValueError) as caught:
        hops_schedule(HOURLY, max_catchup_runs=0)
    assert str(caught.value).replace("max_catchup_runs", "maxCatchupRuns") in result.errors
    assert any(e.startswith("maxActiveRuns=True is invalid") for e in result.errors)
    [legacy] = import_schedules({"cronExpression": HOURLY, "startTimeOffsetSeconds": -(10**11)}, "interval-start")
    assert any("startTimeOffsetSeconds=100000000000 is too large" in e for e in legacy.errors)
    [early] = import_schedules(
        {"cronExpression": HOURLY, "startDateTime": -30_610_224_000_000, "startTimeOffsetSeconds": 60}
    )
    assert any("would start the first HOPS window before 1000" in e for e in early.errors), early.errors


def test_a_plain_schedule_round_trips_through_the_verifier() -> None:
    [result] = import_schedules({"jobName": "plain", "cronExpression": HOURLY, "enabled": False})
    assert isinstance(result, ImportedSchedule) and result.paused
    source = result.dag_file()
    assert source is not None and "is_paused_upon_creation=True" in source


# -- conf windows ---------------------------------------------------------------------------------------------


def test_a_hostile_conf_window_reports_every_bad_key() -> None:
    conf = {"hops_window": {"cmd": "$(id)", "start_time": "soon", "end_time": 5, "logical_date": "x"}}
    with pytest.raises(HopsWindowError) as caught:
        parse_conf_window(conf)
    message = str(caught.value)
    for needle in (
        "['cmd']='$(id)' is an unknown key",
        "[\"start_time\"]='soon'",
        '["end_time"]=5',
        "[\"logical_date\"]='x'",
    ):
        assert needle in message
    assert len(caught.value.problems) == 4 and "\n" not in message


def test_a_flood_of_unknown_keys_gives_a_bounded_message() -> None:
    conf = {"hops_window": {f"k{i}": i for i in range(10_000)}}
    with pytest.raises(HopsWindowError) as caught:
        parse_conf_window(conf)
    assert len(str(caught.value)) < 2_000 and "more problem(s)" in str(caught.value)


@pytest.mark.parametrize("offset", ["+00:60", "-00:99", "+01:75"])
def test_conf_offsets_with_sixty_or_more_minutes_are_refused(offset: str) -> None:
    with pytest.raises(HopsWindowError, match="at most 59 are valid"):
        parse_window_time('["start_time"]', f"2026-01-01T10:00:00{offset}")
    assert parse_window_time("[k]", "2026-01-01T10:00:00+00:59") == datetime(2026, 1, 1, 9, 1, tzinfo=UTC)


def test_hops_values_always_have_four_digit_years() -> None:
    window = hops_window(datetime(1, 1, 2, tzinfo=UTC), datetime(1, 1, 3, tzinfo=UTC))
    assert window.as_env()["HOPS_START_TIME"] == "0001-01-02T00:00:00Z"
    assert timedelta(0) == window.end - window.start - timedelta(days=1)
