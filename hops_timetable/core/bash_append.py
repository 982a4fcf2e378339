"""Appending job arguments to a bash command, as Hopsworks appends them to a job's arguments.

The arguments must reach the job invocation, so the command is read as bash's grammar reads it (quotes, escapes,
line continuations, comments, here-documents and here-strings, ``$( )``, ``${ }``, ``$(( ))``, backquotes, process
substitutions ``<( )`` and ``>( )``, redirections, pipelines, ``&&``/``||`` lists and the compound commands:
:mod:`~hops_timetable.core.bash_words` its words, :mod:`~hops_timetable.core.bash_grammar` its commands), and this
module decides which simple command is the job and where the arguments go:

1. The job is in the command's last complete command: what follows the last top-level ``;``, ``&`` or newline
   (comments, a trailing ``;`` and here-document bodies are not commands). Ended by ``&``, it runs in the
   background: refused.
2. In that ``&&``/``||`` list or pipeline, the commands in :data:`NOT_THE_JOB` (shell built-ins that run no
   program, and ``cat``, ``tee``, ``sleep``, ``mkdir``, ...), commands with no name (only assignments or
   redirections), ``[[ ]]``, ``(( ))``, function definitions, and compound commands made only of those, are not the
   job. The one simple command left is the job: ``job.sh a || true`` becomes ``job.sh a -start_time X || true``,
   ``cd /srv && job.sh a`` and ``job.sh a 2>&1 | tee log`` take it after ``a`` and after ``2>&1``.
3. When nothing is left, a last complete command that is a single simple command is the job only if no earlier
   command could be (``echo "job arguments:"`` stands for a job, but ``job.sh a; echo done`` is refused).
4. Everything else is refused with :class:`LegacyArgsError` saying why and how to write it: two commands that
   could both be the job (``prepare.sh && job.sh a``), a job inside a compound command (``if``, loops, ``{ }``,
   ``( )``, ``case``), a background job, a command bash would not parse, and a last word ending in a lone
   backslash (bash reads it as a literal backslash; an argument after it would join that word).

The arguments go right after the job's last word or redirection (bash takes arguments after redirections), on the
same line, so a comment, the rest of the list and here-document bodies stay where they were. Constructs bash
accepts but this reader does not (``coproc``, extended globs, ``for ... { }``) are refused rather than
guessed. Pure: no Airflow import.
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence

from hops_timetable.core.bash_grammar import Compound, SimpleCommand, read_script
from hops_timetable.core.bash_words import BashSyntaxError

__all__ = ["NOT_THE_JOB", "LegacyArgsError", "append_arguments", "check_appendable"]

#: Commands that are never the job: they run no program of their own (or only copy, wait or make files).
NOT_THE_JOB = frozenset(
    {
        ":", "[", "alias", "break", "cat", "cd", "continue", "date", "declare", "echo", "exit", "export", "false",
        "let", "local", "logger", "mkdir", "popd", "printf", "pushd", "read", "readonly", "return", "rm", "set",
        "shift", "shopt", "sleep", "tee", "test", "touch", "trap", "true", "typeset", "ulimit", "umask", "unalias",
        "unset", "wait",
    }
)  # fmt: skip

_HOW = 'pass the argument yourself instead of legacy_args, for example: job.sh a -start_time "$HOPS_LOGICAL_DATE"'


class LegacyArgsError(ValueError):
    """The legacy arguments cannot be appended to this command safely."""


def _is_job(simple: SimpleCommand) -> bool:
    # "exec" with only redirections changes the shell's own files and runs nothing.
    return simple.named and simple.name not in NOT_THE_JOB and not (simple.name == "exec" and not simple.arguments)


def _may_hold_the_job(compound: Compound) -> bool:
    return compound.kind != "function" and any(_is_job(simple) for simple in compound.inner)


def _describe(command: str, simple: SimpleCommand) -> str:
    return repr(command[simple.start : simple.end])


def _job(command: str) -> SimpleCommand:
    """The job invocation of *command*, by the rule of the module docstring."""
    try:
        script = read_script(command)
    except BashSyntaxError as exc:
        raise LegacyArgsError(str(exc)) from None
    items = script.commands
    if not items:
        raise LegacyArgsError("the command has no command to append the arguments to")
    last = items[-1]
    if last.terminator == "&":
        raise LegacyArgsError(
            "its last command runs in the background ('&'), so the task would end before the job; remove the '&'"
        )
    compounds = [c for c in last.commands if isinstance(c, Compound) and _may_hold_the_job(c)]
    if compounds:
        raise LegacyArgsError(
            f"the job may be inside the {compounds[0].kind!r} compound command of its last command, where an "
            "argument at the end would not reach it"
        )
    candidates = [c for c in last.commands if isinstance(c, SimpleCommand) and _is_job(c)]
    if len(candidates) > 1:
        names = ", ".join(_describe(command, c) for c in candidates)
        raise LegacyArgsError(
            f"more than one command of its last '&&'/'||' list or pipeline could be the job ({names}); the job "
            "must be the only one that is not a shell built-in such as true, echo or cd"
        )
    if candidates:
        job = candidates[0]
    else:
        only = last.commands[0] if len(last.commands) == 1 else None
        if not isinstance(only, SimpleCommand) or not only.named:
            raise LegacyArgsError("its last command has no command that can be the job")
        earlier = [s for s in script.simples if s.start < only.start and _is_job(s)]
        if earlier:
            raise LegacyArgsError(
                f"its last command {_describe(command, only)} is not a job, and an earlier one "
                f"({_describe(command, earlier[-1])}) would not receive the argument; make the job the last command"
            )
        job = only
    trailing = len(command[: job.end]) - len(command[: job.end].rstrip("\\"))
    if trailing % 2:
        raise LegacyArgsError(
            "it ends with a lone backslash, which bash keeps as a literal backslash; an argument after it would "
            "join that word"
        )
    return job


def _insertion_point(command: str) -> int:
    try:
        return _job(command).end
    except LegacyArgsError as exc:
        raise LegacyArgsError(
            f"legacy arguments cannot be appended to bash_command {command!r}: {exc}; {_HOW}"
        ) from None


def check_appendable(command: str) -> None:
    """Raise :class:`LegacyArgsError` (with how to write it instead) unless arguments can be appended safely."""
    _insertion_point(command)


def append_arguments(command: str, arguments: Sequence[str]) -> str:
    """*command* with *arguments*, shell-quoted, right after the job invocation's last word or redirection.

    Raises :class:`LegacyArgsError` where the job is not unambiguous (see the module docstring).
    """
    point = _insertion_point(command)
    if not arguments:
        return command
    return f"{command[:point]} {shlex.join(arguments)}{command[point:]}"
