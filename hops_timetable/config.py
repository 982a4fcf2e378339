"""The settings a deployment tunes: the ``[hops_timetable]`` section of Airflow's configuration (docs/deployment.md),
read once per process (a look-up costs about 0.2 ms, too much for a hook called on every DAG)."""

from __future__ import annotations

import functools
from dataclasses import dataclass, fields
from typing import Final

from hops_timetable.core.validation import ArgumentError

SECTION: Final = "hops_timetable"

_TRUE = frozenset({"true", "t", "1", "yes", "on"})
_FALSE = frozenset({"false", "f", "0", "no", "off"})


@dataclass(frozen=True)
class Settings:
    """Each option of the section, with its default (what each does: docs/deployment.md)."""

    dag_policy: bool = True
    tab_upcoming_windows: int = 5
    tab_kept_dags: int = 64
    tab_kept_pages: int = 16
    tab_snapshots: bool = True
    tab_snapshot_dir: str = ""  # empty: ``hops_timetable/tab-runs`` in ``AIRFLOW_HOME``


def _read(name: str, default: bool | int | str, text: str) -> bool | int | str:
    value = text.strip()
    if isinstance(default, str):
        return value
    if isinstance(default, bool):
        if value.lower() in _TRUE | _FALSE:
            return value.lower() in _TRUE
        expected = "True or False"
    elif value.isdigit() and int(value) >= 1:
        return int(value)
    else:
        expected = "a whole number >= 1"
    raise ArgumentError(
        f"[{SECTION}] {name}", text, f"[{SECTION}] {name}={text!r} is invalid: expected {expected} (default {default})"
    )


@functools.cache
def settings() -> Settings:
    """The section's values, defaults for the options it does not set; an invalid one raises ``ArgumentError``."""
    from hops_timetable._compat import config_value

    values = {}
    for option in fields(Settings):
        if (text := config_value(SECTION, option.name)) is not None:
            values[option.name] = _read(option.name, option.default, text)  # type: ignore[arg-type]
    return Settings(**values)  # type: ignore[arg-type]
