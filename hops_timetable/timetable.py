"""HopsworksTimetable: Airflow's timetable protocol mapped onto the core's rules (:mod:`hops_timetable.core.schedule`).

Each run belongs to a cron fire F: ``run_after = F``, ``data_interval = [max(previous fire, S), F)``, so Airflow's
``logical_date`` is ``HOPS_LOGICAL_DATE`` (the whole contract: docs/rules.md). Airflow silently stops scheduling a DAG
whose timetable raises, so everything is validated when the DAG is built: scheduling never raises on a valid one.
"""

from __future__ import annotations

import functools
import logging
import warnings
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any, Generic, TypeVar, cast, overload

import pendulum
from airflow.exceptions import AirflowTimetableInvalid
from airflow.timetables.base import DagRunInfo, DataInterval, TimeRestriction, Timetable

from hops_timetable import _compat
from hops_timetable.core.catchup import After, CatchupPolicy, Run
from hops_timetable.core.conf_window import mark_offset
from hops_timetable.core.cron import QuartzCron
from hops_timetable.core.schedule import (
    SERIALIZATION_VERSION,
    PayloadKey,
    Schedule,
    argument_names,
    describe,
    payload_key,
    setting_doc,
)
from hops_timetable.core.validation import ArgumentError, ArgumentTypeError
from hops_timetable.core.window import HopsWindow, as_utc, hops_window
from hops_timetable.croniter_check import check_with_croniter

if TYPE_CHECKING:
    from airflow.models.dag import DagModel
    from airflow.utils.types import DagRunType

__all__ = ["SERIALIZATION_VERSION", "HopsTimetableWarning", "HopsworksTimetable"]

log = logging.getLogger(__name__)

# Candidate runs tried when those the catch-up bound wants are taken; beyond, the stored run (Airflow checked it).
_MAX_TAKEN_SKIPS = 1000
_UNSET: Any = object()
_UTC = pendulum.UTC
_STD_UTC = timezone.utc  # the constructor's own (refused) ``timezone`` argument shadows the module inside it
_T = TypeVar("_T")


class HopsTimetableWarning(UserWarning):
    """A setting was accepted but does not do what its name may suggest."""


class Setting(Generic[_T]):
    """A read-only setting: the argument of the same name of the timetable's schedule (documented there)."""

    def __set_name__(self, owner: type, name: str) -> None:
        self._name = name
        self.__doc__ = setting_doc(name)

    @overload
    def __get__(self, obj: None, owner: type) -> Setting[_T]: ...
    @overload
    def __get__(self, obj: HopsworksTimetable, owner: type) -> _T: ...
    def __get__(self, obj: HopsworksTimetable | None, owner: type) -> Setting[_T] | _T:
        return self if obj is None else cast("_T", obj.schedule.argument(self._name))

    def __set__(self, obj: object, value: object) -> None:
        raise AttributeError(f"{self._name} is read-only: a timetable never changes after it is built")


def _utc(value: datetime | None) -> datetime | None:
    return None if value is None else as_utc(value)


def _run(info: DagRunInfo | None) -> Run | None:
    if info is None or info.data_interval is None:
        return None
    return Run(fire=as_utc(info.run_after), interval_start=as_utc(info.data_interval.start))


def _pendulum(value: datetime) -> pendulum.DateTime:
    # Parts of Airflow rely on pendulum here. Field by field: pendulum.instance() costs several times more.
    return pendulum.DateTime(
        value.year, value.month, value.day, value.hour, value.minute, value.second, value.microsecond, tzinfo=_UTC
    )


