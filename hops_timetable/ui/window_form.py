"""The tab's "Run with time window" form: a manual run carrying ``conf["hops_window"]``, made by Airflow's REST API.

Hopsworks lets a user run a job on a chosen window (``job.run(start_time=..., end_time=...)``); this is that, in the
DAG's Hopsworks tab. The form (:func:`form_section`, with its few lines of inline :data:`SCRIPT`) posts the window
as JSON to ``POST <root>/hops/api/dags/{dag_id}/runs``; the handler (``ui/app.py``) then

1. authenticates the caller as every route of the tab does (401 without a credential);
2. refuses a request a cross-site page could have made (:func:`check_same_origin`, 403);
3. validates the window with the one validator of conf windows, :func:`~hops_timetable.core.conf_window.
   parse_conf_window` (:func:`window_conf`, 422 naming each field, its value and what would be valid);
4. asks Airflow's public REST API, ``POST /api/v2/dags/{dag_id}/dagRuns``, for the run, with the caller's own
   credential (:func:`trigger_request`): Airflow's auth manager decides whether this user may trigger the DAG (its
   403 and 404 are passed on as they come, and no run is made), Airflow's audit log records the user, and the run
   is an ordinary manual run. The plugin never writes a run itself.

No Airflow import here: the adapter in ``ui/app.py`` sends the request this module describes.
"""

from __future__ import annotations

import secrets
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from html import escape
from typing import Any, Final
from urllib.parse import quote, urlsplit

from hops_timetable.core.conf_window import CONF_KEY, WINDOW_KEYS, HopsWindowError, parse_conf_window
from hops_timetable.core.coverage import RunWindow
from hops_timetable.core.json_input import load_json
from hops_timetable.core.validation import HopsTimetableError, short_repr
from hops_timetable.core.window import format_hops_time

__all__ = [
    "FORM_HEADER",
    "MAX_BODY",
    "SCRIPT",
    "FormRefused",
    "TriggerRequest",
    "airflow_api_root",
    "answer_of",
    "check_same_origin",
    "credential",
    "form_section",
    "lookup_request",
    "new_run_id",
    "trigger_request",
    "window_conf",
]

FORM_HEADER: Final = "X-Hops-Form"
"""The header the form's script sends with every post. A page of another site cannot send it (see
:func:`check_same_origin`)."""

MAX_BODY: Final = 4096
"""The largest body read: a window is three date-times of at most 64 characters each."""

WINDOW_RUNS: Final = 10
"""Runs with a time window listed under the form (the newest)."""

RUN_ID_PREFIX: Final = "manual__hops_window_"
"""The run ids the form gives its runs: Airflow's manual prefix, then a random part (two posts never collide)."""

# Airflow's session cookie: the UI's JWT, read by the REST API when no Authorization header is sent.
_SESSION_COOKIE: Final = "_token"


class FormRefused(HopsTimetableError):
    """A post the form's endpoint answers with an error: its HTTP *status*, one line, and the bad fields."""

    def __init__(self, status: int, message: str, errors: Sequence[Mapping[str, Any]] = ()) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.errors = list(errors)

    def payload(self) -> dict[str, Any]:
        return {"status": self.status, "message": self.message, "errors": self.errors}


def _netloc(url: str) -> str | None:
    """``host[:port]`` of *url*, lowercased and without the scheme's default port; ``None`` if it has none."""
    try:
        parts = urlsplit(url)
        host, port = parts.hostname, parts.port
    except ValueError:
        return None
    if not host:
        return None
    shown = f"[{host}]" if ":" in host else host
    default = {"http": 80, "https": 443}.get(parts.scheme)
    return shown if port is None or port == default else f"{shown}:{port}"


