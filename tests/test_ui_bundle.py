"""The tab's React app as shipped: the committed bundle is exactly what ``frontend/`` builds from its lock file.

The wheel ships ``hops_timetable/ui/static/hopsworks-tab.js`` as it is in the repository, so that installing the
package, ``scripts/run-airflow`` and the tests need no Node.js; this test rebuilds it from a copy of ``frontend/``
(``npm ci`` from ``package-lock.json``, then ``npm run build``, which type-checks first) and compares the bytes, so a
change to the source without its rebuilt bundle fails here. Skipped where ``npm`` is not installed.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FRONTEND = ROOT / "frontend"
BUNDLE = ROOT / "hops_timetable" / "ui" / "static" / "hopsworks-tab.js"


@pytest.mark.skipif(shutil.which("npm") is None, reason="npm is not installed")
@pytest.mark.one_minor  # the bundle is the same for every Airflow minor: built once, on the development minor
def test_the_committed_bundle_is_what_the_frontend_source_builds(tmp_path: Path) -> None:
    work = tmp_path / "frontend"
    shutil.copytree(FRONTEND, work, ignore=shutil.ignore_patterns("node_modules"))
    for command in (["npm", "ci", "--no-audit", "--no-fund"], ["npm", "run", "build"]):
        done = subprocess.run(command, cwd=work, capture_output=True, text=True, timeout=600, check=False)
        assert done.returncode == 0, (command, done.stdout[-3000:], done.stderr[-3000:])
    # vite.config.ts writes to ../hops_timetable/ui/static, beside the copy.
    built = tmp_path / "hops_timetable" / "ui" / "static" / BUNDLE.name
    assert built.read_bytes() == BUNDLE.read_bytes(), "frontend/ changed: run `npm run build` in frontend/ and commit"
