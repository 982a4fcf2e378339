"""Read the schedule of one DAG in a DAG file, for ``hops-timetable preview --dag-file``. Imports Airflow."""

from __future__ import annotations

import io
import logging
import os
from contextlib import redirect_stderr, redirect_stdout

from hops_timetable.cli.errors import BadInput
from hops_timetable.core.schedule import Schedule
from hops_timetable.core.window import as_utc


def settings_from_dag_file(path: str, dag_id: str) -> Schedule:
    """The ``hops_schedule`` settings of DAG *dag_id* in the file *path*, parsed as Airflow's dag-processor does."""
    if not os.path.isfile(path):
        raise BadInput(f"--dag-file {path!r} is not a file")
    # Airflow logs and prints while it loads; the command's output is the preview only.
    logging.disable(logging.CRITICAL)
    try:
        with redirect_stdout(io.StringIO()), redirect_stderr(io.StringIO()):
            from hops_timetable._compat import dag_bag_class
            from hops_timetable.timetable import HopsworksTimetable

            bag = dag_bag_class()(dag_folder=path, safe_mode=False, load_op_links=False)
    finally:
        logging.disable(logging.NOTSET)
    if bag.import_errors:
        first = next(iter(bag.import_errors.values())).strip().splitlines()
        raise BadInput(f"--dag-file {path!r} does not import: {first[-1] if first else 'unknown error'}")
    dag = bag.dags.get(dag_id)
    if dag is None:
        found = ", ".join(sorted(bag.dags)) or "none"
        raise BadInput(f"--dag-id {dag_id!r} is not in {path!r}; the DAGs there are: {found}")
    timetable = dag.timetable
    if not isinstance(timetable, HopsworksTimetable):
        raise BadInput(
            f"DAG {dag_id!r} is scheduled with {type(timetable).__name__}, not HopsworksTimetable; "
            "preview reads DAGs built with hops_schedule(...)"
        )
    # The DAG's own restriction, as the DAG policy binds it when Airflow parses the file.
    return timetable.schedule.replace(
        start=None if dag.start_date is None else as_utc(dag.start_date),
        end=None if dag.end_date is None else as_utc(dag.end_date),
        catchup=bool(dag.catchup),
    )
