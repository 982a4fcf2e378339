"""docs/migration.md's export script, run as written against a stub of Hopsworks' REST API, and its output compared
by ``hops-timetable parity``: the pages it writes are the listing, merged by id."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import ClassVar
from urllib.parse import parse_qs, urlparse

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCENARIO = ROOT / "tests" / "data" / "parity" / "manual_runs"
JOB = "/hopsworks-api/api/project/119/jobs/daily_features"
SERVER_PAGE = 2  # the stub serves at most this many items per page, whatever the limit asked


def _script() -> str:
    text = (ROOT / "docs" / "migration.md").read_text()
    match = re.search(r"## 1\. Export.*?```python\n(.*?)```", text, re.S)
    assert match is not None
    return match.group(1)


class _Hopsworks(BaseHTTPRequestHandler):
    items: ClassVar[list[dict[str, object]]] = []
    job: ClassVar[dict[str, object]] = {}

    def do_GET(self) -> None:
        url = urlparse(self.path)
        if self.headers.get("Authorization") != "ApiKey secret-key":
            return self._send(401, {"errorMsg": "unauthorized"})
        if url.path == JOB:
            return self._send(200, self.job)
        if url.path == JOB + "/executions":
            query = parse_qs(url.query)
            offset, limit = int(query["offset"][0]), min(int(query["limit"][0]), SERVER_PAGE)
            assert query["sort_by"] == ["id:asc"]
            ordered = sorted(self.items, key=lambda i: int(i["id"]))  # type: ignore[call-overload]
            page = ordered[offset : offset + limit]
            body: dict[str, object] = {"href": "x", "count": len(ordered)}
            if page:
                body["items"] = page
            return self._send(200, body)
        return self._send(404, {"errorMsg": "not found"})

    def _send(self, status: int, body: object) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def hopsworks() -> Iterator[str]:
    _Hopsworks.items = json.loads((SCENARIO / "executions-fire.json").read_text())["items"]
    _Hopsworks.job = json.loads((SCENARIO / "schedule.json").read_text())
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Hopsworks)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_the_export_script_pages_the_executions_and_parity_reads_them(hopsworks: str, tmp_path: Path) -> None:
    (tmp_path / "export_hopsworks.py").write_text(_script())
    env = {"HOPSWORKS_HOST": hopsworks, "HOPSWORKS_PROJECT_ID": "119", "HOPSWORKS_API_KEY": "secret-key"}
    done = subprocess.run(
        [sys.executable, "export_hopsworks.py", "daily_features"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "daily_features: 6 executions in 3 page(s)"
    pages = json.loads((tmp_path / "daily_features.executions.json").read_text())
    assert [len(p["items"]) for p in pages] == [2, 2, 2]
    assert json.loads((tmp_path / "daily_features.job.json").read_text())["name"] == "daily_features"
    parity = subprocess.run(
        [
            str(Path(sys.executable).parent / "hops-timetable"),
            "parity",
            "--hopsworks-schedule",
            "daily_features.job.json",
            "--hopsworks-executions",
            "daily_features.executions.json",
            "--from",
            "2026-03-01T00:00Z",
            "--to",
            "2026-03-01T17:00Z",
            "--json",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    report = json.loads(parity.stdout)
    assert parity.returncode == 3 and report["summary"]["missing_in_hopsworks"] == 1  # as tests/data expects
    assert report["start_time"]["meaning"] == "fire" and len(report["manual"]) == 1


def test_an_empty_listing_has_no_items_and_ends_the_export(hopsworks: str, tmp_path: Path) -> None:
    _Hopsworks.items = []
    (tmp_path / "export_hopsworks.py").write_text(_script())
    env = {"HOPSWORKS_HOST": hopsworks, "HOPSWORKS_PROJECT_ID": "119", "HOPSWORKS_API_KEY": "secret-key"}
    done = subprocess.run(
        [sys.executable, "export_hopsworks.py", "daily_features"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "daily_features: 0 executions in 1 page(s)"
    assert json.loads((tmp_path / "daily_features.executions.json").read_text()) == [{"href": "x", "count": 0}]
