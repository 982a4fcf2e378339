"""``audit``'s REST client: which refusals of a busy database it retries, which errors it reports at once, and how
a write whose outcome a bare 5xx leaves unknown is checked before it is sent again.

The answers are the shapes Airflow's API server gives (its backfill route's 503 for a locked SQLite database, its
generic SQLAlchemy handler's 500); the end-to-end suite runs the same client against a real Airflow.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime, timedelta, timezone

import httpx
import pytest

from hops_timetable.cli import audit_client, audit_repair
from hops_timetable.cli.audit_client import AuditError, Client
from hops_timetable.cli.audit_repair import apply_step, manual_run
from hops_timetable.core.catchup import CatchupPolicy
from hops_timetable.core.coverage import RunRecord, coverage
from hops_timetable.core.cron import QuartzCron
from hops_timetable.core.repair import RepairKind, RepairStep, plan_repair

LOCKED = httpx.Response(503, json={"detail": "Database is locked. Backfill creation is not supported on SQLite"})
DATABASE_ERROR = httpx.Response(
    500, json={"detail": {"reason": "Database error", "statement": "hidden", "orig_error": "hidden", "message": "x"}}
)
OK = httpx.Response(200, json={"id": 7})


def client_answering(answers: list[httpx.Response]) -> tuple[Client, list[httpx.Request]]:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return answers.pop(0)

    client = Client("http://airflow.invalid", "token")
    client.http = httpx.Client(base_url="http://airflow.invalid", transport=httpx.MockTransport(handler))
    return client, seen


@pytest.fixture(autouse=True)
def no_waiting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("time.sleep", lambda seconds: None)


@pytest.mark.parametrize("busy", [LOCKED, DATABASE_ERROR], ids=["503 locked", "500 database error"])
def test_a_busy_database_is_asked_again_with_the_same_request(busy: httpx.Response) -> None:
    client, seen = client_answering([busy, busy, OK])
    assert client.request("POST", "/api/v2/backfills", json={"dag_id": "d"}) == {"id": 7}
    assert len(seen) == 3 and {r.content for r in seen} == {b'{"dag_id":"d"}'}


def test_a_database_that_stays_busy_is_reported_with_airflows_answer() -> None:
    client, seen = client_answering([LOCKED] * (len(audit_client._BUSY_RETRY_SECONDS) + 1))
    with pytest.raises(AuditError, match=r"POST /api/v2/backfills -> HTTP 503: .*Database is locked") as caught:
        client.request("POST", "/api/v2/backfills", json={})
    assert caught.value.status == 503 and len(seen) == len(audit_client._BUSY_RETRY_SECONDS) + 1


@pytest.mark.parametrize(
    "answer",
    [
        lambda: httpx.Response(500, text="Internal Server Error"),
        lambda: httpx.Response(500, json={"detail": "An error occurred while trying to deserialize Dag"}),
        lambda: httpx.Response(503, text="Service Unavailable"),
        lambda: httpx.Response(409, json={"detail": "There is already a running backfill for dag d"}),
        lambda: httpx.Response(422, json={"detail": [{"msg": "bad"}]}),
    ],
    ids=["500 text", "500 other detail", "503 not locked", "409", "422"],
)
def test_other_errors_are_reported_at_once(answer: Callable[[], httpx.Response]) -> None:
    response = answer()
    client, seen = client_answering([response])
    with pytest.raises(AuditError) as caught:
        client.request("POST", "/api/v2/backfills", json={})
    assert caught.value.status == response.status_code and len(seen) == 1


# -- writes whose outcome a bare 5xx leaves unknown ------------------------------------------------------------------

UTC = timezone.utc
START = datetime(2026, 1, 1, tzinfo=UTC)
BARE_500 = httpx.Response(500, text="Internal Server Error")


def at(hour: int) -> datetime:
    return START + timedelta(hours=hour)


def gap_of_two_hours() -> RepairStep:
    """The plan for an hourly DAG that ran 01:00 and 04:00: one backfill of the fires 02:00 and 03:00."""
    runs = [
        RunRecord(f"scheduled__{h}", "scheduled", "success", at(h), at(h - 1), at(h - 1), at(h), at(h)) for h in (1, 4)
    ]
    cov = coverage(CatchupPolicy(QuartzCron("0 0 * ? * * *"), start=START), True, None, runs, at(4))
    (step,) = plan_repair(cov, runs)
    assert step.kind is RepairKind.BACKFILL and [f.fire for f in step.fires] == [at(2), at(3)]
    return step


def backfills(*items: dict[str, object]) -> httpx.Response:
    return httpx.Response(200, json={"backfills": list(items), "total_entries": len(items)})


def runs_page(*logical_hours: int) -> httpx.Response:
    items = [
        {
            "dag_run_id": f"backfill__{h}",
            "run_type": "backfill",
            "state": "queued",
            "run_after": at(h + 1).isoformat(),
            "logical_date": at(h).isoformat(),
            "data_interval_start": at(h).isoformat(),
            "data_interval_end": at(h + 1).isoformat(),
        }
        for h in logical_hours
    ]
    return httpx.Response(200, json={"dag_runs": items, "total_entries": len(items)})


def routes(seen: list[httpx.Request]) -> list[str]:
    return [f"{r.method} {r.url.path}" for r in seen]


def test_a_backfill_that_failed_before_airflow_wrote_it_is_sent_again() -> None:
    client, seen = client_answering([BARE_500, backfills(), OK])
    assert apply_step(client, "d", gap_of_two_hours()) == "backfill 7"
    assert routes(seen) == ["POST /api/v2/backfills", "GET /api/v2/backfills", "POST /api/v2/backfills"]


def test_a_backfill_airflow_made_before_failing_is_kept_and_only_its_missing_runs_get_conf_runs() -> None:
    # Airflow committed the backfill row and the run of logical date 01:00, then failed on the run of 02:00.
    made = {"id": 9, "from_date": at(1).isoformat(), "to_date": at(2).isoformat(), "completed_at": None}
    finished = {**made, "id": 8, "completed_at": at(0).isoformat()}
    created = httpx.Response(200, json={"dag_run_id": "x"})
    client, seen = client_answering([BARE_500, backfills(made, finished), runs_page(1), created])
    applied = apply_step(client, "d", gap_of_two_hours())
    assert applied.startswith("backfill 9, manual__hops_repair_")
    assert routes(seen)[-1] == "POST /api/v2/dags/d/dagRuns"
    conf = json.loads(seen[-1].content)["conf"]["hops_window"]
    assert conf == {"start_time": "2026-01-01T02:00:00Z", "end_time": "2026-01-01T03:00:00Z"}


def test_a_manual_run_airflow_made_before_failing_is_not_made_twice() -> None:
    step = gap_of_two_hours()
    client, seen = client_answering([BARE_500, httpx.Response(200, json={"dag_run_id": "x"})])
    run_id = manual_run(client, "d", step.fires[0])
    assert routes(seen) == ["POST /api/v2/dags/d/dagRuns", f"GET /api/v2/dags/d/dagRuns/{run_id}"]


def test_a_manual_run_airflow_did_not_make_is_sent_again_with_the_same_run_id() -> None:
    step = gap_of_two_hours()
    missing = httpx.Response(404, json={"detail": "not found"})
    client, seen = client_answering([BARE_500, missing, OK])
    manual_run(client, "d", step.fires[0])
    posts = [r for r in seen if r.method == "POST"]
    assert len(posts) == 2 and posts[0].content == posts[1].content


def test_a_write_that_keeps_failing_is_reported() -> None:
    # Each failure is followed by asking Airflow whether it made the backfill (the last one too): it never did.
    client, seen = client_answering([BARE_500, backfills()] * (len(audit_repair._UNKNOWN_OUTCOME_RETRIES) + 1))
    with pytest.raises(AuditError, match="HTTP 500") as caught:
        apply_step(client, "d", gap_of_two_hours())
    assert caught.value.status == 500 and routes(seen).count("POST /api/v2/backfills") == 3
    assert routes(seen).count("GET /api/v2/backfills") == 3


def test_credentials_are_optional_for_an_airflow_that_needs_no_login() -> None:
    from hops_timetable.cli.audit_client import Client
    from hops_timetable.cli.errors import BadInput

    assert "Authorization" not in Client.connect("http://airflow.invalid").http.headers
    assert Client.connect("http://airflow.invalid", token="t").http.headers["Authorization"] == "Bearer t"
    with pytest.raises(BadInput, match="--username is given without --password"):
        Client.connect("http://airflow.invalid", username="admin")
    with pytest.raises(BadInput, match="--api 'not a url' is not an Airflow address"):
        Client.connect("not a url")


def test_a_username_and_password_are_exchanged_for_a_token_at_auth_token(monkeypatch: pytest.MonkeyPatch) -> None:
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    from hops_timetable.cli.errors import BadInput

    for name in (audit_client.TOKEN_ENV, audit_client.USERNAME_ENV, audit_client.PASSWORD_ENV):
        monkeypatch.delenv(name, raising=False)

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            sent = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            status, body = {
                ("admin", "pw"): (201, {"access_token": "tok"}),
                ("viewer", "pw"): (201, {"token_type": "bearer"}),
            }.get((sent["username"], sent["password"]), (401, {"detail": "Invalid credentials"}))
            answer = json.dumps(body).encode() if self.path == "/auth/token" else b"{}"
            self.send_response(status if self.path == "/auth/token" else 404)
            self.send_header("Content-Length", str(len(answer)))
            self.end_headers()
            self.wfile.write(answer)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    api = f"http://127.0.0.1:{server.server_address[1]}/"
    try:
        client = Client.connect(api, username="admin", password="pw")
        assert client.http.headers["Authorization"] == "Bearer tok"
        with pytest.raises(AuditError, match=r"login as 'admin' at http://127.0.0.1:\d+//auth/token: HTTP 401"):
            Client.connect(api, username="admin", password="wrong")
        with pytest.raises(AuditError, match="/auth/token answered without an access_token"):
            Client.connect(api, username="viewer", password="pw")
        with pytest.raises(BadInput, match="--password is given without --username"):
            Client.connect(api, password="pw")
    finally:
        server.shutdown()
        server.server_close()
    with pytest.raises(AuditError, match=r"cannot reach http://127\.0\.0\.1"):
        Client.connect(api, username="admin", password="pw")


def test_runs_are_read_from_the_plugin_a_page_at_a_time_else_from_airflows_rest_api() -> None:
    run = {
        "dag_run_id": "scheduled__1",
        "run_type": "scheduled",
        "state": "success",
        "run_after": "2026-01-01T01:00:00Z",
    }
    first = httpx.Response(200, json={"dag_runs": [run], "next": 7})
    last = httpx.Response(200, json={"dag_runs": [{**run, "dag_run_id": "scheduled__2"}], "next": None})
    client, seen = client_answering([first, last])
    pages = list(client.run_pages("d"))
    assert [[r.run_id for r in page] for page in pages] == [["scheduled__1"], ["scheduled__2"]]
    assert [str(r.url) for r in seen] == [
        "http://airflow.invalid/hops/api/dags/d/runs?after=0",
        "http://airflow.invalid/hops/api/dags/d/runs?after=7",
    ]
    # A plugin without the route (404, or 405 beside the form's POST): Airflow's REST API, by offset.
    older = httpx.Response(405, json={"detail": "Method Not Allowed"})
    rest = httpx.Response(200, json={"dag_runs": [run], "total_entries": 1})
    client, seen = client_answering([older, rest])
    assert [r.run_id for page in client.run_pages("d") for r in page] == ["scheduled__1"]
    assert routes(seen) == ["GET /hops/api/dags/d/runs", "GET /api/v2/dags/d/dagRuns"]
    # A page that does not move on stops the reading.
    client, _ = client_answering([httpx.Response(200, json={"dag_runs": [run], "next": 0})])
    with pytest.raises(AuditError, match="next=0, expected a row id past 0"):
        list(client.run_pages("d"))


def test_the_timeout_given_is_how_long_each_answer_is_waited_for(capsys: pytest.CaptureFixture[str]) -> None:
    """``audit --timeout``: an Airflow that accepts the connection and never answers is reported as timed out after
    the seconds given (on SQLite a write first waits for the database's busy timeout, which may exceed the default)."""
    import socket
    import threading

    from hops_timetable.cli import main

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    held: list[socket.socket] = []
    threading.Thread(target=lambda: held.append(listener.accept()[0]), daemon=True).start()
    api = f"http://127.0.0.1:{listener.getsockname()[1]}"
    try:
        assert Client.connect(api, token="t", timeout=0.25).http.timeout.read == 0.25
        assert main(["audit", "--api", api, "--token", "t", "--timeout", "0.25"]) == 1
        assert "timed out" in capsys.readouterr().err
    finally:
        for connection in [*held, listener]:
            connection.close()
    for bad in ("0", "-1", "3601", "nan"):
        assert main(["audit", "--api", api, "--token", "t", "--timeout", bad]) == 2
        assert f"--timeout {float(bad):g} is invalid: give seconds above 0 and at most 3600" in capsys.readouterr().err
