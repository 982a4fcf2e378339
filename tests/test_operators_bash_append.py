"""Legacy arguments appended to bash commands, checked by running the result through a real bash."""

from __future__ import annotations

import shutil
import subprocess

import pytest
from airflow.sdk import DAG

from hops_timetable.core.bash_append import LegacyArgsError, append_arguments
from hops_timetable.operators import HopsBashOperator

ARGS = ["-start_time", "2026-01-01T09:00:00Z"]
# Defines the job: it prints each argument it receives in brackets.
JOB = "job() { printf '[%s]' \"$@\"; echo; }\n"

pytestmark = pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")


def run(command: str) -> str:
    result = subprocess.run(["bash", "-c", command], capture_output=True, text=True, check=True, timeout=30)
    return result.stdout


SAFE = {
    "trailing comment": ("job a  # the job", "[a][-start_time][2026-01-01T09:00:00Z]\n"),
    "trailing semicolon": ("job a;", "[a][-start_time][2026-01-01T09:00:00Z]\n"),
    "semicolon and comment": ("job a ;  # the job; really", "[a][-start_time][2026-01-01T09:00:00Z]\n"),
    "final comment line": ("job a\n# done\n\n", "[a][-start_time][2026-01-01T09:00:00Z]\n"),
    "quoted hash": ("job 'a # b' \"c#d\"", "[a # b][c#d][-start_time][2026-01-01T09:00:00Z]\n"),
    "hash inside a word": ("job a#b", "[a#b][-start_time][2026-01-01T09:00:00Z]\n"),
    "list": ("echo first; job a", "first\n[a][-start_time][2026-01-01T09:00:00Z]\n"),
    "command substitution": ("job $(echo a) # c", "[a][-start_time][2026-01-01T09:00:00Z]\n"),
    "line continuation": ("job a \\\n  b", "[a][b][-start_time][2026-01-01T09:00:00Z]\n"),
    "here-document": (
        "job a <<EOF\nbody # not a comment\nEOF\n",
        "[a][-start_time][2026-01-01T09:00:00Z]\n",
    ),
    "indented here-document, final comment": (
        "job a <<-'END' # c\n\tbody\n\tEND\n# trailing\n",
        "[a][-start_time][2026-01-01T09:00:00Z]\n",
    ),
    "pipeline into the job": ("echo x | job a", "[a][-start_time][2026-01-01T09:00:00Z]\n"),
    "variable in braces": ("v=a; job ${v}", "[a][-start_time][2026-01-01T09:00:00Z]\n"),
}


@pytest.mark.parametrize("name", sorted(SAFE))
def test_appended_arguments_reach_the_job_through_bash(name: str) -> None:
    command, want = SAFE[name]
    assert run(JOB + append_arguments(command, ARGS)) == want
    # Without the arguments the command is unchanged.
    assert append_arguments(command, []) == command


UNSAFE = {
    "if": "if true; then job a; fi",
    "group": "{ job a; }",
    "subshell": "(job a)",
    "background": "job a &",
    "open pipeline": "job a |",
    "open list": "job a &&",
    "loop": "for x in 1; do job a; done",
    "unterminated quote": "job 'a",
    "unterminated here-document": "job a <<EOF\nbody\n",
    "trailing backslash": "job a \\",
    "only a comment": "# nothing",
    "group ending a line in a trailing comment": "{ job a; } # c",
}


@pytest.mark.parametrize("name", sorted(UNSAFE))
def test_unsafe_shapes_are_refused_with_how_to_write_them(name: str) -> None:
    with pytest.raises(LegacyArgsError, match="Make the job invocation the command's last simple command"):
        append_arguments(UNSAFE[name], ARGS)


def test_the_operator_refuses_an_unsafe_command_when_the_dag_is_built() -> None:
    with DAG("legacy_unsafe", schedule=None), pytest.raises(LegacyArgsError, match="end of a compound command"):
        HopsBashOperator(task_id="t", bash_command="if true; then run.sh; fi", legacy_args="start_time")
    with DAG("legacy_safe", schedule=None):
        HopsBashOperator(task_id="t", bash_command="run.sh  # the job", legacy_args="start_time")
        # Without legacy arguments any command is fine.
        HopsBashOperator(task_id="u", bash_command="if true; then run.sh; fi")
