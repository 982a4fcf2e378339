"""Legacy arguments placed by the DAG author with ``{{ hops.legacy_args }}``, checked by running the result through
a real bash.

The oracle is bash itself: a stub ``job.sh`` on ``PATH`` records the arguments of every call. A command is rendered
by ``HopsBashOperator`` (as the task runner renders it) and run; the job must get exactly its own arguments plus the
legacy ones, wherever the command places them: in a pipeline, a list, a compound command, before a redirection or a
here-document. A command that would not pass them as words of their own is refused, and bash confirms it would not.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from airflow.sdk import DAG
from fuzzing import examples
from hypothesis import given, settings
from hypothesis import strategies as st
from support import HOURLY, utc
from test_operators_env import INTERVAL, runtime_run

from hops_timetable import HopsTimetableError, hops_schedule
from hops_timetable.core.legacy_args import LEGACY_ARGS_TEMPLATE, LegacyArgsError, check_legacy_args_passed
from hops_timetable.operators import HopsBashOperator

P = LEGACY_ARGS_TEMPLATE
ARGS = ["-start_time", "2026-01-01T09:00:00Z"]
# Each call writes its arguments NUL-separated, then an END record.
STUB = '#!/bin/sh\nfor a in "$@"; do printf \'%s\\0\' "$a"; done >> "$RECORD"\nprintf \'END\\0\' >> "$RECORD"\n'

pytestmark = pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")


@dataclass(frozen=True)
class Bash:
    """Runs commands with ``job.sh`` and ``other.sh`` on PATH, each recording its calls."""

    directory: Path

    def calls(self, command: str) -> tuple[list[list[str]], list[list[str]]]:
        """The argument lists of job.sh's and other.sh's calls."""
        for name in ("job", "other"):
            (self.directory / f"{name}.calls").write_bytes(b"")
        subprocess.run(
            ["bash", "-c", command],
            env={
                **os.environ,
                "PATH": f"{self.directory}{os.pathsep}{os.environ.get('PATH', '')}",
                "JOB_RECORD": str(self.directory / "job.calls"),
                "OTHER_RECORD": str(self.directory / "other.calls"),
            },
            cwd=self.directory,
            capture_output=True,
            timeout=30,
            check=False,
        )
        return self._read("job"), self._read("other")

    def _read(self, name: str) -> list[list[str]]:
        records = (self.directory / f"{name}.calls").read_bytes().decode().split("\0")[:-1]
        calls: list[list[str]] = [[]]
        for record in records:
            if record == "END":
                calls.append([])
            else:
                calls[-1].append(record)
        return calls[:-1]


@pytest.fixture(scope="module")
def bash(tmp_path_factory: pytest.TempPathFactory) -> Bash:
    directory = tmp_path_factory.mktemp("bash")
    for name in ("job", "other"):
        stub = directory / f"{name}.sh"
        stub.write_text(STUB.replace("$RECORD", f"${name.upper()}_RECORD"))
        stub.chmod(0o755)
    return Bash(directory)


def rendered(command: str, mode: Any = "start_time", conf: dict[str, Any] | None = None) -> str:
    """*command* as HopsBashOperator renders it for the scheduled run of 09:00-10:00."""
    with DAG("legacy", **hops_schedule(HOURLY, start_time=utc(2026, 1, 1))) as dag:
        task = HopsBashOperator(task_id="t", bash_command=command, legacy_args=mode)
    context: dict[str, Any] = {"dag": dag, "task": task, "dag_run": runtime_run("scheduled", INTERVAL, conf)}
    task.render_template_fields(context)
    return str(task.bash_command)


MARK = "@legacy@"


def assert_the_job_gets_the_arguments(bash: Bash, command: str) -> None:
    """With a marker word in place of the template value the command calls job.sh once; rendered, job.sh gets the
    legacy arguments where the marker was, and the operator's check lets it run."""
    before, other_before = bash.calls(command.replace(P, MARK))
    assert len(before) == 1 and before[0].count(MARK) == 1, f"the test command must call job.sh once: {command!r}"
    at = before[0].index(MARK)
    result = rendered(command)
    after, other_after = bash.calls(result)
    assert after == [before[0][:at] + ARGS + before[0][at + 1 :]], f"{command!r} became {result!r}"
    assert other_after == other_before
    check_legacy_args_passed(result, ARGS)


