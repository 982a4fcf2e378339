"""The generator of tests/data/parity: Hopsworks exports shaped exactly as the REST API returns them.

Run ``python tests/parity_fixtures.py`` to write them again; ``tests/test_parity_fixtures.py``
checks that the committed files are what this writes. Every scenario is written three times, once per meaning of
the ``-start_time`` argument (``next``: the fire after the launching one, ``fire``: the launching fire, ``logical``:
the previous fire clamped to the start). The times are written out by hand here, for hourly and two-hourly crons,
with plain datetime arithmetic: nothing is computed by the package under test. Each scenario's ``expected.json`` is
written by hand from the rules (docs/rules.md) and is not produced here.

Shapes (docs/migration.md): camelCase keys, null fields absent, ``submissionTime`` as ``yyyy-MM-dd'T'HH:mm:ss.SSS'Z'``,
schedule dates in epoch milliseconds, ``args`` ending in `` -start_time <Instant>`` as Java's ``Instant.toString()``
writes it, an empty listing without ``items``.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path

ROOT = Path(__file__).parent / "data" / "parity"
MEANINGS = ("next", "fire", "logical")
HOUR = timedelta(hours=1)
UTC = timezone.utc


def at(hour: int, minute: int = 0, second: int = 0, ms: int = 0, day: int = 1) -> datetime:
    return datetime(2026, 3, day, hour, minute, second, ms * 1000, tzinfo=UTC)


START = at(10, 17, 16, 123)
"""A start taken from now() by job.schedule(): off the cron grid, with milliseconds."""


def millis(value: datetime) -> int:
    return int((value - datetime(1970, 1, 1, tzinfo=UTC)).total_seconds() * 1000)


def instant(value: datetime) -> str:
    """Java's Instant.toString(): seconds always, a fraction in groups of three digits only when there is one."""
    text = value.strftime("%Y-%m-%dT%H:%M:%S")
    if value.microsecond:
        text += f".{value.microsecond // 1000:03d}" if value.microsecond % 1000 == 0 else f".{value.microsecond:06d}"
    return text + "Z"


def submission(value: datetime) -> str:
    return value.strftime("%Y-%m-%dT%H:%M:%S.") + f"{value.microsecond // 1000:03d}Z"


@dataclass
class Launch:
    """One execution: the fire it ran for, its neighbours in the cron (by hand), when it was submitted, its end."""

    fire: datetime
    previous: datetime  # the logical date: the previous fire, or the start for the first (clamped) window
    following: datetime
    submitted: datetime
    state: str = "FINISHED"
    final: str = "SUCCEEDED"
    rerun_count: int | None = None
    manual: bool = False
    shift: timedelta = timedelta(0)  # added to the argument: a late or by-hand run with another -start_time


@dataclass
class Scenario:
    name: str
    schedule: dict[str, object]
    launches: list[Launch]
    page_size: int | None = None  # split the listing into pages, newest first, as sort_by=submissiontime:desc
    notes: str = ""
    extra: dict[str, object] = field(default_factory=dict)
    skew: timedelta = timedelta(0)  # the server's clock: submissionTime written as local time with a literal Z
    drop_page: int | None = None  # an export that lost this page (the count still says how many match)


def schedule(cron: str = "0 0 * ? * * *", **overrides: object) -> dict[str, object]:
    base: dict[str, object] = {
        "id": 7,
        "startDateTime": millis(START),
        "cronExpression": cron,
        "enabled": True,
        "catchup": False,
        "maxActiveRuns": 1,
    }
    base.update(overrides)
    return base


def hourly(hour: int, state: str = "FINISHED", final: str = "SUCCEEDED", rerun_count: int | None = None) -> Launch:
    """The hourly fire at *hour*:00 launched 21.412 seconds later (the timer ticks every minute)."""
    fire = at(hour)
    previous = START if fire == at(11) else fire - HOUR
    submitted = fire + timedelta(seconds=21, milliseconds=412)
    return Launch(fire, previous, fire + HOUR, submitted, state, final, rerun_count)


def late(hour: int, submitted: datetime) -> Launch:
    launch = hourly(hour)
    launch.submitted = submitted
    return launch


def job_object(job_schedule: dict[str, object]) -> dict[str, object]:
    """``GET .../jobs/{name}``: the job, its configuration and its schedule embedded."""
    return {
        "id": 41,
        "name": "daily_features",
        "creationTime": "2026-02-27T09:12:44.000Z",
        "config": {
            "type": "pythonJobConfiguration",
            "appName": "daily_features",
            "appPath": "hdfs:///Projects/demo/Resources/daily_features.py",
            "defaultArgs": "--table features",
            "resourceConfig": {"cores": 1.0, "memory": 2048, "gpus": 0},
        },
        "jobType": "PYTHON",
        "creator": {"firstname": "Ada", "lastname": "Lovelace", "email": "ada@example.com"},
        "href": "https://hopsworks.example.com/hopsworks-api/api/project/119/jobs/daily_features",
        "jobSchedule": job_schedule,
    }


