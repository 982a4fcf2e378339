"""``hops-timetable compare``: this timetable beside Airflow's ``CronDataIntervalTimetable`` and
``CronTriggerTimetable`` for the same cron, start, end and catchup. Imports Airflow.

Each timetable is asked as the scheduler asks (``next_dagrun_info_v2`` in a loop under one ``TimeRestriction``) at
one moment *now*, the built-ins' clock frozen there when ``--now`` is given; rows are keyed by fire (``run_after``).
"""

from __future__ import annotations

import argparse
import itertools
import textwrap
from contextlib import nullcontext
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

import pendulum

from hops_timetable.cli.errors import BadInput
from hops_timetable.cli.options import MAX_COMPARE, check_count, now_from_args, settings_from_args
from hops_timetable.cli.output import emit, render_table
from hops_timetable.core.cron import MAX_YEAR
from hops_timetable.core.schedule import Schedule
from hops_timetable.core.simulate import scheduled_runs
from hops_timetable.core.window import as_utc, format_hops_time, hops_window

HOPS = "HopsworksTimetable"
DATA_INTERVAL = "CronDataIntervalTimetable"
TRIGGER = "CronTriggerTimetable"
NAMES = (HOPS, DATA_INTERVAL, TRIGGER)
SHORT = {name: name.removesuffix("Timetable") for name in NAMES}  # the table's column heads
Runs = list[tuple[datetime, datetime, datetime]]  # (fire, data interval start, end) of each run
OFFSET_REASON = "offset: the HOPS window is the interval moved {} s earlier"

# Hopsworks' engine has no fires after 2099; asking Airflow's for runs beyond it only costs time (a sparse cron
# such as Feb 29 takes croniter long searches) and every such row would read "no run in Hopsworks".
_HORIZON = datetime(MAX_YEAR + 1, 1, 1, tzinfo=timezone.utc)


@dataclass
class Row:
    """A fire and the data interval each timetable gives it (``None``: no run at that fire)."""

    fire: datetime
    intervals: dict[str, tuple[datetime, datetime] | None]
    reasons: list[str] = field(default_factory=list)


@dataclass
class Comparison:
    settings: Schedule
    now: datetime
    rows: list[Row]
    notes: list[str]

    def as_json(self) -> dict[str, Any]:
        def interval(value: tuple[datetime, datetime] | None) -> dict[str, str] | None:
            return None if value is None else {"start": format_hops_time(value[0]), "end": format_hops_time(value[1])}

        return {
            "settings": self.settings.as_json(),
            "now": format_hops_time(self.now),
            "timetables": list(NAMES),
            "rows": [
                {
                    "fire": format_hops_time(r.fire),
                    "intervals": {name: interval(r.intervals[name]) for name in NAMES},
                    "hops_window": hops_window(*h, self.settings.offset).as_env() if (h := r.intervals[HOPS]) else None,
                    "differs": bool(r.reasons),
                    "reasons": r.reasons,
                }
                for r in self.rows
            ],
            "notes": self.notes,
        }

    def text(self) -> list[str]:
        """The table within :data:`WIDTH` columns, a row's reasons on the lines below it."""

        def cell(fire: datetime, value: tuple[datetime, datetime] | None) -> str:
            if value is None:
                return "-"
            return format_hops_time(value[0]) + ("" if value[1] == fire else f" to {format_hops_time(value[1])}")

        # The offset holds for every run: said once, below the table, it does not mark every row.
        offset_reason = OFFSET_REASON.format(self.settings.offset)
        whys = [[reason for reason in r.reasons if reason != offset_reason] for r in self.rows]
        rows = [
            ("!" if why else "", format_hops_time(r.fire), *(cell(r.fire, r.intervals[nm]) for nm in NAMES))
            for r, why in zip(self.rows, whys, strict=True)
        ]
        table = render_table(["", "fire (run_after)", *(SHORT[name] for name in NAMES)], rows)
        body = table[:2]
        for line, why in zip(table[2:], whys, strict=True):
            body += [line, *_wrap("; ".join(why), "     ", "     ")]
        s = self.settings
        head = [
            f"{s.cron.source}  start={format_hops_time(s.start) if s.start else 'none'}  "
            f"end={format_hops_time(s.end) if s.end else 'none'}  catchup={s.catchup}",
            f"seen at {format_hops_time(self.now)}; each cell is the start of the data interval that timetable "
            "gives the run at that fire, which is where every interval ends ('-': no run at that fire)",
        ]
        notes = list(self.notes)
        if any(offset_reason in r.reasons for r in self.rows):
            notes.insert(0, offset_reason.replace("the interval", "each Hopsworks interval"))
        return [
            *(line for text in head for line in _wrap(text)),
            "",
            *body,
            "",
            *(line for note in notes for line in _wrap(f"note: {note}", rest="      ")),
        ]


WIDTH = 100  # the widest line of the text output (the table's widest row is 92 columns)