# Where the reader of bash commands this replaced refused or could not tell the job (issue 39's
# ``python job.py | gzip > out.gz`` among them), the author now says where the arguments go.
PLACED = {
    "pipeline into gzip": f"job.sh a {P} | gzip > /dev/null",
    "two programs": f"other.sh && job.sh a {P}",
    "job first of two": f"job.sh a {P} && other.sh b",
    "if": f"if true; then job.sh a {P}; fi",
    "group": f"{{ job.sh a {P}; }} || true",
    "subshell": f"(job.sh a {P})",
    "loop": f"for x in 1; do job.sh a {P}; done",
    "case": f"case x in x) job.sh a {P};; esac",
    "echo after the job": f"job.sh a {P}; echo done",
    "or true": f"job.sh a {P} || true",
    "tee": f"job.sh a {P} 2>&1 | tee /dev/null",
    "before a redirection": f"cd . && job.sh a {P} > /dev/null 2>&1",
    "here-string": f"job.sh a {P} <<< 'x'",
    "here-document": f"job.sh a {P} <<EOF || true\nbody # it's not a comment\nEOF\n",
    "process substitution": f"job.sh <(echo x) {P}",
    "command substitution": f'job.sh "$(echo ")")" {P}  # the job',
    "continuation": f"job.sh a \\\n  {P}",
    "ANSI-C quote": f"job.sh $'a\\'b' {P}",
    "papermill-like first": f"job.sh {P} a",
}


@pytest.mark.parametrize("name", sorted(PLACED))
def test_placed_arguments_reach_the_job_through_bash(bash: Bash, name: str) -> None:
    assert_the_job_gets_the_arguments(bash, PLACED[name])


def test_papermill_arguments_and_hostile_values_reach_the_job_as_words(bash: Bash) -> None:
    assert rendered(f"job.sh nb.ipynb {P}", "papermill") == "job.sh nb.ipynb -p start_time 2026-01-01T09:00:00Z"
    # A window passed by whoever triggers the run is canonical text by the time it is a value.
    conf = {"hops_window": {"start_time": "2026-02-01T00:00:00+01:00", "end_time": "2026-02-02T00:00:00Z"}}
    assert rendered(f"job.sh {P}", conf=conf) == "job.sh -start_time 2026-01-31T23:00:00Z"
    # The author's own HOPS_LOGICAL_DATE is passed as one word, whatever its characters.
    hostile = 'it\'s $(rm -rf x) `y` "z" ; # \\'
    with DAG("legacy_env", **hops_schedule(HOURLY, start_time=utc(2026, 1, 1))) as dag:
        task = HopsBashOperator(
            task_id="t", bash_command=f"job.sh {P}", legacy_args="start_time", env={"HOPS_LOGICAL_DATE": hostile}
        )
    task.render_template_fields({"dag": dag, "task": task, "dag_run": runtime_run("scheduled", INTERVAL)})
    assert bash.calls(str(task.bash_command))[0] == [["-start_time", hostile]]


def test_a_run_without_a_logical_date_gets_no_arguments(bash: Bash) -> None:
    with DAG("legacy_manual", **hops_schedule(HOURLY, start_time=utc(2026, 1, 1))) as dag:
        task = HopsBashOperator(task_id="t", bash_command=f"job.sh a {P} || true", legacy_args="start_time")
    task.render_template_fields({"dag": dag, "task": task, "dag_run": runtime_run("manual", None)})
    assert bash.calls(str(task.bash_command))[0] == [["a"]]


def test_the_dag_refuses_legacy_args_that_the_command_never_places() -> None:
    with DAG("legacy_unplaced", schedule=None), pytest.raises(LegacyArgsError, match="never places") as raised:
        HopsBashOperator(task_id="t", bash_command="run.sh a | gzip > out.gz", legacy_args="start_time")
    assert "job.sh a {{ hops.legacy_args }} || true" in str(raised.value)
    assert isinstance(raised.value, HopsTimetableError)
    with DAG("legacy_unasked", schedule=None), pytest.raises(LegacyArgsError, match="legacy_args is None"):
        HopsBashOperator(task_id="t", bash_command=f"run.sh {P}")
    with DAG("legacy_fine", schedule=None):
        # Without legacy arguments any command is fine; a template file is checked when it renders.
        HopsBashOperator(task_id="u", bash_command="if true; then run.sh; fi")
        HopsBashOperator(task_id="v", bash_command="job.sh", legacy_args="start_time")
        HopsBashOperator(task_id="w", bash_command="run.sh", legacy_args="start_time")


# name: (command, what bash gives the job instead of the arguments as words of their own)
NOT_WORDS = {
    "single quotes": (f"job.sh '{P}'", [[" ".join(ARGS)]]),
    "double quotes": (f'job.sh "a {P}"', [["a " + " ".join(ARGS)]]),
    "glued to a word": (f"job.sh a'{P}'", [["a" + " ".join(ARGS)]]),
    "a comment": (f"job.sh a  # {P}", [["a"]]),
}


