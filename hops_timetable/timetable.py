"""HopsworksTimetable: Airflow's side of the Hopsworks job scheduler.

A thin adapter: the cron engine (:mod:`hops_timetable.core.cron`), the catch-up policy
(:mod:`hops_timetable.core.catchup`) and the window arithmetic (:mod:`hops_timetable.core.window`) hold the rules;
this class maps Airflow's timetable protocol onto them.

Contract, for a DAG with start_date S, end_date E and catchup C:

* Each run belongs to a cron fire F: ``run_after = F`` and ``data_interval = [max(previous fire, S), F)``, so Airflow's
  ``logical_date`` is Hopsworks' ``HOPS_LOGICAL_DATE``.
* After a schedule edit, an interval never starts before the last run's fire: logical dates stay unique, which
  Airflow needs to move on (a coarser cron would otherwise repeat an older run's logical date and stall the DAG).
* Fires at or before S, at or after E, or before ``skip_to_date`` never become runs.
* After an outage, at most ``max_catchup_runs`` runs are made (one with ``catchup=False``): the newest ones.
* A backfill over ``[from, to]`` makes the scheduled runs whose logical dates lie in ``[from, to]``, each with its
  scheduled interval, never bounded (see :meth:`HopsworksTimetable.is_range_request` for how it is recognised).
* The run after any last run (of this or any other timetable, scheduled, backfilled or manual) has a logical date
  and a fire later than the last one's; the scheduler is never handed a run whose logical date exists already.
* ``start_time_offset_seconds`` shifts the HOPS window (:meth:`HopsworksTimetable.hops_window`), never the Airflow
  interval.

Everything is validated when the DAG is built, because Airflow swallows exceptions raised while scheduling and the
DAG then silently stops being scheduled; the scheduling methods themselves never raise on a valid timetable.
"""

from __future__ import annotations

import functools
import logging
import warnings
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

import pendulum
from airflow.exceptions import AirflowTimetableInvalid
from airflow.timetables.base import DagRunInfo, DataInterval, TimeRestriction, Timetable

from hops_timetable import _compat
from hops_timetable.core.catchup import After, CatchupPolicy, Run
from hops_timetable.core.cron import QuartzCron
from hops_timetable.core.run_offset import mark_offset
from hops_timetable.core.schedule import SERIALIZATION_VERSION, PayloadKey, Schedule, argument_names, payload_key
from hops_timetable.core.schedule_words import describe
from hops_timetable.core.validation import ArgumentError, ArgumentTypeError
from hops_timetable.core.window import HopsWindow, as_utc, hops_window
from hops_timetable.croniter_check import check_with_croniter
from hops_timetable.restriction import is_range_request, own_bounds, range_run
from hops_timetable.setting import Setting

if TYPE_CHECKING:
    from airflow.models.dag import DagModel
    from airflow.utils.types import DagRunType

__all__ = ["SERIALIZATION_VERSION", "HopsTimetableWarning", "HopsworksTimetable"]

log = logging.getLogger(__name__)

# Candidate runs tried when the ones the catch-up bound wants are taken by manual or backfill runs; beyond that the
# stored run, which Airflow has checked itself, is created instead.
_MAX_TAKEN_SKIPS = 1000

