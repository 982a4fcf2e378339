"""The verdict of a check that compares what ran with what should have: ``audit`` and ``parity`` share it.

Its value is the command's exit status, so both commands mean the same by 0, 3 and 4. Pure: no Airflow import.
"""

from __future__ import annotations

from enum import IntEnum


class Verdict(IntEnum):
    """``OK``: everything agrees; ``DIFFERENCES``: the data shows windows not processed as they should have been;
    ``INCONCLUSIVE``: the data cannot tell (it says what is missing)."""

    OK = 0
    DIFFERENCES = 3
    INCONCLUSIVE = 4
