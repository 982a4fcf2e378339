"""Reading the text of each field: tokens, names, ranges, steps and the day specials, in the three dialects.

The rules of what is refused, and the rewrite each refusal proposes, live here; assembling the fields into an
evaluator is :class:`~hops_timetable.core.cron.engine.QuartzCron`'s constructor."""

from __future__ import annotations

import re
import threading
import unicodedata
from collections.abc import Callable

from hops_timetable.core.cron.errors import CronSyntaxError
from hops_timetable.core.cron.fields import (
    _DIGITS,
    _DOM,
    _DOW,
    _FIELD_NAMES,
    _HOUR,
    _MIN,
    _MON,
    _MONTH_NAMES,
    _QUARTZ_DOW_NAMES,
    _TOKEN,
    _UNIX_DOW_NAMES,
    _YEAR,
    LAST_YEAR,
    MAX_YEAR,
    MIN_YEAR,
    _DaySpec,
    _Item,
    _py_weekday,
    _value_word,
)

# ---------------------------------------------------------------------------------------------------------
# Parsing

# A longer run of digits is refused before it is converted (leading zeros included, so '0005' still reads as 5).
MAX_NUMBER_DIGITS = 10
_LONG_NUMBER = re.compile(rf"[0-9]{{{MAX_NUMBER_DIGITS + 1},}}", re.ASCII)


