"""Progress of a long command on stderr: shown when stderr is a terminal, or with ``--progress``; never on stdout,
so ``--json`` stays one document."""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any


def _peak_mib() -> int:
    try:
        import resource
    except ImportError:  # not on Windows
        return 0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak // 1024 if sys.platform != "darwin" else peak // 2**20  # kilobytes on Linux, bytes on macOS


class Progress:
    """Steps of ``parity``, each line with the seconds since the start; silent when not *enabled*."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        self.began = time.monotonic()

    @classmethod
    def for_args(cls, args: argparse.Namespace) -> Progress:
        return cls(bool(getattr(args, "progress", False)) or sys.stderr.isatty())

    def step(self, message: str) -> None:
        if self.enabled:
            line = f"parity: {message} ({time.monotonic() - self.began:.1f} s, peak {_peak_mib()} MiB)"
            print(line, file=sys.stderr, flush=True)

    def count(self, what: str) -> Any:
        """A callback for a loop that calls it every so many items."""
        return lambda n: self.step(f"{n:,} {what} read")

    def done(self) -> None:
        self.step("done")