_UNSET: Any = object()
_UTC = pendulum.UTC
# The constructor's own (refused) ``timezone`` argument shadows the module inside it.
_STD_UTC = timezone.utc


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
        Hopsworks ignores it: ``HOPS_END_TIME`` is the fire moved by ``start_time_offset_seconds`` alone.
    :param max_catchup_runs: ``None`` (no bound) or the most runs made for the fires missed during an outage; only
        the newest are made. The DAG's ``catchup=False`` means 1.
    :param skip_to_date: fires before this aware datetime are never run.
    :param start_time: the DAG's start date (aware, or ``None`` for none), as ``hops_schedule`` passes it.
    :param end_time: the DAG's end date (aware, exclusive, or ``None``), as ``hops_schedule`` passes it.
    :param catchup: the DAG's ``catchup``, as ``hops_schedule`` passes it. Given (not ``None``), the timetable
        holds the DAG's whole restriction: ``start_time``, ``end_time`` and ``catchup`` must then equal the DAG's
        ``start_date``, ``end_date`` and ``catchup``. It then tells a backfill from the DAG's own schedule exactly
        and never reads the serialized DAG. Left out, the package's DAG policy binds the DAG's own when Airflow
        parses the file (:meth:`bound_to`); see :meth:`is_range_request`.

    The settings are validated by :meth:`Schedule.build <hops_timetable.core.schedule.Schedule.build>`, which
    raises :class:`~hops_timetable.core.validation.ArgumentError` naming the argument. All settings are read-only
    properties: a timetable never changes after it is built.
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
        # A schedule that can never make a run would build, never run and show no error. The clock-dependent
        # rules (no start: it must still fire after now) need the DAG's start, so they are checked once the
        # timetable holds the DAG's restriction (hops_schedule, or the DAG policy binding it); a stored schedule
        # is loaded by deserialize, which never reads the clock.
        # The parameters are the schedule's arguments by name (a test holds the two lists equal): handed on as
        # they are, so that the list of settings is written in the signature and in Schedule's fields only.
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
        self._description = describe(schedule)
        # The scheduler asks again and again with the same restriction; remembering the last policy spares
        # rebuilding it. One attribute holding (key, policy) so that threads never see a mismatched pair.
        self._last_policy: tuple[tuple[datetime | None, datetime | None], CatchupPolicy] | None = None

    @classmethod
    def of(cls, schedule: Schedule) -> HopsworksTimetable:
        """The timetable of a schedule already validated (by :meth:`Schedule.build` or its readers)."""
        timetable = cls.__new__(cls)
        timetable._hold(schedule)
        return timetable

    # -- identity ---------------------------------------------------------------------------------------------

    @property
    def schedule(self) -> Schedule:
        """The schedule this timetable holds."""
        return self._schedule

    @property
    def cron_expression(self) -> str:
        """The cron expression as given."""
        return self._schedule.cron.source

    @property
    def cron(self) -> QuartzCron:
        """The parsed cron expression."""
        return self._schedule.cron

    @property
    def summary(self) -> str:
        return self._schedule.cron.source

    @property
    def description(self) -> str:  # type: ignore[override]
        return self._description

    start_time_offset_seconds: Setting[int | None] = Setting()
    end_time_offset_seconds: Setting[int | None] = Setting()
    max_catchup_runs: Setting[int | None] = Setting()
    skip_to_date: Setting[datetime | None] = Setting()
    start_time: Setting[datetime | None] = Setting()
    end_time: Setting[datetime | None] = Setting()
    catchup: Setting[bool | None] = Setting()

    def __repr__(self) -> str:
        args = [repr(self.cron_expression)]
        args += [f"{name}={value!r}" for name, value in self._schedule.arguments().items() if value is not None]
        return f"HopsworksTimetable({', '.join(args)})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, HopsworksTimetable):
            return NotImplemented
        return self.serialize() == other.serialize()

    def __hash__(self) -> int:
        return hash(tuple(self.serialize().items()))

    # -- serialization ----------------------------------------------------------------------------------------

    def serialize(self) -> dict[str, Any]:
        return self._schedule.payload()

    @classmethod
    def deserialize(cls, data: dict[str, Any]) -> HopsworksTimetable:
        """The timetable :meth:`serialize` wrote *data* for.

        A payload that is not an object, has a format version other than 1 to :data:`SERIALIZATION_VERSION`
        (a payload without ``version`` is version 1), lacks ``cron_expression``, holds an unknown key or a value
        its key does not accept raises :class:`~hops_timetable.core.validation.ArgumentError` (a ``ValueError``), one
        message naming the key, the value and the versions understood
        (:meth:`~hops_timetable.core.schedule.Schedule.from_payload`). Airflow then fails to load this DAG only.
        """
        key = payload_key(data)
        if key is not None:
            return _deserialize_shared(cls, key)
        return cls.of(Schedule.from_payload(data))

    def validate(self) -> None:
        """Check the invariants again; a timetable built through ``__init__`` always passes."""
        try:
            self._schedule.validate()
        except ArgumentError as exc:
            raise AirflowTimetableInvalid(str(exc)) from exc

    # -- the rules --------------------------------------------------------------------------------------------

    def bound_to(self, start: datetime | None, end: datetime | None, catchup: bool) -> HopsworksTimetable:
        """This schedule holding the restriction ``(start, end, catchup)`` of the DAG it schedules.

        Airflow computes a DAG's restriction from its ``start_date``, ``end_date`` and ``catchup`` and from its
        tasks' dates (``default_args``); the package's DAG policy hands that restriction to every
        ``HopsworksTimetable`` when the DAG is parsed, so that each tells a backfill from its own schedule exactly
        however the DAG was written. Raises :class:`~hops_timetable.core.validation.ArgumentError` when the schedule
        can never run within it.
        """
        held = self._schedule
        if held.bound and (held.start, held.end, held.catchup) == (start, end, catchup):
            return self
        arguments = {**held.arguments(), "start_time": start, "end_time": end, "catchup": catchup}
        # The warning about an ignored setting was given once, when the DAG file built the timetable.
        return self.of(Schedule.build(held.cron, now=datetime.now(_STD_UTC), **arguments))

    def replayed_window(self, logical_date: datetime) -> HopsWindow | None:
        """:meth:`Schedule.replayed_window <hops_timetable.core.schedule.Schedule.replayed_window>` (the operators
        and the run tab pass it on to :func:`~hops_timetable.core.conf_window.resolve_run_window`)."""
        return self._schedule.replayed_window(logical_date)

    def policy(self, restriction: TimeRestriction | None = None) -> CatchupPolicy:
        """The catch-up policy for a DAG with this (own, not a backfill's) restriction: :func:`~hops_timetable.
        restriction.own_bounds`."""
        key = own_bounds(self._schedule, restriction)
        last = self._last_policy
        if last is not None and last[0] == key:
            return last[1]
        policy = self._schedule.policy_within(*key)
        self._last_policy = (key, policy)
        return policy

    def is_range_request(self, restriction: TimeRestriction) -> bool:
        """Whether *restriction* asks for a backfill's range rather than being the DAG's own:
        :func:`hops_timetable.restriction.is_range_request`."""
        return is_range_request(self._schedule, restriction)

    def hops_window(self, data_interval: DataInterval | tuple[datetime, datetime]) -> HopsWindow:
        """The HOPS_* window of the run with this Airflow data interval."""
        start, end = data_interval
        return hops_window(start, end, self.start_time_offset_seconds)

    @staticmethod
    def _run_info(run: Run) -> DagRunInfo:
        return DagRunInfo.interval(start=_pendulum(run.interval_start), end=_pendulum(run.fire))

    def _after(self, info: DagRunInfo | None) -> After | None:
        if info is None:
            return None
        interval = info.data_interval
        run_after = as_utc(info.run_after)
        if interval is None:
            return After.of_fire(run_after)
        return After.of_run(self._schedule.cron, as_utc(interval.start), as_utc(interval.end), run_after)

    # -- Airflow's timetable protocol -------------------------------------------------------------------------

    def infer_manual_data_interval(self, *, run_after: datetime) -> DataInterval:
        run = self._schedule.manual_policy.manual_run(run_after)
        return DataInterval(start=_pendulum(run.interval_start), end=_pendulum(run.fire))

    def next_dagrun_info_v2(
        self, *, last_dagrun_info: DagRunInfo | None, restriction: TimeRestriction
    ) -> DagRunInfo | None:
        if self.is_range_request(restriction):
            return self._range_next(last_dagrun_info, restriction)
        return self._next(self._after(last_dagrun_info), restriction)

    def next_dagrun_info(
        self, *, last_automated_data_interval: DataInterval | None, restriction: TimeRestriction
    ) -> DagRunInfo | None:
        if last_automated_data_interval is None:
            last = None
        else:
            # Automated runs end at their fire.
            last = DagRunInfo.interval(last_automated_data_interval.start, last_automated_data_interval.end)
        return self.next_dagrun_info_v2(last_dagrun_info=last, restriction=restriction)

    def _next(self, after: After | None, restriction: TimeRestriction) -> DagRunInfo | None:
        run = self.policy(restriction).next_run_after(after, datetime.now(timezone.utc), catchup=restriction.catchup)
        return None if run is None else self._run_info(run)

    def _range_next(self, last: DagRunInfo | None, restriction: TimeRestriction) -> DagRunInfo | None:
        previous = None
        if last is not None and last.data_interval is not None:
            previous = Run(fire=as_utc(last.run_after), interval_start=as_utc(last.data_interval.start))
        run = range_run(self._schedule, previous, restriction)
        return None if run is None else self._run_info(run)

    def generate_run_id(
        self, *, run_type: DagRunType, run_after: pendulum.DateTime, data_interval: DataInterval | None, **extra: Any
    ) -> str:
        """Airflow's run id; a scheduled run's also carries the HOPS offset it is made with.

        So that its window stays the one it was made for when the offset is edited later (a clear, or a run made
        before the edit and started after it): :mod:`hops_timetable.core.run_offset`.
        """
        run_id: str = super().generate_run_id(
            run_type=run_type, run_after=run_after, data_interval=data_interval, **extra
        )
        if getattr(run_type, "value", run_type) == "scheduled":
            return mark_offset(run_id, self._schedule.offset)
        return run_id

    def next_run_info_from_dag_model(self, *, dag_model: DagModel) -> DagRunInfo | None:
        """The run the scheduler is about to create from ``DagModel.next_dagrun``, re-checked after an outage.

        The stored next run was computed before an outage; creating it afterwards would make one run more than
        Hopsworks makes (the stale one, then the newest). When two or more fires are due, the catch-up bound is
        applied again, by the same rule as :meth:`next_dagrun_info_v2`, with the stored run's interval start as
        the floor (the edit clamp). Airflow checked only the stored logical date before asking, so a replacement
        whose logical date is taken by a manual or backfill run is passed over for the next free fire (which may
        lie in the future: the run then waits for its ``run_after``).
        """
        info = super().next_run_info_from_dag_model(dag_model=dag_model)
        if info is None or info.data_interval is None:
            return info
        stored = Run(fire=as_utc(info.run_after), interval_start=as_utc(info.data_interval.start))
        now = datetime.now(timezone.utc)
        if self._schedule.bound:
            # The timetable holds the DAG's restriction: nothing to read, and stored_run checks what is due.
            policy, catchup = self.policy(), self._schedule.catchup
        else:
            following = self._schedule.cron.next_after(stored.fire)
            if following is None or following > now:
                return info  # at most one fire is due: the stored run is the right one, and no look-up is needed
            restriction = _compat.stored_time_restriction(dag_model)
            if restriction is None:
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
    # A timetable never changes after it is built, so one instance per distinct payload serves every DAG that
    # stores it, on every deserialization; refused payloads raise every time (exceptions are not cached). The bound
    # is far above any deployment's count of distinct schedules: with one below it, each deserialization of a DAG
    # evicts another (30x the cost per DAG past 4,096 DAGs when it was 4,096); an entry is about 1.2 KB.
    return cls.of(Schedule.from_payload(dict(key[0])))