def check_same_origin(headers: Mapping[str, str], own_urls: Collection[str]) -> None:
    """Refuse (403) a post that a page of another site could have made with the user's session cookie.

    Why a header and not a per-session token: Airflow's session is a signed JWT in a cookie, with no server-side
    session to keep a CSRF token in, and a token derived from the JWT would have to be signed with a secret of our
    own. Instead the form's script posts ``application/json`` with the :data:`FORM_HEADER` header. A plain HTML
    form of another site can send neither; its script can send them only after a CORS preflight, which the
    api-server answers only for the origins an administrator lists in ``[api] access_control_allow_origins``.
    Because such a list may exist, two checks stop a listed foreign origin as well: the browser's own
    ``Sec-Fetch-Site`` (which a page cannot set) must say ``same-origin`` when it is sent, and ``Origin``, when
    sent, must be one of *own_urls* (what this server is reached as: its Host, a proxy's X-Forwarded-Host,
    ``[api] base_url``). Browsers send at least ``Origin`` with every post; a client without either is not a
    browser, so it holds its credential itself and cannot be made to replay someone else's.
    """
    lowered = {key.lower(): value for key, value in headers.items()}
    if not lowered.get(FORM_HEADER.lower()):
        raise FormRefused(
            403,
            f"the {FORM_HEADER} header is missing: runs are made by the Hopsworks tab's form (its script sends it), "
            "never by a plain form post, which another site could forge",
        )
    media = lowered.get("content-type", "").split(";")[0].strip().lower()
    if media != "application/json":
        raise FormRefused(403, f"content-type {short_repr(media)} is refused; the form posts application/json")
    site = lowered.get("sec-fetch-site")
    if site is not None and site != "same-origin":
        raise FormRefused(403, f"Sec-Fetch-Site {short_repr(site)}: the form accepts posts from its own page only")
    origin = lowered.get("origin")
    if origin is not None:
        own = {n for n in (_netloc(u) for u in own_urls) if n is not None}
        if _netloc(origin) not in own:
            raise FormRefused(403, f"Origin {short_repr(origin)} is not this Airflow: the form posts from its own page")


def _field(key: str) -> str:
    """``start_time`` of the validator's key ``["start_time"]``."""
    return key.strip("[]\"'")


def window_conf(raw: bytes) -> dict[str, Any]:
    """The run's ``conf`` for the posted body: ``{"hops_window": {...}}`` in the canonical form, or 422.

    The body is the window itself, in the shape ``conf["hops_window"]`` takes (``start_time``, ``end_time``,
    optionally ``logical_date``), checked by :func:`parse_conf_window`, the validator the tasks apply to the run: a
    window accepted here is the window the tasks get. The conf carries the values as the tasks will see them
    (whole seconds, UTC), never the typed text.
    """
    try:
        text = raw.decode("utf-8")
        body = load_json(text, "the form's body", max_chars=MAX_BODY)
    except (UnicodeDecodeError, ValueError) as exc:
        raise FormRefused(422, f"the body is not a JSON window: {exc}") from None
    try:
        window = parse_conf_window({CONF_KEY: body})
    except HopsWindowError as exc:
        given = body if isinstance(body, Mapping) else {}
        errors: list[dict[str, Any]] = [
            {
                "field": _field(key),
                "value": value,
                "problem": problem,
                # A missing field has no value to quote.
                "message": f"{_field(key) or 'the window'}"
                + (f"={short_repr(value)} " if _field(key) in given or not _field(key) else " ")
                + problem,
            }
            for key, value, problem in exc.problems
        ]
        raise FormRefused(422, "; ".join(str(e["message"]) for e in errors), errors) from None
    assert window is not None and isinstance(body, Mapping)
    values = {"start_time": window.start, "end_time": window.end, "logical_date": window.logical_date}
    return {CONF_KEY: {key: format_hops_time(values[key]) for key in WINDOW_KEYS if key in body}}


def credential(headers: Mapping[str, str], cookies: Mapping[str, str]) -> str | None:
    """The caller's own token, as Airflow's REST API picks it: the ``Authorization: Bearer`` header, else the UI's
    session cookie."""
    for key, value in headers.items():
        if key.lower() == "authorization":
            scheme, _, token = value.partition(" ")
            if scheme.lower() == "bearer" and token.strip():
                return token.strip()
    return cookies.get(_SESSION_COOKIE) or None


def airflow_api_root(server: tuple[str, int] | None, root_path: str, mount: str, tls: bool) -> str:
    """The URL of Airflow's api-server as this request reached it: the socket it came in on, Airflow's root path.

    The socket's own address, not the URL the browser used: behind a proxy or an ingress that URL may not resolve
    from the api-server, and the request must reach this same Airflow. *root_path* is the app's mount point
    (``/hops``, or ``/airflow/hops`` under ``[api] base_url``'s path), *mount* the app's own prefix.
    """
    if server is None:
        raise FormRefused(502, "the api-server listens on no TCP address here, so the run cannot be made through it")
    host, port = server
    shown = f"[{host}]" if ":" in host else host
    root = root_path.removesuffix(mount).rstrip("/")
    return f"{'https' if tls else 'http'}://{shown}:{port}{root}"