def scenarios() -> list[Scenario]:
    burst = at(16, 20, 4, 518)
    edit = [hourly(h) for h in (11, 12, 13, 14, 15)]
    # From 15:30 the cron fires every two hours; the first run after the edit starts at the last run's fire (15:00).
    edit += [Launch(at(16), at(15), at(18), at(16, 0, 19, 7)), Launch(at(18), at(16), at(20), at(18, 0, 22, 880))]
    return [
        Scenario("clamped_first_window", schedule(), [hourly(h) for h in range(11, 18)]),
        Scenario(
            "catchup_burst",
            schedule(catchup=True),
            [
                *(hourly(h) for h in (11, 12, 13)),
                *(late(h, burst + timedelta(seconds=h - 14)) for h in (14, 15, 16)),
                hourly(17),
            ],
            page_size=3,
        ),
        Scenario(
            "max_catchup_drops",
            schedule(catchup=True, maxCatchupRuns=2),
            [
                *(hourly(h) for h in (11, 12, 13)),
                *(late(h, burst + timedelta(seconds=h - 15)) for h in (15, 16)),
                hourly(17),
            ],
        ),
        Scenario(
            "reruns",
            schedule(),
            [
                hourly(11),
                hourly(12, rerun_count=1),  # failed, re-run in place: same id, submission and args
                hourly(13, state="FAILED", final="FAILED"),
                late(13, at(13, 40, 2, 5)),  # a failed fire run again as a new execution, same arguments
                hourly(14, state="FINISHED", final="FAILED"),  # a Spark job: FINISHED, but the application failed
                hourly(15),
            ],
        ),
        Scenario(
            "manual_runs",
            job_object(schedule()),
            [
                hourly(11),
                hourly(12),
                hourly(13),
                Launch(at(13), at(12), at(14), at(13, 31, 9, 2), manual=True),
                hourly(15),
                hourly(16),
            ],
        ),
        Scenario(
            "manual_with_window",
            schedule(),
            # 14:00 never launched; someone ran the job by hand at 14:37 with that fire's -start_time.
            [hourly(11), hourly(12), hourly(13), late(14, at(14, 37, 51, 230)), hourly(15), hourly(16)],
        ),
        Scenario("schedule_edit", schedule(), edit, extra={"edit": {"effectiveFrom": millis(at(15, 30))}}),
        Scenario("in_flight", schedule(), [hourly(11), hourly(12), hourly(13, state="RUNNING", final="UNDEFINED")]),
        # A server on UTC+05:30 writing local time with a literal Z: every submissionTime 5.5 hours late.
        Scenario("clock_skew", schedule(), [hourly(h) for h in range(11, 18)], skew=timedelta(hours=5, minutes=30)),
        # 14:00's execution carries the argument of 15:00: an outlier of the vote, its fires compared as it says.
        Scenario(
            "one_outlier",
            schedule(),
            [*(hourly(h) for h in range(11, 14)), shifted(14), *(hourly(h) for h in (15, 16, 17))],
        ),
        # Listed newest first three to a page; the page of 12:00 to 14:00 is lost.
        Scenario("missing_page", schedule(), [hourly(h) for h in range(11, 18)], page_size=3, drop_page=1),
    ]


def shifted(hour: int) -> Launch:
    launch = hourly(hour)
    launch.shift = HOUR
    return launch


def argument(launch: Launch, meaning: str) -> datetime:
    return {"next": launch.following, "fire": launch.fire, "logical": launch.previous}[meaning] + launch.shift


def execution(ident: int, launch: Launch, meaning: str, skew: timedelta = timedelta(0)) -> dict[str, object]:
    args = "--table features" if launch.manual else f"--table features -start_time {instant(argument(launch, meaning))}"
    item: dict[str, object] = {
        "id": ident,
        "submissionTime": submission(launch.submitted + skew),
        "state": launch.state,
        "finalStatus": launch.final,
        "stdoutPath": f"/Projects/demo/Logs/Python/daily_features/{ident}/stdout.log",
        "stderrPath": f"/Projects/demo/Logs/Python/daily_features/{ident}/stderr.log",
        "hdfsUser": "demo__meb10000",
        "args": args,
        "progress": 1.0 if launch.state == "FINISHED" else 0.5,
        "user": {"firstname": "Ada", "lastname": "Lovelace", "email": "ada@example.com"},
        "filesToRemove": [],
        "duration": 84213,
        "href": f"https://hopsworks.example.com/hopsworks-api/api/project/119/jobs/daily_features/executions/{ident}",
    }
    if launch.state == "RUNNING":
        del item["finalStatus"]
    if launch.rerun_count is not None:
        item["rerunCount"] = launch.rerun_count
    return item


def listing(scenario: Scenario, meaning: str) -> object:
    items = [execution(1000 + i, launch, meaning, scenario.skew) for i, launch in enumerate(scenario.launches)]
    items.sort(key=lambda e: str(e["submissionTime"]), reverse=True)
    href = "https://hopsworks.example.com/hopsworks-api/api/project/119/jobs/daily_features/executions"
    if scenario.page_size is None:
        return {"href": href, "items": items, "count": len(items)} if items else {"href": href, "count": 0}
    pages = [items[i : i + scenario.page_size] for i in range(0, len(items), scenario.page_size)]
    return [
        {"href": href, "items": page, "count": len(items)} for n, page in enumerate(pages) if n != scenario.drop_page
    ]


def schedule_document(scenario: Scenario) -> object:
    edit = scenario.extra.get("edit")
    if not isinstance(edit, dict):
        return scenario.schedule
    later = dict(scenario.schedule, cronExpression="0 0 */2 ? * * *", **edit)
    return {"versions": [scenario.schedule, later]}


def render() -> dict[str, str]:
    """Every file, by its path under tests/data/parity."""
    files: dict[str, str] = {}
    for scenario in scenarios():
        files[f"{scenario.name}/schedule.json"] = json.dumps(schedule_document(scenario), indent=2) + "\n"
        for meaning in MEANINGS:
            text = json.dumps(listing(scenario, meaning), indent=2) + "\n"
            files[f"{scenario.name}/executions-{meaning}.json"] = text
    return files


def main() -> int:
    for path, text in render().items():
        target = ROOT / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    print(f"wrote {len(render())} files under {ROOT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
