"""HopsPythonOperator and ``@hops_task``: Python callables that run as a Hopsworks-scheduled job would."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from contextlib import nullcontext
from typing import Any

from airflow.providers.standard.operators.python import PythonOperator

from hops_timetable._compat import DecoratedOperator, TaskDecorator, task_decorator_factory
from hops_timetable.core.legacy_args import LegacyArgs, check_legacy_args, legacy_arguments
from hops_timetable.operators.runtime import HopsFields, hops_env, hops_environ, job_argv


class HopsPythonOperator(HopsFields, PythonOperator):
    """A PythonOperator whose callable finds the ``HOPS_*`` variables in ``os.environ``.

    While the callable runs, ``os.environ`` holds exactly the ``HOPS_*`` variables of
    :func:`~hops_timetable.operators.hops_env` plus *env*; afterwards every variable is restored.

    :param env: extra environment variables (templated); ``HOPS_*`` entries count as set by the DAG author.
    :param legacy_args: ``"start_time"`` or ``"papermill"``: while the callable runs, ``sys.argv`` is
        ``[argv0, "-start_time", HOPS_LOGICAL_DATE]`` (or ``[argv0, "-p", "start_time", HOPS_LOGICAL_DATE]``);
        just ``[argv0]`` when the run has no logical date.
    """

    template_fields = (*PythonOperator.template_fields, "env")

    def __init__(
        self, *, env: Mapping[str, str] | None = None, legacy_args: LegacyArgs | None = None, **kwargs: Any
    ) -> None:
        super().__init__(**kwargs)
        self.env = env
        self.legacy_args = check_legacy_args(legacy_args)

    def execute(self, context: Any) -> Any:
        explicit = dict(self.env or {})
        # Computed first: a bad conf window fails the task before the callable runs.
        values = hops_env(context, explicit=explicit)
        argv = nullcontext() if self.legacy_args is None else job_argv(legacy_arguments(self.legacy_args, values))
        self.env = {**explicit, **values}
        with hops_environ(values, extra=explicit), argv:
            return super().execute(context)


class _HopsDecoratedOperator(DecoratedOperator, HopsPythonOperator):
    template_fields = ("templates_dict", "op_args", "op_kwargs", "env")
    custom_operator_name = "@hops_task"

    def __init__(self, *, python_callable: Callable[..., Any], op_args: Any, op_kwargs: Any, **kwargs: Any) -> None:
        # DecoratedOperator keeps its own copy of the call arguments and hands these on to PythonOperator.
        upstream = {"python_callable": python_callable, "op_args": op_args, "op_kwargs": op_kwargs}
        super().__init__(kwargs_to_upstream=upstream, **upstream, **kwargs)


def hops_task(
    python_callable: Callable[..., Any] | None = None, multiple_outputs: bool | None = None, **kwargs: Any
) -> TaskDecorator:
    """``@task`` for Hopsworks job code: the function runs as a :class:`HopsPythonOperator`
    (``@hops_task(task_id="...", legacy_args="start_time", env={...})``)."""
    return task_decorator_factory(
        python_callable, multiple_outputs=multiple_outputs, decorated_operator_class=_HopsDecoratedOperator, **kwargs
    )
