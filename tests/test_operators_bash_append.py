"""Legacy arguments appended to bash commands, checked by running the result through a real bash.

The oracle is bash itself: a stub ``job.sh`` on ``PATH`` records the arguments of every call. A command is run
unchanged and with the arguments appended; the job must have been called once, and the second time with exactly
the first call's arguments plus the legacy ones. A refused command must be one where appending at the end really
goes wrong under bash (the argument lost, sent to another command or a syntax error), or one of two shapes the
reader cannot tell apart of which one goes wrong.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest
from airflow.sdk import DAG
from fuzzing import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from hops_timetable.core.bash_append import LegacyArgsError, append_arguments, check_appendable
from hops_timetable.operators import HopsBashOperator

ARGS = ["-start_time", "2026-01-01T09:00:00Z"]
# Each call writes its arguments NUL-separated, then an END record.
STUB = '#!/bin/sh\nfor a in "$@"; do printf \'%s\\0\' "$a"; done >> "$RECORD"\nprintf \'END\\0\' >> "$RECORD"\n'

pytestmark = pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")


@dataclass(frozen=True)
class Bash:
    """Runs commands with ``job.sh`` and ``other.sh`` on PATH, each recording its calls."""

    directory: Path

    def calls(self, command: str) -> tuple[list[list[str]], list[list[str]], int]:
        """The argument lists of job.sh's and other.sh's calls, and bash's exit status."""
        for name in ("job", "other"):
            (self.directory / f"{name}.calls").write_bytes(b"")
        path = f"{self.directory}{os.pathsep}{os.environ.get('PATH', '')}"
        result = subprocess.run(
            ["bash", "-c", command],
            env={
                **os.environ,
                "PATH": path,
                "JOB_RECORD": str(self.directory / "job.calls"),
                "OTHER_RECORD": str(self.directory / "other.calls"),
            },
            cwd=self.directory,
            capture_output=True,
            timeout=30,
            check=False,
        )
        return self._read("job"), self._read("other"), result.returncode

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


def assert_the_job_gets_the_arguments(bash: Bash, command: str, arguments: list[str] = ARGS) -> None:
    before, other_before, _ = bash.calls(command)
    assert len(before) == 1, f"the test command itself must call job.sh once: {command!r}"
    appended = append_arguments(command, arguments)
    after, other_after, _ = bash.calls(appended)
    assert after == [before[0] + arguments], f"{command!r} became {appended!r}"
    assert other_after == other_before
    assert append_arguments(command, []) == command


def appending_at_the_end_goes_wrong(bash: Bash, command: str) -> bool:
    """Whether naively appending the arguments at the very end fails to give job.sh exactly them."""
    before, _, _ = bash.calls(command)
    after, _, _ = bash.calls(f"{command} {shlex.join(ARGS)}")
    return len(before) != 1 or after != [before[0] + ARGS]


# The cases of issue 27, item 7: before this reader, the first three sent the argument to the wrong command (the
# job never got it) and the last three were refused with a wrong reason.
ISSUE_27 = {
    "or true": "job.sh a || true",
    "and echo": "job.sh a && echo done",
    "pipe to tee": "job.sh a 2>&1 | tee /dev/null",
    "here-string": "job.sh a <<< 'x'",
    "process substitution": "job.sh <(echo x)",
    "escaped backslash at the end": "job.sh a\\\\",
}


@pytest.mark.parametrize("name", sorted(ISSUE_27))
def test_issue_27_cases_reach_the_job(bash: Bash, name: str) -> None:
    assert_the_job_gets_the_arguments(bash, ISSUE_27[name])


def test_issue_27_arguments_go_right_after_the_job() -> None:
    assert append_arguments("job.sh a || true", ARGS) == "job.sh a -start_time 2026-01-01T09:00:00Z || true"
    assert append_arguments("job.sh a\\\\", ARGS) == "job.sh a\\\\ -start_time 2026-01-01T09:00:00Z"


