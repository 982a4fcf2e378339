"""The legacy job arguments ``-start_time <HOPS_LOGICAL_DATE>`` (or Papermill's ``-p start_time ...``) older
Hopsworks jobs parse, and the check that a bash command passes them where the DAG author placed them.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping, Sequence
from typing import Final, Literal, cast

from hops_timetable.core.validation import ArgumentError, short_repr

LegacyArgs = Literal["start_time", "papermill"]

LEGACY_ARG_MODES: Final[Mapping[str, tuple[str, ...]]] = {
    "start_time": ("-start_time",),
    "papermill": ("-p", "start_time"),
}


def check_legacy_args(value: object) -> LegacyArgs | None:
    if value is None or (isinstance(value, str) and value in LEGACY_ARG_MODES):
        return cast("LegacyArgs | None", value)
    raise ArgumentError(
        "legacy_args",
        value,
        f"legacy_args={short_repr(value)} is not supported; use None, 'start_time' (passes "
        "-start_time <HOPS_LOGICAL_DATE>) or 'papermill' (passes -p start_time <HOPS_LOGICAL_DATE>)",
    )


def legacy_arguments(mode: LegacyArgs | None, env: Mapping[str, str]) -> list[str]:
    """The job arguments Hopsworks appends for *mode*: ``[]`` when there is no mode or no ``HOPS_LOGICAL_DATE``."""
    if mode is None or "HOPS_LOGICAL_DATE" not in env:
        return []
    return [*LEGACY_ARG_MODES[mode], env["HOPS_LOGICAL_DATE"]]


LEGACY_ARGS_TEMPLATE: Final = "{{ hops.legacy_args }}"  # renders to the legacy arguments, shell-quoted

_TEMPLATE_NAME = "hops.legacy_args"
_HOW = f"place them where the job takes them, for example: job.sh a {LEGACY_ARGS_TEMPLATE} || true"


class LegacyArgsError(ArgumentError):
    """A command that would not pass its legacy arguments to the job as words of their own."""


def check_legacy_args_placed(mode: LegacyArgs | None, command: str) -> None:
    """When the DAG is built: a command with ``legacy_args`` must name :data:`LEGACY_ARGS_TEMPLATE`, one without must
    not (it would render to nothing)."""
    if (mode is None) == (_TEMPLATE_NAME in command):
        shown = short_repr(command)
        problem = (
            f"bash_command={shown} places {LEGACY_ARGS_TEMPLATE} but legacy_args is None; pass legacy_args="
            "'start_time' or 'papermill'"
            if mode is None
            else f"legacy_args={mode!r} is set but bash_command={shown} never places the arguments; {_HOW}"
        )
        raise LegacyArgsError("bash_command", command, problem)


def check_legacy_args_passed(command: str, arguments: Sequence[str]) -> None:
    """After rendering: *arguments* must stand in *command* as consecutive words, as bash's quoting splits it. A
    command beyond what :mod:`shlex` splits (``$'...'``, a here-document) is left as the author placed them."""
    if not arguments:
        return
    lexer = shlex.shlex(command, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    try:
        words = list(lexer)
    except ValueError:
        return
    size = len(arguments)
    if not any(words[i : i + size] == list(arguments) for i in range(len(words) - size + 1)):
        raise LegacyArgsError(
            "bash_command",
            command,
            f"the rendered bash_command={short_repr(command)} does not pass {shlex.join(arguments)} as words of "
            f"their own (inside quotes or a comment, or never placed); {_HOW}",
        )
