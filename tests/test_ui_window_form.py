"""The tab's "Run with time window" form: the window validated as conf["hops_window"] is, the one request it makes
(Airflow's REST API, as the caller), and the posts it refuses (no header, another site, no login)."""

from __future__ import annotations

import http.server
import json
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from hypothesis import given
from hypothesis import strategies as st

from hops_timetable.core.conf_window import CONF_KEY, HopsWindowError, parse_conf_window
from hops_timetable.core.coverage import RunRecord, run_window
from hops_timetable.ui import window_form
from hops_timetable.ui.window_form import (
    FORM_HEADER,
    FormRefused,
    TriggerRequest,
    airflow_api_root,
    answer_of,
    check_same_origin,
    credential,
    form_section,
    trigger_request,
    window_conf,
)

UTC = timezone.utc
FORM = {FORM_HEADER: "run-window", "Content-Type": "application/json"}


def body(value: object) -> bytes:
    return json.dumps(value).encode()


def refused(raw: bytes) -> FormRefused:
    with pytest.raises(FormRefused) as caught:
        window_conf(raw)
    return caught.value


# -- the window: the conf window's own validator, and the conf the run carries --------------------------------------


def test_a_valid_window_becomes_the_conf_the_tasks_read_in_their_own_form() -> None:
    conf = window_conf(body({"start_time": "2026-01-01T14:30:00.900+05:30", "end_time": "2026-01-01T10:00:00"}))
    assert conf == {CONF_KEY: {"start_time": "2026-01-01T09:00:00Z", "end_time": "2026-01-01T10:00:00Z"}}
    # The tasks read the stored conf with the same validator and get exactly these values.
    window = parse_conf_window(conf)
    assert window is not None
    assert window.as_env() == {
        "HOPS_START_TIME": "2026-01-01T09:00:00Z",
        "HOPS_END_TIME": "2026-01-01T10:00:00Z",
        "HOPS_LOGICAL_DATE": "2026-01-01T09:00:00Z",
    }
    with_logical = window_conf(
        body(
            {
                "start_time": "2026-01-01T09:00:00Z",
                "end_time": "2026-01-02T09:00:00Z",
                "logical_date": "2026-01-02T00:00:00Z",
            }
        )
    )
    assert with_logical[CONF_KEY]["logical_date"] == "2026-01-02T00:00:00Z"


@pytest.mark.parametrize(
    ("posted", "field"),
    [
        ({"start_time": "2026-01-01 09:00", "end_time": "2026-01-01T10:00:00Z"}, "start_time"),
        ({"start_time": "2026-01-01T09:00:00Z"}, "end_time"),
        ({"start_time": "2026-01-01T10:00:00Z", "end_time": "2026-01-01T09:00:00Z"}, "end_time"),
        ({"start_time": "2026-01-01T09:00:00Z", "end_time": "2026-01-01T10:00:00Z", "tz": "UTC"}, "tz"),
        ({"start_time": "2026-02-30T09:00:00Z", "end_time": "2026-03-01T10:00:00Z"}, "start_time"),
        ({"start_time": 1767258000, "end_time": "2026-01-01T10:00:00Z"}, "start_time"),
    ],
)
def test_each_refusal_names_the_field_its_value_and_what_would_be_valid(posted: dict[str, Any], field: str) -> None:
    error = refused(body(posted))
    assert error.status == 422
    (mine,) = [e for e in error.errors if e["field"] == field]
    # The validator's own words for the problem (what would be valid), after the field and the value as posted.
    with pytest.raises(HopsWindowError) as oracle:
        parse_conf_window({CONF_KEY: posted})
    (problem,) = [p for k, _, p in oracle.value.problems if field in k]
    assert mine["problem"] == problem and mine["message"].endswith(problem)
    assert any(word in problem for word in ("expected", "valid", "required", "after", "YYYY-MM-DD")), problem
    assert mine["message"].startswith(field)
    if field in posted:
        assert mine["message"].startswith(f"{field}={posted[field]!r} ")
    assert mine["message"] in error.message


def test_a_body_that_is_no_window_object_is_refused_saying_what_is_expected() -> None:
    assert "not a JSON window" in refused(b"start_time=2026-01-01").message
    assert "expected an object" in refused(body(["2026-01-01T09:00:00Z"])).message
    assert "larger than" in refused(body({"start_time": "x" * 5000})).message


texts = st.one_of(
    st.text(max_size=30),
    st.datetimes(min_value=datetime(999, 1, 1), max_value=datetime(9999, 1, 1)).map(datetime.isoformat),
    st.sampled_from(["2026-01-01T09:00:00Z", "2026-01-01T10:00:00+01:00", "2026-01-01T09:00:00.5"]),
)


