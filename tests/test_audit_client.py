"""``audit``'s REST client: which refusals of a busy database it retries, and which errors it reports at once.

The answers are the shapes Airflow's API server gives (its backfill route's 503 for a locked SQLite database, its
generic SQLAlchemy handler's 500); the end-to-end suite runs the same client against a real Airflow.
"""

from __future__ import annotations

from collections.abc import Callable

import httpx
import pytest

from hops_timetable.cli import audit
from hops_timetable.cli.audit import AuditError, Client

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
    monkeypatch.setattr(audit.time, "sleep", lambda seconds: None)


@pytest.mark.parametrize("busy", [LOCKED, DATABASE_ERROR], ids=["503 locked", "500 database error"])
def test_a_busy_database_is_asked_again_with_the_same_request(busy: httpx.Response) -> None:
    client, seen = client_answering([busy, busy, OK])
    assert client.request("POST", "/api/v2/backfills", json={"dag_id": "d"}) == {"id": 7}
    assert len(seen) == 3 and {r.content for r in seen} == {b'{"dag_id":"d"}'}


def test_a_database_that_stays_busy_is_reported_with_airflows_answer() -> None:
    client, seen = client_answering([LOCKED] * (len(audit._BUSY_RETRY_SECONDS) + 1))
    with pytest.raises(AuditError, match=r"POST /api/v2/backfills -> HTTP 503: .*Database is locked") as caught:
        client.request("POST", "/api/v2/backfills", json={})
    assert caught.value.status == 503 and len(seen) == len(audit._BUSY_RETRY_SECONDS) + 1


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
