"""The run tab's HTML: one run's ``HOPS_*`` values, what the run carried that gave them, and its legacy arguments.

The source is the one :func:`~hops_timetable.core.conf_window.resolve_run_window` gives the run's tasks (asked
with the run's own record, as the operators ask it), so the tab names what the run actually carried: the
scheduler's interval, the scheduled window a backfill replays, a window in ``conf`` (and which keys: the Trigger
form's fields, or ``conf["hops_window"]``). The legacy arguments are shown only for the modes the DAG's operators
pass (``legacy_args``), with the tasks that pass them. Pure: no Airflow.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from html import escape
from urllib.parse import quote

from hops_timetable.core.conf_window import (
    CONF_KEY,
    END_PARAM,
    START_PARAM,
    conf_with_form_window,
)
from hops_timetable.core.coverage import RunWindow
from hops_timetable.core.legacy_args import LegacyArgs, legacy_arguments
from hops_timetable.core.window import duration_text, format_hops_time
from hops_timetable.ui.style import page

__all__ = ["RunFacts", "form_keys", "run_page"]


def form_keys(conf: Mapping[str, object] | None) -> tuple[str, ...]:
    """The Trigger form's conf keys a run's window was read from; ``()`` when it had none or ``conf["hops_window"]``."""
    if not isinstance(conf, Mapping) or conf_with_form_window(conf) is conf:
        return ()
    return tuple(key for key in (START_PARAM, END_PARAM) if conf.get(key) not in (None, ""))


@dataclass(frozen=True)
class RunFacts:
    """What the run tab says about one run: its window, the source its tasks get it from, the DAG's legacy modes."""

    item: RunWindow
    source: str | None
    legacy: Mapping[LegacyArgs, Sequence[str]] = field(default_factory=dict)  # mode -> the task ids passing it


def _t(value: datetime | None) -> str:
    return "" if value is None else format_hops_time(value)


def _conf_words(conf: Mapping[str, object] | None) -> str:
    keys = form_keys(conf)
    if keys:
        named = " and ".join(f"<code>{escape(k)}</code>" for k in keys)
        return f"the Trigger form's {named}, read as <code>conf[&quot;{CONF_KEY}&quot;]</code>"
    return f"<code>conf[&quot;{CONF_KEY}&quot;]</code> of the run"


def _source_words(facts: RunFacts) -> str:
    run, window, source = facts.item.run, facts.item.window, facts.source
    if source is None:
        return "none"
    head, _, rest = source.partition(";")
    words = f"<code>{escape(head)}</code>: "
    if head == "conf":
        words += _conf_words(run.conf)
    elif head.startswith("scheduled run replayed"):
        words += (
            "a backfill took this run over; its tasks process the scheduled window of its logical date, "
            "not the interval it carries"
        )
    else:
        interval = f"[{escape(_t(run.data_interval_start))}, {escape(_t(run.data_interval_end))})"
        words += f"the run's data interval {interval}"
        if window is not None and window.logical_date > window.start:
            shift = int((window.logical_date - window.start).total_seconds())
            words += f", moved {escape(duration_text(shift))} earlier (start_time_offset_seconds)"
    return words + (f"; {escape(rest.strip())}" if rest else "")


def _legacy_rows(facts: RunFacts, env: Mapping[str, str]) -> list[tuple[str, str]]:
    rows = []
    for mode, tasks in sorted(facts.legacy.items()):
        arguments = " ".join(legacy_arguments(mode, env))
        listed = ", ".join(escape(t) for t in tasks)
        rows.append(
            (
                "legacy arguments",
                f'<code class="legacy" data-mode="{escape(mode)}">{escape(arguments)}</code> '
                f'<span class="note">appended by legacy_args="{escape(mode)}" of {listed}</span>',
            )
        )
    return rows


def run_page(dag_id: str, facts: RunFacts) -> str:
    """The run tab: the run's HOPS_* values, what they come from, and the legacy arguments its tasks pass."""
    item = facts.item
    run = item.run
    rows = [
        ("run", f'<span class="mono">{escape(run.run_id)}</span>'),
        ("type", escape(run.run_type)),
        ("state", escape(run.state)),
        (
            "Airflow data interval",
            "none"
            if run.data_interval_start is None
            else f'<span class="mono">[{escape(_t(run.data_interval_start))}, '
            f"{escape(_t(run.data_interval_end))})</span>",
        ),
    ]
    if item.window is not None:
        env = item.window.as_env()
        rows += [(key, f'<span class="mono" id="{key}">{escape(value)}</span>') for key, value in env.items()]
        rows.append(("source", f'<span id="source">{_source_words(facts)}</span>'))
        rows += _legacy_rows(facts, env)
    elif item.error is not None:
        rows.append(("HOPS_*", f"none: {escape(item.error)}"))
        rows.append(("source", f'<span id="source">{_source_words(facts)}</span>'))
    else:
        rows.append(
            (
                "HOPS_*",
                f'none: a {escape(run.run_type)} run without a window in its conf (<code>conf["{CONF_KEY}"]</code>, '
                f"or the Trigger form's <code>{START_PARAM}</code> and <code>{END_PARAM}</code>) gets no window",
            )
        )
    table = "".join(f"<tr><th>{name}</th><td>{value}</td></tr>" for name, value in rows)
    # Back to <root>/hops/dags/<dag_id> from <root>/hops/dags/<dag_id>/runs/<run_id>.
    back = f'<p><a id="back" href="../../{escape(quote(dag_id, safe=""))}">Every window of {escape(dag_id)}</a></p>'
    body = (
        f'<h1>Hopsworks window of <span class="mono">{escape(run.run_id)}</span></h1>'
        f'<div class="scroll"><table id="run">{table}</table></div>{back}'
    )
    return page(f"Hopsworks: {dag_id} {run.run_id}", body)
