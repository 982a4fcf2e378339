"""``hops-timetable parity`` on the REST-shaped fixtures: exit statuses, the JSON format, --accept, the meaning of
-start_time, a ledger, bad input, a DAG file and a live Airflow (its REST API answered by a stub)."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import httpx
import pytest

from hops_timetable.cli.app import main
from hops_timetable.core.parity.compare import CLASSES

DATA = Path(__file__).parent / "data" / "parity"


def args_for(scenario: str, meaning: str = "fire", *extra: str) -> list[str]:
    expected = json.loads((DATA / scenario / "expected.json").read_text())
    return [
        "parity",
        "--hopsworks-schedule",
        str(DATA / scenario / "schedule.json"),
        "--hopsworks-executions",
        str(DATA / scenario / f"executions-{meaning}.json"),
        "--from",
        expected["from"],
        "--to",
        expected["to"],
        *extra,
    ]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict[str, Any]]:
    status, out, _ = run(capsys, *argv, "--json")
    return status, json.loads(out)


@pytest.mark.parametrize("scenario", sorted(p.name for p in DATA.iterdir() if p.is_dir()))
def test_the_exit_status_is_the_expected_one(capsys: pytest.CaptureFixture[str], scenario: str) -> None:
    expected = json.loads((DATA / scenario / "expected.json").read_text())
    status, out, _ = run(capsys, *args_for(scenario, "logical"))
    assert status == expected["exit"]
    assert out.splitlines()[-1].startswith({0: "parity:", 3: "differences:", 4: "inconclusive:"}[status])


def test_the_json_format(capsys: pytest.CaptureFixture[str]) -> None:
    status, data = run_json(capsys, *args_for("reruns", "next"))
    assert status == 3 and data["exit"] == 3 and data["status"] == "differences"
    assert data["format"] == "hops-timetable-parity/1"
    executions = DATA / "reruns" / "executions-next.json"
    assert data["inputs"]["hopsworks_executions"]["sha256"] == hashlib.sha256(executions.read_bytes()).hexdigest()
    assert data["start_time"]["meaning"] == "next" and data["start_time"]["votes"] == {
        "next": 5,
        "fire": 0,
        "logical": 0,
    }
    assert list(data["summary"]) == list(CLASSES)
    assert data["summary"]["failed_in_hopsworks"] == 1 and data["summary"]["match_retried"] == 2
    row = next(r for r in data["rows"] if r["fire"] == "2026-03-01T12:00:00Z")
    assert row["status"] == "match_retried" and row["hopsworks"] == {
        "HOPS_START_TIME": "2026-03-01T11:00:00Z",
        "HOPS_END_TIME": "2026-03-01T12:00:00Z",
        "HOPS_LOGICAL_DATE": "2026-03-01T11:00:00Z",
    }


def test_the_clamped_first_window_keeps_its_milliseconds(capsys: pytest.CaptureFixture[str]) -> None:
    _, data = run_json(capsys, *args_for("clamped_first_window", "logical"))
    assert data["rows"][0]["hopsworks"]["HOPS_START_TIME"] == "2026-03-01T10:17:16.123Z"


def test_an_accepted_difference_no_longer_fails(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    accept = tmp_path / "accept.json"
    entry = {"fire": "2026-03-01T14:00:00Z", "status": "failed_in_hopsworks", "reason": "known; signed off by data-eng"}
    accept.write_text(json.dumps({"format": "hops-timetable-parity-accept/1", "accepted": [entry]}))
    status, data = run_json(capsys, *args_for("reruns", "fire", "--accept", str(accept)))
    assert status == 0 and data["unused_acceptances"] == []
    assert next(r for r in data["rows"] if r["fire"] == entry["fire"])["accepted"] == entry["reason"]


def test_the_wrong_meaning_stated_shows_differences(capsys: pytest.CaptureFixture[str]) -> None:
    status, data = run_json(capsys, *args_for("clamped_first_window", "fire", "--start-time-meaning", "next"))
    assert status == 3 and data["start_time"]["given"]
    # Read as the next fire, 11:00's argument names 10:00, before the schedule's start; 17:00 seems never run.
    first, last = data["rows"][0], data["rows"][-1]
    assert (first["fire"], first["status"], first["explained_by"]) == (
        "2026-03-01T10:00:00Z",
        "missing_in_airflow",
        "before start",
    )
    assert (last["fire"], last["status"]) == ("2026-03-01T17:00:00Z", "missing_in_hopsworks")


def test_an_undecidable_meaning_is_inconclusive(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    listing = json.loads((DATA / "clamped_first_window" / "executions-fire.json").read_text())
    listing["items"] = listing["items"][:1]  # one vote is not enough
    listing["count"] = 1
    path = tmp_path / "one.json"
    path.write_text(json.dumps(listing))
    argv = args_for("clamped_first_window")
    argv[argv.index("--hopsworks-executions") + 1] = str(path)
    status, out, _ = run(capsys, *argv)
    assert status == 4 and "--start-time-meaning" in out and "fire 1" in out


def test_a_ledger_of_windows(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    ledger = tmp_path / "ledger.csv"
    ledger.write_text(
        "HOPS_START_TIME,HOPS_END_TIME,HOPS_LOGICAL_DATE,STATE\n"
        "2026-03-01T10:17:16.123Z,2026-03-01T11:00:00Z,2026-03-01T10:17:16.123Z,SUCCEEDED\n"
        "2026-03-01T11:00:00Z,2026-03-01T12:00:00Z,2026-03-01T11:00:00Z,SUCCEEDED\n"
        "2026-03-01T11:30:00Z,2026-03-01T12:30:00Z,2026-03-01T12:00:00Z,SUCCEEDED\n"
    )
    argv = args_for("clamped_first_window")
    argv[argv.index("--hopsworks-executions") + 1] = str(ledger)
    argv[argv.index("--to") + 1] = "2026-03-01T14:00:00Z"
    status, data = run_json(capsys, *argv)
    assert status == 3 and data["start_time"] is None
    assert [r["status"] for r in data["rows"]] == ["match", "match", "differs"]
    assert data["rows"][2]["how"] == "shifted by +1800 s" and data["rows"][2]["hint"] == "offset model?"


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (["--to", "2026-02-01T00:00Z"], "is not after --from"),
        (["--hopsworks-schedule", "missing.json"], "cannot be read"),
        (["--hopsworks-outage", "2026-03-01T10:00"], "is not a time range"),
        (["--dag-file", "dag.py"], "need --dag-id"),
        (["--dag-file", "missing.py", "--dag-id", "d"], "--dag-file 'missing.py' cannot be read"),
        (["--limit", "0"], "--limit 0 is invalid"),
        (["--grace", "-1"], "--grace -1 is invalid"),
    ],
)
def test_bad_input_exits_2(capsys: pytest.CaptureFixture[str], change: list[str], words: str) -> None:
    argv = args_for("clamped_first_window")
    if change[0] in argv:
        argv[argv.index(change[0]) + 1] = change[1]
    else:
        argv += change
    status, _, err = run(capsys, *argv)
    assert status == 2 and words in err


def test_a_negative_offset_is_refused_unless_the_model_is_given(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    schedule = json.loads((DATA / "clamped_first_window" / "schedule.json").read_text())
    schedule["startTimeOffsetSeconds"] = -3600
    path = tmp_path / "schedule.json"
    path.write_text(json.dumps(schedule))
    argv = args_for("clamped_first_window")
    argv[argv.index("--hopsworks-schedule") + 1] = str(path)
    status, _, err = run(capsys, *argv)
    assert status == 2 and "interval start" in err and "relative to the fire" in err
    # Read relative to the fire, -3600 on an hourly cron is today's 0: the windows are the fixture's own.
    status, _, _ = run(capsys, *argv, "--offset-model", "fire")
    assert status == 0


def test_a_declared_outage_is_replayed(capsys: pytest.CaptureFixture[str]) -> None:
    status, data = run_json(
        capsys, *args_for("max_catchup_drops", "next", "--hopsworks-outage", "2026-03-01T13:30..2026-03-01T16:20")
    )
    assert status == 0
    assert {o["source"] for o in data["outages"]} == {"declared", "inferred from a late launch"}


def test_a_dag_file_with_another_offset_differs(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    dag = tmp_path / "features.py"
    dag.write_text(
        textwrap.dedent(
            """
            from datetime import datetime, timezone

            from airflow.sdk import dag

            from hops_timetable import hops_schedule


            @dag(dag_id="features", **hops_schedule(
                cron_expression="0 0 * ? * * *",
                start_time=datetime(2026, 3, 1, 10, 17, 16, 123000, tzinfo=timezone.utc),
                start_time_offset_seconds=3600,
            ))
            def features():
                pass


            features()
            """
        )
    )
    status, data = run_json(
        capsys, *args_for("clamped_first_window", "fire", "--dag-file", str(dag), "--dag-id", "features")
    )
    assert status == 3 and data["inputs"]["airflow"]["dag_id"] == "features"
    assert {r["status"] for r in data["rows"]} == {"differs"}
    assert {r["how"] for r in data["rows"]} == {"shifted by -3600 s"}


def test_a_live_airflow_through_the_audits_client(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Airflow's answers are stubbed: the DAG's settings from the plugin, its runs from /api/v2 (one page)."""
    settings = {
        "dag_id": "features",
        "cron_expression": "0 0 * ? * * *",
        "start_time": "2026-03-01T10:17:16.123000+00:00",
        "catchup": False,
        "start_time_offset_seconds": None,
    }
    runs: list[dict[str, object]] = []
    for hour in (11, 12, 13, 14, 16, 17):  # 15:00 has no scheduled run: a manual run with its window covers it
        start = "2026-03-01T10:17:16.123000+00:00" if hour == 11 else f"2026-03-01T{hour - 1:02d}:00:00+00:00"
        end = f"2026-03-01T{hour:02d}:00:00+00:00"
        runs.append(
            {
                "dag_run_id": f"scheduled__{end}",
                "run_type": "scheduled",
                "state": "success",
                "run_after": end,
                "logical_date": start,
                "data_interval_start": start,
                "data_interval_end": end,
            }
        )
    runs.append(
        {
            "dag_run_id": "manual__1",
            "run_type": "manual",
            "state": "success",
            "run_after": "2026-03-01T12:30:00+00:00",
            "conf": {},
        }
    )
    window = {"start_time": "2026-03-01T14:00:00Z", "end_time": "2026-03-01T15:00:00Z"}
    runs.append(
        {
            "dag_run_id": "manual__2",
            "run_type": "manual",
            "state": "success",
            "run_after": "2026-03-01T15:40:00+00:00",
            "conf": {"hops_window": window},
        }
    )

    def answer(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/hops/api/dags":
            return httpx.Response(200, json={"dags": [settings]})
        if request.url.path == "/api/v2/dags/features/dagRuns":
            return httpx.Response(200, json={"dag_runs": runs, "total_entries": len(runs)})
        return httpx.Response(404, json={"detail": "not found"})

    real = httpx.Client
    monkeypatch.setattr(httpx, "Client", lambda **kw: real(transport=httpx.MockTransport(answer), **kw))
    status, data = run_json(
        capsys,
        *args_for(
            "clamped_first_window",
            "next",
            "--airflow-api",
            "http://airflow.invalid",
            "--dag-id",
            "features",
            "--token",
            "t",
        ),
    )
    assert status == 0, data["verdict"]
    assert data["summary"]["match"] == 7
    assert [m["run_id"] for m in data["manual"]] == ["manual__1", "manual__2"]
    covered = next(r for r in data["rows"] if r["fire"] == "2026-03-01T15:00:00Z")
    assert covered["airflow_runs"] == [] and "manual__2" in covered["why"]


def _doc_examples() -> list[tuple[str, str, str]]:
    """(page, command, output) of every ``$ hops-timetable parity`` example on the fixtures in the docs."""
    found = []
    for page in ("cli.md", "migration.md"):
        command: str | None = None
        output: list[str] = []
        for line in (DATA.parent.parent.parent / "docs" / page).read_text().splitlines():
            if line.startswith("$ hops-timetable parity") and "tests/data/parity" in line:
                command, output = line[2:], []
            elif command is not None and line.startswith("```"):
                found.append((page, command, "\n".join(output)))
                command = None
            elif command is not None:
                output.append(line)
    return found


@pytest.mark.parametrize(("page", "command", "expected"), _doc_examples())
def test_the_docs_show_real_output(page: str, command: str, expected: str) -> None:
    root = DATA.parent.parent.parent
    bin_dir = str(Path(sys.executable).parent)
    env = {**os.environ, "PATH": bin_dir + os.pathsep + os.environ.get("PATH", "")}
    done = subprocess.run(["bash", "-c", command], cwd=root, env=env, capture_output=True, text=True, timeout=120)
    assert (done.stdout + done.stderr).rstrip("\n") == expected, page


def _ledger_argv(tmp_path: Path, rows: list[str], scenario: str = "max_catchup_drops") -> list[str]:
    ledger = tmp_path / "ledger.csv"
    ledger.write_text("\n".join(rows) + "\n")
    argv = args_for(scenario)
    argv[argv.index("--hopsworks-executions") + 1] = str(ledger)
    return argv


def _hour_rows(hours: list[int], header: str = "HOPS_START_TIME,HOPS_END_TIME", late: int | None = None) -> list[str]:
    """Ledger rows of the hourly job started at 10:17:16.123 (the first window clamped); with SUBMITTED, each run
    starts 21 s after its fire, those after *late* at 16:20 (a catch-up)."""
    out = [header]
    for h in hours:
        start = "2026-03-01T10:17:16.123Z" if h == 11 else f"2026-03-01T{h - 1:02d}:00:00Z"
        row = f"{start},2026-03-01T{h:02d}:00:00Z"
        if "SUBMITTED" in header:
            row += ",2026-03-01T16:20:05Z" if late is not None and late <= h < 17 else f",2026-03-01T{h:02d}:00:21Z"
        out.append(row)
    return out


def test_a_ledger_gap_is_explained_by_an_outage_inferred_from_it(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """catchup with maxCatchupRuns=2, Hopsworks down 13:30-16:20: 14:00 dropped, 15:00 and 16:00 caught up."""
    status, data = run_json(capsys, *_ledger_argv(tmp_path, _hour_rows([11, 12, 13, 15, 16, 17])))
    assert status == 0, data["verdict"]
    assert [o["source"] for o in data["outages"]] == ["inferred from a gap in the ledger"]
    row = next(r for r in data["rows"] if r["fire"] == "2026-03-01T14:00:00Z")
    assert (row["status"], row["explained_by"]) == ("match", "max_catchup_runs")


def test_a_ledger_without_gaps_or_launch_times_is_inconclusive_until_outages_are_declared(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """A catch-up that kept 3 runs where maxCatchupRuns=2 leaves no gap: nothing shows the outage."""
    argv = _ledger_argv(tmp_path, _hour_rows(list(range(11, 18))))
    status, out, _ = run(capsys, *argv)
    assert status == 4 and "--hopsworks-outage FROM..TO" in out
    status, data = run_json(capsys, *argv, "--hopsworks-outage", "2026-03-01T13:30..2026-03-01T16:20")
    assert status == 3
    row = next(r for r in data["rows"] if r["fire"] == "2026-03-01T14:00:00Z")
    assert (row["status"], row["explained_by"]) == ("missing_in_airflow", "max_catchup_runs")
    status, data = run_json(capsys, *argv, "--hopsworks-outage", "none")
    assert status == 0 and data["outages"] == []


def test_a_ledger_with_launch_times_shows_its_outage(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    rows = _hour_rows(list(range(11, 18)), "HOPS_START_TIME,HOPS_END_TIME,SUBMITTED", late=14)
    status, data = run_json(capsys, *_ledger_argv(tmp_path, rows))
    assert status == 3
    assert [o["source"] for o in data["outages"]] == ["inferred from a late launch"]
    row = next(r for r in data["rows"] if r["fire"] == "2026-03-01T14:00:00Z")
    assert (row["status"], row["explained_by"]) == ("missing_in_airflow", "max_catchup_runs")


def test_an_unbounded_catch_up_leaves_a_ledger_gap_missing(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    status, data = run_json(capsys, *_ledger_argv(tmp_path, _hour_rows([11, 12, 13, 15, 16, 17]), "catchup_burst"))
    assert status == 3 and data["outages"] == []
    row = next(r for r in data["rows"] if r["fire"] == "2026-03-01T14:00:00Z")
    assert (row["status"], row["explained_by"]) == ("missing_in_hopsworks", None)


def test_a_stated_meaning_the_data_contradicts_is_said_in_the_text(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, *args_for("clamped_first_window", "fire", "--start-time-meaning", "next"))
    assert status == 3
    assert "warning: --start-time-meaning next is contradicted by the data: 7 of 7 on-time execution(s) fit fire" in out
    assert out.splitlines()[-1].endswith("(--start-time-meaning next is contradicted by the data, which reads fire)")


def test_derived_values_are_marked_in_text_and_json(capsys: pytest.CaptureFixture[str]) -> None:
    status, data = run_json(capsys, *args_for("clamped_first_window", "fire"))
    assert status == 0 and data["derived"] == ["HOPS_LOGICAL_DATE", "HOPS_START_TIME"]
    assert data["rows"][0]["hopsworks_derived"] == ["HOPS_START_TIME", "HOPS_LOGICAL_DATE"]
    _, out, _ = run(capsys, *args_for("clamped_first_window", "fire"))
    assert "~2026-03-01T10:17:16.123Z .. 2026-03-01T11:00:00Z" in out
    assert "derived from the schedule, not observed" in out
    _, data = run_json(capsys, *args_for("clamped_first_window", "logical"))
    assert data["derived"] == ["HOPS_END_TIME"]


def test_a_missing_page_is_inconclusive_not_missing_windows(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, *args_for("missing_page", "fire"))
    assert status == 4 and "holds 4 of the 7 executions" in out.splitlines()[-1]


def test_the_fire_limit_is_checked_first_and_exactly_the_cap_is_accepted(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    from hops_timetable.core.parity.exports import load_schedule_versions
    from hops_timetable.core.parity.replay import MAX_FIRES, check_fires
    from hops_timetable.core.time_text import parse_time

    minutely = {"cronExpression": "0 * * ? * * *", "startDateTime": 1735689600000 - 86_400_000 * 800}
    versions = load_schedule_versions(minutely, "s")
    start = parse_time("from", "2025-01-01T00:00:00Z")
    end = parse_time("to", "2026-11-26T10:40:00Z")  # 1,000,000 minutes later
    assert check_fires(versions, start, end) == MAX_FIRES
    schedule = tmp_path / "schedule.json"
    schedule.write_text(json.dumps(minutely))
    argv = args_for("clamped_first_window")
    argv[argv.index("--hopsworks-schedule") + 1] = str(schedule)
    argv[argv.index("--hopsworks-executions") + 1] = str(tmp_path / "never-read.json")
    argv[argv.index("--from") + 1], argv[argv.index("--to") + 1] = "2025-01-01T00:00Z", "2026-11-26T10:40:01Z"
    status, _, err = run(capsys, *argv)
    # Refused on the fires alone: the executions file (which does not exist) is never opened.
    assert status == 2 and "more than 1,000,000 fires" in err


def test_progress_goes_to_stderr_only_when_asked(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(capsys, *args_for("clamped_first_window", "fire", "--progress", "--json"))
    assert status == 0 and json.loads(out)["exit"] == 0
    assert "parity: reading" in err and "parity: done" in err
    _, _, err = run(capsys, *args_for("clamped_first_window", "fire"))
    assert err == ""


def test_an_hour_of_skew_on_an_hourly_cron_is_said_not_misread(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Submission times one hour late fit the fire meaning with the clock one hour ahead, or the logical meaning
    with the schedule's first fire never run: both readings are said, and which to state."""
    listing = json.loads((DATA / "clamped_first_window" / "executions-fire.json").read_text())
    for item in listing["items"]:
        hour = int(item["submissionTime"][11:13])
        item["submissionTime"] = item["submissionTime"][:11] + f"{hour + 1:02d}" + item["submissionTime"][13:]
    path = tmp_path / "skewed.json"
    path.write_text(json.dumps(listing))
    argv = args_for("clamped_first_window")
    argv[argv.index("--hopsworks-executions") + 1] = str(path)
    status, out, _ = run(capsys, *argv)
    assert status == 4
    assert "fire with the server clock 3600 s ahead of UTC, or read as logical with the clock right" in out
    status, data = run_json(capsys, *argv, "--start-time-meaning", "fire")
    assert status == 0 and data["start_time"]["clock_skew_seconds"] == 3600


@pytest.mark.parametrize("scenario", ["reruns", "missing_page"])
def test_the_json_written_row_by_row_is_json_dumps_of_the_whole_document(
    capsys: pytest.CaptureFixture[str], scenario: str
) -> None:
    status, out, _ = run(capsys, *args_for(scenario, "fire"), "--json")
    data = json.loads(out)
    assert data["rows"] and status == data["exit"] and out == json.dumps(data, indent=2) + "\n"
    _, empty, _ = run(capsys, *args_for(scenario, "fire", "--from", "2026-03-01T00:00Z", "--to", "2026-03-01T00:30Z"))
    assert "no fire in range" in empty


@pytest.mark.parametrize("scenario", ["one_outlier", "schedule_edit", "manual_with_window", "catchup_burst"])
def test_executions_listed_in_any_order_give_the_same_rows(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, scenario: str
) -> None:
    """The listing reversed, and every id replaced so that the ids run against the fires: the runs are put on
    their fires, and merged with the replay, whatever order they come in."""
    source = json.loads((DATA / scenario / "executions-fire.json").read_text())
    pages = source if isinstance(source, list) else [source]
    for page in pages:
        page["items"] = [{**item, "id": 10**6 - item["id"]} for item in reversed(page.get("items", []))]
    shuffled = tmp_path / "executions.json"
    shuffled.write_text(json.dumps(pages[::-1] if isinstance(source, list) else pages[0]))
    argv = args_for(scenario, "fire")
    status, data = run_json(capsys, *argv)
    argv[argv.index("--hopsworks-executions") + 1] = str(shuffled)
    shuffled_status, shuffled_data = run_json(capsys, *argv)

    def renamed(run_id: str) -> str:
        kind, _, number = run_id.rpartition(" ")
        return f"{kind} {10**6 - int(number)}" if kind == "execution" else run_id

    expected = [{**row, "hopsworks_runs": sorted(map(renamed, row["hopsworks_runs"]))} for row in data["rows"]]
    got = [{**row, "hopsworks_runs": sorted(row["hopsworks_runs"])} for row in shuffled_data["rows"]]
    assert data["rows"] and shuffled_status == status and got == expected
    assert shuffled_data["summary"] == data["summary"] and shuffled_data["verdict"] == data["verdict"]


@pytest.mark.parametrize("chunk", [1, 2, 3, 7])
def test_a_ledger_is_read_row_by_row_in_chunks_of_any_size(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, chunk: int
) -> None:
    """Windows-style line ends, and an ID quoted across two lines: the ledger read a few bytes at a time gives the
    rows read whole."""
    rows = _hour_rows(list(range(11, 18)), "ID,HOPS_START_TIME,HOPS_END_TIME")
    rows = [rows[0], *(f'"run\n{n}",{row}' for n, row in enumerate(rows[1:]))]
    argv = _ledger_argv(tmp_path, rows)
    ledger = Path(argv[argv.index("--hopsworks-executions") + 1])
    ledger.write_bytes(ledger.read_bytes().replace(b"Z\n", b"Z\r\n"))
    status, whole = run_json(capsys, *argv)
    assert ["ledger run\n0"] in [r["hopsworks_runs"] for r in whole["rows"]]
    monkeypatch.setattr("hops_timetable.cli.parity._Reader.CHUNK", chunk)
    assert run_json(capsys, *argv) == (status, whole)


def test_an_execution_no_fire_can_be_found_for_is_listed_and_leaves_the_verdict_open(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    listing = json.loads((DATA / "clamped_first_window" / "executions-fire.json").read_text())
    # Run again by hand at 14:40 with a -start_time half past the hour: no hourly fire launches at 14:30.
    (ran,) = [e for e in listing["items"] if e["args"].endswith("-start_time 2026-03-01T14:00:00Z")]
    extra = {**ran, "id": 2000, "submissionTime": "2026-03-01T14:40:00.000Z"}
    extra["args"] = ran["args"].replace("14:00:00Z", "14:30:00Z")
    listing["items"].insert(0, extra)
    listing["count"] += 1
    path = tmp_path / "executions.json"
    path.write_text(json.dumps(listing))
    argv = args_for("clamped_first_window")
    argv[argv.index("--hopsworks-executions") + 1] = str(path)
    status, out, _ = run(capsys, *argv)
    lines = out.splitlines()
    assert status == 4
    assert [line for line in lines if line.startswith("not placed")] == [
        "not placed on a fire, hopsworks: execution 2000: -start_time 2026-03-01T14:30:00+00:00 is not a fire value "
        "of '0 0 * ? * * *'"
    ]
    assert lines[-1].startswith("inconclusive: 1 execution(s) not placed on a fire; 7 of 7 fire(s) agree")


def test_an_accepted_difference_not_seen_is_listed_in_the_text(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    accept = tmp_path / "accept.json"
    used = {"fire": "2026-03-01T14:00:00Z", "status": "failed_in_hopsworks", "reason": "known; signed off by data-eng"}
    unused = {"fire": "2026-03-01T15:00:00Z", "status": "failed_in_hopsworks", "reason": "fixed since"}
    accept.write_text(json.dumps({"format": "hops-timetable-parity-accept/1", "accepted": [used, unused]}))
    status, out, _ = run(capsys, *args_for("reruns", "fire", "--accept", str(accept)))
    assert status == 0
    assert [line for line in out.splitlines() if line.startswith("accepted")] == [
        "accepted difference not seen: failed_in_hopsworks at 2026-03-01T15:00:00+00:00"
    ]
