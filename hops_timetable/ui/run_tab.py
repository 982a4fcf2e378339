"""The run tab: one run's ``HOPS_*`` values, the source its tasks get them from (as
:func:`~hops_timetable.core.conf_window.resolve_run_window` gives it), and the legacy arguments the DAG's operators
pass. :func:`run_json` is what the React app reads, :func:`run_page` the plain page of Airflow 3.0."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from html import escape
from typing import Any
from urllib.parse import quote

from hops_timetable.core.conf_window import CONF_KEY, END_PARAM, START_PARAM, conf_with_form_window
from hops_timetable.core.coverage import RunWindow
from hops_timetable.core.legacy_args import LegacyArgs, legacy_arguments
from hops_timetable.core.window import duration_text, format_hops_time
from hops_timetable.ui.render import plain_page


@dataclass(frozen=True)
class RunFacts:
    """One run's window, the source its tasks get it from, and the DAG's legacy modes."""

    item: RunWindow
    source: str | None
    legacy: Mapping[LegacyArgs, Sequence[str]] = field(default_factory=dict)  # mode -> the task ids passing it


def _t(value: datetime | None) -> str:
    return "" if value is None else format_hops_time(value)


def source_words(facts: RunFacts) -> str:
    """Where the run's tasks get their window from, in one sentence (``none`` when they get none)."""
    run, window, source = facts.item.run, facts.item.window, facts.source
    if source is None:
        return (
            f'none: a {run.run_type} run without a window in its conf (conf["{CONF_KEY}"], or the Trigger form\'s '
            f"{START_PARAM} and {END_PARAM}) gets no window"
        )
    head, _, rest = source.partition(";")
    words = f"{head}: "
    if head == "conf":
        conf = run.conf or {}
        if conf_with_form_window(conf) is not conf:  # read from the Trigger form's keys, not conf["hops_window"]
            keys = " and ".join(key for key in (START_PARAM, END_PARAM) if conf.get(key) not in (None, ""))
            words += f'the Trigger form\'s {keys}, read as conf["{CONF_KEY}"]'
        else:
            words += f'conf["{CONF_KEY}"] of the run'
    elif head.startswith("scheduled run replayed"):
        words += (
            "a backfill took this run over; its tasks process the scheduled window of its logical date, "
            "not the interval it carries"
        )
    else:
        words += f"the run's data interval [{_t(run.data_interval_start)}, {_t(run.data_interval_end)})"
        if window is not None and window.logical_date > window.start:
            shift = int((window.logical_date - window.start).total_seconds())
            words += f", the window moved {duration_text(shift)} earlier (start_time_offset_seconds)"
    return words + (f"; {rest.strip()}" if rest else "")


def run_json(dag_id: str, facts: RunFacts) -> dict[str, Any]:
    item, run = facts.item, facts.item.run
    env = {} if item.window is None else item.window.as_env()
    return {
        "dag_id": dag_id,
        "run_id": run.run_id,
        "run_type": run.run_type,
        "state": run.state,
        "source": item.source,
        "source_words": source_words(facts),
        "error": item.error,
        "data_interval_start": None if run.data_interval_start is None else _t(run.data_interval_start),
        "data_interval_end": None if run.data_interval_end is None else _t(run.data_interval_end),
        "env": env,
        "legacy": [
            {"mode": mode, "arguments": " ".join(legacy_arguments(mode, env)), "tasks": list(tasks)}
            for mode, tasks in sorted(facts.legacy.items())
            if env
        ],
    }


def run_page(dag_id: str, facts: RunFacts) -> str:
    """The plain page of :func:`run_json`, every value escaped."""
    data = run_json(dag_id, facts)
    start, end = data["data_interval_start"], data["data_interval_end"]
    rows: list[tuple[str, str, str]] = [
        ("run", "run", data["run_id"]),
        ("type", "type", data["run_type"]),
        ("state", "state", data["state"]),
        ("Airflow data interval", "data-interval", "none" if start is None else f"[{start}, {end})"),
        *((key, key, value) for key, value in data["env"].items()),
    ]
    if data["error"] is not None:
        rows.append(("HOPS_*", "no-window", f"none: {data['error']}"))
    rows.append(("source", "source", data["source_words"]))
    for item in data["legacy"]:
        words = f"{item['arguments']} (legacy_args={item['mode']!r} of {', '.join(item['tasks'])})"
        rows.append(("legacy arguments", f"legacy-{item['mode']}", words))
    table = "".join(f'<tr><th>{escape(name)}</th><td id="{key}">{escape(value)}</td></tr>' for name, key, value in rows)
    back = escape(quote(dag_id, safe=""))
    body = (
        f"<h1>Hopsworks window of {escape(data['run_id'])}</h1><table id='run'>{table}</table>"
        # Back to <root>/hops/dags/<dag_id> from <root>/hops/dags/<dag_id>/runs/<run_id>.
        f'<p><a id="back" href="../../{back}">Every window of {escape(dag_id)}</a></p>'
    )
    return plain_page(f"Hopsworks: {dag_id} {data['run_id']}", body)
