"""What becomes of a cron fire: one vocabulary for the catch-up policy, the simulator, the coverage and the tab; and
the :class:`Verdict` the audit and parity reach over the fires."""

from __future__ import annotations

from enum import Enum, IntEnum


class Decision(str, Enum):
    """What happened, or happens, to a cron fire; the value is the text reports show."""

    # The schedule's own bounds (CatchupPolicy.classify).
    ELIGIBLE = "eligible"
    BEFORE_START = "skipped before start"
    BEFORE_SKIP_TO_DATE = "skipped before skip_to_date"
    AFTER_END = "after end"
    # What became of an eligible fire (the simulator and the coverage).
    CREATED = "created"
    DROPPED_BOUND = "dropped beyond max_catchup_runs"
    DROPPED_NO_CATCHUP = "dropped: catchup=False"
    BEFORE_FIRST_LOOK = "skipped: no start_time, nothing before the first scheduling is replayed"
    NOT_YET_DUE = "not yet due"
    # Seen only by the coverage audit, which reads real runs rather than replaying a timeline.
    DUE = "due: no run yet"
    MISSED = "missed: no run, and the catch-up bound does not explain it (paused, Airflow down, or deleted)"


CATCH_UP_DROPS = frozenset({Decision.DROPPED_BOUND, Decision.DROPPED_NO_CATCHUP, Decision.BEFORE_FIRST_LOOK})
"""The drops by design of the catch-up rule: fires the schedule would have run, had Airflow been up."""

BY_DESIGN = CATCH_UP_DROPS | {Decision.BEFORE_START, Decision.BEFORE_SKIP_TO_DATE, Decision.AFTER_END}
"""The decisions by which the schedule itself leaves a fire without a run: not a failure of Airflow, unlike ``MISSED``
or ``DUE``."""


class Verdict(IntEnum):
    """The verdict ``audit`` and ``parity`` share, its value the command's exit status. ``DIFFERENCES``: windows not
    processed as they should have been; ``INCONCLUSIVE``: the data cannot tell."""

    OK = 0
    DIFFERENCES = 3
    INCONCLUSIVE = 4
