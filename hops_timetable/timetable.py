"""HopsworksTimetable: Airflow's side of the Hopsworks job scheduler.

A thin adapter: the cron engine (:mod:`hops_timetable.cron`), the catch-up policy (:mod:`hops_timetable.catchup`)
and the window arithmetic (:mod:`hops_timetable.window`) hold the rules; this class maps Airflow's timetable protocol
onto them.

Contract, for a DAG with start_date S, end_date E and catchup C:

* Each run belongs to a cron fire F: ``run_after = F`` and ``data_interval = [max(previous fire, S), F)``, so Airflow's
  ``logical_date`` is Hopsworks' ``HOPS_LOGICAL_DATE``.
* After a schedule edit, an interval never starts before the last run's fire: logical dates stay unique, which
  Airflow needs to move on (a coarser cron would otherwise repeat an older run's logical date and stall the DAG).
* Fires at or before S, at or after E, or before ``skip_to_date`` never become runs.
* After an outage, at most ``max_catchup_runs`` runs are made (one with ``catchup=False``): the newest ones.
* ``start_time_offset_seconds`` shifts the HOPS window (:meth:`HopsworksTimetable.hops_window`), never the Airflow
  interval.

Everything is validated when the DAG is built, because Airflow swallows exceptions raised while scheduling and the
DAG then silently stops being scheduled; the scheduling methods themselves never raise on a valid timetable.
"""

from __future__ import annotations

import logging
import warnings
from datetime import datetime, timezone
from functools import cached_property
from typing import TYPE_CHECKING, Any

import pendulum
from airflow.exceptions import AirflowTimetableInvalid
from airflow.timetables.base import DagRunInfo, DataInterval, TimeRestriction, Timetable

from hops_timetable.catchup import CatchupPolicy, Run
from hops_timetable.cron import CronSyntaxError, QuartzCron
from hops_timetable.validation import (
    ArgumentError,
    check_catchup_runs,
    check_iso_datetime,
    check_offset,
    check_utc_datetime,
    short_repr,
)
from hops_timetable.window import HopsWindow, as_utc, hops_window

if TYPE_CHECKING:
    from airflow.models.dag import DagModel

__all__ = ["HopsTimetableWarning", "HopsworksTimetable"]

log = logging.getLogger(__name__)

SERIALIZATION_VERSION = 1
"""Bumped whenever :meth:`HopsworksTimetable.serialize` changes shape; older payloads keep loading."""

_UNSET: Any = object()
_UTC = pendulum.UTC


class HopsTimetableWarning(UserWarning):
    """A setting was accepted but does not do what its name may suggest."""


def _pendulum(value: datetime) -> pendulum.DateTime:
    # Airflow's DataInterval and DagRunInfo are typed as pendulum DateTime and parts of Airflow rely on it.
    # Built field by field: pendulum.instance() costs several times more, on the scheduler's hot path.
    return pendulum.DateTime(
        value.year, value.month, value.day, value.hour, value.minute, value.second, value.microsecond, tzinfo=_UTC
    )


