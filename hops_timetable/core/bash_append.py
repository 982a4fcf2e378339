"""Appending job arguments to a bash command, as Hopsworks appends them to a job's arguments.

The arguments belong to the command's last simple command: the job invocation. Text after it that bash does not
run (a trailing comment, a trailing ``;``, final comment lines, the body of a here-document) must not swallow or
receive them. This module reads just enough of bash's syntax to find that spot: quotes (``'``, ``"``, ``$'``,
backquotes), backslash escapes and line continuations, ``$( )`` and ``( )`` nesting, comments, and
here-documents. When the last command is of a shape where an argument cannot go at its end (a compound command
such as ``if ... fi`` or ``{ ...; }``, a subshell, a pipeline or list left open, a background ``&``, unterminated
quoting), :class:`LegacyArgsError` says so and how to write the command instead, so that the DAG fails when it is
built rather than run a job with a silently wrong window. Pure: no Airflow import.
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["LegacyArgsError", "append_arguments", "check_appendable"]

_WORD_BREAKS = frozenset(" \t;&|()<>")
# Words after which an argument would be a syntax error or would land in the wrong command.
_CLOSING_WORDS = frozenset({"fi", "done", "esac", "then", "do", "else", "elif", "in", "{", "}", "!", "time"})
_HOW = (
    "Make the job invocation the command's last simple command (for example 'prepare.sh; run.sh  # comment'), "
    'or pass the argument yourself: run.sh -start_time "$HOPS_LOGICAL_DATE"'
)


class LegacyArgsError(ValueError):
    """The legacy arguments cannot be appended to this command safely."""


@dataclass(frozen=True)
class _Line:
    code_end: int  # index just after the last character that is code (comments excluded)
    has_code: bool
    closes_subshell: bool  # the last code character is a ")" that closes a bare "(" group


def _scan(command: str) -> list[_Line]:
    """The logical lines of *command* outside here-document bodies; raises LegacyArgsError on unterminated text."""
    lines: list[_Line] = []
    i, n = 0, len(command)
    code_end, has_code, closes_subshell = 0, False, False
    parens: list[str] = []  # "$" for $( ), "(" for a bare group
    pending: list[tuple[str, bool]] = []  # here-document delimiters of the current line, and whether <<-
    while i < n:
        char = command[i]
        if char == "\n" and not parens:
            lines.append(_Line(code_end, has_code, closes_subshell))
            i += 1
            i = _skip_heredocs(command, i, pending)
            pending = []
            code_end, has_code, closes_subshell = i, False, False
            continue
        if char in " \t\n":
            i += 1
            continue
        if char == "#" and (i == 0 or command[i - 1] in _WORD_BREAKS or command[i - 1] == "\n"):
            end = command.find("\n", i)
            i = n if end < 0 else end
            continue
        start = i
        closes_subshell = False
        if char == "\\":
            if i + 1 >= n:
                raise LegacyArgsError("the command ends with a backslash, a line continuation with nothing after it")
            i += 2
            if command[i - 1] == "\n":
                continue  # a line continuation is not code
        elif char == "'" or (char == "$" and command.startswith("$'", i)):
            i = _close_quote(command, i + (2 if char == "$" else 1), "'", escapes=char == "$")
        elif char in '"`':
            i = _close_quote(command, i + 1, char, escapes=True)
        elif command.startswith("$(", i):
            parens.append("$")
            i += 2
        elif char == "(":
            parens.append("(")
            i += 1
        elif char == ")":
            if not parens:
                raise LegacyArgsError("the command has a ')' that closes nothing")
            closes_subshell = parens.pop() == "("
            i += 1
        elif command.startswith("<<", i) and not command.startswith("<<<", i):
            i, delimiter, strip_tabs = _heredoc_word(command, i)
            pending.append((delimiter, strip_tabs))
        else:
            i += 1
        if i > start:
            code_end, has_code = i, True
    if parens:
        raise LegacyArgsError("the command leaves a '(' or '$(' open")
    if pending:
        raise LegacyArgsError(f"the here-document ending with {pending[0][0]!r} has no body or end line")
    lines.append(_Line(code_end, has_code, closes_subshell))
    return lines


def _close_quote(command: str, i: int, quote: str, *, escapes: bool) -> int:
    while i < len(command):
        char = command[i]
        if escapes and char == "\\":
            i += 2
            continue
        if char == quote:
            return i + 1
        i += 1
    raise LegacyArgsError(f"the command has an unterminated {quote} quote")


def _heredoc_word(command: str, i: int) -> tuple[int, str, bool]:
    i += 2
    strip_tabs = command.startswith("-", i)
    if strip_tabs:
        i += 1
    while i < len(command) and command[i] in " \t":
        i += 1
    word: list[str] = []
    while i < len(command) and command[i] not in " \t\n;&|()<>":
        char = command[i]
        if char in "'\"":
            end = _close_quote(command, i + 1, char, escapes=False)
            word.append(command[i + 1 : end - 1])
            i = end
        elif char == "\\" and i + 1 < len(command):
            word.append(command[i + 1])
            i += 2
        else:
            word.append(char)
            i += 1
    if not word:
        raise LegacyArgsError("the command has a '<<' without a here-document delimiter")
    return i, "".join(word), strip_tabs


def _skip_heredocs(command: str, i: int, pending: list[tuple[str, bool]]) -> int:
    for delimiter, strip_tabs in pending:
        while True:
            if i >= len(command):
                raise LegacyArgsError(f"the here-document ending with {delimiter!r} is never ended")
            end = command.find("\n", i)
            line = command[i:] if end < 0 else command[i:end]
            i = len(command) if end < 0 else end + 1
            if (line.lstrip("\t") if strip_tabs else line) == delimiter:
                break
    return i


def _insertion_point(command: str) -> int:
    lines = [line for line in _scan(command) if line.has_code]
    if not lines:
        raise LegacyArgsError("the command has no command to append the arguments to")
    last = lines[-1]
    code = command[: last.code_end].rstrip()
    if code.endswith(";") and not code.endswith(";;"):
        code = code[:-1].rstrip()
    tail = code.split()[-1] if code.split() else ""
    if last.closes_subshell and code.endswith(")"):
        raise LegacyArgsError("the command ends with a ( ... ) subshell")
    if code.endswith(("&", "|", ";", "\\")):
        raise LegacyArgsError(
            f"the command's last command ends with {code[-1]!r}, which leaves it open or in the background"
        )
    if tail in _CLOSING_WORDS or code.endswith((";}", "&}")):
        raise LegacyArgsError(f"the command ends with {tail!r}, the end of a compound command")
    return len(code)


def check_appendable(command: str) -> None:
    """Raise :class:`LegacyArgsError` (with how to write it instead) unless arguments can be appended safely."""
    try:
        _insertion_point(command)
    except LegacyArgsError as exc:
        raise LegacyArgsError(
            f"legacy arguments cannot be appended to bash_command {command!r}: {exc}. {_HOW}"
        ) from None


def append_arguments(command: str, arguments: Sequence[str]) -> str:
    """*command* with *arguments*, shell-quoted, at the end of its last simple command.

    Everything bash does not run (comments, a trailing ``;``, here-document bodies) stays where it was.
    Raises :class:`LegacyArgsError` where that is not safe (see the module docstring).
    """
    try:
        point = _insertion_point(command)
    except LegacyArgsError as exc:
        raise LegacyArgsError(
            f"legacy arguments cannot be appended to bash_command {command!r}: {exc}. {_HOW}"
        ) from None
    if not arguments:
        return command
    return f"{command[:point]} {shlex.join(arguments)}{command[point:]}"
