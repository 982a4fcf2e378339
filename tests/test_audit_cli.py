"""``audit`` end to end against a fake Airflow: drops by design apart from gaps, the exit status, ``--repair``'s
limits, SQLite's refusal of backfills, and paged answers that do not add up.

The fake answers the routes ``audit`` reads with the shapes Airflow 3's REST API gives (``dag_runs`` and
``total_entries`` pages, the backfill dry run's ``backfills``, the 503 its backfill route sends on a locked SQLite
database); the end-to-end suite runs the same command against a real Airflow. The expected counts come from the
schedule's arithmetic (hours between two instants), not from the code under test.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Any

import httpx
import pytest

from hops_timetable.cli import audit_client
from hops_timetable.cli.app import main
from hops_timetable.core.decision import Decision

UTC = timezone.utc
HOUR = timedelta(hours=1)
START = datetime(2026, 1, 1, tzinfo=UTC)
DEPLOYED = datetime(2026, 12, 1, 12, 30, tzinfo=UTC)
NOW = datetime(2026, 12, 1, 15, 30, tzinfo=UTC)


def iso(value: datetime) -> str:
    return value.isoformat().replace("+00:00", "Z")


def scheduled(fire: datetime, queued: datetime, state: str = "success") -> dict[str, Any]:
    return {
        "dag_run_id": f"scheduled__{fire.isoformat()}",
        "run_type": "scheduled",
        "state": state,
        "run_after": iso(fire),
        "logical_date": iso(fire - HOUR),
        "data_interval_start": iso(fire - HOUR),
        "data_interval_end": iso(fire),
        "queued_at": iso(queued),
        "conf": {},
    }


def bounded_catchup_history(failed: tuple[datetime, ...] = ()) -> list[dict[str, Any]]:
    """dags/bounded_catchup.py (hourly since 2026-01-01, max_catchup_runs=24) first scheduled at DEPLOYED: the 24
    newest due fires run at once, every later fire at its own time."""
    newest_due = datetime(2026, 12, 1, 12, tzinfo=UTC)
    replayed = [newest_due - k * HOUR for k in range(23, -1, -1)]
    on_time = [newest_due + k * HOUR for k in range(1, 4)]
    runs = [scheduled(f, DEPLOYED, "failed" if f in failed else "success") for f in replayed]
    runs += [scheduled(f, f + timedelta(seconds=2), "failed" if f in failed else "success") for f in on_time]
    return runs


BOUNDED = {
    "dag_id": "bounded_catchup",
    "cron_expression": "0 0 * ? * * *",
    "start_time": iso(START),
    "end_time": None,
    "skip_to_date": None,
    "catchup": True,
    "max_catchup_runs": 24,
    "start_time_offset_seconds": None,
    "is_paused": False,
}
# Hourly fires 2026-01-01T01:00 .. 2026-11-30T12:00 lie before the 24 replayed ones: the bound dropped them.
DROPPED = int((datetime(2026, 11, 30, 12, tzinfo=UTC) - START) / HOUR)


@dataclass
class FakeAirflow:
    runs: list[dict[str, Any]]
    dags: list[dict[str, Any]] = field(default_factory=lambda: [BOUNDED])
    backfill_answer: httpx.Response | None = None
    seen: list[httpx.Request] = field(default_factory=list)
    honour_offset: bool = True
    total_entries: bool = True
    refuse: int | None = None  # every request answered with this HTTP status

    def handle(self, request: httpx.Request) -> httpx.Response:
        self.seen.append(request)
        path = request.url.path
        if self.refuse is not None:
            return httpx.Response(self.refuse, json={"detail": "refused by the fake"})
        if path == "/hops/api/dags":
            return httpx.Response(200, json={"dags": self.dags})
        if path.endswith("/dagRuns") and request.method == "GET":
            offset = int(request.url.params["offset"]) if self.honour_offset else 0
            limit = int(request.url.params["limit"])
            page: dict[str, Any] = {"dag_runs": self.runs[offset : offset + limit]}
            if self.total_entries:
                page["total_entries"] = len(self.runs)
            return httpx.Response(200, json=page)
        if path == "/api/v2/backfills/dry_run":
            body = json.loads(request.content)
            first = datetime.fromisoformat(body["from_date"])
            last = datetime.fromisoformat(body["to_date"])
            dates = [first + k * HOUR for k in range(int((last - first) / HOUR) + 1)]
            return httpx.Response(200, json={"backfills": [{"logical_date": iso(d)} for d in dates]})
        if path == "/api/v2/backfills" and request.method == "POST":
            return self.backfill_answer or httpx.Response(200, json={"id": 1})
        if path.endswith("/dagRuns") and request.method == "POST":
            return httpx.Response(200, json={"dag_run_id": json.loads(request.content)["dag_run_id"]})
        return httpx.Response(404, json={"detail": "no such route in the fake"})

    def writes(self) -> list[str]:
        return [r.url.path for r in self.seen if r.method == "POST" and not r.url.path.endswith("/dry_run")]


@pytest.fixture
def airflow(monkeypatch: pytest.MonkeyPatch) -> FakeAirflow:
    fake = FakeAirflow(bounded_catchup_history())

    def client(self: audit_client.Client, api: str, token: str, *, timeout: float = 30.0) -> None:
        self._errors = httpx.HTTPError
        self.http = httpx.Client(base_url=api, transport=httpx.MockTransport(fake.handle))

    monkeypatch.setattr(audit_client.Client, "__init__", client)
    monkeypatch.setattr("time.sleep", lambda seconds: None)
    return fake


def run_audit(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = main(["audit", "--api", "http://airflow.invalid", "--token", "t", "--now", iso(NOW), *args])
    out, err = capsys.readouterr()
    return status, out, err


def test_the_bounded_catchup_example_is_complete_its_drops_by_design_counted_apart(
    airflow: FakeAirflow, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, _ = run_audit(capsys, "--json")
    (dag,) = json.loads(out)["dags"]
    assert status == 0
    assert dag["gaps"] == [] and dag["missing_windows"] == 0
    assert dag["expected_windows"] == 27 and dag["dropped_by_design"] == DROPPED
    assert [(d["start"], d["end"], d["reasons"]) for d in dag["dropped"]] == [
        ("2026-01-01T00:00:00Z", "2026-11-30T12:00:00Z", [Decision.DROPPED_BOUND.value])
    ]
    assert dag["verdict"] == (
        "complete: all 27 expected window(s) up to 2026-12-01T15:30:00Z processed; "
        f"{DROPPED:,} dropped by design ({DROPPED:,} dropped beyond max_catchup_runs)"
    )
    status, out, _ = run_audit(capsys, "--strict")
    assert status == 3 and out.rstrip().endswith(
        f"{DROPPED:,} dropped by design ({DROPPED:,} dropped beyond max_catchup_runs)"
    )


def test_repair_leaves_drops_by_design_alone_and_refuses_a_plan_beyond_max_runs(
    airflow: FakeAirflow, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, _ = run_audit(capsys, "--json", "--repair", "--dry-run")
    assert status == 0 and json.loads(out)["dags"][0]["repair"] == []

    status, _, err = run_audit(capsys, "--repair", "--include-dropped")
    assert status == 2
    assert f"--repair would create {DROPPED:,} run(s)" in err and "more than --max-runs 100" in err
    assert airflow.writes() == []

    status, out, _ = run_audit(capsys, "--json", "--repair", "--include-dropped", "--max-runs", str(DROPPED))
    (dag,) = json.loads(out)["dags"]
    assert dag["repair_runs"] == DROPPED and [s["kind"] for s in dag["repair"]] == ["backfill"]
    assert airflow.writes() == ["/api/v2/backfills"]


def test_a_failed_run_is_a_gap_and_sqlite_refusing_the_backfill_is_said_plainly(
    airflow: FakeAirflow, capsys: pytest.CaptureFixture[str]
) -> None:
    failed = datetime(2026, 12, 1, 14, tzinfo=UTC)
    airflow.runs = bounded_catchup_history(failed=(failed,))
    airflow.backfill_answer = httpx.Response(
        503,
        json={
            "detail": "Database is locked. Backfill creation is not supported on SQLite under concurrent access. "
            "Please use PostgreSQL or MySQL."
        },
    )
    status, out, _ = run_audit(capsys, "--repair")
    assert status == 3
    assert f"gaps found: 1 of 27 expected window(s) not processed (1 failed); 1 gap(s); {DROPPED:,} dropped" in out
    assert "on SQLite it does not support backfills while the scheduler writes" in out
    posted = [r for r in airflow.seen if r.method == "POST" and r.url.path.endswith("/dagRuns")]
    assert [json.loads(r.content)["conf"]["hops_window"] for r in posted] == [
        {"start_time": "2026-12-01T13:00:00Z", "end_time": "2026-12-01T14:00:00Z"}
    ]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"honour_offset": False}, "the page repeats runs already read"),
        ({"total_entries": False}, "the answer has total_entries=None"),
    ],
    ids=["repeated pages", "no total_entries"],
)
def test_pages_that_do_not_add_up_stop_the_audit_with_an_error(
    airflow: FakeAirflow, capsys: pytest.CaptureFixture[str], change: dict[str, bool], message: str
) -> None:
    # More runs than one page of 100 holds: hourly, every run on time.
    airflow.runs = [scheduled(START + k * HOUR, START + k * HOUR) for k in range(1, 251)]
    for key, value in change.items():
        setattr(airflow, key, value)
    status, _, err = run_audit(capsys)
    assert status == 1 and message in err
    assert len([r for r in airflow.seen if r.url.path.endswith("/dagRuns")]) <= 2


def test_refusals_quote_a_few_hundred_characters_of_the_input_at_most(
    airflow: FakeAirflow, capsys: pytest.CaptureFixture[str]
) -> None:
    airflow.runs = [{**airflow.runs[0], "run_after": "x" * 100_000}]
    status, _, err = run_audit(capsys)
    assert status == 1 and "run_after=" in err and len(err) < 500
    airflow.dags = [{**BOUNDED, "dag_id": f"dag_{n}_" + "y" * 1000} for n in range(100)]
    status, _, err = run_audit(capsys, "--dag-id", "z" * 100_000)
    assert status == 2 and "is not a HopsworksTimetable DAG" in err and len(err) < 2000


def test_a_million_fires_are_audited_from_their_runs_with_bounded_output(
    airflow: FakeAirflow, capsys: pytest.CaptureFixture[str]
) -> None:
    # Every minute since 2026-01-01, first scheduled 1,000,000 minutes later with max_catchup_runs=24: the 24
    # newest fires ran at once, every earlier one was dropped by the bound.
    minute = timedelta(minutes=1)
    deployed = START + 1_000_000 * minute + timedelta(seconds=30)
    fires = [START + (1_000_000 - 23 + k) * minute for k in range(24)]
    airflow.runs = [
        {**scheduled(f, deployed), "logical_date": iso(f - minute), "data_interval_start": iso(f - minute)}
        for f in fires
    ]
    airflow.dags = [{**BOUNDED, "dag_id": "minutely", "cron_expression": "0 * * ? * * *"}]
    status = main(["audit", "--api", "http://airflow.invalid", "--token", "t", "--now", iso(deployed), "--json"])
    out, _ = capsys.readouterr()
    (dag,) = json.loads(out)["dags"]
    assert status == 0 and dag["fires_total"] == 1_000_000 and len(dag["fires"]) == 60
    assert sorted(r["run_id"] for r in dag["runs"]) == sorted(r for f in dag["fires"] for r in f["run_ids"])
    assert dag["dropped_by_design"] == 1_000_000 - 24 and dag["expected_windows"] == 24
    assert [(h["count"], h["status"]) for h in dag["history"]] == [(999_976, Decision.DROPPED_BOUND.value), (24, "ran")]
    assert len(out.encode()) < 300_000
    # A plan of a million runs is counted from the stretches, never listed fire by fire, and never carried out.
    argv = ["audit", "--api", "http://airflow.invalid", "--token", "t", "--now", iso(deployed), "--repair"]
    status = main([*argv, "--include-dropped", "--dry-run"])
    out, _ = capsys.readouterr()
    assert status == 0 and "repair: 999,976 run(s), too many to list (a dry run lists up to 10,000)" in out
    assert "--repair would create 999,976 run(s): more than --max-runs 100, so it would refuse" in out
    assert main([*argv, "--include-dropped", "--max-runs", "1000"]) == 2
    assert airflow.writes() == []


def test_a_long_repair_plan_is_listed_by_its_first_and_last_steps(
    airflow: FakeAirflow, capsys: pytest.CaptureFixture[str]
) -> None:
    newest_due = datetime(2026, 12, 1, 12, tzinfo=UTC)
    airflow.runs = bounded_catchup_history(failed=tuple(newest_due - k * 2 * HOUR for k in range(10)))
    fires = ["2026-11-30T17:00:00Z", "2026-11-30T19:00:00Z", "2026-11-30T21:00:00Z", "2026-11-30T23:00:00Z"]
    fires += ["2026-12-01T09:00:00Z", "2026-12-01T11:00:00Z"]
    steps = [f"  backfill logical date(s) {fire} (1 run(s), reprocess=failed)" for fire in fires]
    elided = "  ... 4 more step(s) of the same kind (--json lists all)"
    status, out, _ = run_audit(capsys, "--repair", "--dry-run")
    plan = out.split("repair plan (dry run, nothing changed):\n")[1].split("\n\n")[0].splitlines()
    assert status == 3 and plan == [*steps[:4], elided, *steps[4:], "  10 run(s) in all"]
    status, out, _ = run_audit(capsys, "--repair")
    plan = out.split("repair:\n")[1].split("\n\n")[0].splitlines()
    applied = [f"{step}  -> backfill 1" for step in steps]
    assert plan == [*applied[:4], elided, *applied[4:], "  10 run(s) in all"]
    assert airflow.writes().count("/api/v2/backfills") == 10


def test_gaps_and_windows_processed_twice_are_listed_with_their_reasons_and_runs(
    airflow: FakeAirflow, capsys: pytest.CaptureFixture[str]
) -> None:
    airflow.runs = bounded_catchup_history(failed=(datetime(2026, 12, 1, 14, tzinfo=UTC),))
    # A manual run given the window 12:00 to 13:00, which the scheduled run of 13:00 processed already.
    window = {"start_time": "2026-12-01T12:00:00Z", "end_time": "2026-12-01T13:00:00Z"}
    airflow.runs.append(
        {
            "dag_run_id": "manual__again",
            "run_type": "manual",
            "state": "success",
            "run_after": "2026-12-01T13:40:00Z",
            "conf": {"hops_window": window},
        }
    )
    status, out, _ = run_audit(capsys)
    assert status == 3
    spans = out.split("\n\n")[2].splitlines()
    assert spans == [
        "gap [2026-12-01T13:00:00Z, 2026-12-01T14:00:00Z): failed",
        "processed twice [2026-12-01T12:00:00Z, 2026-12-01T13:00:00Z): "
        "scheduled__2026-12-01T13:00:00+00:00, manual__again",
        "dropped by design [2026-01-01T00:00:00Z, 2026-11-30T12:00:00Z): dropped beyond max_catchup_runs",
    ]


def test_only_the_newest_20_gaps_are_listed_and_the_older_ones_counted(
    airflow: FakeAirflow, capsys: pytest.CaptureFixture[str]
) -> None:
    # Hourly, every run on time since the start; those 2, 4, ... 46 hours after it failed: 23 gaps of an hour.
    airflow.runs = [
        scheduled(START + k * HOUR, START + k * HOUR, "failed" if k % 2 == 0 and k <= 46 else "success")
        for k in range(1, 61)
    ]
    now = START + 60 * HOUR + timedelta(minutes=30)
    status = main(["audit", "--api", "http://airflow.invalid", "--token", "t", "--now", iso(now), "--limit", "1"])
    out, _ = capsys.readouterr()
    assert status == 3
    newest = [START + k * HOUR for k in range(8, 47, 2)]
    assert out.split("\n\n")[2].splitlines() == [
        "... 3 older gap(s) not shown (--json lists all)",
        *(f"gap [{iso(fire - HOUR)}, {iso(fire)}): failed" for fire in newest),
    ]
    assert out.rstrip().endswith(
        "23 of 60 expected window(s) not processed (23 failed); 23 gap(s); none dropped by design"
    )


@pytest.mark.parametrize(
    ("refusal", "hint"),
    [(401, "no valid token: pass --token or --username/--password"), (403, "not allowed")],
    ids=["401", "403"],
)
def test_a_refusal_by_airflow_says_what_it_means(
    airflow: FakeAirflow, capsys: pytest.CaptureFixture[str], refusal: int, hint: str
) -> None:
    airflow.refuse = refusal
    status, out, err = run_audit(capsys)
    assert status == 1 and out == ""
    assert err == (
        f'hops-timetable: error: GET /hops/api/dags -> HTTP {refusal} ({hint}): {{"detail":"refused by the fake"}}\n'
    )


def test_no_dag_readable_is_said_with_the_address_asked(
    airflow: FakeAirflow, capsys: pytest.CaptureFixture[str]
) -> None:
    airflow.dags = []
    _, out, _ = run_audit(capsys)
    assert out == "no HopsworksTimetable DAGs readable on http://airflow.invalid\n"