SAFE = {
    "trailing comment": "job.sh a  # the job",
    "trailing semicolon": "job.sh a;",
    "semicolon and comment": "job.sh a ;  # the job; really",
    "final comment line": "job.sh a\n# done\n\n",
    "quoted hash": "job.sh 'a # b' \"c#d\"",
    "hash inside a word": "job.sh a#b",
    "list": "echo first; job.sh a",
    "earlier job-like command": "other.sh x; job.sh a",
    "command substitution": "job.sh $(echo a) # c",
    "command substitution with case": 'job.sh $(case x in x) echo a;; esac) "$(echo ")")"',
    "line continuation": "job.sh a \\\n  b",
    "continuation inside a word": "job.sh a\\\nb",
    "here-document": "job.sh a <<EOF\nbody # not a comment\nEOF\n",
    "indented here-document, final comment": "job.sh a <<-'END' # c\n\tbody\n\tEND\n# trailing\n",
    "here-document then or": "job.sh a <<EOF || true\nbody\nEOF\n# c",
    "here-document ended by the end of the text": "job.sh a <<EOF\nbody",
    "here-string with expansion": 'job.sh a <<<"$HOME x"',
    "output process substitution": "job.sh a >(cat >/dev/null)",
    "process substitution inside a word": "job.sh a<(true)b",
    "pipeline into the job": "echo x | job.sh a",
    "cat into the job": "cat /dev/null | job.sh a",
    "redirections after the arguments": "job.sh a > out.log 2>&1",
    "redirections before the command": "2>/dev/null </dev/null job.sh a",
    "fd-variable redirection": "job.sh a {fd}>/dev/null",
    "assignments before the command": "X=1 Y=$((1+(2))) job.sh a",
    "variable in braces": "v=a; job.sh ${v}",
    "unmatched brace inside ${}": "job.sh ${x:-{a}} }",
    "cd and": "cd . && job.sh a",
    "test and": "[ -d . ] && job.sh a",
    "double-bracket test with <": "[[ a < b ]] && job.sh a",
    "arithmetic command": "(( 1 < 2 )) && job.sh a",
    "or a group of built-ins": "job.sh a || { echo failed >&2; exit 1; }",
    "or a subshell of built-ins": "job.sh a || (echo failed; exit 1)",
    "time": "time job.sh a",
    "negation": "! job.sh a",
    "exec": "exec job.sh a",
    "quoted command name": "'job.sh' a",
    "an if before": "if true; then other.sh; fi\njob.sh a",
    "a loop before": "for ((i=0; i<2; i++)); do :; done; job.sh a",
    "a function called": 'f() { job.sh "$@"; }; f a',
    "a case before": "case x in (x|y) other.sh ;; *) ;; esac; job.sh a",
    "stdout and stderr to a file": "job.sh a &>/dev/null",
    "backquotes": "job.sh `echo a` 'b'",
    "ANSI-C quote": "job.sh $'a\\'b'",
}


@pytest.mark.parametrize("name", sorted(SAFE))
def test_appended_arguments_reach_the_job_through_bash(bash: Bash, name: str) -> None:
    assert_the_job_gets_the_arguments(bash, SAFE[name])


def test_values_with_shell_characters_reach_the_job_as_one_word(bash: Bash) -> None:
    hostile = ["-start_time", 'it\'s $(rm -rf x) `y` "z" ; # \\']
    assert_the_job_gets_the_arguments(bash, "job.sh a || true", hostile)


def test_a_single_command_stands_for_the_job_when_no_earlier_one_could() -> None:
    # The example DAG's echo stands in for a job; nothing before it could be the job.
    command = 'echo "window"; echo "job arguments:"'
    assert append_arguments(command, ARGS) == f"{command} -start_time 2026-01-01T09:00:00Z"


