"""docs/cli.md shows real output: every ``$ hops-timetable ...`` example of the pure commands is run and compared.

The ``import`` and ``parity`` examples read files of their own and ``audit`` needs a running Airflow; they are left
out. Each command runs through bash (the examples use ``; echo "exit $?"`` and pipes) with the console script of
this interpreter's environment first on PATH, in an empty directory.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from hops_timetable.cli.app import _parser

DOC = Path(__file__).resolve().parent.parent / "docs" / "cli.md"
CHECKED_ELSEWHERE = ("import", "parity", "audit")


def _examples() -> list[tuple[str, str, str]]:
    """(section command, command line, expected output) of every example in a checked section."""
    examples: list[tuple[str, str, str]] = []
    section = ""
    in_block = False
    command: str | None = None
    output: list[str] = []

    def flush() -> None:
        nonlocal command
        if command is not None and section not in CHECKED_ELSEWHERE:
            examples.append((section, command, "\n".join(output)))
        command = None

    for line in DOC.read_text().splitlines():
        heading = re.match(r"## `([a-z-]+)`", line)
        if heading:
            section = heading.group(1)
        elif line.startswith("## "):
            section = line[3:]
        if line.startswith("```"):
            if in_block:
                flush()
            in_block = not in_block
        elif in_block and line.startswith("$ "):
            flush()
            command, output = line[2:], []
        elif in_block and command is not None:
            output.append(line)
    return examples


EXAMPLES = _examples()


def test_every_command_has_a_section() -> None:
    (action,) = [a for a in _parser()._subparsers._group_actions if a.choices]  # type: ignore[union-attr]
    assert action.choices is not None
    headings = set(re.findall(r"^## `([a-z-]+)`", DOC.read_text(), flags=re.MULTILINE))
    # parity's section is written with that command, which is new; every other command must have one.
    assert set(action.choices) - {"parity"} <= headings, sorted(set(action.choices) - headings)
    assert len(EXAMPLES) >= 10


AIRFLOW_LOG_RECORD = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d+Z \[\w+\s*\] |\[\d{4}-\d{2}-\d{2}T[^]]*\] \{")


@pytest.mark.parametrize(("section", "command", "expected"), EXAMPLES, ids=[c[:60] for _, c, _ in EXAMPLES])
def test_the_documented_output_is_what_the_command_prints(
    section: str, command: str, expected: str, tmp_path: Path
) -> None:
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}")
    done = subprocess.run(["bash", "-c", command], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    # An example shows stderr where the terminal would: the error line first, then the echoed exit status. Log
    # records Airflow itself writes to stderr when it is imported (3.1 logs its alembic plugins) are not the
    # command's output.
    stderr = "".join(line for line in done.stderr.splitlines(keepends=True) if not AIRFLOW_LOG_RECORD.match(line))
    printed = (stderr + done.stdout).rstrip("\n")
    assert printed == expected.rstrip("\n"), f"{section}: {command}"