@dataclass(frozen=True)
class TriggerRequest:
    """The one request the form's endpoint sends: Airflow's ``POST /api/v2/dags/{dag_id}/dagRuns``."""

    method: str
    url: str
    json: dict[str, Any]
    headers: dict[str, str] = field(repr=False)  # the caller's token: kept out of logs and reprs


def new_run_id() -> str:
    return RUN_ID_PREFIX + secrets.token_hex(6)


def trigger_request(api_root: str, dag_id: str, conf: dict[str, Any], token: str | None, run_id: str) -> TriggerRequest:
    """The REST API call that makes the run, as the caller: their token, or none (Airflow then answers 401).

    ``logical_date`` is null (Airflow requires the key in every 3.x): a run with a window is no run of the
    schedule, so it never takes a scheduled run's logical date. The run id is the form's own, so that Airflow 3.0,
    which would name a run without a logical date ``scheduled__...``, names it as every later minor does.
    """
    window = conf[CONF_KEY]
    headers = {"Accept": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    return TriggerRequest(
        "POST",
        f"{api_root}/api/v2/dags/{quote(dag_id, safe='')}/dagRuns",
        {
            "dag_run_id": run_id,
            "logical_date": None,
            "conf": conf,
            "note": f"Run with time window [{window['start_time']}, {window['end_time']}) from the Hopsworks tab",
        },
        headers,
    )


def lookup_request(call: TriggerRequest) -> TriggerRequest:
    """Airflow's ``GET`` of the run *call* asks for: whether a call that failed made the run all the same.

    Airflow's REST API can commit the run and then fail (a busy SQLite refusing the audit log's row); the run id is
    the form's own, so asking for it tells a run made from none, rather than report a failure the user would repeat.
    """
    return TriggerRequest("GET", f"{call.url}/{quote(call.json['dag_run_id'], safe='')}", {}, call.headers)


def answer_of(status: int, body: object, request: TriggerRequest) -> dict[str, Any]:
    """What the form shows for Airflow's answer: the run made (201), or Airflow's refusal with its own status."""
    if status in (200, 201) and isinstance(body, Mapping):
        return {"run_id": body.get("dag_run_id", request.json["dag_run_id"]), "conf": request.json["conf"]}
    detail = body.get("detail") if isinstance(body, Mapping) else None
    if isinstance(detail, list):  # a validation error: a list of {"loc", "msg"}
        detail = "; ".join(str(item.get("msg", item)) if isinstance(item, Mapping) else str(item) for item in detail)
    what = {401: "you are not logged in", 403: "you may not trigger this DAG", 404: "no such DAG"}.get(status, "")
    shown = short_repr(detail, 300) if detail is not None else f"HTTP {status}"
    raise FormRefused(status, f"Airflow refused the run ({status}{': ' + what if what else ''}): {shown}")


def _run_link(dag_id: str, run_id: str) -> str:
    # Relative to the tab's page <root>/hops/dags/<dag_id>, as the tab's own run links: the run's Hopsworks page.
    href = f"{quote(dag_id, safe='')}/runs/{quote(run_id, safe='')}"
    return f'<a href="{escape(href)}">{escape(run_id)}</a>'


def _window_runs(dag_id: str, runs: Sequence[RunWindow]) -> str:
    mine = sorted((r for r in runs if r.source == "conf"), key=lambda r: r.run.run_after, reverse=True)
    if not mine:
        return '<p id="window-runs-none" class="note">No run with a time window yet.</p>'
    rows = []
    for item in mine[:WINDOW_RUNS]:
        if item.window is None:
            values = f'<td colspan="3">none: {escape(item.error or "no window")}</td>'
        else:
            values = "".join(f'<td class="mono">{escape(v)}</td>' for v in item.window.as_env().values())
        rows.append(
            f'<tr data-run-id="{escape(item.run.run_id)}"><td>{_run_link(dag_id, item.run.run_id)}</td>'
            f'<td class="mono">{escape(format_hops_time(item.run.run_after))}</td><td>{escape(item.run.state)}</td>'
            f"{values}</tr>"
        )
    more = len(mine) - WINDOW_RUNS
    tail = f"<p>{more:,} older run(s) with a time window not listed here.</p>" if more > 0 else ""
    return (
        '<div class="scroll"><table id="window-runs"><tr><th>run</th><th>triggered</th><th>state</th>'
        f"<th>HOPS_START_TIME</th><th>HOPS_END_TIME</th><th>HOPS_LOGICAL_DATE</th></tr>{''.join(rows)}</table></div>"
        f"{tail}"
    )


def form_section(dag_id: str, runs: Sequence[RunWindow]) -> str:
    """The form, and the newest runs made with a window (from the form, the REST API or the Trigger form).

    Every value escaped; the script is inline, as the page's colour-mode script is: the page fetches nothing.
    """
    endpoint = f"../api/dags/{quote(dag_id, safe='')}/runs"
    fields = "".join(
        f'<label for="hops-{name}">{label} (UTC)</label> '
        f'<input id="hops-{name}" name="{name}" type="text" class="mono" size="24" autocomplete="off" '
        f'spellcheck="false" placeholder="{example}" aria-describedby="hops-{name}-error"> '
        f'<span class="t-failed" id="hops-{name}-error" role="status"></span><br>'
        for name, label, example in (
            ("start_time", "Start", "2026-01-01T09:00:00Z"),
            ("end_time", "End", "2026-01-01T10:00:00Z"),
        )
    )
    return (
        '<h2 id="run-with-window">Run with time window</h2>'
        '<p class="note">A manual run whose tasks get HOPS_START_TIME = start, HOPS_END_TIME = end and '
        "HOPS_LOGICAL_DATE = start, as Hopsworks' job.run(start_time=..., end_time=...). Times as "
        "YYYY-MM-DDTHH:MM:SS, UTC unless they carry an offset; the run is made by Airflow's REST API with your own "
        "login, so it needs the permission to trigger this DAG.</p>"
        f'<form id="window-form" data-endpoint="{escape(endpoint)}">{fields}'
        '<button type="submit" id="window-form-submit">Run with this window</button></form>'
        '<p id="window-form-status" role="alert" hidden></p>'
        f"{_window_runs(dag_id, runs)}<script>{SCRIPT}</script>"
    )


SCRIPT: Final = """\
// The Hopsworks tab's "Run with time window" form. It posts the window as JSON with the X-Hops-Form header, which
// the server requires (a page of another site cannot send it), then reloads the tab, which lists the new run.
(function () {
  "use strict";
  var form = document.getElementById("window-form");
  var status = document.getElementById("window-form-status");
  if (!form || !status) { return; }
  var names = ["start_time", "end_time"];
  function show(text, ok) {
    status.textContent = text;
    status.className = "verdict " + (ok ? "ok" : "bad");
    status.hidden = false;
  }
  // After a run is made the tab reloads with #made=<run id>: the message only when the tab lists that run, so that a
  // crafted link cannot announce a run that does not exist.
  var made = /^#made=(.+)$/.exec(window.location.hash);
  var id = null;
  try { id = made ? decodeURIComponent(made[1]) : null; } catch (ignored) { id = null; }
  var rows = document.querySelectorAll("#window-runs tr[data-run-id]");
  for (var i = 0; id !== null && i < rows.length; i++) {
    if (rows[i].getAttribute("data-run-id") === id) {
      rows[i].className = "new status";
      show("Run " + id + " created with your window; it is listed below.", true);
    }
  }
  form.addEventListener("submit", function (event) {
    event.preventDefault();
    var body = {};
    names.forEach(function (name) {
      var input = form.elements[name];
      input.removeAttribute("aria-invalid");
      document.getElementById("hops-" + name + "-error").textContent = "";
      // An empty field is left out, so that the window's validation names it as missing.
      if (input.value !== "") { body[name] = input.value; }
    });
    var button = document.getElementById("window-form-submit");
    button.disabled = true;
    fetch(form.getAttribute("data-endpoint"), {
      method: "POST",
      credentials: "same-origin",
      headers: {"Content-Type": "application/json", "X-Hops-Form": "run-window"},
      body: JSON.stringify(body)
    }).then(function (response) {
      return response.json().catch(function () { return {}; }).then(function (data) {
        return {status: response.status, data: data};
      });
    }).then(function (answer) {
      if (answer.status === 201 && answer.data.run_id) {
        var here = window.location.pathname + window.location.search;
        window.location.replace(here + "#made=" + encodeURIComponent(answer.data.run_id));
        window.location.reload();
        return;
      }
      button.disabled = false;
      (answer.data.errors || []).forEach(function (error) {
        var input = form.elements[error.field];
        if (input && names.indexOf(error.field) >= 0) {
          input.setAttribute("aria-invalid", "true");
          document.getElementById("hops-" + error.field + "-error").textContent = error.message;
        }
      });
      show(answer.data.message || ("HTTP " + answer.status), false);
    }, function (failure) {
      button.disabled = false;
      show("The request did not reach Airflow: " + failure, false);
    });
  });
})();
"""
