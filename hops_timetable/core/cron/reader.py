"""Reading the text of one field: values, names, ranges, steps and lists, in both dialects, and how a refusal is
worded (:class:`CronSyntaxError`, the error every refused expression raises). The day specials are :mod:`.quartz`'s
and :mod:`.unix`'s; the whole expression is :func:`.quartz.parse`'s."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import groupby
from typing import NamedTuple

from hops_timetable.core.cron import form
from hops_timetable.core.cron.form import ALL, Item, ItemKind
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
        self.expression, self.why, self.rewrites = expression, why, rewrites
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


# A longer run of digits is refused before it is converted (leading zeros included, so '0005' still reads as 5).
MAX_NUMBER_DIGITS = 10
_LONG_NUMBER = re.compile(rf"[0-9]{{{MAX_NUMBER_DIGITS + 1},}}", re.ASCII)
_BOUNDS = ((0, 59), (0, 59), (0, 23), (1, 31), (1, 12), (1, 7), (form.MIN_YEAR, form.MAX_YEAR))  # Quartz's, by field


class Place(NamedTuple):
    """What a refusal points at: a field, its token (or one list item of it) and the token's 1-based position."""

    field: int
    token: str
    position: int


def listed(at: Place) -> Iterator[Place]:
    """The list items of the token ``at``, each with its own position."""
    position = at.position
    for part in at.token.split(","):
        yield Place(at.field, part, position)
        position += len(part) + 1


