"""The HOPS offset a scheduled run was made with, carried in its run id (Airflow keeps no other record of it, and a
run cleared after an offset edit must keep its window): ``scheduled__2026-01-01T10:00:00+00:00__hops_offset_3600s``.
A run made with none keeps Airflow's exact id, which dashboards and scripts expect.
"""

from __future__ import annotations

import re
from typing import Final

MARKER: Final = "__hops_offset_"
# Digits only, as mark_offset writes them: an id edited by hand into anything else is not read as marked.
_MARKED = re.compile(r"__hops_offset_(0|[1-9][0-9]{0,9})s\Z", re.ASCII)


def mark_offset(run_id: str, offset_seconds: int | None) -> str:
    """*run_id* with the offset the run is made with; *run_id* itself when there is none (``None`` or 0)."""
    return f"{run_id}{MARKER}{offset_seconds}s" if offset_seconds else run_id


def marked_offset(run_id: object) -> int | None:
    """The offset :func:`mark_offset` wrote into *run_id*; ``None`` for an id without one."""
    if not isinstance(run_id, str):
        return None
    match = _MARKED.search(run_id)
    return None if match is None else int(match.group(1))
