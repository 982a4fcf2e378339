"""``hops-timetable parity`` on large exports: peak memory and time at 10^5 and 10^6 executions.

An hourly job (``-start_time`` in the *fire* meaning), one on-time execution per fire, written as one REST listing
page (compact JSON, every key the REST API returns), then ``hops-timetable parity --json`` run in a child process:
its peak resident memory (``ru_maxrss``) and wall time are reported, with the ratio to the decade before (about
10x is linear growth). The goal: 10^6 executions under 1 GiB.

``python -m benchmarks.bench_parity`` (``--quick``: 10^4 and 10^5; ``--sizes 100000 1000000``). Times depend on the
machine and its load; the memory much less.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

UTC = timezone.utc
START = datetime(2020, 1, 1, tzinfo=UTC)
GOAL_BYTES = 1024**3


def _ms(value: datetime) -> int:
    return int((value - datetime(1970, 1, 1, tzinfo=UTC)) / timedelta(milliseconds=1))


def write_export(directory: Path, n: int) -> tuple[Path, Path, datetime]:
    """The schedule and an executions listing of *n* hourly fires; returns their paths and the range's end."""
    schedule = directory / "schedule.json"
    schedule.write_text(json.dumps({"id": 7, "cronExpression": "0 0 * ? * * *", "startDateTime": _ms(START)}))
    executions = directory / f"executions-{n}.json"
    href = "https://hopsworks.example.com/hopsworks-api/api/project/119/jobs/job/executions"
    with executions.open("w", encoding="utf-8") as out:
        out.write(f'{{"href": "{href}", "count": {n}, "items": [')
        for i in range(n):
            fire = START + timedelta(hours=i + 1)
            item = {
                "id": i + 1,
                "submissionTime": (fire + timedelta(seconds=21)).strftime("%Y-%m-%dT%H:%M:%S.412Z"),
                "state": "FINISHED",
                "finalStatus": "SUCCEEDED",
                "stdoutPath": f"/Projects/demo/Logs/Python/job/{i + 1}/stdout.log",
                "stderrPath": f"/Projects/demo/Logs/Python/job/{i + 1}/stderr.log",
                "hdfsUser": "demo__meb10000",
                "args": f"--table features -start_time {fire.strftime('%Y-%m-%dT%H:%M:%SZ')}",
                "progress": 1.0,
                "user": {"firstname": "Ada", "lastname": "Lovelace", "email": "ada@example.com"},
                "filesToRemove": [],
                "duration": 84213,
                "href": f"{href}/{i + 1}",
            }
            out.write(("," if i else "") + json.dumps(item, separators=(",", ":")))
        out.write("]}")
    return schedule, executions, START + timedelta(hours=n + 1)


def measure(n: int, directory: Path) -> dict[str, float]:
    schedule, executions, end = write_export(directory, n)
    argv = [
        sys.executable,
        "-m",
        "hops_timetable.cli",
        "parity",
        "--hopsworks-schedule",
        str(schedule),
        "--hopsworks-executions",
        str(executions),
        "--from",
        (START + timedelta(hours=1)).isoformat(),  # the first fire: the range holds exactly n fires
        "--to",
        end.isoformat(),
        "--json",
    ]
    began = time.perf_counter()
    done = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, check=False)
    seconds = time.perf_counter() - began
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024  # the largest child so far: sizes grow
    if done.returncode not in (0, 3, 4):
        raise SystemExit(f"parity exited {done.returncode}: {done.stderr[-2000:]}")
    return {"n": n, "seconds": seconds, "peak_bytes": peak, "file_bytes": executions.stat().st_size}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="10^4 and 10^5 executions")
    parser.add_argument("--sizes", type=int, nargs="+", help="the numbers of executions, ascending")
    args = parser.parse_args(argv)
    sizes = args.sizes or ([10_000, 100_000] if args.quick else [100_000, 1_000_000])
    print("| executions | export | peak memory | wall time | time ratio | under 1 GiB |")
    print("|---:|---:|---:|---:|---:|---|")
    before = None
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            point = measure(n, Path(tmp))
            ratio = "" if before is None else f"{point['seconds'] / before:.1f}x"
            before = point["seconds"]
            print(
                f"| {n:,} | {point['file_bytes'] / 2**20:,.0f} MiB | {point['peak_bytes'] / 2**20:,.0f} MiB "
                f"| {point['seconds']:.1f} s | {ratio} | {'yes' if point['peak_bytes'] < GOAL_BYTES else 'no'} |",
                flush=True,
            )
            os.remove(Path(tmp) / f"executions-{n}.json")
    return 0


if __name__ == "__main__":
    sys.exit(main())