class _Parser:
    """Parses one expression; collects everything the evaluator and the describer need."""

    def __init__(self, expression: str, parse: Callable[[str], object]) -> None:
        # *parse* is the whole constructor (QuartzCron): a proposed rewrite is shown only if it parses.
        self.expression = expression
        self.parse = parse
        self.unix = False

    def fail(
        self,
        why: str,
        field: int | None = None,
        token: str | None = None,
        position: int | None = None,
        hint: str | None = None,
        fix: str | None = None,
        rewrites: tuple[str, ...] = (),
    ) -> CronSyntaxError:
        """The error; ``fix`` replaces ``token`` (at ``position``) to give the single rewrite."""
        if fix is not None and token is not None and position is not None:
            rewrites = (self.replaced(position, token, fix),)
        if rewrites and not _rewrites_parse(rewrites, self.expression, self.parse):
            rewrites = ()  # a rewrite is only proposed when it is itself valid
        if rewrites:
            shown = " and ".join(repr(r) for r in rewrites)
            hint = f"{hint}: {shown}" if hint else f"write {shown}"
        return CronSyntaxError(
            why,
            expression=self.expression,
            field=None if field is None else _FIELD_NAMES[field],
            token=token,
            position=position,
            hint=hint,
            rewrites=rewrites,
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

    def span(self, field: int) -> tuple[int, int]:
        """(first value, number of values) of the field's cycle, for wrap-around ranges."""
        if field == _DOW:
            return (0, 7) if self.unix else (1, 7)
        lo, hi = self.bounds(field)
        return lo, hi - lo + 1

    def cycle(self, field: int, a: int, b: int, step: int) -> list[int]:
        """A wrap-around range read as one cycle: from a up past the field's end, on to b, every step."""
        first, n = self.span(field)
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

    def spelled(self, field: int, values: list[int]) -> str:
        """A list token for exactly these values in this dialect."""
        return _compress(sorted(set(values)))

    def plain_item(self, field: int, token: str, pos: int) -> tuple[_Item, list[int]]:
        """Parse ``*``, ``v``, ``a-b``, ``a/s``, ``*/s``, ``/s``, ``a-b/s`` into an item and its values."""
        lo, hi = self.bounds(field)
        if token == "*":
            return ("all",), list(range(lo, hi + 1))
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
            return ("range", lo, hi, step), list(range(lo, hi + 1, step))
        named = any(c.isalpha() for c in base)
        if "-" in base[1:]:
            cut = base.index("-", 1)
            a_text, b_text = base[:cut], base[cut + 1 :]
            if not a_text or not b_text:
                raise self.fail("incomplete range", field, token, pos, "write a range as start-end, e.g. 1-5")
            a = self.value(field, a_text, token, pos)
            b = self.value(field, b_text, token, pos)
            if self.unix:
                return self.unix_range(field, token, pos, a, b, a_text, b_text, step)
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
                        why,
                        field,
                        token,
                        pos,
                        "list the values",
                        self.spelled(field, self.cycle(field, a, b, step or 1)),
                    )
                return ("wrap", a, b), [*range(a, hi + 1), *range(lo, b + 1)]
            return ("range", a, b, step or 1), list(range(a, b + 1, step or 1))
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
            return ("range", v, hi, step), list(range(v, hi + 1, step))
        return ("value", v), [v]

    def quartz_spelling(self, field: int, a: int, b: int, step: int) -> str:
        """A Quartz token, numbers only, for the range a-b every step (a wrap-around one read as a cycle)."""
        if a <= b:
            return f"{a}-{b}" + (f"/{step}" if step else "")
        if field == _DOW and not step:
            return f"{a}-{b}"
        return self.spelled(field, self.cycle(field, a, b, step or 1))

    def unix_range(
        self, field: int, token: str, pos: int, a: int, b: int, a_text: str, b_text: str, step: int
    ) -> tuple[_Item, list[int]]:
        """A 5-field range as croniter reads it, refused where that reading is not the evident one."""
        lo, hi = self.bounds(field)
        if field == _DOW:
            hi = 6
            if b == 7 and a != 7:
                # a-7 (and a-7/s) is a plain range ending on Sunday; croniter's wrap-around reading agrees.
                values = [v % 7 for v in range(a, 8, step or 1)]
                return ("range", a, 7, step or 1), values
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
            return ("range", a, b, step or 1), list(range(a, b + 1, step or 1))
        croniter = self.croniter_wrap(field, a, b, step or 1)
        if step and croniter != self.cycle(field, a, b, step):
            spelled = ",".join(_value_word(field, v, True)[:3] if field in (_MON, _DOW) else str(v) for v in croniter)
            raise self.fail(
                f"croniter (and so Airflow) reads {token!r} as {spelled}: its step starts again after the wrap",
                field,
                token,
                pos,
                "list the values to keep that reading",
                self.spelled(field, croniter),
            )
        return ("wrap", a, b, step or 1), croniter

    def field(self, field: int, text: str, start: int) -> tuple[list[_Item], set[int]]:
        """Parse a plain field (no ``?``, no day specials) into items and the set of values."""
        items: list[_Item] = []
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
            # so written as unrestricted: _parse_unix decides the days with _has_star.
            lo, hi = self.bounds(field)
            return [("all",)], set(range(lo, hi + 1))
        return items, values

    def dom(self, text: str, start: int) -> tuple[list[_Item], _DaySpec | None]:
        """Quartz day-of-month: plain list, or one of L, L-n, nW, LW. None means every day."""
        upper = text.upper()
        if "L" in upper or "W" in upper:
            if "," in upper:
                parts = upper.split(",")
                offset = start
                for part in parts:
                    if "L" in part or "W" in part:
                        raise self.fail(
                            "L and W cannot be used in a list",
                            _DOM,
                            part,
                            offset,
                            "use a separate schedule for the special day",
                            rewrites=self.split(start, text, [p for p in parts if p not in ("", part)] + [part]),
                        )
                    offset += len(part) + 1
            if upper == "L":
                return [("L", 0)], ("L", 0)
            if upper == "LW":
                return [("LW",)], ("LW",)
            if upper.startswith("L-"):
                rest = upper[2:]
                if rest.endswith("W"):
                    raise self.fail(
                        "L-n cannot be combined with W",
                        _DOM,
                        text,
                        start,
                        "use LW for the last weekday, or L-n for a day before the last day",
                    )
                if not _DIGITS.fullmatch(rest) or not 1 <= int(rest) <= 30:
                    raise self.fail(
                        "offset after L must be 1-30",
                        _DOM,
                        text,
                        start,
                        "L-1 is the day before the last day",
                    )
                n = int(rest)
                return [("L", n)], ("L", n)
            if upper.endswith("W") and _DIGITS.fullmatch(upper[:-1]):
                n = int(upper[:-1])
                if 29 <= n <= 31:
                    raise self.fail(
                        f"{n}W is not accepted: Quartz and cron-utils disagree when day {n} does not exist",
                        _DOM,
                        text,
                        start,
                        "for the last weekday of every month" if n == 31 else "for the last weekday write LW",
                        "LW" if n == 31 else None,
                    )
                if not 1 <= n <= 28:
                    raise self.fail("day before W must be 1-28", _DOM, text, start)
                return [("W", n)], ("W", n)
            raise self.fail(
                "not a valid use of L or W",
                _DOM,
                text,
                start,
                "valid forms are L, L-n (n 1-30), nW (n 1-28) and LW",
            )
        items, values = self.field(_DOM, text, start)
        if items == [("all",)]:
            return items, None
        return items, ("set", frozenset(values))

    def dow(self, text: str, start: int) -> tuple[list[_Item], _DaySpec | None]:
        """Quartz day-of-week: plain list (wrap-around allowed), L alone, nL or n#k. None means every day."""
        upper = text.upper()
        parts = upper.split(",")
        if len(parts) > 1:
            offset = start
            for part in parts:
                if "#" in part:
                    others = [p for p in parts if p != part]
                    many = sum("#" in p for p in parts) > 1
                    raise self.fail(
                        "Quartz 2.3.2 refuses more than one # term"
                        if many
                        else "'#' cannot be used in a list: Quartz 2.3.2 would fire only on that occurrence of the "
                        "list's lowest day and ignore the rest",
                        _DOW,
                        part,
                        offset,
                        "use one schedule per term",
                        rewrites=self.split(
                            start, text, [part, ",".join(others)] if "#" not in "".join(others) else parts
                        ),
                    )
                if part.endswith("L"):
                    raise self.fail(
                        "L cannot be used in a list",
                        _DOW,
                        part,
                        offset,
                        "use one schedule per last weekday",
                        rewrites=self.split(start, text, [part, ",".join(p for p in parts if p != part)]),
                    )
                offset += len(part) + 1
        if upper == "L":
            return [("value", 7)], ("set", frozenset({_py_weekday(7, False)}))
        ranged = re.fullmatch(r"([0-9A-Z]+)-([0-9A-Z]+)(#[0-9]+|L)", upper, re.ASCII)
        if ranged:
            a = self.value(_DOW, ranged.group(1), text, start)
            b = self.value(_DOW, ranged.group(2), text, start)
            days = self.cycle(_DOW, a, b, 1) if a > b else list(range(a, b + 1))
            raise self.fail(
                f"{ranged.group(3)[0]} takes a single day, not a range",
                _DOW,
                text,
                start,
                "use one schedule per day",
                rewrites=self.split(start, text, [f"{d}{ranged.group(3)}" for d in days]),
            )
        if upper.startswith("L-"):
            raise self.fail(
                "L-n belongs in day-of-month", _DOW, text, start, "for the last day n of the month write nL"
            )
        if "#" in upper:
            day_text, _, k_text = upper.partition("#")
            v = self.value(_DOW, day_text, text, start)
            if not _DIGITS.fullmatch(k_text) or not 1 <= int(k_text) <= 5:
                raise self.fail("the number after # must be 1-5", _DOW, text, start, "6#3 is the third Friday")
            k = int(k_text)
            return [("#", v, k)], ("#", _py_weekday(v, False), k)
        if upper.endswith("L") and (_DIGITS.fullmatch(upper[:-1]) or upper[:-1] in _QUARTZ_DOW_NAMES):
            v = self.value(_DOW, upper[:-1], text, start)
            return [("nL", v)], ("nL", _py_weekday(v, False))
        items, values = self.field(_DOW, text, start)
        if items == [("all",)]:
            return items, None
        return items, ("set", frozenset(_py_weekday(v, False) for v in values))

    # -- 5-field day fields, as croniter reads them -----------------------------------------------------------

    def unix_dom(self, text: str, start: int, dow_text: str) -> tuple[list[_Item], set[int], _DaySpec | None]:
        """5-field day-of-month: a plain list, ``L`` (also in a list), ``a-L``, ``nW``/``Wn``, or ``?``.

        Returns the items, the plain days, and the day spec (None: a plain set, decided by the caller).
        """
        upper = text.upper()
        if upper == "?":
            return [("all",)], set(range(1, 32)), None
        w = re.fullmatch(r"([0-9]+)W|W([0-9]+)", upper, re.ASCII)
        if w:
            n = int(w.group(1) or w.group(2))
            if not 1 <= n <= 31:
                raise self.fail(f"day {n} before W is out of range 1-31", _DOM, text, start)
            if n >= 29:
                why = (
                    f"croniter (and so Airflow) reads {text!r} as the weekday nearest day {n}, or nearest the "
                    "last day in shorter months, which differs from Quartz"
                )
                if n == 31:
                    # Nearest weekday to the last day is always the last weekday.
                    raise self.fail(
                        why,
                        _DOM,
                        text,
                        start,
                        "for that reading, the last weekday, write Quartz cron",
                        rewrites=(self.quartz_rewrite(dom="LW"),),
                    )
                raise self.fail(why, _DOM, text, start, "write the days it should fire on, or LW in Quartz cron")
            if dow_text not in ("*", "?"):
                raise self.fail(
                    f"with {text!r} croniter (and so Airflow) does not OR the day fields: it ignores day-of-week "
                    f"{dow_text!r}",
                    _DOM,
                    text,
                    start,
                    "for either day",
                    rewrites=(self.unix_replaced(4, "*"), self.unix_replaced(2, "*")),
                )
            return [("W", n)], set(), ("W", n)
        items: list[_Item] = []
        values: set[int] = set()
        last = False
        offset = start
        for part in upper.split(","):
            raw = text[offset - start : offset - start + len(part)]
            if part == "L":
                last = True
                items.append(("L", 0))
            elif "L" in part:
                m = re.fullmatch(r"([0-9]+)-L(/([0-9]+))?", part, re.ASCII)
                if m is None:
                    raise self.fail(
                        "not a valid use of L in 5-field cron",
                        _DOM,
                        raw,
                        offset,
                        "5-field cron takes L (the last day), L in a list and a-L; for L-n write Quartz cron",
                    )
                a = self.value(_DOM, m.group(1), raw, offset)
                if m.group(2):
                    step = self.step(_DOM, m.group(3), raw, offset)
                    raise self.fail(
                        f"croniter (and so Airflow) reads {raw!r} as {a}-31/{step}, counting the step from day {a} "
                        "whatever the month's length",
                        _DOM,
                        raw,
                        offset,
                        "for that reading",
                        f"{a}-31/{step}",
                    )
                if a == 31:
                    raise self.fail(
                        "croniter (and so Airflow) reads 31-L as an equal range, the whole month",
                        _DOM,
                        raw,
                        offset,
                        "for the last day write L; for croniter's reading",
                        "1-31",
                    )
                items.append(("range", a, 31, 1))
                values.update(range(a, 32))
            elif "W" in part or "#" in part or part == "?":
                raise self.fail(
                    "W can only stand alone in day-of-month" if "W" in part else f"{part!r} is not valid here",
                    _DOM,
                    raw,
                    offset,
                )
            else:
                item_items, item_values = self.field(_DOM, raw, offset)
                items.extend(item_items)
                values.update(item_values)
            offset += len(part) + 1
        if _has_star(text):
            return [("all",)], set(range(1, 32)), None
        if not last:
            return items, values, None
        if len(values) == 30 and "*" in dow_text:
            raise self.fail(
                "croniter (and so Airflow) counts 31 entries here and reads the field as every day",
                _DOM,
                text,
                start,
                "for that reading",
                "*",
            )
        return items, values, ("setL", frozenset(values))

    def unix_dow(self, text: str, start: int, dom_text: str) -> tuple[list[_Item], set[int], _DaySpec | None]:
        """5-field day-of-week: a plain list, ``?``, or n#k / name#k / Ln terms (not mixed with plain days)."""
        upper = text.upper()
        if upper == "?":
            return [("all",)], set(range(0, 8)), None
        parts = upper.split(",")
        if not any("#" in p or "L" in p for p in parts):
            plain_items, values = self.field(_DOW, text, start)
            return plain_items, values, None
        items: list[_Item] = []
        nth: set[tuple[int, int]] = set()
        lasts: set[int] = set()
        offset = start
        plain: list[str] = []
        for part in parts:
            raw = text[offset - start : offset - start + len(part)]
            ranged = re.fullmatch(r"([A-Z]{3})-([A-Z]{3})#([0-9]+)", part, re.ASCII)
            m = re.fullmatch(r"([A-Z]{3}|[0-9]+)#([0-9]+)", part, re.ASCII)
            lm = re.fullmatch(r"L([0-9]+)", part, re.ASCII)
            if ranged:
                a = self.value(_DOW, ranged.group(1), raw, offset) % 7
                b = self.value(_DOW, ranged.group(2), raw, offset) % 7
                k = ranged.group(3)
                days = self.croniter_wrap(_DOW, a, b, 1) if a > b else list(range(a, b + 1))
                raise self.fail(
                    f"croniter (and so Airflow) reads {raw!r} as occurrence {k} of each of those days in the "
                    f"month, not as the {k}th of them",
                    _DOW,
                    raw,
                    offset,
                    "for that reading",
                    ",".join(f"{d}#{k}" for d in days),
                )
            if m:
                v = self.value(_DOW, m.group(1), raw, offset)
                if not _DIGITS.fullmatch(m.group(2)) or not 1 <= int(m.group(2)) <= 5:
                    raise self.fail("the number after # must be 1-5", _DOW, raw, offset, "5#3 is the third Friday")
                k = int(m.group(2))
                nth.add((_py_weekday(v % 7, True), k))
                items.append(("#", v % 7, k))
            elif lm:
                v = self.value(_DOW, lm.group(1), raw, offset)
                lasts.add(_py_weekday(v % 7, True))
                items.append(("nL", v % 7))
            elif re.fullmatch(r"([A-Z]{3}|[0-9]+)L", part, re.ASCII):
                raise self.fail(
                    "croniter (and so Airflow) writes the last such day of the month as L followed by the number",
                    _DOW,
                    raw,
                    offset,
                    "for the last of that day",
                    "L" + str(self.value(_DOW, part[:-1], raw, offset) % 7),
                )
            elif "#" in part or "L" in part:
                raise self.fail(
                    f"{raw!r} is not a valid day-of-week term",
                    _DOW,
                    raw,
                    offset,
                    "5-field cron takes n#k (the k-th day n of the month) and Ln (the last day n)",
                )
            else:
                plain.append(part)
            offset += len(part) + 1
        if plain:
            special = [p for p in parts if p not in plain]
            if "*" in plain:
                # croniter accepts '*' next to n#k/Ln terms and then fires on those terms alone.
                raise self.fail(
                    f"croniter (and so Airflow) reads {text!r} as {','.join(special)!r} alone: it drops the '*'",
                    _DOW,
                    text,
                    start,
                    "for that reading",
                    rewrites=(self.replaced(start, text, ",".join(special)),),
                )
            raise self.fail(
                "croniter (and so Airflow) refuses to mix plain days with n#k or Ln terms",
                _DOW,
                text,
                start,
                "use one schedule for each kind",
                rewrites=self.split(start, text, [",".join(special), ",".join(plain)]),
            )
        if dom_text not in ("*", "?"):
            raise self.fail(
                f"with {text!r} croniter (and so Airflow) does not OR the day fields: it ignores day-of-month "
                f"{dom_text!r}, or finds no date at all",
                _DOW,
                text,
                start,
                "for either day",
                rewrites=(self.unix_replaced(4, "*"), self.unix_replaced(2, "*")),
            )
        return items, set(), ("nth", frozenset(nth), frozenset(lasts))

    def unix_replaced(self, index: int, text: str) -> str:
        """The 5-field expression with field ``index`` (0 = minute) replaced."""
        fields = _TOKEN.findall(self.expression)
        fields[index] = text
        return " ".join(fields)

    def quartz_rewrite(self, dom: str) -> str:
        """A Quartz spelling of a 5-field expression whose day-of-week is unrestricted, with ``dom``."""
        fields = _TOKEN.findall(self.expression)
        unix = _Parser(self.expression, self.parse)
        unix.unix = True
        spelled = []
        for f, i in ((_MIN, 0), (_HOUR, 1), (_MON, 3)):
            items, values = unix.field(f, fields[i], 1)
            spelled.append("*" if items == [("all",)] else _compress(sorted(values)))
        return " ".join(["0", spelled[0], spelled[1], dom, spelled[2], "?"])


