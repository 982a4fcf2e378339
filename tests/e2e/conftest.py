"""Fixtures that start real Airflow stacks and a browser, and the hook that attaches their logs to a failing test.

``airflow db migrate`` runs once per test session into a template database; every stack starts from a copy.
"""

from __future__ import annotations

import os
from collections.abc import Generator, Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
from browser import missing as missing_browser
from browser import start_browser, stop_browser
from harness import AirflowStack, StackFactory, copy_database, migrate_database

_STACKS_KEY = pytest.StashKey[list[AirflowStack]]()


@pytest.fixture(scope="session")
def template_database(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A migrated, empty metadata database, created once per session."""
    return migrate_database(tmp_path_factory.mktemp("airflow-template"))


def _factory(tmp_path_factory: pytest.TempPathFactory, template: Path, owned: list[AirflowStack]) -> StackFactory:
    def make(name: str, env: Mapping[str, str] | None = None, start: bool = True) -> AirflowStack:
        home = tmp_path_factory.mktemp(f"airflow-{name}")
        copy_database(template, home / "airflow.db")
        stack = AirflowStack(home, home / "dags", env)
        owned.append(stack)
        if start:
            stack.start()
        return stack

    return make


def _owned_stacks(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, template_database: Path
) -> Iterator[StackFactory]:
    """A stack factory whose stacks are all stopped when the fixture ends, and shown in the report of a failure."""
    owned: list[AirflowStack] = []
    request.node.stash[_STACKS_KEY] = owned
    try:
        yield _factory(tmp_path_factory, template_database, owned)
    finally:
        for stack in owned:
            stack.stop()


@pytest.fixture(scope="module")
def module_stacks(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, template_database: Path
) -> Iterator[StackFactory]:
    """Start stacks shared by the tests of one module; all of them are stopped when the module ends."""
    yield from _owned_stacks(request, tmp_path_factory, template_database)


@pytest.fixture
def stacks(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, template_database: Path
) -> Iterator[StackFactory]:
    """Start stacks for one test only (for scenarios that stop or kill components)."""
    yield from _owned_stacks(request, tmp_path_factory, template_database)


def _stacks_of(item: pytest.Item) -> list[AirflowStack]:
    found: list[AirflowStack] = []
    node: pytest.Item | pytest.Collector | None = item
    while node is not None:
        if _STACKS_KEY in node.stash:
            owned: list[AirflowStack] = node.stash[_STACKS_KEY]
            found.extend(owned)
        node = node.parent
    return found


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report: pytest.TestReport = yield
    if report.failed:
        for number, stack in enumerate(_stacks_of(item), start=1):
            errors = stack.import_errors() if stack.db_path.exists() else []
            text = stack.logs()
            if errors:
                text = "DAG import errors:\n" + "\n".join(errors) + "\n" + text
            report.sections.append((f"airflow stack {number} ({stack.home.name}) logs", text))
    return report


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[Any]:
    """Debian's Chromium through its chromedriver, with an empty profile, under the reaper; nothing is downloaded."""
    absent = missing_browser()
    if absent:
        message = f"{' and '.join(absent)} not installed (apt-get install -y chromium chromium-driver)"
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI needs the browser test: {message}")
        pytest.skip(message)
    driver = start_browser(tmp_path / "profile")
    try:
        yield driver
    finally:
        stop_browser(driver)