class HopsworksTimetable(Timetable):
    """Schedule a DAG exactly as the Hopsworks job scheduler schedules a job.

    :param cron_expression: a Quartz cron expression in UTC, a 5-field UNIX cron or an ``@daily``-style preset.
    :param start_time_offset_seconds: ``None`` or seconds >= 0 by which the HOPS window is moved earlier.
    :param end_time_offset_seconds: ignored, as Hopsworks ignores it (a warning says so).
    :param max_catchup_runs: ``None`` (no bound) or the most runs made for the fires missed during an outage (the
        newest). The DAG's ``catchup=False`` means 1.
    :param skip_to_date: fires before this aware datetime are never run.
    :param start_time: the DAG's start date (aware, or ``None``), as ``hops_schedule`` passes it.
    :param end_time: the DAG's end date (aware, exclusive, or ``None``), as ``hops_schedule`` passes it.
    :param catchup: the DAG's ``catchup``. Given, the timetable holds the DAG's whole restriction (the three must
        equal the DAG's) and tells a backfill from the DAG's own schedule exactly; left out, the DAG policy binds the
        DAG's own when Airflow parses the file (:meth:`bound_to`).

    A bad argument raises :class:`~hops_timetable.core.validation.ArgumentError` naming it; settings are read-only.
    """

    def __init__(
        self,
        cron_expression: str,
        *,
        start_time_offset_seconds: int | None = None,
        end_time_offset_seconds: int | None = None,
        max_catchup_runs: int | None = None,
        skip_to_date: datetime | None = None,
        start_time: datetime | None = None,
        end_time: datetime | None = None,
        catchup: bool | None = None,
        timezone: Any = _UNSET,
    ) -> None:
        if timezone is not _UNSET:
            raise ArgumentTypeError(
                "timezone",
                timezone,
                f"HopsworksTimetable takes no timezone (got timezone={timezone!r}): Hopsworks evaluates every "
                "schedule in UTC. Write the cron expression in UTC and drop the timezone argument.",
            )
        # "It must still fire after now" needs the DAG's start: checked only once the restriction is held. The
        # parameters are the schedule's arguments by name (a test holds the two lists equal).
        given = locals()
        schedule = Schedule.build(
            cron_expression,
            now=None if catchup is None else datetime.now(_STD_UTC),
            **{name: given[name] for name in argument_names()[1:]},
        )
        # Built once per DAG file parse, never when the scheduler deserializes: a stored schedule passed this.
        check_with_croniter(schedule.cron)
        if schedule.end_offset is not None:
            warnings.warn(
                f"end_time_offset_seconds={schedule.end_offset} is ignored, as in Hopsworks: "
                "HOPS_END_TIME is the fire moved by start_time_offset_seconds alone",
                HopsTimetableWarning,
                stacklevel=2,
            )
        self._hold(schedule)

    def _hold(self, schedule: Schedule) -> None:
        self._schedule = schedule
        self.description = describe(schedule)
        # The scheduler repeats its restriction; one (key, policy) pair, so threads never see a mismatched one.
        self._last_policy: tuple[tuple[datetime | None, datetime | None], CatchupPolicy] | None = None

    @classmethod
    def of(cls, schedule: Schedule) -> HopsworksTimetable:
        """The timetable of a schedule already validated (by :meth:`Schedule.build` or its readers)."""
        timetable = cls.__new__(cls)
        timetable._hold(schedule)
        return timetable

    @property
    def schedule(self) -> Schedule:
        return self._schedule

    @property
    def cron_expression(self) -> str:
        return self._schedule.cron.source

    @property
    def cron(self) -> QuartzCron:
        return self._schedule.cron

    summary = cron_expression

    start_time_offset_seconds: Setting[int | None] = Setting()
    end_time_offset_seconds: Setting[int | None] = Setting()
    max_catchup_runs: Setting[int | None] = Setting()
    skip_to_date: Setting[datetime | None] = Setting()
    start_time: Setting[datetime | None] = Setting()
    end_time: Setting[datetime | None] = Setting()
    catchup: Setting[bool | None] = Setting()

    def __repr__(self) -> str:
        args = [f"{name}={value!r}" for name, value in self._schedule.arguments().items() if value is not None]
        return f"HopsworksTimetable({', '.join([repr(self.cron_expression), *args])})"

    def __eq__(self, other: object) -> bool:
        return self.serialize() == other.serialize() if isinstance(other, HopsworksTimetable) else NotImplemented

    def __hash__(self) -> int:
        return hash(tuple(self.serialize().items()))

    def serialize(self) -> dict[str, Any]:
        return self._schedule.payload()

    @classmethod
    def deserialize(cls, data: dict[str, Any]) -> HopsworksTimetable:
        """The timetable :meth:`serialize` wrote; an unreadable payload raises ``ArgumentError`` naming the key and
        value, and Airflow fails to load this DAG only."""
        key = payload_key(data)
        return cls.of(Schedule.from_payload(data)) if key is None else _deserialize_shared(cls, key)

    def validate(self) -> None:
        try:
            self._schedule.validate()
        except ArgumentError as exc:
            raise AirflowTimetableInvalid(str(exc)) from exc

    def bound_to(self, start: datetime | None, end: datetime | None, catchup: bool) -> HopsworksTimetable:
        """This schedule holding the restriction of the DAG it schedules (:mod:`hops_timetable.policy`); an
        :class:`~hops_timetable.core.validation.ArgumentError` when it can never run within it."""
        held = self._schedule
        if held.bound and (held.start, held.end, held.catchup) == (start, end, catchup):
            return self
        arguments = {**held.arguments(), "start_time": start, "end_time": end, "catchup": catchup}
        # The warning about an ignored setting was given once, when the DAG file built the timetable.
        return self.of(Schedule.build(held.cron, now=datetime.now(_STD_UTC), **arguments))

    def policy(self, restriction: TimeRestriction | None = None) -> CatchupPolicy:
        """The catch-up policy of the DAG's own schedule: within the held start and end, else *restriction*'s (a
        DAG's own, not a backfill's; none: no start and no end)."""
        held = self._schedule
        if held.bound:
            key = (held.start, held.end)
        else:
            key = (None, None) if restriction is None else (_utc(restriction.earliest), _utc(restriction.latest))
        if (last := self._last_policy) is not None and last[0] == key:
            return last[1]
        policy = self._schedule.policy_within(*key)
        self._last_policy = (key, policy)
        return policy

    def is_range_request(self, restriction: TimeRestriction) -> bool:
        """Whether *restriction* is a backfill's ``TimeRestriction(from, to, catchup=True)`` rather than the DAG's
        own; only a held restriction can tell, and one equal to it is read as the DAG's own (docs/rules.md)."""
        held = self._schedule
        if restriction.latest is None or not restriction.catchup or not held.bound:
            return False
        return (_utc(restriction.earliest), as_utc(restriction.latest)) != (held.start, held.end) or not held.catchup

    def hops_window(self, data_interval: DataInterval | tuple[datetime, datetime]) -> HopsWindow:
        start, end = data_interval
        return hops_window(start, end, self.start_time_offset_seconds)

    @staticmethod
    def _run_info(run: Run) -> DagRunInfo:
        return DagRunInfo.interval(start=_pendulum(run.interval_start), end=_pendulum(run.fire))

    def _after(self, info: DagRunInfo | None) -> After | None:
        if info is None:
            return None
        if (interval := info.data_interval) is None:
            return After.of_fire(as_utc(info.run_after))
        return After.of_run(self._schedule.cron, as_utc(interval.start), as_utc(interval.end), as_utc(info.run_after))

    def infer_manual_data_interval(self, *, run_after: datetime) -> DataInterval:
        run = self._schedule.manual_policy.manual_run(run_after)
        return DataInterval(start=_pendulum(run.interval_start), end=_pendulum(run.fire))

    def next_dagrun_info_v2(
        self, *, last_dagrun_info: DagRunInfo | None, restriction: TimeRestriction
    ) -> DagRunInfo | None:
        last = last_dagrun_info
        if not self.is_range_request(restriction):
            policy = self.policy(restriction)
            run = policy.next_run_after(self._after(last), datetime.now(_STD_UTC), catchup=restriction.catchup)
        else:
            # A backfill: the scheduled run of the next logical date in [earliest, latest], never bounded.
            policy = self._schedule.range_policy
            earliest, latest = _utc(restriction.earliest) or policy.start, _utc(restriction.latest)
            run = None if earliest is None or latest is None else policy.range_run(earliest, latest, _run(last))
        return None if run is None else self._run_info(run)

    def next_dagrun_info(
        self, *, last_automated_data_interval: DataInterval | None, restriction: TimeRestriction
    ) -> DagRunInfo | None:
        interval = last_automated_data_interval
        # Automated runs end at their fire.
        last = None if interval is None else DagRunInfo.interval(interval.start, interval.end)
        return self.next_dagrun_info_v2(last_dagrun_info=last, restriction=restriction)

    def generate_run_id(
        self, *, run_type: DagRunType, run_after: pendulum.DateTime, data_interval: DataInterval | None, **extra: Any
    ) -> str:
        """Airflow's run id; a scheduled run's also carries its HOPS offset, so that its window stays the one it was
        made for when the offset is edited later (:mod:`hops_timetable.core.conf_window`)."""
        run_id = super().generate_run_id(run_type=run_type, run_after=run_after, data_interval=data_interval, **extra)
        if getattr(run_type, "value", run_type) == "scheduled":
            return mark_offset(run_id, self._schedule.offset)
        return run_id

    def next_run_info_from_dag_model(self, *, dag_model: DagModel) -> DagRunInfo | None:
        """The run the scheduler is about to create from ``DagModel.next_dagrun``, re-checked after an outage: with
        two or more fires due the catch-up bound is applied again (the stored run would be one more than Hopsworks
        makes); a replacement whose logical date is taken is passed over for the next free fire."""
        info = super().next_run_info_from_dag_model(dag_model=dag_model)
        if (stored := _run(info)) is None:
            return info
        now = datetime.now(_STD_UTC)
        if self._schedule.bound:
            # The timetable holds the DAG's restriction: nothing to read, and stored_run checks what is due.
            policy, catchup = self.policy(), self._schedule.catchup
        else:
            if (following := self._schedule.cron.next_after(stored.fire)) is None or following > now:
                return info  # at most one fire is due: the stored run is the right one, and no look-up is needed
            if (restriction := _compat.stored_time_restriction(dag_model)) is None:
                return info
            policy, catchup = self.policy(restriction), restriction.catchup
        run = policy.stored_run(
            stored,
            now,
            catchup=catchup,
            taken=lambda logical_date: _compat.logical_date_taken(dag_model, _pendulum(logical_date)),
            max_skips=_MAX_TAKEN_SKIPS,
        )
        if run == stored:
            return info
        log.info(
            "dag %s: the stored next run %s is beyond the catch-up bound after an outage, or the run it wants has a "
            "logical date taken by another run; creating the run of %s instead",
            dag_model.dag_id,
            stored.fire.isoformat(),
            run.fire.isoformat(),
        )
        return self._run_info(run)


@functools.lru_cache(maxsize=1 << 16)
def _deserialize_shared(cls: type[HopsworksTimetable], key: PayloadKey) -> HopsworksTimetable:
    # A timetable never changes: one instance per distinct payload serves every DAG storing it (refusals are not
    # cached). Bounded far above any deployment's distinct schedules (an entry is about 1.2 KB).
    return cls.of(Schedule.from_payload(dict(key[0])))
