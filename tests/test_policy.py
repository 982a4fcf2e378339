"""The DAG policy, through Airflow's own DagBag (which calls ``dag_policy`` on every DAG it parses, as the
dag-processor and the worker do) and Airflow's own backfill listing: every documented way to build a DAG gets the
same runs, the DAG's end date counts wherever Airflow takes it from, and what could never run is refused."""

from __future__ import annotations

import textwrap
from datetime import datetime
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

import airflow_versions
import pytest
import time_machine
from airflow.models.backfill import _get_info_list
from airflow.timetables.base import DagRunInfo
from support import utc

from hops_timetable import HopsworksTimetable, _compat
from hops_timetable.policy import dag_restriction

HEADER = """
from datetime import datetime, timedelta, timezone
from airflow.sdk import DAG
from airflow.providers.standard.operators.empty import EmptyOperator
from hops_timetable import HopsworksTimetable, hops_schedule
UTC = timezone.utc
"""


def parse(tmp_path: Path, body: str) -> tuple[dict[str, Any], dict[str, str]]:
    """The scheduler's view of each DAG of a DAG file parsed by Airflow's DagBag, and the file's import errors."""
    path = tmp_path / "dags.py"
    path.write_text(HEADER + textwrap.dedent(body), encoding="utf-8")
    bag = _compat.dag_bag_class()(dag_folder=str(tmp_path))
    serializer = airflow_versions.dag_serialization_class()
    dags = {dag_id: serializer.from_dict(serializer.to_dict(dag)) for dag_id, dag in bag.dags.items()}
    return dags, {Path(k).name: str(v) for k, v in bag.import_errors.items()}


def windows(infos: list[DagRunInfo]) -> list[tuple[datetime, datetime]]:
    return [(i.data_interval.start, i.data_interval.end) for i in infos if i.data_interval is not None]


def test_the_policy_is_installed_with_the_package() -> None:
    (entry,) = [e for e in entry_points(group="airflow.policy") if e.name == "hops_timetable"]
    assert entry.value == "hops_timetable.policy"


TWO_WAYS = """
with DAG("by_hand", schedule=HopsworksTimetable("0 0 * ? * * *", max_catchup_runs=3),
         start_date=datetime(2026, 1, 1, 0, 30, tzinfo=UTC), catchup={catchup}) as d1:
    EmptyOperator(task_id="job")
with DAG("by_helper", **hops_schedule("0 0 * ? * * *", start_time=datetime(2026, 1, 1, 0, 30, tzinfo=UTC),
         catchup={catchup}, max_catchup_runs=3, trigger_form=False)) as d2:
    EmptyOperator(task_id="job")
"""


@pytest.mark.parametrize("catchup", [True, False])
def test_both_documented_ways_make_the_same_runs_backfills_and_dry_runs(tmp_path: Path, catchup: bool) -> None:
    dags, errors = parse(tmp_path, TWO_WAYS.format(catchup=catchup))
    assert errors == {}
    by_hand, by_helper = dags["by_hand"], dags["by_helper"]
    assert by_hand.timetable.catchup is catchup and by_hand.timetable.start_time == utc(2026, 1, 1, 0, 30)
    with time_machine.travel(utc(2026, 1, 2), tick=False):
        # Ten fires from before the start date on: never bounded by max_catchup_runs=3 or catchup=False, clamped at
        # the start, no fire at or before it, and no interval invented at the backfill's own from-date.
        got = _get_info_list(
            from_date=utc(2025, 12, 31, 20, 7), to_date=utc(2026, 1, 1, 9, 59), reverse=False, dag=by_hand
        )
        same = _get_info_list(
            from_date=utc(2025, 12, 31, 20, 7), to_date=utc(2026, 1, 1, 9, 59), reverse=False, dag=by_helper
        )
    assert windows(got) == windows(same)
    assert windows(got) == [(utc(2026, 1, 1, 0, 30), utc(2026, 1, 1, 1))] + [
        (utc(2026, 1, 1, h), utc(2026, 1, 1, h + 1)) for h in range(1, 10)
    ]
    # And the scheduler's own runs after a day-long outage: the bound, alike.
    assert windows(airflow_versions.scheduled_runs(by_hand, utc(2026, 1, 2))) == windows(
        airflow_versions.scheduled_runs(by_helper, utc(2026, 1, 2))
    )


END_FROM_DEFAULT_ARGS = """
with DAG("ends", schedule=HopsworksTimetable("0 0 * ? * * *"), start_date=datetime(2026, 1, 1, tzinfo=UTC),
         catchup={catchup}, default_args={{"end_date": datetime(2026, 1, 1, 5, 30, tzinfo=UTC)}}) as d1:
    EmptyOperator(task_id="job")
with DAG("ends_helper", **hops_schedule("0 0 * ? * * *", start_time=datetime(2026, 1, 1, tzinfo=UTC),
         catchup={catchup}, trigger_form=False),
         default_args={{"end_date": datetime(2026, 1, 1, 5, 30, tzinfo=UTC)}}) as d2:
    EmptyOperator(task_id="job")
"""


@pytest.mark.parametrize("catchup", [True, False])
def test_an_end_date_from_default_args_ends_the_schedule(tmp_path: Path, catchup: bool) -> None:
    dags, errors = parse(tmp_path, END_FROM_DEFAULT_ARGS.format(catchup=catchup))
    assert errors == {}
    for dag in dags.values():
        assert dag.timetable.end_time == utc(2026, 1, 1, 5, 30)
        got = windows(airflow_versions.scheduled_runs(dag, utc(2026, 1, 3)))
        # The last fire before the end is 05:00; nothing after it, ever.
        assert got[-1] == (utc(2026, 1, 1, 4), utc(2026, 1, 1, 5))
        assert len(got) == (5 if catchup else 1)


