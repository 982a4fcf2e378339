"""The verdict ``audit`` and ``parity`` share: its value is the command's exit status. Pure."""

from __future__ import annotations

from enum import IntEnum


class Verdict(IntEnum):
    """``DIFFERENCES``: windows not processed as they should have been; ``INCONCLUSIVE``: the data cannot tell."""

    OK = 0
    DIFFERENCES = 3
    INCONCLUSIVE = 4
