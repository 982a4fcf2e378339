"""Reading the text of one field: values, names, ranges, steps and lists, in both dialects, and how a refusal is
worded. The day specials are :mod:`.quartz`'s and :mod:`.unix`'s; the whole expression is :mod:`.syntax`'s."""

from __future__ import annotations

import re

from hops_timetable.core.cron.errors import CronSyntaxError
from hops_timetable.core.cron.fields import (
    _DIGITS,
    _DOW,
    _FIELD_NAMES,
    _MON,
    _MONTH_NAMES,
    _QUARTZ_DOW_NAMES,
    _UNIX_DOW_NAMES,
    _YEAR,
    LAST_YEAR,
    MAX_YEAR,
    MIN_YEAR,
    _value_word,
)
from hops_timetable.core.cron.form import ALL, Item, ItemKind

__all__ = ["MAX_NUMBER_DIGITS", "FieldReader", "Refusal", "compress"]

# A longer run of digits is refused before it is converted (leading zeros included, so '0005' still reads as 5).
MAX_NUMBER_DIGITS = 10
_LONG_NUMBER = re.compile(rf"[0-9]{{{MAX_NUMBER_DIGITS + 1},}}", re.ASCII)


class Refusal(Exception):
    """A refusal found while reading, with the rewrites it would propose.

    :func:`~hops_timetable.core.cron.syntax.parse` checks those rewrites by parsing each again and raises the
    :class:`CronSyntaxError` with the ones that hold; ``hint_alone`` is the hint when none does.
    """

    def __init__(
        self,
        why: str,
        *,
        expression: str,
        field: int | None = None,
        token: str | None = None,
        position: int | None = None,
        hint: str | None = None,
        rewrites: tuple[str, ...] = (),
        hint_alone: str | None = None,
    ) -> None:
        super().__init__(why)
        self.why = why
        self.expression = expression
        self.field = field
        self.token = token
        self.position = position
        self.hint = hint
        self.rewrites = rewrites
        self.hint_alone = hint if hint_alone is None else hint_alone

    def error(self, rewrites: tuple[str, ...]) -> CronSyntaxError:
        """The error the user sees, proposing ``rewrites`` (those of :attr:`rewrites` found valid)."""
        hint = self.hint_alone
        if rewrites:
            shown = " and ".join(repr(r) for r in rewrites)
            hint = f"{self.hint}: {shown}" if self.hint else f"write {shown}"
        return CronSyntaxError(
            self.why,
            expression=self.expression,
            field=None if self.field is None else _FIELD_NAMES[self.field],
            token=self.token,
            position=self.position,
            hint=hint,
            rewrites=rewrites,
        )


