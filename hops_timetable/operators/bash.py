"""HopsBashOperator: a BashOperator whose command runs as a Hopsworks-scheduled job would."""

from __future__ import annotations

import shlex
from typing import Any

from airflow.providers.standard.operators.bash import BashOperator

from hops_timetable._compat import fail_without_retries
from hops_timetable.core.legacy_args import (
    LegacyArgs,
    LegacyArgsError,
    check_legacy_args,
    check_legacy_args_passed,
    check_legacy_args_placed,
    legacy_arguments,
)
from hops_timetable.operators.runtime import HopsFields, hops_env, with_hops_env


class _Hops:
    """``{{ hops }}`` in the command's template: this run's values, computed when the template first asks."""

    def __init__(self, operator: HopsBashOperator, context: Any) -> None:
        self._operator = operator
        self._context = context

    @property
    def legacy_args(self) -> str:
        return shlex.join(legacy_arguments(self._operator.legacy_args, self._operator.hops_values(self._context)))


class HopsBashOperator(HopsFields, BashOperator):
    """A BashOperator whose command sees ``HOPS_START_TIME``, ``HOPS_END_TIME`` and ``HOPS_LOGICAL_DATE``.

    The values follow :func:`~hops_timetable.operators.hops_env`; ``HOPS_*`` entries in ``env`` count as set by
    the DAG author, and those inherited from the worker's environment are dropped.

    :param legacy_args: ``"start_time"`` passes ``-start_time <HOPS_LOGICAL_DATE>``, ``"papermill"`` passes
        ``-p start_time <HOPS_LOGICAL_DATE>``, where the command places ``{{ hops.legacy_args }}`` (shell-quoted;
        empty without a logical date): ``python job.py a {{ hops.legacy_args }} | gzip > out.gz``. Named but never
        placed, or placed without legacy_args, fails the DAG; not passed as words of their own fails the task.
    """

    # The command's ``{{ hops.* }}`` values follow the author's HOPS_* in ``env``: rendered first.
    template_fields = ("env", *(name for name in BashOperator.template_fields if name != "env"))

    def __init__(self, *, legacy_args: LegacyArgs | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.legacy_args = check_legacy_args(legacy_args)
        command = self.bash_command
        # A command ending in a template extension names a file that is read only when the task renders.
        if isinstance(command, str) and not command.endswith(tuple(self.template_ext)):
            check_legacy_args_placed(self.legacy_args, command)
        self._hops_values: dict[str, str] | None = None

    def hops_values(self, context: Any) -> dict[str, str]:
        """This run's ``HOPS_*`` values, resolved (and logged) once per run."""
        if self._hops_values is None:
            self._hops_values = hops_env(context, explicit=self.env)
        return self._hops_values

    def render_template_fields(self, context: Any, jinja_env: Any = None) -> None:
        self._hops_values = None
        context["hops"] = _Hops(self, context)
        super().render_template_fields(context, jinja_env)

    def execute(self, context: Any) -> Any:
        # Computed first: a bad conf window fails the task before any command runs.
        values = self.hops_values(context)
        try:
            # Rendered by now, so always a string.
            check_legacy_args_passed(str(self.bash_command), legacy_arguments(self.legacy_args, values))
        except LegacyArgsError as exc:
            raise fail_without_retries(exc) from None
        try:
            return super().execute(context)
        finally:
            self._hops_values = None
            # Only for the rendered fields: the command itself ran with get_env's environment.
            self.env = {**(self.env or {}), **values}

    def get_env(self, context: Any) -> dict[str, str]:
        """BashOperator's environment with the ``HOPS_*`` entries replaced by this run's values."""
        return with_hops_env(super().get_env(context), self.hops_values(context))