class HopsworksTimetable(Timetable):
    """Schedule a DAG exactly as the Hopsworks job scheduler schedules a job.

    :param cron_expression: a Quartz cron expression in UTC (``0 0 * ? * * *`` is hourly), a 5-field UNIX cron or
        an ``@daily``-style preset.
    :param start_time_offset_seconds: ``None`` (the window starts at the previous fire) or seconds >= 0 by which
        the HOPS window is moved earlier.
    :param end_time_offset_seconds: accepted for compatibility with Hopsworks' schedule DTO and ignored, as
        Hopsworks ignores it: ``HOPS_END_TIME`` is always ``HOPS_START_TIME`` plus the cron interval.
    :param max_catchup_runs: ``None`` (no bound) or the most runs made for the fires missed during an outage; only
        the newest are made. The DAG's ``catchup=False`` means 1.
    :param skip_to_date: fires before this aware datetime are never run.
    """

    def __init__(
        self,
        cron_expression: str,
        *,
        start_time_offset_seconds: int | None = None,
        end_time_offset_seconds: int | None = None,
        max_catchup_runs: int | None = None,
        skip_to_date: datetime | None = None,
        timezone: Any = _UNSET,
    ) -> None:
        if timezone is not _UNSET:
            raise TypeError(
                f"HopsworksTimetable takes no timezone (got timezone={timezone!r}): Hopsworks evaluates every "
                "schedule in UTC. Write the cron expression in UTC and drop the timezone argument."
            )
        self._cron = QuartzCron(cron_expression)
        self.start_time_offset_seconds = check_offset("start_time_offset_seconds", start_time_offset_seconds)
        self.end_time_offset_seconds = check_offset("end_time_offset_seconds", end_time_offset_seconds)
        self.max_catchup_runs = check_catchup_runs("max_catchup_runs", max_catchup_runs)
        self.skip_to_date = check_utc_datetime("skip_to_date", skip_to_date)
        if self.end_time_offset_seconds is not None:
            warnings.warn(
                f"end_time_offset_seconds={self.end_time_offset_seconds} is ignored, as in Hopsworks: "
                "HOPS_END_TIME is always HOPS_START_TIME plus the cron interval",
                HopsTimetableWarning,
                stacklevel=2,
            )
        self.description = self._describe()
        # The scheduler asks again and again with the same restriction; remembering the last policy spares
        # rebuilding it. One attribute holding (key, policy) so that threads never see a mismatched pair.
        self._last_policy: tuple[tuple[datetime | None, datetime | None], CatchupPolicy] | None = None

    # -- identity ---------------------------------------------------------------------------------------------

    @property
    def cron_expression(self) -> str:
        """The cron expression as given."""
        return self._cron.source

    @property
    def cron(self) -> QuartzCron:
        """The parsed cron expression."""
        return self._cron

    @property
    def summary(self) -> str:
        return self._cron.source

    def _describe(self) -> str:
        offset = self.start_time_offset_seconds
        if offset:
            window = f"HOPS_START_TIME = previous fire - {_seconds_text(offset)}"
        else:
            window = "HOPS_START_TIME = previous fire"
        catchup = (
            "all missed fires are replayed when catchup=True"
            if self.max_catchup_runs is None
            else f"at most the newest {self.max_catchup_runs} missed fire(s) are replayed when catchup=True"
        )
        text = (
            f"{self._cron.describe()} (UTC). Window: {window}, HOPS_END_TIME = start + cron interval. "
            f"Catch-up: {catchup}; catchup=False runs only the newest."
        )
        if self.skip_to_date is not None:
            text += f" Fires before {self.skip_to_date.isoformat()} are skipped."
        # DagModel.timetable_description is a 1000-character column.
        return text[:1000]

    def __repr__(self) -> str:
        args = [repr(self._cron.source)]
        for name in (
            "start_time_offset_seconds",
            "end_time_offset_seconds",
            "max_catchup_runs",
            "skip_to_date",
        ):
            value = getattr(self, name)
            if value is not None:
                args.append(f"{name}={value!r}")
        return f"HopsworksTimetable({', '.join(args)})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, HopsworksTimetable):
            return NotImplemented
        return self.serialize() == other.serialize()

    def __hash__(self) -> int:
        return hash((self._cron.source, self.start_time_offset_seconds, self.max_catchup_runs, self.skip_to_date))

    # -- serialization ----------------------------------------------------------------------------------------

    def serialize(self) -> dict[str, Any]:
        return {
            "version": SERIALIZATION_VERSION,
            "cron_expression": self._cron.source,
            "start_time_offset_seconds": self.start_time_offset_seconds,
            "end_time_offset_seconds": self.end_time_offset_seconds,
            "max_catchup_runs": self.max_catchup_runs,
            "skip_to_date": None if self.skip_to_date is None else self.skip_to_date.isoformat(),
        }

    @classmethod
    def deserialize(cls, data: dict[str, Any]) -> HopsworksTimetable:
        """The timetable :meth:`serialize` wrote *data* for.

        A payload that is not an object, has a format version other than 1 to :data:`SERIALIZATION_VERSION`
        (a payload without ``version`` is version 1), lacks ``cron_expression``, holds an unknown key or a value
        its key does not accept raises :class:`~hops_timetable.validation.ArgumentError` (a ``ValueError``), one
        message naming the key, the value and the versions understood. Airflow then fails to load this DAG only.
        """
        arguments = _payload_arguments(data)
        with warnings.catch_warnings():
            # The author was warned when the DAG was built; the scheduler need not repeat it on every load.
            warnings.simplefilter("ignore", HopsTimetableWarning)
            try:
                return cls(**arguments)
            except CronSyntaxError as exc:  # every other value was checked already: only the cron is left
                cron = arguments["cron_expression"]
                raise _payload_error("cron_expression", cron, f"key 'cron_expression': {exc}") from None

    def validate(self) -> None:
        """Check the invariants again; a timetable built through ``__init__`` always passes."""
        try:
            QuartzCron(self._cron.source)
            check_offset("start_time_offset_seconds", self.start_time_offset_seconds)
            check_catchup_runs("max_catchup_runs", self.max_catchup_runs)
            check_utc_datetime("skip_to_date", self.skip_to_date)
        except (TypeError, ValueError) as exc:
            raise AirflowTimetableInvalid(str(exc)) from exc

    # -- the rules --------------------------------------------------------------------------------------------

    def policy(self, restriction: TimeRestriction) -> CatchupPolicy:
        """The catch-up policy for a DAG with this restriction."""
        key = (restriction.earliest, restriction.latest)
        last = self._last_policy
        if last is not None and last[0] == key:
            return last[1]
        policy = CatchupPolicy(
            cron=self._cron,
            start=None if restriction.earliest is None else as_utc(restriction.earliest),
            end=None if restriction.latest is None else as_utc(restriction.latest),
            skip_to=self.skip_to_date,
            max_catchup_runs=self.max_catchup_runs,
        )
        self._last_policy = (key, policy)
        return policy

    @cached_property
    def _unrestricted(self) -> CatchupPolicy:
        return CatchupPolicy(cron=self._cron, skip_to=self.skip_to_date, max_catchup_runs=self.max_catchup_runs)

    def hops_window(self, data_interval: DataInterval | tuple[datetime, datetime]) -> HopsWindow:
        """The HOPS_* window of the run with this Airflow data interval."""
        start, end = data_interval
        return hops_window(start, end, self.start_time_offset_seconds)

    @staticmethod
    def _run_info(run: Run) -> DagRunInfo:
        return DagRunInfo.interval(start=_pendulum(run.interval_start), end=_pendulum(run.fire))

    # -- Airflow's timetable protocol -------------------------------------------------------------------------

    def infer_manual_data_interval(self, *, run_after: datetime) -> DataInterval:
        run = self._unrestricted.manual_run(run_after)
        return DataInterval(start=_pendulum(run.interval_start), end=_pendulum(run.fire))

    def next_dagrun_info_v2(
        self, *, last_dagrun_info: DagRunInfo | None, restriction: TimeRestriction
    ) -> DagRunInfo | None:
        last_fire = None if last_dagrun_info is None else last_dagrun_info.run_after
        return self._next(last_fire, restriction)

    def next_dagrun_info(
        self, *, last_automated_data_interval: DataInterval | None, restriction: TimeRestriction
    ) -> DagRunInfo | None:
        # Each interval ends at its fire, so the end is the last run's fire.
        last_fire = None if last_automated_data_interval is None else last_automated_data_interval.end
        return self._next(last_fire, restriction)

    def _next(self, last_fire: datetime | None, restriction: TimeRestriction) -> DagRunInfo | None:
        policy = self.policy(restriction)
        run = policy.next_run(
            None if last_fire is None else as_utc(last_fire),
            datetime.now(timezone.utc),
            catchup=restriction.catchup,
        )
        return None if run is None else self._run_info(run)

    def next_run_info_from_dag_model(self, *, dag_model: DagModel) -> DagRunInfo | None:
        """The run the scheduler is about to create from ``DagModel.next_dagrun``, re-checked against the bound.

        The stored next run was computed before an outage; creating it afterwards would make one run more than
        Hopsworks makes (the stale one, then the newest). When two or more fires are due, the catch-up bound is
        applied again here and the stale run is replaced by the run the bound allows.
        """
        info = super().next_run_info_from_dag_model(dag_model=dag_model)
        if info is None or info.data_interval is None:
            return info
        stored = as_utc(info.run_after)
        now = datetime.now(timezone.utc)
        following = self._cron.next_after(stored)
        if following is None or following > now:
            return info  # at most one fire is due: the stored run is the right one
        restriction = _stored_restriction(dag_model)
        if restriction is None:
            return info
        policy = self.policy(restriction)
        fire = policy.pick(stored, now, policy.bound(restriction.catchup))
        if fire == stored:
            return info
        log.info(
            "dag %s: the stored next run %s is beyond the catch-up bound after an outage; creating the run of "
            "%s instead",
            dag_model.dag_id,
            stored.isoformat(),
            fire.isoformat(),
        )
        return self._run_info(policy.run(fire))