@given(st.dictionaries(st.sampled_from(["start_time", "end_time", "logical_date", "x"]), texts, max_size=4))
def test_the_form_accepts_exactly_the_windows_the_tasks_accept(posted: dict[str, str]) -> None:
    try:
        expected = parse_conf_window({CONF_KEY: posted})
    except HopsWindowError as exc:
        with pytest.raises(FormRefused) as caught:
            window_conf(body(posted))
        assert [(e["field"], e["value"]) for e in caught.value.errors] == [
            (k.strip("[]\"'"), v) for k, v, _ in exc.problems
        ]
        return
    assert expected is not None
    assert parse_conf_window(window_conf(body(posted))) == expected


# -- the post: only the form's own page may make it --------------------------------------------------------------


OWN = ["http://airflow.example:8080", "https://airflow.example.com/airflow/"]


def test_a_post_without_the_forms_header_or_as_a_plain_form_is_refused() -> None:
    for headers in ({"Content-Type": "application/json"}, {FORM_HEADER: "1", "Content-Type": "text/plain"}):
        with pytest.raises(FormRefused) as caught:
            check_same_origin(headers, OWN)
        assert caught.value.status == 403
    with pytest.raises(FormRefused, match="header is missing"):
        check_same_origin({"Content-Type": "application/x-www-form-urlencoded"}, OWN)


@pytest.mark.parametrize(
    "extra",
    [
        {"Sec-Fetch-Site": "cross-site", "Origin": "http://airflow.example:8080"},
        {"Sec-Fetch-Site": "same-site"},
        {"Origin": "https://evil.example"},
        {"Origin": "http://airflow.example:8081"},
        {"Origin": "null"},
    ],
)
def test_a_post_from_another_site_is_refused_even_with_the_header(extra: dict[str, str]) -> None:
    with pytest.raises(FormRefused) as caught:
        check_same_origin({**FORM, **extra}, OWN)
    assert caught.value.status == 403


@pytest.mark.parametrize(
    "extra",
    [
        {"Origin": "http://airflow.example:8080", "Sec-Fetch-Site": "same-origin"},
        {"Origin": "https://AIRFLOW.example.com"},  # [api] base_url, its default port implied
        {"Origin": "https://airflow.example.com:443"},
        {},  # no browser: the client holds its own credential
    ],
)
def test_the_forms_own_page_and_non_browser_clients_pass(extra: dict[str, str]) -> None:
    check_same_origin({**FORM, **extra}, OWN)


# -- the request it makes -----------------------------------------------------------------------------------------


def test_the_callers_own_token_is_forwarded_the_header_before_the_cookie() -> None:
    assert credential({"authorization": "Bearer abc"}, {"_token": "cookie"}) == "abc"
    assert credential({"Authorization": "Basic abc"}, {"_token": "cookie"}) == "cookie"
    assert credential({}, {}) is None


def test_the_request_is_airflows_public_trigger_endpoint_with_the_window_as_conf() -> None:
    conf = {CONF_KEY: {"start_time": "2026-01-01T09:00:00Z", "end_time": "2026-01-01T10:00:00Z"}}
    call = trigger_request("http://127.0.0.1:8080/airflow", "a/b c", conf, "tok", "manual__hops_window_1")
    assert call.method == "POST"
    assert call.url == "http://127.0.0.1:8080/airflow/api/v2/dags/a%2Fb%20c/dagRuns"
    assert call.headers["Authorization"] == "Bearer tok"
    assert call.json["logical_date"] is None and call.json["conf"] == conf
    assert call.json["dag_run_id"] == "manual__hops_window_1"
    assert "tok" not in repr(call)
    assert "Authorization" not in trigger_request("http://h:1", "d", conf, None, "r").headers
    assert window_form.new_run_id() != window_form.new_run_id()


def test_the_api_root_is_the_socket_the_request_came_in_on_under_airflows_root_path() -> None:
    assert airflow_api_root(("127.0.0.1", 8080), "/hops", "/hops", False) == "http://127.0.0.1:8080"
    assert airflow_api_root(("::1", 443), "/airflow/hops", "/hops", True) == "https://[::1]:443/airflow"
    with pytest.raises(FormRefused):
        airflow_api_root(None, "/hops", "/hops", False)