def _wrap(text: str, first: str = "", rest: str = "") -> list[str]:
    return textwrap.wrap(text, WIDTH, initial_indent=first, subsequent_indent=rest, break_on_hyphens=False)


def compare(settings: Schedule, now: datetime, n: int, *, freeze_clock: bool = True) -> Comparison:
    """Up to *n* runs of each timetable, seen at *now*, aligned by fire; with ``freeze_clock=False`` the built-ins
    use the real clock, which *now* should then be."""
    from airflow.timetables.base import TimeRestriction
    from airflow.timetables.interval import CronDataIntervalTimetable
    from airflow.timetables.trigger import CronTriggerTimetable

    from hops_timetable._compat import builtin_next_dagrun_info, frozen_builtin_clock

    cron = settings.cron
    if cron.dialect == "quartz":
        raise BadInput(
            f"--cron {cron.source!r} is Quartz; compare needs a cron Airflow's own timetables read: 5 fields "
            "(minute hour day month weekday) or a preset such as @hourly"
        )
    restriction = TimeRestriction(
        earliest=None if settings.start is None else pendulum.instance(settings.start, tz=pendulum.UTC),
        latest=None if settings.end is None else pendulum.instance(settings.end, tz=pendulum.UTC),
        catchup=settings.catchup,
    )
    taken = itertools.islice(scheduled_runs(settings.policy(), None, now, catchup=settings.catchup), n)
    runs = {HOPS: [(run.fire, run.interval_start, run.fire) for run in taken]}
    notes = [
        "CronTriggerTimetable's data interval is empty [fire, fire): its logical date is the fire itself, "
        "while the other two use the previous fire",
        "CronDataIntervalTimetable lists a run by its run_after, the end of its data interval",
    ]
    if not freeze_clock:
        notes.append("no --now given: all three were asked at the real clock")
    with frozen_builtin_clock(now) if freeze_clock else nullcontext():
        for name, kind in ((DATA_INTERVAL, CronDataIntervalTimetable), (TRIGGER, CronTriggerTimetable)):
            timetable, info, found = kind(cron.source, timezone="UTC"), None, runs.setdefault(name, [])
            while len(found) < n:
                try:
                    info = builtin_next_dagrun_info(timetable, info, restriction)
                except (OverflowError, ValueError) as error:
                    # croniter steps outside the years 1..9999 (a fire before a start in the year 1, or after 9999)
                    # and raises; Airflow's timetable has no more runs there, which the table shows as missing.
                    notes.append(f"{SHORT[name]} stopped: Airflow's timetable raised {error!r}")
                    break
                if info is None or info.data_interval is None or info.run_after > _HORIZON:
                    break
                interval = info.data_interval
                found.append((as_utc(info.run_after), as_utc(interval.start), as_utc(interval.end)))
    return Comparison(settings, now, _rows(settings, now, runs, n), notes)


def _rows(settings: Schedule, now: datetime, runs: dict[str, Runs], n: int) -> list[Row]:
    # Past the last fire of a timetable that was cut off at n runs, a missing run means "not asked", not "none".
    horizon = min((r[-1][0] for r in runs.values() if len(r) >= n), default=None)
    by_fire: dict[datetime, dict[str, tuple[datetime, datetime] | None]] = {}
    for name, found in runs.items():
        for fire, start, end in found:
            if horizon is None or fire <= horizon:
                by_fire.setdefault(fire, dict.fromkeys(NAMES))[name] = (start, end)
    first_hops = runs[HOPS][0][0] if runs[HOPS] else None
    rows = [Row(fire, by_fire[fire]) for fire in sorted(by_fire)]
    for row in rows:
        hops = row.intervals[HOPS]
        if hops is not None and settings.offset:
            row.reasons.append(OFFSET_REASON.format(settings.offset))
        if missing := ", ".join(SHORT[nm] for nm in NAMES if row.intervals[nm] is None):
            if row.fire == first_hops and settings.start is not None and hops is not None and hops[0] == settings.start:
                why = "first interval: Hopsworks clamps it to the start; Airflow aligns the start to a fire"
            elif not settings.catchup and row.fire <= now:
                why = "catchup=False pick: each timetable chooses a different past fire to run"
            elif settings.end is not None and row.fire >= settings.end:
                why = "end: Hopsworks' end_time is exclusive, Airflow's end_date inclusive"
            else:
                why = "runs differ"
            row.reasons.append(f"{why} (no run in {missing})")
        data = row.intervals[DATA_INTERVAL]
        if hops is not None and data is not None and hops != data:
            row.reasons.append("data interval differs")
    return rows


def cmd_compare(args: argparse.Namespace) -> int:
    now = now_from_args(args)
    settings = settings_from_args(args, now)
    check_count("-n", args.n, MAX_COMPARE, "runs (Airflow's own timetables take milliseconds a run)")
    result = compare(settings, now, args.n, freeze_clock=args.now is not None)
    emit(args, result.as_json(), result.text)
    return 0
