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
    """Each option of the section, with its default."""

    dag_policy: bool = True
    """Whether the DAG policy (:mod:`hops_timetable.policy`) binds and checks each ``HopsworksTimetable`` DAG."""

    tab_upcoming_windows: int = 5
    """How many upcoming windows the Hopsworks tab lists."""

    tab_kept_dags: int = 64
    """How many DAGs' folded runs the api-server keeps between views (the most recently viewed)."""

    tab_kept_pages: int = 16
    """How many worked-out tab pages the api-server keeps (the most recently shown)."""

    tab_snapshots: bool = True
    """Whether the api-server writes each DAG's folded runs to disk and takes them up when it starts again."""

    tab_snapshot_dir: str = ""
    """Where those snapshots are written; empty: ``hops_timetable/tab-runs`` in ``AIRFLOW_HOME``."""


def _read(name: str, default: bool | int | str, text: str) -> bool | int | str:
    value = text.strip().lower()
    if isinstance(default, str):
        return text.strip()
    if isinstance(default, bool):
        if value in _TRUE | _FALSE:
            return value in _TRUE
        expected = "True or False"
    else:
        if value.isdigit() and int(value) >= 1:
            return int(value)
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
        text = config_value(SECTION, option.name)
        if text is not None:
            values[option.name] = _read(option.name, option.default, text)  # type: ignore[arg-type]
    return Settings(**values)  # type: ignore[arg-type]
