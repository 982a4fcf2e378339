"""The error every refused cron expression raises: where, why, and how to rewrite it."""

from __future__ import annotations

from hops_timetable.core.cron import form
from hops_timetable.core.validation import ArgumentError

# Longer texts are shown cut in the message (the attributes keep them whole): an expression of thousands of
# characters would otherwise fill a log line or a terminal.
_SHOWN_CHARS = 200


class CronSyntaxError(ArgumentError):
    """A cron expression that is not valid in the Hopsworks dialect (an argument error of ``cron_expression``).

    ``field`` (``"day-of-month"``), ``token`` (the offending list item) and ``position`` (1-based, in ``expression``)
    are None when the error concerns the whole string. ``rewrites`` are the expressions the ``hint`` proposes: each
    parses, and together (one schedule each) they fire where the likeliest reading of the original does (croniter's,
    for a 5-field expression refused as ambiguous).
    """

    def __init__(
        self,
        why: str,
        expression: str,
        at: tuple[int, str, int] | None = None,
        hint: str | None = None,
        rewrites: tuple[str, ...] = (),
        hint_alone: str | None = None,
        message: str | None = None,
    ) -> None:
        # ``at`` is (field number, token, position); ``hint_alone`` replaces ``hint`` when no rewrite is proposed.
        self.expression = expression
        self.why = why
        self.rewrites = rewrites
        self._unproposed = (at, hint, (), hint_alone)
        self.field: str | None = None
        self.token: str | None = None
        self.position: int | None = None
        self.hint = hint if hint_alone is None else hint_alone
        if rewrites:
            shown = " and ".join(repr(r) for r in rewrites)
            self.hint = f"{hint}: {shown}" if hint else f"write {shown}"
        where = f"invalid cron expression {_shown(expression)}"
        if at is not None:
            self.field, self.token, self.position = form.FIELD_NAMES[at[0]], at[1], at[2]
            where = f"invalid {self.field} token {_shown(at[1])} at position {at[2]} in {_shown(expression)}"
        if message is None:
            message = f"{where}: {why}" + (f" ({self.hint})" if self.hint else "")
        super().__init__("cron_expression", expression, message)

    def unproposed(self) -> CronSyntaxError:
        """The same refusal proposing no rewrite (when one of :attr:`rewrites` does not parse)."""
        return CronSyntaxError(self.why, self.expression, *self._unproposed)


def _shown(text: str) -> str:
    if len(text) <= _SHOWN_CHARS:
        return repr(text)
    return f"{text[: _SHOWN_CHARS - 40]!r}...{text[-20:]!r} ({len(text):,} characters)"
