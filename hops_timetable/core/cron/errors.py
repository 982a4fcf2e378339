"""The error every refused cron expression raises: where, why, and how to rewrite it."""

from __future__ import annotations

from hops_timetable.core.validation import ArgumentError


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
        *,
        expression: str,
        field: str | None = None,
        token: str | None = None,
        position: int | None = None,
        hint: str | None = None,
        message: str | None = None,
        rewrites: tuple[str, ...] = (),
    ) -> None:
        self.expression = expression
        self.field = field
        self.token = token
        self.position = position
        self.hint = hint
        self.why = why
        self.rewrites = rewrites
        if field is not None and token is not None:
            where = f"invalid {field} token {_shown(token)} at position {position} in {_shown(expression)}"
        else:
            where = f"invalid cron expression {_shown(expression)}"
        if message is None:
            message = f"{where}: {why}"
            if hint:
                message += f" ({hint})"
        super().__init__("cron_expression", expression, message)


# Longer texts are shown cut in the message (the attributes keep them whole): an expression of thousands of
# characters would otherwise fill a log line or a terminal.
_SHOWN_CHARS = 200


def _shown(text: str) -> str:
    if len(text) <= _SHOWN_CHARS:
        return repr(text)
    return f"{text[: _SHOWN_CHARS - 40]!r}...{text[-20:]!r} ({len(text):,} characters)"