@pytest.mark.parametrize("name", sorted(NOT_WORDS))
def test_arguments_that_would_not_be_words_of_their_own_are_refused(bash: Bash, name: str) -> None:
    command, bash_gives = NOT_WORDS[name]
    with DAG("legacy_quoted", **hops_schedule(HOURLY, start_time=utc(2026, 1, 1))) as dag:
        task = HopsBashOperator(task_id="t", bash_command=command, legacy_args="start_time")
    task.render_template_fields({"dag": dag, "task": task, "dag_run": runtime_run("scheduled", INTERVAL)})
    assert bash.calls(str(task.bash_command))[0] == bash_gives
    with pytest.raises(LegacyArgsError, match="as words of their own") as raised:
        task.execute({"dag": dag, "task": task, "dag_run": runtime_run("scheduled", INTERVAL)})
    try:
        from airflow.sdk.exceptions import AirflowFailException
    except ImportError:  # Airflow 3.0 has it only in airflow.exceptions
        from airflow.exceptions import AirflowFailException  # type: ignore[no-redef]

    assert isinstance(raised.value, AirflowFailException)  # no retry: the command stays wrong


# Generated commands -------------------------------------------------------------------------------------------

# Without Jinja's delimiters: Airflow renders the command as a template, where "{{" is no shell text.
VALUE = st.text(alphabet=list("aZ09 -_.;|&()<>$`'\"\\*?{}=~!\t"), max_size=6).filter(
    lambda v: not any(mark in v for mark in ("{{", "{%", "{#"))
)
PLAIN = re.compile(r"[A-Za-z0-9_./-]+")


@st.composite
def argument(draw: st.DrawFn) -> str:
    """One argument of the job in one of bash's spellings (whose value bash tells us)."""
    value = draw(VALUE)
    style = draw(st.sampled_from(["single", "double", "backslash", "plain", "expansion"]))
    if style == "plain" and PLAIN.fullmatch(value):
        return value
    if style == "double":
        return '"' + re.sub(r'([\\$`"])', r"\\\1", value) + '"'
    if style == "backslash" and value:
        return "".join("\\" + char for char in value)
    if style == "expansion":
        return draw(st.sampled_from(["$(echo 'a b')", "${UNSET:-d}", "$((1+(2)))", "<(echo x)", "a\\\\"]))
    return shlex.quote(value)


REDIRECTION = st.sampled_from(["2>/dev/null", ">/dev/null", "</dev/null", "2>&1", "<<< 'x y'", "&>/dev/null"])
BEFORE = st.sampled_from(["", "echo hi; ", "cd . && ", "true | ", "X=1 ", "other.sh x; ", "other.sh y && ", "! "])
AFTER = st.sampled_from(["", " || true", " && echo done", " | cat", " 2>&1 | tee /dev/null", " && other.sh z"])
WRAPPER = st.sampled_from(
    [("", ""), ("if true; then ", "; fi"), ("{ ", "; }"), ("( ", " )"), ("for i in 1; do ", "; done")]
)
ENDING = st.sampled_from(["", ";", "  # c", "\n# done\n", "\necho done"])


@st.composite
def placed_command(draw: st.DrawFn) -> str:
    """A command calling job.sh once, with the template value among the job's own arguments and redirections."""
    parts = [draw(st.sampled_from(["job.sh", "'job.sh'", "\\job.sh", "./job.sh"]))]
    parts += draw(st.lists(st.one_of(argument(), argument(), REDIRECTION), max_size=4))
    parts.insert(draw(st.integers(1, len(parts))), P)
    opening, closing = draw(WRAPPER)
    return opening + draw(BEFORE) + " ".join(parts) + draw(AFTER) + closing + draw(ENDING)


@settings(max_examples=examples(300), deadline=None)
@given(command=placed_command())
def test_generated_commands_pass_the_arguments_where_placed(bash: Bash, command: str) -> None:
    assert_the_job_gets_the_arguments(bash, command)


@settings(max_examples=examples(5000))
@given(
    text=st.text(alphabet=list("job.sh a\\'\"$(){}<>|&;#` \n\t-=!"), max_size=40),
    value=st.text(max_size=12),
    at=st.integers(0, 40),
)
def test_any_text_is_accepted_or_refused_with_a_legacy_args_error(text: str, value: str, at: int) -> None:
    arguments = ["-start_time", value]
    placed = f"{text[:at]} {shlex.join(arguments)} {text[at:]}"
    try:
        check_legacy_args_passed(placed, arguments)
        check_legacy_args_passed(text, arguments)
    except LegacyArgsError as exc:
        assert "as words of their own" in str(exc)
