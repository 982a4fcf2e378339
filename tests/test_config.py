"""The ``[hops_timetable]`` section of Airflow's configuration, set as a deployment sets it (an ``AIRFLOW__...``
environment variable), as read by the component that uses it; docs/deployment.md lists every option."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import fields
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest

from hops_timetable import HopsTimetableError, config
from hops_timetable.core.cron import QuartzCron
from hops_timetable.core.schedule import Schedule


@pytest.fixture
def section(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    def set_option(name: str, value: str) -> None:
        monkeypatch.setenv(f"AIRFLOW__HOPS_TIMETABLE__{name.upper()}", value)
        config.settings.cache_clear()

    config.settings.cache_clear()
    yield set_option
    monkeypatch.undo()
    config.settings.cache_clear()


def test_the_defaults_hold_without_the_section(section: Any) -> None:
    assert config.settings() == config.Settings()
    assert (config.settings().tab_kept_dags, config.settings().tab_kept_pages) == (64, 16)


def test_the_tab_lists_as_many_upcoming_windows_as_the_deployment_says(
    section: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from hops_timetable.ui import app

    schedule = Schedule(cron=QuartzCron("0 0 * ? * * *"), start=datetime(2026, 1, 1, tzinfo=timezone.utc))
    monkeypatch.setattr(app, "_load", lambda session, dag_id: (schedule, False))
    # A DAG with no runs yet: the upcoming windows are all the tab has to show.
    monkeypatch.setattr(app.tab_runs, "dag_runs", lambda session, dag_id, settings: app.tab_runs.DagRuns([], []))
    monkeypatch.setattr(app.tab_runs, "with_page", lambda session, dag_id, settings, runs, lo, hi: runs)
    assert len(app._coverage(None, "d", 0)[3]) == 5  # type: ignore[arg-type]
    section("tab_upcoming_windows", "12")
    assert len(app._coverage(None, "d", 0)[3]) == 12  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("name", "value", "expected"),
    [("dag_policy", "maybe", "True or False"), ("tab_upcoming_windows", "0", "a whole number >= 1")],
)
def test_a_bad_value_names_the_option_the_value_and_what_is_valid(
    section: Any, name: str, value: str, expected: str
) -> None:
    section(name, value)
    with pytest.raises(HopsTimetableError, match=re.escape(f"[hops_timetable] {name}={value!r} is invalid: expected")):
        config.settings()
    with pytest.raises(HopsTimetableError, match=re.escape(expected)):
        config.settings()


def test_every_option_is_documented_with_its_default() -> None:
    text = (Path(__file__).parents[1] / "docs" / "deployment.md").read_text(encoding="utf-8")
    for option in fields(config.Settings):
        default = f"`{option.default}`" if option.default != "" else "(empty)"
        assert f"| `{option.name}` | {default} |" in text, option.name
