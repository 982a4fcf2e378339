"""Each pinned set's header says an install that works: the README's install commands (run as written by the wheel
test), with that set.

The package is on no public index, so ``pip install hops-timetable -c ...`` finds nothing; the header must say to
build the wheel from a clone and install it with the file's constraints, as README.md's install block does.
"""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest
from test_plugin_install import INSTALL_MARKER, _block

ROOT = Path(__file__).resolve().parent.parent
PINNED_SETS = sorted((ROOT / "constraints").glob("airflow-*.txt"))


def _readme_commands(minor: str) -> list[list[str]]:
    """The install block's build and install commands, as argument lists, for ``minor``."""
    block = _block(ROOT / "README.md", INSTALL_MARKER, "bash")
    commands = [shlex.split(line.replace("$AIRFLOW_MINOR", minor), comments=True) for line in block.splitlines()]
    return [words for words in commands if words[:2] in (["uv", "build"], ["uv", "pip"])]


def _header_commands(path: Path) -> list[list[str]]:
    """The commands the file's header shows (its comment lines indented as code), as argument lists."""
    header = [line for line in path.read_text().splitlines() if line.startswith("#")]
    return [shlex.split(line[1:]) for line in header if line.startswith("#   ")]


def test_there_is_a_pinned_set_per_minor() -> None:
    assert [path.name for path in PINNED_SETS] == [f"airflow-3.{n}.txt" for n in range(5)]


@pytest.mark.parametrize("path", PINNED_SETS, ids=lambda path: path.name)
def test_the_header_shows_the_readmes_install_with_this_set(path: Path) -> None:
    minor = path.stem.removeprefix("airflow-")
    expected = _readme_commands(minor)
    assert [words[:2] for words in expected] == [["uv", "build"], ["uv", "pip"]], expected
    assert expected[1][-2:] == ["-c", f"constraints/{path.name}"], expected
    assert _header_commands(path) == expected