def test_airflows_answer_is_the_run_made_or_its_own_refusal() -> None:
    call = TriggerRequest("POST", "u", {"dag_run_id": "r", "conf": {}}, {})
    assert answer_of(200, {"dag_run_id": "r", "state": "queued"}, call) == {"run_id": "r", "conf": {}}
    for status, words in ((403, "may not trigger"), (401, "not logged in"), (404, "no such DAG"), (409, "409")):
        with pytest.raises(FormRefused) as caught:
            answer_of(status, {"detail": "Forbidden"}, call)
        assert caught.value.status == status and words in caught.value.message
    with pytest.raises(FormRefused, match="bad conf"):
        answer_of(422, {"detail": [{"loc": ["body"], "msg": "bad conf"}]}, call)


# -- the HTML -----------------------------------------------------------------------------------------------------


def test_the_section_lists_the_newest_window_runs_escaped_with_the_forms_script_alone() -> None:
    start = datetime(2026, 1, 1, tzinfo=UTC)
    hostile = '<img src=x onerror="alert(1)">'
    runs = [
        run_window(
            RunRecord(
                f"{hostile}{i}",
                "manual",
                "success",
                start + timedelta(hours=i),
                conf={CONF_KEY: {"start_time": "2026-01-01T09:00:00Z", "end_time": "2026-01-01T10:00:00Z"}},
            ),
            None,
        )
        for i in range(12)
    ]
    runs.append(run_window(RunRecord("plain", "manual", "success", start), None))
    html = form_section(hostile, runs)
    assert "<img" not in html and "&lt;img" in html
    listed = [row.split('"')[0] for row in html.split('data-run-id="')[1:]]
    assert len(listed) == window_form.WINDOW_RUNS and "plain" not in html
    assert listed[0].endswith("11") and listed[-1].endswith("2")
    assert "2 older run(s)" in html
    assert html.count("<script") == 1 and f"<script>{window_form.SCRIPT}</script>" in html
    assert "</script" not in window_form.SCRIPT
    assert 'id="window-runs-none"' in form_section("d", [])


# -- the endpoint, in process, with Airflow's answer stood in for ------------------------------------------------


@pytest.fixture
def app_module() -> Any:
    from hops_timetable.ui import app

    return app


@pytest.fixture
def sent(app_module: Any, monkeypatch: pytest.MonkeyPatch) -> Iterator[list[tuple[TriggerRequest, Any]]]:
    calls: list[tuple[TriggerRequest, Any]] = []
    answers: dict[str, tuple[int, dict[str, Any]]] = {"ok": (200, {}), "viewer": (403, {"detail": "Forbidden"})}

    async def fake_send(call: TriggerRequest, tls: Any) -> tuple[int, Any]:
        calls.append((call, tls))
        who = call.headers.get("Authorization", "")
        if "busy" in who:  # Airflow failing after (busy-made) or before (busy-lost) it committed the run
            if call.method == "POST":
                return 500, {"detail": "Database error"}
            return (200, {}) if "made" in who else (404, {"detail": "not found"})
        status, payload = answers["viewer" if "viewer" in who else "ok"]
        return status, {**payload, "dag_run_id": call.json["dag_run_id"]} if status == 200 else payload

    async def fake_user() -> object:
        return object()

    monkeypatch.setattr(app_module, "_send", fake_send)
    monkeypatch.setattr(app_module._compat, "api_server_address", lambda: ("http://airflow.example:8080", None))
    app_module.app.dependency_overrides[app_module._user] = fake_user
    try:
        yield calls
    finally:
        app_module.app.dependency_overrides.clear()


WINDOW = {"start_time": "2026-01-01T09:00:00Z", "end_time": "2026-01-01T10:00:00Z"}


def client(app_module: Any, root_path: str = "") -> TestClient:
    parent = FastAPI(root_path=root_path)
    parent.mount("/hops", app_module.app)
    return TestClient(parent, base_url="http://airflow.example:8080")


def test_the_endpoint_makes_the_run_through_the_rest_api_as_the_caller(app_module: Any, sent: list[Any]) -> None:
    answer = client(app_module, "/airflow").post(
        "/airflow/hops/api/dags/etl/runs",
        json=WINDOW,
        headers={FORM_HEADER: "1", "Authorization": "Bearer admin-token", "Origin": "http://airflow.example:8080"},
    )
    assert answer.status_code == 201, answer.text
    ((call, tls),) = sent
    assert answer.json() == {"run_id": call.json["dag_run_id"], "conf": {CONF_KEY: WINDOW}}
    # The socket the request came in on (the test client's is its base URL's); Airflow's root path kept, the tab's own
    # prefix dropped.
    assert call.url == "http://airflow.example:8080/airflow/api/v2/dags/etl/dagRuns" and tls is None
    assert call.headers["Authorization"] == "Bearer admin-token"