# name: (command, what the refusal says, the shape it cannot be told from, if any)
REFUSED = {
    "or, both could be the job": ("prepare.sh && job.sh a", "more than one command", "job.sh a && other.sh"),
    "pipeline of two programs": ("job.sh a | other.sh", "more than one command", "other.sh | job.sh a"),
    "built-in after the job": ("job.sh a; echo done", "is not a job, and an earlier one", None),
    "exit after the job": ("job.sh a\nexit $?", "is not a job, and an earlier one", None),
    "if": ("if true; then job.sh a; fi", "inside the 'if' compound", None),
    "group": ("{ job.sh a; }", "inside the '{' compound", None),
    "group or true": ("{ job.sh a; } || true", "inside the '{' compound", None),
    "subshell": ("(job.sh a)", "inside the '(' compound", None),
    "loop": ("for x in 1; do job.sh a; done", "inside the 'for' compound", None),
    "while": ("while true; do job.sh a; break; done", "inside the 'while' compound", None),
    "case": ("case x in x) job.sh a;; esac", "inside the 'case' compound", None),
    "background": ("job.sh a &", "in the background", None),
    "open pipeline": ("job.sh a |", "end of the command", None),
    "open list": ("job.sh a &&", "end of the command", None),
    "unterminated quote": ("job.sh 'a", "unterminated ' quote", None),
    "unterminated substitution": ("job.sh $(echo a", "unterminated", None),
    "lone backslash at the end": ("job.sh a \\", "lone backslash", None),
    "only a comment": ("# nothing", "no command", None),
    "group ending a line in a trailing comment": ("{ job.sh a; } # c", "inside the '{' compound", None),
    "function definition last": ("f() { job.sh a; }", "no command that can be the job", None),
    "stray closing parenthesis": ("job.sh a )", "unexpected ')'", None),
}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_unsafe_shapes_are_refused_with_why_and_how_to_write_them(bash: Bash, name: str) -> None:
    command, why, twin = REFUSED[name]
    with pytest.raises(LegacyArgsError, match=re.escape(why)) as raised:
        append_arguments(command, ARGS)
    assert 'job.sh a -start_time "$HOPS_LOGICAL_DATE"' in str(raised.value)
    # The refusal is needed: appending at the end goes wrong under bash, here or in a shape the reader cannot tell
    # from this one (which it refuses too).
    if twin is None:
        assert appending_at_the_end_goes_wrong(bash, command)
    else:
        with pytest.raises(LegacyArgsError, match=re.escape(why)):
            append_arguments(twin, ARGS)
        assert appending_at_the_end_goes_wrong(bash, command) or appending_at_the_end_goes_wrong(bash, twin)


def test_the_operator_refuses_an_unsafe_command_when_the_dag_is_built() -> None:
    with DAG("legacy_unsafe", schedule=None), pytest.raises(LegacyArgsError, match="inside the 'if' compound"):
        HopsBashOperator(task_id="t", bash_command="if true; then run.sh; fi", legacy_args="start_time")
    with DAG("legacy_ambiguous", schedule=None), pytest.raises(LegacyArgsError, match="more than one command"):
        HopsBashOperator(task_id="t", bash_command="run.sh a && notify-team", legacy_args="start_time")
    with DAG("legacy_safe", schedule=None):
        HopsBashOperator(task_id="t", bash_command="run.sh  # the job", legacy_args="start_time")
        HopsBashOperator(task_id="v", bash_command="run.sh a || true", legacy_args="start_time")
        # Without legacy arguments any command is fine.
        HopsBashOperator(task_id="u", bash_command="if true; then run.sh; fi")


# Generated commands -------------------------------------------------------------------------------------------

VALUE = st.text(alphabet=list("aZ09 -_.#;|&()<>$`'\"\\*?{}=~!\t"), max_size=6)
PLAIN = re.compile(r"[A-Za-z0-9_./-]+")


@st.composite
def argument(draw: st.DrawFn) -> str:
    """One argument of the job in one of bash's spellings (whose value bash tells us)."""
    value = draw(VALUE)
    style = draw(st.sampled_from(["single", "double", "ansi", "backslash", "plain", "expansion"]))
    if style == "plain" and PLAIN.fullmatch(value):
        return value
    if style == "double":
        return '"' + re.sub(r'([\\$`"])', r"\\\1", value) + '"'
    if style == "ansi":
        return "$'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"
    if style == "backslash" and value:
        return "".join("\\" + char for char in value)
    if style == "expansion":
        return draw(
            st.sampled_from(
                ['"$(echo ")")"', "$(echo 'a b')", "${UNSET:-d}", "`echo q`", "$((1+(2)))", "<(echo x)", "a\\\\"]
            )
        )
    return shlex.quote(value)