@dataclass(slots=True)
class FieldReader:
    """Reads the fields of one expression (``unix``: as croniter reads a 5-field one) and words its refusals."""

    expression: str
    unix: bool = False

    def fail(
        self,
        why: str,
        at: Place | None = None,
        hint: str | None = None,
        fix: str | None = None,
        rewrites: tuple[str, ...] = (),
    ) -> CronSyntaxError:
        """The refusal; ``fix`` replaces the token ``at`` to give the single rewrite."""
        if fix is not None and at is not None:
            rewrites = (self.replaced(at, fix),)
        return CronSyntaxError(why, self.expression, at, hint, rewrites)

    def replaced(self, at: Place, fix: str) -> str:
        i = at.position - 1
        return self.expression[:i] + fix + self.expression[i + len(at.token) :]

    def split(self, at: Place, parts: list[str]) -> tuple[str, ...]:
        """One rewrite per list item: the token ``at`` replaced by each part."""
        return tuple(self.replaced(at, part) for part in parts)

    def refuse_long_numbers(self, places: list[Place]) -> None:
        """Refuse a number too long to be a value, before any is read: Python will not even convert a number of
        more than 4,300 digits to an int, and no field, step or offset takes more than 4 (a year)."""
        for part in (part for at in places for part in listed(at)):
            long = _LONG_NUMBER.search(part.token)
            if long is not None:
                lo, hi = self.bounds(part.field)
                digits = long.group()
                shown = digits if len(digits) <= 16 else f"{digits[:8]}...{digits[-4:]}"
                raise self.fail(
                    f"the number {shown} ({len(digits):,} digits) is out of range: {form.FIELD_NAMES[part.field]} "
                    f"values are {lo}-{hi}, and no number in a cron expression has more than {MAX_NUMBER_DIGITS} "
                    "digits",
                    part,
                )

    def bounds(self, field: int) -> tuple[int, int]:
        return (0, 7) if field == form.DOW and self.unix else _BOUNDS[field]

    def value(self, text: str, at: Place) -> int:
        lo, hi = self.bounds(at.field)
        upper = text.upper()
        dow_names = form.UNIX_DOW_NAMES if self.unix else form.QUARTZ_DOW_NAMES
        names = form.MONTH_NAMES if at.field == form.MON else dow_names if at.field == form.DOW else None
        if form.DIGITS.fullmatch(text):
            v = int(text)
            if not lo <= v <= hi:
                raise self.fail(f"value {v} is out of range {lo}-{hi}", at)
            return v
        valid = f"{lo}-{hi}"
        if names is not None:
            if upper in names:
                return names[upper]
            if len(upper) > 3 and upper[:3] in names and upper.isalpha():
                fix = re.sub(
                    r"[A-Z]{4,}", lambda m: m.group()[:3] if m.group()[:3] in names else m.group(), at.token.upper()
                )
                raise self.fail(f"long name {text!r} is not accepted", at, "use the three-letter name", fix)
            valid += f" or {next(iter(names))}-{list(names)[-1]}"
        hint = None
        if "H" in upper and self.unix:
            hint = "hashed values (H) are not supported: choose the value yourself"
        elif upper.startswith("-"):
            hint = "negative numbers are not allowed"
        raise self.fail(f"{text!r} is not a valid value, expected {valid}", at, hint)

    def weekday_term(self, at: Place, day: str, nth: str | None) -> Item:
        """Day-of-week ``day#nth`` (the nth such day of the month) or, ``nth`` None, the last such day (nL, Ln)."""
        v = self.value(day, at) % 7 if self.unix else self.value(day, at)
        if nth is None:
            return Item(ItemKind.LAST_OF_WEEKDAY, v)
        if not form.DIGITS.fullmatch(nth) or not 1 <= int(nth) <= 5:
            raise self.fail("the number after # must be 1-5", at, f"{5 if self.unix else 6}#3 is the third Friday")
        return Item(ItemKind.NTH_WEEKDAY, v, nth=int(nth))

    def step(self, text: str, at: Place) -> int:
        lo, hi = self.bounds(at.field)
        top = hi - lo if at.field == form.YEAR else hi
        if not form.DIGITS.fullmatch(text):
            raise self.fail(f"step {text!r} is not a whole number", at)
        s = int(text)
        if s < 1:
            raise self.fail("step must be at least 1", at)
        if s > top:
            raise self.fail(f"step {s} is larger than the field (at most {top})", at)
        return s

    def cycle(self, field: int, a: int, b: int, step: int) -> list[int]:
        """A wrap-around range read as one cycle: from a up past the field's end, on to b, every step."""
        lo, hi = self.bounds(field)
        n = 7 if field == form.DOW else hi - lo + 1
        return sorted({lo + (i - lo) % n for i in range(a, (b + n if b < a else b) + 1, step)})

    def croniter_wrap(self, field: int, a: int, b: int, step: int) -> list[int]:
        """croniter's reading of a wrap-around range with a step: the step restarts after the field's end."""
        lo, hi = (0, 6) if field == form.DOW else self.bounds(field)
        first = list(range(a, hi + 1, step))
        # It goes on at lo plus the step's overshoot past the end (at lo itself for an overshoot of 1).
        skip = step - (hi - first[-1]) if first else 0
        return sorted({*first, *range(lo + (skip if skip > 1 else 0), b + 1, step)})

    def plain_item(self, at: Place) -> tuple[Item, list[int]]:
        """Parse ``*``, ``v``, ``a-b``, ``a/s``, ``*/s``, ``/s``, ``a-b/s`` into an item and its values."""
        field, token, _ = at
        lo, hi = self.bounds(field)
        if token == "*":
            return ALL, list(range(lo, hi + 1))
        base, slash, step_text = token.partition("/")
        step = self.step(step_text, at) if slash else 0
        if slash and field == form.DOW and self.unix:
            hi = 6  # croniter runs a day-of-week step up to 6, never 7 (which it reads as 0, Sunday)
        if slash and not base and self.unix:
            raise self.fail("a step needs a start: croniter (and so Airflow) refuses it", at, fix=f"*/{step}")
        if slash and field == form.YEAR:
            hi = form.LAST_YEAR  # an open-ended year step has no last year: like Quartz, it goes on past 2099
        if slash and base in ("", "*"):
            return Item(ItemKind.RANGE, lo, hi, step), list(range(lo, hi + 1, step))
        named = any(c.isalpha() for c in base)
        if "-" in base[1:]:
            cut = base.index("-", 1)
            a_text, b_text = base[:cut], base[cut + 1 :]
            if not a_text or not b_text:
                raise self.fail("incomplete range", at, "write a range as start-end, e.g. 1-5")
            a, b = self.value(a_text, at), self.value(b_text, at)
            if self.unix:
                return self.unix_range(at, a, b, a_text, step)
            if (form.DIGITS.fullmatch(a_text) is None) != (form.DIGITS.fullmatch(b_text) is None):
                why = "Quartz 2.3.2 refuses a range that mixes a number and a name"
                raise self.fail(why, at, "spell both ends as numbers", self.quartz_spelling(field, a, b, step))
            if named and slash:
                why = f"Quartz 2.3.2 ignores a step after a name and would read {token!r} as {base!r}"
                raise self.fail(
                    why, at, f"for a step of {step} write the range as numbers", self.quartz_spelling(field, a, b, step)
                )
            if a > b:
                if field != form.DOW or slash:
                    why = (
                        "a step on a wrap-around range is not supported"
                        if field == form.DOW
                        else "wrap-around ranges are only allowed in Quartz day-of-week"
                    )
                    raise self.fail(why, at, "list the values", compress(self.cycle(field, a, b, step or 1)))
                return Item(ItemKind.WRAP, a, b), [*range(a, hi + 1), *range(lo, b + 1)]
            return Item(ItemKind.RANGE, a, b, step or 1), list(range(a, b + 1, step or 1))
        if base.startswith("-"):
            raise self.fail("incomplete range", at, "negative numbers are not allowed")
        v = self.value(base, at)
        if not slash:
            return Item(ItemKind.VALUE, v), [v]
        if named and not self.unix:
            why = f"Quartz 2.3.2 ignores a step after a name and would read {token!r} as {base!r}"
            raise self.fail(why, at, f"for a step of {step} from {base.upper()} write the number", f"{v}/{step}")
        if self.unix and v == (6 if field == form.DOW else hi):
            # croniter before 7.0 (what Airflow 3.0 to 3.4 install) writes a/s as a-max/s, and at the field's
            # maximum that is an equal range, which it reads as the whole field (croniter issue 246).
            every = f"*/{step}"
            why = (
                f"croniter 7 reads {token!r} as {base!r} alone, croniter 6 (which Airflow 3.0 to 3.4 install) as "
                f"{every!r}, every {step} from the field's start"
            )
            raise self.fail(why, at, f"for croniter 6's reading write {every!r}; for the value alone", base)
        if self.unix and field == form.DOW and v == 7:
            v = 0  # croniter reads 7 as Sunday, 0
        return Item(ItemKind.RANGE, v, hi, step), list(range(v, hi + 1, step))

    def quartz_spelling(self, field: int, a: int, b: int, step: int) -> str:
        """A Quartz token, numbers only, for the range a-b every step (a wrap-around one read as a cycle)."""
        if a <= b or (field == form.DOW and not step):
            return f"{a}-{b}" + (f"/{step}" if step else "")
        return compress(self.cycle(field, a, b, step or 1))

    def unix_range(self, at: Place, a: int, b: int, a_text: str, step: int) -> tuple[Item, list[int]]:
        """A 5-field range as croniter reads it, refused where that reading is not the evident one."""
        field, token, _ = at
        lo, hi = self.bounds(field)
        if field == form.DOW:
            hi = 6
            if b == 7 and a != 7:
                # a-7 (and a-7/s) is a plain range ending on Sunday; croniter's wrap-around reading agrees.
                return Item(ItemKind.RANGE, a, 7, step or 1), [v % 7 for v in range(a, 8, step or 1)]
            a, b = a % 7, b % 7
        if a == b:
            raise self.fail(
                "croniter (and so Airflow) reads an equal range as the whole field",
                at,
                f"write {a_text} for the single value, or the whole field",
                f"{lo}-{hi}" + (f"/{step}" if step else ""),
            )
        if a < b:
            return Item(ItemKind.RANGE, a, b, step or 1), list(range(a, b + 1, step or 1))
        croniter = self.croniter_wrap(field, a, b, step or 1)
        if step and croniter != self.cycle(field, a, b, step):
            spelled = ",".join(
                form.value_word(field, v, True)[:3] if field in (form.MON, form.DOW) else str(v) for v in croniter
            )
            why = f"croniter (and so Airflow) reads {token!r} as {spelled}: its step starts again after the wrap"
            raise self.fail(why, at, "list the values to keep that reading", compress(croniter))
        return Item(ItemKind.WRAP, a, b, step or 1), croniter

    def field(self, at: Place) -> tuple[list[Item], set[int]]:
        """Parse a plain field (no ``?``, no day specials) into items and the set of values."""
        items: list[Item] = []
        values: set[int] = set()
        parts = at.token.split(",")
        for part in listed(at):
            if not part.token:
                raise self.fail("empty list item", at, "remove the extra comma", ",".join(p for p in parts if p))
            if part.token == "*" and len(parts) > 1 and not self.unix:
                raise self.fail("'*' cannot be combined with other values", part)
            if part.token == "?":
                where = "day-of-month or day-of-week" if not self.unix else "the day fields"
                raise self.fail(f"'?' is only allowed alone in {where}", part, fix="*" if len(parts) == 1 else None)
            item, vals = self.plain_item(part)
            items.append(item)
            values.update(vals)
        if "*" in parts:
            # croniter reads a list holding '*' as the whole field (the other items only checked), and a day field
            # so written as unrestricted: the 5-field day rule (unix.py) decides with that.
            lo, hi = self.bounds(at.field)
            return [ALL], set(range(lo, hi + 1))
        return items, values


def compress(values: list[int]) -> str:
    """The list token for exactly these values: 1,2,3,5 -> '1-3,5'."""
    runs = [[v for _, v in run] for _, run in groupby(enumerate(sorted(set(values))), lambda iv: iv[1] - iv[0])]
    return ",".join(str(run[0]) if len(run) == 1 else f"{run[0]}-{run[-1]}" for run in runs)