def test_the_endpoint_passes_airflows_403_on_and_refuses_bad_windows_and_other_sites(
    app_module: Any, sent: list[Any]
) -> None:
    hops = client(app_module)
    denied = hops.post("/hops/api/dags/etl/runs", json=WINDOW, headers={FORM_HEADER: "1", "Cookie": "_token=viewer"})
    assert denied.status_code == 403 and "may not trigger" in denied.json()["message"]
    bad = hops.post("/hops/api/dags/etl/runs", json={"start_time": "soon"}, headers={FORM_HEADER: "1"})
    assert bad.status_code == 422
    assert {e["field"] for e in bad.json()["errors"]} == {"start_time", "end_time"}
    forged = hops.post(
        "/hops/api/dags/etl/runs", content="start_time=x", headers={"Content-Type": "text/plain", "Origin": "http://e"}
    )
    assert forged.status_code == 403
    other = hops.post("/hops/api/dags/etl/runs", json=WINDOW, headers={FORM_HEADER: "1", "Origin": "https://e.org"})
    assert other.status_code == 403
    huge = hops.post("/hops/api/dags/etl/runs", content=b"{" * 10_000, headers=FORM)
    assert huge.status_code == 413
    # Only the denied one reached Airflow (which made no run); the others stopped here.
    assert len(sent) == 1


def test_a_failed_call_counts_as_made_when_airflow_has_the_run_and_never_makes_a_second(
    app_module: Any, sent: list[tuple[TriggerRequest, Any]]
) -> None:
    hops = client(app_module)
    made = hops.post("/hops/api/dags/etl/runs", json=WINDOW, headers={**FORM, "Authorization": "Bearer busy-made"})
    assert made.status_code == 201, made.text
    (post, _), (get, _) = sent
    assert (post.method, get.method) == ("POST", "GET") and get.json == {}
    assert get.url == f"{post.url}/{post.json['dag_run_id']}" and made.json()["run_id"] == post.json["dag_run_id"]
    lost = hops.post("/hops/api/dags/etl/runs", json=WINDOW, headers={**FORM, "Authorization": "Bearer busy-lost"})
    assert lost.status_code == 500 and "Database error" in lost.json()["message"]
    assert [c.method for c, _ in sent] == ["POST", "GET", "POST", "GET"]


def test_the_endpoint_answers_401_without_a_credential_before_reading_the_post(app_module: Any) -> None:
    answer = client(app_module).post("/hops/api/dags/etl/runs", json=WINDOW, headers={FORM_HEADER: "1"})
    assert answer.status_code == 401


# -- TLS: the api-server's own certificate, trusted on the address the post came in on ----------------------------


def _self_signed(folder: Path, name: str, ca: bool) -> tuple[Path, Path]:
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
    now = datetime.now(UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - timedelta(days=1))
        .not_valid_after(now + timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName([x509.DNSName(name)]), critical=False)
        .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = folder / f"{name}.crt", folder / f"{name}.key"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    return cert_path, key_path


class _NoContent(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.send_response(204)
        self.end_headers()

    def log_message(self, format: str, *args: Any) -> None:
        pass


# ca=False: a certificate a CA issued (a leaf) is trusted all the same, as the one certificate of the trust store.
@pytest.mark.parametrize("ca", [True, False])
def test_with_ssl_cert_the_call_trusts_exactly_the_api_servers_certificate_on_its_socket_address(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, ca: bool
) -> None:
    import ssl
    import threading

    import httpx

    from hops_timetable import _compat

    mine, key = _self_signed(tmp_path, "airflow.example", ca)  # a name the socket address 127.0.0.1 is not
    other, _ = _self_signed(tmp_path, "other.example", ca)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _NoContent)
    served = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    served.load_cert_chain(mine, key)
    server.socket = served.wrap_socket(server.socket, server_side=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"https://127.0.0.1:{server.server_address[1]}/"
    try:
        monkeypatch.setenv("AIRFLOW__API__SSL_CERT", str(mine))
        monkeypatch.setenv("AIRFLOW__API__BASE_URL", "https://airflow.example/")
        base_url, context = _compat.api_server_address()
        assert base_url == "https://airflow.example/" and context is not None
        assert httpx.get(url, verify=context).status_code == 204
        with pytest.raises(httpx.ConnectError):  # the default trust store knows no self-signed certificate
            httpx.get(url)
        monkeypatch.setenv("AIRFLOW__API__SSL_CERT", str(other))
        _, trusting_other = _compat.api_server_address()
        assert trusting_other is not None
        with pytest.raises(httpx.ConnectError):  # another certificate is not this api-server's
            httpx.get(url, verify=trusting_other)
        monkeypatch.setenv("AIRFLOW__API__SSL_CERT", "")
        assert _compat.api_server_address()[1] is None
    finally:
        server.shutdown()
        server.server_close()