class FieldReader:
    """Reads the fields of one expression (``unix``: as croniter reads a 5-field one) and words its refusals."""

    def __init__(self, expression: str, unix: bool = False) -> None:
        self.expression = expression
        self.unix = unix

    def fail(
        self,
        why: str,
        field: int | None = None,
        token: str | None = None,
        position: int | None = None,
        hint: str | None = None,
        fix: str | None = None,
        rewrites: tuple[str, ...] = (),
    ) -> Refusal:
        """The refusal; ``fix`` replaces ``token`` (at ``position``) to give the single rewrite."""
        if fix is not None and token is not None and position is not None:
            rewrites = (self.replaced(position, token, fix),)
        return Refusal(
            why, expression=self.expression, field=field, token=token, position=position, hint=hint, rewrites=rewrites
        )

    def replaced(self, position: int, token: str, fix: str) -> str:
        i = position - 1
        return self.expression[:i] + fix + self.expression[i + len(token) :]

    def split(self, position: int, text: str, parts: list[str]) -> tuple[str, ...]:
        """One rewrite per list item: the field ``text`` at ``position`` replaced by each part."""
        return tuple(self.replaced(position, text, part) for part in parts)

    def refuse_long_numbers(self, tokens: list[str], starts: list[int], fields: tuple[int, ...]) -> None:
        """Refuse a number too long to be a value, before any is read: Python will not even convert a number of
        more than 4,300 digits to an int, and no field, step or offset takes more than 4 (a year)."""
        for text, start, field in zip(tokens, starts, fields, strict=True):
            offset = start
            for part in text.split(","):
                long = _LONG_NUMBER.search(part)
                if long is not None:
                    lo, hi = self.bounds(field)
                    digits = long.group()
                    shown = digits if len(digits) <= 16 else f"{digits[:8]}...{digits[-4:]}"
                    raise self.fail(
                        f"the number {shown} ({len(digits):,} digits) is out of range: {_FIELD_NAMES[field]} values "
                        f"are {lo}-{hi}, and no number in a cron expression has more than {MAX_NUMBER_DIGITS} digits",
                        field,
                        part,
                        offset,
                    )
                offset += len(part) + 1

    def bounds(self, field: int) -> tuple[int, int]:
        if field == _DOW:
            return (0, 7) if self.unix else (1, 7)
        return ((0, 59), (0, 59), (0, 23), (1, 31), (1, 12), (1, 7), (MIN_YEAR, MAX_YEAR))[field]

    def names(self, field: int) -> dict[str, int] | None:
        if field == _MON:
            return _MONTH_NAMES
        if field == _DOW:
            return _UNIX_DOW_NAMES if self.unix else _QUARTZ_DOW_NAMES
        return None

    def value(self, field: int, text: str, token: str, pos: int) -> int:
        lo, hi = self.bounds(field)
        upper = text.upper()
        names = self.names(field)
        if _DIGITS.fullmatch(text):
            v = int(text)
            if not lo <= v <= hi:
                raise self.fail(f"value {v} is out of range {lo}-{hi}", field, token, pos)
            return v
        if names is not None:
            if upper in names:
                return names[upper]
            if len(upper) > 3 and upper[:3] in names and upper.isalpha():
                fix = re.sub(
                    r"[A-Z]{4,}",
                    lambda m: m.group()[:3] if m.group()[:3] in names else m.group(),
                    token.upper(),
                )
                raise self.fail(
                    f"long name {text!r} is not accepted", field, token, pos, "use the three-letter name", fix
                )
            valid = f"{lo}-{hi} or {next(iter(names))}-{list(names)[-1]}"
        else:
            valid = f"{lo}-{hi}"
        hint = None
        if "H" in upper and self.unix:
            hint = "hashed values (H) are not supported: choose the value yourself"
        elif upper.startswith("-"):
            hint = "negative numbers are not allowed"
        raise self.fail(f"{text!r} is not a valid value, expected {valid}", field, token, pos, hint)

    def step(self, field: int, text: str, token: str, pos: int) -> int:
        lo, hi = self.bounds(field)
        top = hi - lo if field == _YEAR else hi
        if not _DIGITS.fullmatch(text):
            raise self.fail(f"step {text!r} is not a whole number", field, token, pos)
        s = int(text)
        if s < 1:
            raise self.fail("step must be at least 1", field, token, pos)
        if s > top:
            raise self.fail(f"step {s} is larger than the field (at most {top})", field, token, pos)
        return s

    def cycle(self, field: int, a: int, b: int, step: int) -> list[int]:
        """A wrap-around range read as one cycle: from a up past the field's end, on to b, every step."""
        lo, hi = self.bounds(field)
        first, n = (lo, 7) if field == _DOW else (lo, hi - lo + 1)
        end = b + n if b < a else b
        return sorted({first + (i - first) % n for i in range(a, end + 1, step)})

    def croniter_wrap(self, field: int, a: int, b: int, step: int) -> list[int]:
        """croniter's reading of a wrap-around range with a step: the step restarts after the field's end."""
        lo, hi = (0, 6) if field == _DOW else self.bounds(field)
        first = list(range(a, hi + 1, step))
        skip = 0
        if first:
            already = hi - first[-1]
            if first[-1] - lo + step > hi - lo + 1 and already < step:
                skip = step - already
        return sorted({*first, *range(lo + skip, b + 1, step)})

    def plain_item(self, field: int, token: str, pos: int) -> tuple[Item, list[int]]:
        """Parse ``*``, ``v``, ``a-b``, ``a/s``, ``*/s``, ``/s``, ``a-b/s`` into an item and its values."""
        lo, hi = self.bounds(field)
        if token == "*":
            return ALL, list(range(lo, hi + 1))
        base, slash, step_text = token.partition("/")
        step = self.step(field, step_text, token, pos) if slash else 0
        if slash and field == _DOW and self.unix:
            # croniter runs a day-of-week step up to 6, never 7 (which it reads as 0, Sunday).
            hi = 6
        if slash and not base and self.unix:
            raise self.fail(
                "a step needs a start: croniter (and so Airflow) refuses it", field, token, pos, fix=f"*/{step}"
            )
        if slash and base in ("", "*"):
            if field == _YEAR:
                hi = LAST_YEAR  # open-ended, as above
            return Item(ItemKind.RANGE, lo, hi, step), list(range(lo, hi + 1, step))
        named = any(c.isalpha() for c in base)
        if "-" in base[1:]:
            cut = base.index("-", 1)
            a_text, b_text = base[:cut], base[cut + 1 :]
            if not a_text or not b_text:
                raise self.fail("incomplete range", field, token, pos, "write a range as start-end, e.g. 1-5")
            a = self.value(field, a_text, token, pos)
            b = self.value(field, b_text, token, pos)
            if self.unix:
                return self.unix_range(field, token, pos, a, b, a_text, step)
            if (_DIGITS.fullmatch(a_text) is None) != (_DIGITS.fullmatch(b_text) is None):
                raise self.fail(
                    "Quartz 2.3.2 refuses a range that mixes a number and a name",
                    field,
                    token,
                    pos,
                    "spell both ends as numbers",
                    self.quartz_spelling(field, a, b, step),
                )
            if named and slash:
                raise self.fail(
                    f"Quartz 2.3.2 ignores a step after a name and would read {token!r} as {base!r}",
                    field,
                    token,
                    pos,
                    f"for a step of {step} write the range as numbers",
                    self.quartz_spelling(field, a, b, step),
                )
            if a > b:
                if field != _DOW or slash:
                    why = (
                        "a step on a wrap-around range is not supported"
                        if field == _DOW
                        else "wrap-around ranges are only allowed in Quartz day-of-week"
                    )
                    raise self.fail(
                        why, field, token, pos, "list the values", compress(self.cycle(field, a, b, step or 1))
                    )
                return Item(ItemKind.WRAP, a, b), [*range(a, hi + 1), *range(lo, b + 1)]
            return Item(ItemKind.RANGE, a, b, step or 1), list(range(a, b + 1, step or 1))
        if base.startswith("-"):
            raise self.fail("incomplete range", field, token, pos, "negative numbers are not allowed")
        v = self.value(field, base, token, pos)
        if slash:
            if named and not self.unix:
                raise self.fail(
                    f"Quartz 2.3.2 ignores a step after a name and would read {token!r} as {base!r}",
                    field,
                    token,
                    pos,
                    f"for a step of {step} from {base.upper()} write the number",
                    f"{v}/{step}",
                )
            if self.unix and v == (6 if field == _DOW else hi):
                # croniter before 7.0 (what Airflow 3.0 to 3.4 install) writes a/s as a-max/s, and at the field's
                # maximum that is an equal range, which it reads as the whole field (croniter issue 246).
                every = f"*/{step}"
                raise self.fail(
                    f"croniter 7 reads {token!r} as {base!r} alone, croniter 6 (which Airflow 3.0 to 3.4 install) as "
                    f"{every!r}, every {step} from the field's start",
                    field,
                    token,
                    pos,
                    f"for croniter 6's reading write {every!r}; for the value alone",
                    base,
                )
            if self.unix and field == _DOW and v == 7:
                v = 0  # croniter reads 7 as Sunday, 0
            if field == _YEAR:
                # An open-ended year step has no last year: like Quartz, it goes on past 2099.
                hi = LAST_YEAR
            return Item(ItemKind.RANGE, v, hi, step), list(range(v, hi + 1, step))
        return Item(ItemKind.VALUE, v), [v]

    def quartz_spelling(self, field: int, a: int, b: int, step: int) -> str:
        """A Quartz token, numbers only, for the range a-b every step (a wrap-around one read as a cycle)."""
        if a <= b:
            return f"{a}-{b}" + (f"/{step}" if step else "")
        if field == _DOW and not step:
            return f"{a}-{b}"
        return compress(self.cycle(field, a, b, step or 1))

    def unix_range(
        self, field: int, token: str, pos: int, a: int, b: int, a_text: str, step: int
    ) -> tuple[Item, list[int]]:
        """A 5-field range as croniter reads it, refused where that reading is not the evident one."""
        lo, hi = self.bounds(field)
        if field == _DOW:
            hi = 6
            if b == 7 and a != 7:
                # a-7 (and a-7/s) is a plain range ending on Sunday; croniter's wrap-around reading agrees.
                values = [v % 7 for v in range(a, 8, step or 1)]
                return Item(ItemKind.RANGE, a, 7, step or 1), values
            a, b = a % 7, b % 7
        if a == b:
            full = f"{lo}-{hi}"
            raise self.fail(
                "croniter (and so Airflow) reads an equal range as the whole field",
                field,
                token,
                pos,
                f"write {a_text} for the single value, or the whole field",
                full + (f"/{step}" if step else ""),
            )
        if a < b:
            return Item(ItemKind.RANGE, a, b, step or 1), list(range(a, b + 1, step or 1))
        croniter = self.croniter_wrap(field, a, b, step or 1)
        if step and croniter != self.cycle(field, a, b, step):
            spelled = ",".join(_value_word(field, v, True)[:3] if field in (_MON, _DOW) else str(v) for v in croniter)
            raise self.fail(
                f"croniter (and so Airflow) reads {token!r} as {spelled}: its step starts again after the wrap",
                field,
                token,
                pos,
                "list the values to keep that reading",
                compress(croniter),
            )
        return Item(ItemKind.WRAP, a, b, step or 1), croniter

    def field(self, field: int, text: str, start: int) -> tuple[list[Item], set[int]]:
        """Parse a plain field (no ``?``, no day specials) into items and the set of values."""
        items: list[Item] = []
        values: set[int] = set()
        parts = text.split(",")
        offset = start
        for part in parts:
            if not part:
                raise self.fail(
                    "empty list item", field, text, start, "remove the extra comma", ",".join(p for p in parts if p)
                )
            if part == "*" and len(parts) > 1 and not self.unix:
                raise self.fail("'*' cannot be combined with other values", field, part, offset)
            if part == "?":
                where = "day-of-month or day-of-week" if not self.unix else "the day fields"
                raise self.fail(
                    f"'?' is only allowed alone in {where}",
                    field,
                    part,
                    offset,
                    fix="*" if len(parts) == 1 else None,
                )
            item, vals = self.plain_item(field, part, offset)
            items.append(item)
            values.update(vals)
            offset += len(part) + 1
        if "*" in parts:
            # croniter reads a list holding '*' as the whole field (the other items only checked), and a day field
            # so written as unrestricted: the 5-field day rule (unix.py) decides with that.
            lo, hi = self.bounds(field)
            return [ALL], set(range(lo, hi + 1))
        return items, values


def compress(values: list[int]) -> str:
    """The list token for exactly these values: 1,2,3,5 -> '1-3,5'."""
    values = sorted(set(values))
    out: list[str] = []
    i = 0
    while i < len(values):
        j = i
        while j + 1 < len(values) and values[j + 1] == values[j] + 1:
            j += 1
        out.append(str(values[i]) if j == i else f"{values[i]}-{values[j]}")
        i = j + 1
    return ",".join(out)