def _compress(values: list[int]) -> str:
    """1,2,3,5 -> '1-3,5'."""
    out: list[str] = []
    i = 0
    while i < len(values):
        j = i
        while j + 1 < len(values) and values[j + 1] == values[j] + 1:
            j += 1
        out.append(str(values[i]) if j == i else f"{values[i]}-{values[j]}")
        i = j + 1
    return ",".join(out)


_checking_rewrites = threading.local()


def _rewrites_parse(rewrites: tuple[str, ...], original: str, parse: Callable[[str], object]) -> bool:
    """Whether every proposed rewrite is a valid expression (checked one level deep: no recursion)."""
    if getattr(_checking_rewrites, "active", False):
        return False  # a rewrite of a rewrite is never shown
    _checking_rewrites.active = True
    try:
        for rewrite in rewrites:
            if rewrite == original:
                return False
            parse(rewrite)
    except CronSyntaxError:
        return False
    finally:
        _checking_rewrites.active = False
    return True


def _is_odd_space(ch: str) -> bool:
    """A blank or invisible character other than space and tab: no-break space, em space, NEL, newline..."""
    return ch not in " \t" and (ch.isspace() or unicodedata.category(ch) in ("Zs", "Zl", "Zp", "Cc", "Cf"))


def _has_star(text: str) -> bool:
    """Whether a 5-field token has a bare ``*`` item (``*``, ``*,16``, ``L,*``; not ``*/2``).

    croniter keeps such an item as ``*``, which sorts first in its expanded list, and reads a field whose list
    starts with ``*`` as unrestricted: the day fields are not OR-ed, the other day field alone decides.
    """
    return "*" in text.split(",")


def _same_in_quartz(items: list[_Item], token: str) -> bool:
    """Whether Quartz reads this 5-field month, time or day-of-month token as croniter does."""
    if any(item[0] == "wrap" for item in items) or (items == [("all",)] and token != "*"):
        return False
    if re.fullmatch(r"[0-9*/,\-]+", token, re.ASCII):
        return True
    # Names: Quartz refuses a name mixed with numbers in a range and ignores a step after a name.
    return re.fullmatch(r"[A-Z]{3}(-[A-Z]{3})?(,[A-Z]{3}(-[A-Z]{3})?)*", token, re.ASCII) is not None