_PAYLOAD_KEYS = (
    "version",
    "cron_expression",
    "start_time_offset_seconds",
    "end_time_offset_seconds",
    "max_catchup_runs",
    "skip_to_date",
)


def _payload_error(key: str, value: object, problem: str) -> ArgumentError:
    understood = (
        "this hops-timetable reads format version 1"
        if SERIALIZATION_VERSION == 1
        else f"this hops-timetable reads format versions 1 to {SERIALIZATION_VERSION}"
    )
    return ArgumentError(key, value, f"HopsworksTimetable payload ({understood}): {problem}")


def _payload_arguments(data: object) -> dict[str, Any]:
    """The constructor arguments held by a serialized payload, each checked by :mod:`hops_timetable.validation`.

    The cron expression is only type-checked here; the constructor parses it (once).
    """
    fail = _payload_error
    if not isinstance(data, dict):
        raise fail("", data, f"{short_repr(data)} is a {type(data).__name__}, expected an object")
    version = data.get("version", 1)
    if isinstance(version, bool) or not isinstance(version, int) or version < 1:
        raise fail("version", version, f"key 'version'={short_repr(version)} is not a format version")
    if version > SERIALIZATION_VERSION:
        raise fail(
            "version",
            version,
            f"key 'version'={version} is newer than this hops-timetable understands; upgrade hops-timetable "
            "on this Airflow component",
        )
    unknown = [key for key in data if key not in _PAYLOAD_KEYS]
    if unknown:
        names = ", ".join(sorted(short_repr(k) for k in unknown)[:10])
        raise fail(
            str(unknown[0]), data[unknown[0]], f"unknown key(s) {names}; the keys are {', '.join(_PAYLOAD_KEYS)}"
        )
    if "cron_expression" not in data:
        raise fail("cron_expression", None, "key 'cron_expression' is missing")
    cron = data["cron_expression"]
    checks = {
        "start_time_offset_seconds": check_offset,
        "end_time_offset_seconds": check_offset,
        "max_catchup_runs": check_catchup_runs,
        "skip_to_date": check_iso_datetime,
    }
    if not isinstance(cron, str):
        raise fail("cron_expression", cron, f"key 'cron_expression'={short_repr(cron)} is not a string")
    arguments: dict[str, Any] = {"cron_expression": cron}
    for key, check in checks.items():
        try:
            arguments[key] = check(f"key {key!r}", data.get(key))
        except ArgumentError as exc:
            raise fail(key, data.get(key), str(exc)) from None
    return arguments


def _stored_restriction(dag_model: DagModel) -> TimeRestriction | None:
    """The time restriction of the DAG as last serialized, read in the scheduler's own session."""
    from airflow.models.serialized_dag import SerializedDagModel
    from sqlalchemy.orm import object_session

    session = object_session(dag_model)
    if session is None:
        return None
    serialized = SerializedDagModel.get_dag(dag_model.dag_id, session=session)
    if serialized is None:
        return None
    restriction: TimeRestriction = serialized._time_restriction
    return restriction


def _seconds_text(seconds: int) -> str:
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    parts = [f"{hours} h" if hours else "", f"{minutes} min" if minutes else "", f"{secs} s" if secs else ""]
    return " ".join(p for p in parts if p) or "0 s"
