"""HopsBashOperator: a BashOperator whose command runs as a Hopsworks-scheduled job would."""

from __future__ import annotations

from typing import Any

from airflow.providers.standard.operators.bash import BashOperator

from hops_timetable.core.bash_append import append_arguments, check_appendable
from hops_timetable.core.conf_window import LegacyArgs, check_legacy_args, legacy_arguments
from hops_timetable.core.window import HOPS_ENV_KEYS
from hops_timetable.operators.runtime import hops_env

__all__ = ["HopsBashOperator"]


class HopsBashOperator(BashOperator):
    """A BashOperator whose command sees ``HOPS_START_TIME``, ``HOPS_END_TIME`` and ``HOPS_LOGICAL_DATE``.

    The values follow :func:`~hops_timetable.operators.hops_env`; ``HOPS_*`` entries in ``env`` count as set by
    the DAG author, and ``HOPS_*`` inherited from the worker's own environment are dropped, so that a plain
    manual run sees none.

    :param legacy_args: ``"start_time"`` appends ``-start_time <HOPS_LOGICAL_DATE>`` to the command,
        ``"papermill"`` appends ``-p start_time <HOPS_LOGICAL_DATE>``, shell-quoted, as Hopsworks appends them to
        the job arguments; nothing is appended to a run without a logical date. The arguments go right after
        the job invocation (``job.sh a || true`` runs ``job.sh a -start_time ... || true``; the rule is in
        :mod:`hops_timetable.core.bash_append`). A command whose job is not unambiguous (two possible jobs, a
        job inside ``if ... fi`` or ``{ ...; }``, ``&``, an open pipeline) fails when the DAG is built, or, for
        a template that renders to such a command, when the task runs, never with the argument silently lost.
    """

    # The rendered ``env`` is sent again after the run, showing the HOPS_* values the command got.
    overwrite_rtif_after_execution = True

    @classmethod
    def get_serialized_fields(cls) -> frozenset[str]:
        # Kept in the serialized DAG, so that the Hopsworks run tab shows the legacy arguments only where passed.
        return frozenset(super().get_serialized_fields() | {"legacy_args"})  # type: ignore[no-untyped-call]

    def __init__(self, *, legacy_args: LegacyArgs | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.legacy_args = check_legacy_args(legacy_args)
        command = self.bash_command
        # A command ending in a template extension names a file that is read only when the task renders.
        if self.legacy_args is not None and isinstance(command, str) and not command.endswith(tuple(self.template_ext)):
            check_appendable(command)
        self._hops_values: dict[str, str] | None = None

    def execute(self, context: Any) -> Any:
        # Computed first: a bad conf window fails the task before any command runs.
        values = hops_env(context, explicit=self.env)
        self._hops_values = values
        arguments = legacy_arguments(self.legacy_args, values)
        command = self.bash_command
        if arguments:
            # Rendered by now, so always a string.
            self.bash_command = append_arguments(str(command), arguments)
        try:
            return super().execute(context)
        finally:
            self.bash_command = command
            self._hops_values = None
            # Only for the rendered fields: the command itself ran with get_env's environment.
            self.env = {**(self.env or {}), **values}

    def get_env(self, context: Any) -> dict[str, str]:
        """BashOperator's environment with the ``HOPS_*`` entries replaced by this run's values."""
        env = dict(super().get_env(context))
        values = self._hops_values if self._hops_values is not None else hops_env(context, explicit=self.env)
        for key in HOPS_ENV_KEYS:
            env.pop(key, None)
        env.update(values)
        return env
