"""The parity fixtures load through the real Hopsworks SDK (hopsworks==5.2.1), offline.

Run by scripts/sdk-contract with the SDK's own environment (never the package's): ``python tests/sdk_contract.py``.
Every executions page goes through ``Execution.from_response_json``, every schedule through
``JobSchedule.from_response_json`` and every job object through ``Job.from_response_json`` (given a copy: it pops
``config``). Each key a fixture writes must be a parameter the SDK's constructor names (the SDK swallows unknown keys
into ``**kwargs``, so loading alone would prove little), and the values the parity command reads must come back:
``args`` with its ``-start_time``, ``rerunCount``, the schedule's epoch-millisecond dates as datetimes.
Exits 1 naming the first mismatch.
"""

from __future__ import annotations

import copy
import inspect
import json
import sys
from datetime import datetime, timezone
from pathlib import Path

import humps
from hopsworks_common.execution import Execution
from hopsworks_common.job import Job
from hopsworks_common.job_schedule import JobSchedule

ROOT = Path(__file__).parent / "data" / "parity"
OURS = {"effective_from"}  # the time a schedule version took effect: parity's own key, not Hopsworks'


def parameters(cls: type) -> set[str]:
    return {name for name in inspect.signature(cls.__init__).parameters if name not in ("self", "kwargs")}


def check_keys(what: str, data: dict[str, object], cls: type) -> None:
    unknown = set(humps.decamelize(data)) - parameters(cls) - OURS
    if unknown:
        raise AssertionError(f"{what}: keys the SDK's {cls.__name__} does not name: {sorted(unknown)}")


def check_schedule(what: str, data: dict[str, object]) -> None:
    check_keys(what, data, JobSchedule)
    fields = {k: v for k, v in data.items() if k != "effectiveFrom"}
    schedule = JobSchedule.from_response_json(copy.deepcopy(fields))
    start = datetime.fromtimestamp(int(data["startDateTime"]) / 1000, tz=timezone.utc)  # type: ignore[call-overload]
    if schedule.start_date_time != start or schedule.cron_expression != data["cronExpression"]:
        raise AssertionError(f"{what}: the SDK reads {schedule.start_date_time}, {schedule.cron_expression!r}")


def main() -> int:
    checked = 0
    for path in sorted(ROOT.glob("*/schedule.json")):
        data = json.loads(path.read_text())
        for i, version in enumerate(data.get("versions", [data])):
            what = f"{path.relative_to(ROOT)} version {i}"
            if "jobSchedule" in version:
                check_keys(what, version, Job)
                job = Job.from_response_json(copy.deepcopy(version))
                if job.name != version["name"] or job.job_schedule is None:
                    raise AssertionError(f"{what}: the SDK's Job lost its name or schedule")
                check_schedule(f"{what} jobSchedule", version["jobSchedule"])
            else:
                check_schedule(what, version)
            checked += 1
    for path in sorted(ROOT.glob("*/executions-*.json")):
        data = json.loads(path.read_text())
        for page in data if isinstance(data, list) else [data]:
            items = page.get("items", [])
            executions = Execution.from_response_json(copy.deepcopy(page), job=None)
            if len(executions) != len(items):
                raise AssertionError(f"{path.relative_to(ROOT)}: {len(executions)} executions for {len(items)} items")
            for item, execution in zip(items, executions, strict=True):
                check_keys(f"{path.relative_to(ROOT)} execution {item['id']}", item, Execution)
                if execution.args != item.get("args") or (execution.rerun_count or 0) != item.get("rerunCount", 0):
                    raise AssertionError(f"{path.relative_to(ROOT)} execution {item['id']}: args or rerunCount differ")
                if execution.submission_time != item["submissionTime"]:
                    raise AssertionError(f"{path.relative_to(ROOT)} execution {item['id']}: submission time differs")
        checked += 1
    print(f"{checked} fixture files load through hopsworks==5.2.1 with only the SDK's own keys")
    return 0 if checked else 1


if __name__ == "__main__":
    try:
        sys.exit(main())
    except AssertionError as exc:
        print(f"SDK contract: {exc}", file=sys.stderr)
        sys.exit(1)
