"""How many examples a property test runs: what it asks for under the ``ci`` profile, a few in a local run.

``.ci/run`` selects ``HYPOTHESIS_PROFILE=ci``, so CI runs every count the tests name; the default ``dev`` profile
keeps the local feedback loop short. Tests pass ``max_examples=examples(N)`` instead of a bare ``N``.
"""

from __future__ import annotations

import os

CI = os.environ.get("HYPOTHESIS_PROFILE") == "ci"
DEV_EXAMPLES = 25


def examples(ci_count: int) -> int:
    """*ci_count* under the ``ci`` profile, else at most :data:`DEV_EXAMPLES`."""
    return ci_count if CI else min(ci_count, DEV_EXAMPLES)
