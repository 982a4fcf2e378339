"""The command of the end-to-end tests' bash tasks: record the HOPS_* environment and the arguments received.

Usage: ``record_task.py <record_dir> <task> [argument ...]``. Writes ``<record_dir>/<run_id>.<task>.json``, the run
id being the ``AIRFLOW_CTX_DAG_RUN_ID`` Airflow exports to the task's environment.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        print("usage: record_task.py <record_dir> <task> [argument ...]", file=sys.stderr)
        return 2
    record_dir, task, arguments = Path(argv[0]), argv[1], argv[2:]
    run_id = os.environ.get("AIRFLOW_CTX_DAG_RUN_ID")
    if not run_id:
        print("AIRFLOW_CTX_DAG_RUN_ID is not set: not started by an Airflow task", file=sys.stderr)
        return 2
    record_dir.mkdir(parents=True, exist_ok=True)
    record = {
        "run_id": run_id,
        "task": task,
        "argv": arguments,
        "env": {key: value for key, value in os.environ.items() if key.startswith("HOPS_")},
    }
    path = record_dir / f"{run_id}.{task}.json"
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(record))
    os.replace(tmp, path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
