"""Airflow's side of the ``HOPS_*`` injection (the rules: :mod:`hops_timetable.core.conf_window`): read the run's
own record and put the values where the job code will look."""

from __future__ import annotations

import importlib
import logging
import os
import sys
from collections.abc import Iterator, Mapping, Sequence
from contextlib import ExitStack, contextmanager
from typing import Any

from hops_timetable._compat import executing_task, fail_without_retries
from hops_timetable.core.conf_window import (
    CONF_KEY,
    HopsWindowError,
    RunWindowError,
    conf_with_form_window,
    resolve_run_window,
)
from hops_timetable.core.validation import ArgumentTypeError
from hops_timetable.core.window import HOPS_ENV_KEYS
from hops_timetable.timetable import HopsworksTimetable

_log = logging.getLogger(__name__)


class HopsFields:
    """What the Hops operators add to Airflow's: ``legacy_args`` kept in the serialized DAG (the run tab shows the
    legacy arguments only where passed), and the rendered ``env`` sent again after the run, with the HOPS_* values
    the job got."""

    overwrite_rtif_after_execution = True

    @classmethod
    def get_serialized_fields(cls) -> frozenset[str]:
        return frozenset(super().get_serialized_fields() | {"legacy_args"})  # type: ignore[misc]


def hops_env(context: Mapping[str, Any], explicit: Mapping[str, str] | None = None) -> dict[str, str]:
    """The ``HOPS_*`` variables of the task's DAG run (:func:`~hops_timetable.core.conf_window.resolve_run_window`);
    *explicit*: the environment the DAG author set on the operator. A bad ``conf["hops_window"]``, or a scheduled or
    backfill run without a window, raises, also as an ``AirflowFailException``: retrying cannot mend it."""
    # The run's own record, not context["data_interval_start"], which a run without a logical date lacks.
    dag_run = context.get("dag_run")
    if (dag := context.get("dag")) is None:
        dag = getattr(context.get("task"), "dag", None)
    timetable = getattr(dag, "timetable", None)
    schedule = timetable.schedule if isinstance(timetable, HopsworksTimetable) else None
    start = getattr(dag_run, "data_interval_start", None)
    end = getattr(dag_run, "data_interval_end", None)
    try:
        values, source = resolve_run_window(
            run_type=getattr(dag_run, "run_type", None),
            data_interval=None if start is None or end is None else (start, end),
            conf=None if dag_run is None else conf_with_form_window(getattr(dag_run, "conf", None)),
            offset_seconds=None if schedule is None else schedule.offset,
            explicit=explicit,
            run_after=getattr(dag_run, "run_after", None),
            logical_date=getattr(dag_run, "logical_date", None),
            replay=None if schedule is None else schedule.replayed_window,
            run_id=getattr(dag_run, "run_id", None),
        )
    except (HopsWindowError, RunWindowError) as exc:
        raise fail_without_retries(exc) from None
    # One INFO line, logged where the job runs, so that the task log says which window it processed and why.
    logger = getattr(context.get("task"), "log", _log)
    if not values:
        logger.info('HOPS window: none (a run from outside without conf["%s"]); HOPS_* variables are not set', CONF_KEY)
    else:
        text = " ".join(f"{key}={values.get(key, 'unset')}" for key in HOPS_ENV_KEYS)
        logger.info("HOPS window from %s: %s", source or "unknown", text)
    return values


def with_hops_env(env: Mapping[str, str], values: Mapping[str, str]) -> dict[str, str]:
    return {**{key: value for key, value in env.items() if key not in HOPS_ENV_KEYS}, **values}


@contextmanager
def hops_environ(values: Mapping[str, str], extra: Mapping[str, str] | None = None) -> Iterator[None]:
    """Within the block, ``os.environ`` holds exactly the ``HOPS_*`` entries of *values* (others are removed) and
    the entries of *extra*; afterwards every touched variable is back as it was, also when the block raises."""
    saved = {key: os.environ.get(key) for key in {*HOPS_ENV_KEYS, *(extra or {}), *values}}
    try:
        for key in HOPS_ENV_KEYS:
            os.environ.pop(key, None)
        os.environ.update({**(extra or {}), **values})
        yield
    finally:
        os.environ.update({key: value for key, value in saved.items() if value is not None})
        for key in (key for key, value in saved.items() if value is None):
            os.environ.pop(key, None)


@contextmanager
def job_argv(arguments: Sequence[str]) -> Iterator[None]:
    """Within the block, ``sys.argv`` is ``[sys.argv[0], *arguments]``."""
    saved = sys.argv
    sys.argv = [saved[0] if saved else "", *arguments]
    try:
        yield
    finally:
        sys.argv = saved


# What inject_hops_env changed, until restore_hops_env (or, after a failed task, the next injection) undoes it.
_pending = ExitStack()


def inject_hops_env(context: Mapping[str, Any]) -> None:
    """Make any operator run with the ``HOPS_*`` variables: use it as ``pre_execute=inject_hops_env``, paired with
    ``post_execute=restore_hops_env``. Merged into a copy of the operator's ``env``, ``env_vars`` or ``environment``
    (a dict or a list of Kubernetes ``V1EnvVar``; its ``HOPS_*`` entries count as the DAG author's), else set in
    ``os.environ``; the next injection in the process first undoes a failed task's leftover."""
    _pending.close()
    task = executing_task(context)
    # Where a container's or subprocess's environment is built from (BashOperator ``env``, KubernetesPodOperator
    # ``env_vars``, DockerOperator ``environment``), in this order.
    for name in ("env", "env_vars", "environment"):
        current = getattr(task, name, None)
        if isinstance(current, Mapping):
            merged: Any = with_hops_env(current, hops_env(context, explicit=current))
        elif isinstance(current, list) and all(hasattr(item, "name") and hasattr(item, "value") for item in current):
            merged = _merge_env_var_list(context, current)
        else:
            continue
        _pending.callback(setattr, task, name, current)
        setattr(task, name, merged)
        return
    _pending.enter_context(hops_environ(hops_env(context)))


def restore_hops_env(context: Mapping[str, Any], result: Any = None) -> None:
    """Undo :func:`inject_hops_env`; use it as ``post_execute=restore_hops_env``."""
    _pending.close()


def _merge_env_var_list(context: Mapping[str, Any], current: list[Any]) -> list[Any]:
    values = hops_env(context, explicit={item.name: item.value for item in current if isinstance(item.value, str)})
    try:
        make: Any = type(current[0]) if current else importlib.import_module("kubernetes.client.models").V1EnvVar
    except ImportError as exc:
        raise ArgumentTypeError(
            "env",
            current,
            "inject_hops_env found an empty env list but cannot build V1EnvVar items: the kubernetes "
            "package is not installed",
        ) from exc
    kept = [item for item in current if item.name not in HOPS_ENV_KEYS]
    return kept + [make(name=key, value=value) for key, value in values.items()]