REDIRECTION = st.sampled_from(
    ["2>/dev/null", ">/dev/null", "</dev/null", "2>&1", "<<< 'x y'", '<<<"$HOME"', "&>/dev/null", "3>/dev/null"]
)
HEREDOCS = {"<<EOF": "body $HOME ) # ;\nEOF", "<<-'END'": "\tbody `x` '\n\tEND", '<< "E F"': "$x\nE F"}
TWO_JOBS = "more than one command"
# (text before the job, or after it in the same list, and the refusal it causes: None when the job stays clear)
CONTEXT_BEFORE = st.sampled_from(
    [("", None), ("echo hi; ", None), ("cd . && ", None), ("true | ", None), ("X=1 ", None), ("other.sh x; ", None),
     ("if true; then other.sh; fi\n", None), ("f() { other.sh; }\n", None), ("function g { other.sh; }\n", None),
     ("while false; do other.sh; done\n", None), ("case x in (x|y) other.sh ;; *) ;; esac; ", None),
     ("exec 2>&1; ", None), ("exec 3>/dev/null && ", None), ("[[ -n x ]] && ", None), ("(( 1 < 2 )) && ", None),
     ("time ", None), ("! ", None), ("other.sh y && ", TWO_JOBS), ("other.sh | ", TWO_JOBS),
     ("$(echo true) | ", TWO_JOBS)]
)  # fmt: skip
CONTEXT_AFTER = st.sampled_from(
    [("", None), (" || true", None), (" && echo done", None), (" | cat", None), (" 2>&1 | tee /dev/null", None),
     (" || { echo failed >&2; exit 1; }", None), (" || (echo failed; exit 1)", None), (" && [[ -n x ]]", None),
     (" && other.sh z", TWO_JOBS), (" |& other.sh", TWO_JOBS), (" || (other.sh)", "inside the '(' compound"),
     ("; echo done", "is not a job, and an earlier one")]
)  # fmt: skip
# (opening, closing, refusal) around the job's list
WRAPPER = st.sampled_from(
    [("", "", None), ("if true; then ", "; fi", "inside the 'if' compound"), ("{ ", "; }", "inside the '{' compound"),
     ("( ", " )", "inside the '(' compound"), ("for i in 1; do ", "; done", "inside the 'for' compound")]
)  # fmt: skip
SAME_LINE_ENDING = st.sampled_from(["", ";", "  # c", " ; # c ;", " &"])
NEXT_LINES = st.sampled_from(["", "\n", "\n# done\n", "\n\n", "\necho done"])
SEPARATOR = st.sampled_from([" ", "  ", "\t", " \\\n  "])


@st.composite
def job_command(draw: st.DrawFn) -> tuple[str, list[str]]:
    """A command calling job.sh once, and the refusals it may get (none when the job is clear)."""
    parts = [draw(st.sampled_from(["job.sh", "'job.sh'", 'jo"b".sh', "\\job.sh", "./job.sh"]))]
    bodies: list[str] = []
    for _ in range(draw(st.integers(0, 5))):
        kind = draw(st.sampled_from(["argument", "argument", "redirection", "heredoc"]))
        if kind == "argument":
            parts.append(draw(argument()))
        elif kind == "redirection":
            parts.append(draw(REDIRECTION))
        elif not bodies:
            operator = draw(st.sampled_from(sorted(HEREDOCS)))
            parts.append(operator)
            bodies.append(HEREDOCS[operator])
    job = "".join(part + draw(SEPARATOR) for part in parts[:-1]) + parts[-1]
    (before, why_before), (after, why_after) = draw(CONTEXT_BEFORE), draw(CONTEXT_AFTER)
    opening, closing, why_wrapped = draw(WRAPPER)
    ending, next_lines = draw(SAME_LINE_ENDING), draw(NEXT_LINES)
    # A here-document's body starts on the line after the one that names it.
    command = opening + before + job + after + closing + ending + "".join("\n" + body for body in bodies) + next_lines
    # The refusal, from the outside in: the last complete command decides first.
    not_last = "is not a job, and an earlier one"
    if next_lines.endswith("echo done"):
        reasons = [not_last]
    elif ending == " &":
        reasons = ["in the background"]
    elif why_wrapped:
        reasons = [why_wrapped]
    else:
        reasons = [why for why in (why_before, why_after) if why]
    return command, reasons


@settings(max_examples=examples(300))
@given(generated=job_command())
def test_generated_commands_reach_the_job_or_are_refused_with_the_reason(
    bash: Bash, generated: tuple[str, list[str]]
) -> None:
    command, reasons = generated
    if reasons:
        with pytest.raises(LegacyArgsError, match="|".join(re.escape(why) for why in reasons)):
            append_arguments(command, ARGS)
    else:
        assert_the_job_gets_the_arguments(bash, command)


@settings(max_examples=examples(5000))
@given(text=st.text(alphabet=list("job.sh a\\'\"$(){}<>|&;#` \n\t-=!"), max_size=40))
def test_any_text_is_placed_or_refused_with_a_legacy_args_error(text: str) -> None:
    try:
        check_appendable(text)
    except LegacyArgsError as exc:
        assert "legacy arguments cannot be appended" in str(exc)
    else:
        appended = append_arguments(text, ARGS)
        assert appended.count("-start_time 2026-01-01T09:00:00Z") == text.count("-start_time 2026-01-01T09:00:00Z") + 1