def test_the_restriction_is_airflows_own(tmp_path: Path) -> None:
    dags, _ = parse(tmp_path, END_FROM_DEFAULT_ARGS.format(catchup=True))
    bag = _compat.dag_bag_class()(dag_folder=str(tmp_path))
    for dag_id, dag in bag.dags.items():
        restriction = _compat.time_restriction(dags[dag_id])
        assert dag_restriction(dag) == (restriction.earliest, restriction.latest, restriction.catchup)


WRAPPED = """
from airflow.sdk import Asset
from airflow.timetables.assets import AssetOrTimeSchedule
with DAG("wrapped", schedule=AssetOrTimeSchedule(timetable=HopsworksTimetable("0 0 * ? * * *"),
         assets=[Asset("s3://bucket/x")]), start_date=datetime(2026, 1, 1, tzinfo=UTC)) as d:
    EmptyOperator(task_id="job")
"""


def test_a_wrapped_timetable_is_refused_when_the_dag_is_parsed(tmp_path: Path) -> None:
    dags, errors = parse(tmp_path, WRAPPED)
    assert dags == {}
    assert "HopsworksTimetable cannot be wrapped in AssetOrTimeSchedule" in errors["dags.py"]


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ('schedule=HopsworksTimetable("0 0 0 1 1 ? 2020")', "never fires after now"),
        ('schedule=HopsworksTimetable("0 0 12 * * ? 2099")', "its window would be empty; pass start_time"),
        ('schedule=HopsworksTimetable("0 0 0 30 2 ?"), start_date=datetime(2026, 1, 1, tzinfo=UTC)', "never fires"),
        (
            'schedule=HopsworksTimetable("0 0 0 1 1 ? 2027"), start_date=datetime(2026, 1, 1, tzinfo=UTC), '
            "end_date=datetime(2026, 1, 31, tzinfo=UTC)",
            "end_time=2026-01-31T00:00:00Z leaves no run: '0 0 0 1 1 ? 2027' has no fire after "
            "start_time=2026-01-01T00:00:00Z",
        ),
        (
            'schedule=HopsworksTimetable("0 0 0 1 1 ? 2020"), start_date=datetime(2021, 1, 1, tzinfo=UTC)',
            "start_time=2021-01-01T00:00:00Z is at or after the last fire of",
        ),
        (
            'schedule=HopsworksTimetable("0 0 * * * ?", skip_to_date=datetime(2026, 2, 1, tzinfo=UTC)), '
            "start_date=datetime(2026, 1, 1, tzinfo=UTC), end_date=datetime(2026, 1, 31, tzinfo=UTC)",
            "skip_to_date=2026-02-01T00:00:00Z is not before end_time=2026-01-31T00:00:00Z",
        ),
    ],
)
def test_a_dag_that_could_never_run_fails_to_import_with_the_reason(
    tmp_path: Path, arguments: str, message: str
) -> None:
    dags, errors = parse(tmp_path, f'with DAG("never", {arguments}) as d:\n    EmptyOperator(task_id="job")\n')
    assert dags == {}
    assert message in errors["dags.py"], errors


def test_a_timetable_without_a_start_that_never_fires_again_is_refused_when_built() -> None:
    with pytest.raises(ValueError, match=r"never fires after now"):
        HopsworksTimetable("0 0 0 1 1 ? 2020", catchup=False)
    with pytest.raises(ValueError, match=r"its window would be empty; pass start_time"):
        HopsworksTimetable("0 0 12 * * ? 2099", catchup=True)
    # A stored one loads whatever the clock says: the scheduler must never fail to load a DAG it ran before.
    stored = HopsworksTimetable("0 0 0 1 1 ? 2020", start_time=utc(2019, 1, 1), end_time=None, catchup=True)
    payload = {**stored.serialize(), "start_time": None, "catchup": None}
    assert HopsworksTimetable.deserialize(payload).cron_expression == "0 0 0 1 1 ? 2020"


@pytest.fixture
def policy_setting(monkeypatch: pytest.MonkeyPatch) -> Any:
    """Sets ``[hops_timetable] dag_policy`` as a deployment does (Airflow's environment variable), read anew."""
    from hops_timetable import config

    def set_to(value: str) -> None:
        monkeypatch.setenv("AIRFLOW__HOPS_TIMETABLE__DAG_POLICY", value)
        config.settings.cache_clear()

    yield set_to
    monkeypatch.delenv("AIRFLOW__HOPS_TIMETABLE__DAG_POLICY", raising=False)
    config.settings.cache_clear()


def test_the_policy_is_switched_off_by_the_deployments_setting(tmp_path: Path, policy_setting: Any) -> None:
    policy_setting("False")
    dags, errors = parse(tmp_path, WRAPPED + TWO_WAYS.format(catchup=True))
    # Nothing refused, nothing bound: the DAG written by hand keeps the timetable's own (unset) start.
    assert errors == {} and set(dags) == {"wrapped", "by_hand", "by_helper"}
    assert dags["by_hand"].timetable.start_time is None
    assert dags["by_helper"].timetable.start_time == utc(2026, 1, 1, 0, 30)
    policy_setting("True")
    dags, errors = parse(tmp_path, WRAPPED + TWO_WAYS.format(catchup=True))
    assert "HopsworksTimetable cannot be wrapped" in errors["dags.py"]
