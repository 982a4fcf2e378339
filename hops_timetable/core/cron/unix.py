"""A 5-field expression as croniter (and so Airflow) reads it: its day fields, croniter's rule for when the day fields
are OR-ed, and its Quartz spelling; a reading croniter does not make evident is refused with croniter's as rewrite."""

from __future__ import annotations

import re

from hops_timetable.core.cron import form
from hops_timetable.core.cron.form import ALL, ANY, Dialect, Item, ItemKind, MonthDays, ParsedCron, WeekDays
from hops_timetable.core.cron.reader import CronSyntaxError, FieldReader, Place, compress, listed


def parse_unix(reader: FieldReader, source: str, places: list[Place], dialect: Dialect) -> ParsedCron:
    """The parsed form of a 5-field expression whose fields (minute first) are ``places`` in ``reader``'s text."""
    sets: dict[int, set[int]] = {}
    items: list[list[Item]] = [[Item(ItemKind.VALUE, 0)], [], [], [], [], [], [ALL]]
    for at in (places[0], places[1], places[3]):
        items[at.field], sets[at.field] = reader.field(at)
    dom_raw, dow_raw = places[2].token, places[4].token
    spelled = ["*" if items[f] == [ALL] else compress(list(sets[f])) for f in (form.MIN, form.HOUR, form.MON)]
    items[form.DOM], dom_values, dom_special = _unix_dom(reader, places[2], dow_raw, spelled)
    items[form.DOW], dow_values, dow_special = _unix_dow(reader, places[4], dom_raw)
    weekdays = {form.py_weekday(v, True) for v in dow_values}
    # croniter's rule, which Airflow inherits: a day field counts as unrestricted when written "?", when its
    # list holds a bare "*" ("*", "*,16", "L,*"), or when it covers every value and the *other* field's text
    # contains a "*" anywhere ("*/2" too). Only two restricted fields are OR-ed.
    dom_star = dom_raw == "?" or "*" in dom_raw.split(",") or (len(dom_values) == 31 and "*" in dow_raw)
    dow_star = dow_raw == "?" or "*" in dow_raw.split(",") or (len(weekdays) == 7 and "*" in dom_raw)
    dom = dom_special if dom_special or dom_star else MonthDays(days=frozenset(dom_values))
    dow = dow_special if dow_special or dow_star else WeekDays(every=frozenset(weekdays))
    if dom is None and dow is not None:
        items[form.DOM] = [ANY]
    elif dow is None:
        items[form.DOW] = [ANY]
    upper = [at.token.upper() for at in places]
    # The Quartz spelling: the user's token where Quartz reads it the same, else the values it denotes.
    time_q = [
        "*" if items[f] == [ALL] else upper[i] if _same_in_quartz(items[f], upper[i]) else compress(list(sets[f]))
        for f, i in ((form.MIN, 0), (form.HOUR, 1), (form.MON, 3))
    ]
    expressible = True
    dom_q = upper[2] if dom_raw != "?" and _same_in_quartz(items[form.DOM], upper[2]) else "*"
    if dom is not None:
        if dom.before_last is not None:  # listed days and the last day
            dom_q = "L"
            expressible = not dom.days
        elif dom.nearest_weekday is not None:
            dom_q = f"{dom.nearest_weekday}W"
        elif not _same_in_quartz(items[form.DOM], upper[2]):
            dom_q = compress(list(dom_values))
    if dow is not None and (dow.nth or dow.last):
        terms = [f"{i.value + 1}#{i.nth}" for i in items[form.DOW] if i.kind is ItemKind.NTH_WEEKDAY]
        terms += [f"{i.value + 1}L" for i in items[form.DOW] if i.kind is ItemKind.LAST_OF_WEEKDAY]
        expressible = len(terms) == 1
        dow_q = terms[0]
    elif dow_raw in ("*", "?") or (
        re.fullmatch(r"[A-Z,\-]+", upper[4])
        and not any(i.kind is ItemKind.WRAP and i.step > 1 for i in items[form.DOW])
    ):
        dow_q = "*" if dow_raw == "?" else upper[4]
    else:
        dow_q = compress([v % 7 + 1 for v in dow_values])
    if (dom is not None and dow is not None) or not expressible:
        quartz = ["0", upper[0], upper[1], upper[2], upper[3], upper[4] if not expressible else dow_q, "*"]
    elif dow is not None:
        quartz = ["0", time_q[0], time_q[1], "?", time_q[2], dow_q]
    else:
        quartz = ["0", time_q[0], time_q[1], dom_q, time_q[2], "?"]
    # Day fields Quartz cannot express keep their 5-field form.
    expression = " ".join(upper if len(quartz) == 7 else quartz)
    minutes, hours, months = (tuple(sorted(sets[f])) for f in (form.MIN, form.HOUR, form.MON))
    tokens, field_items = tuple([*quartz, "*"][:7]), tuple(map(tuple, items))
    return ParsedCron(source, expression, dialect, tokens, field_items, (0,), minutes, hours, months, None, dom, dow)


def _unix_dom(
    reader: FieldReader, at: Place, dow_text: str, time: list[str]
) -> tuple[list[Item], set[int], MonthDays | None]:
    """5-field day-of-month (a list, ``L`` also in it, ``a-L``, ``nW``/``Wn``, ``?``): items, plain days and the day
    rule (None: plain days, decided by the caller); ``time`` spells minute, hour and month for a Quartz rewrite."""
    text = at.token
    upper = text.upper()
    if upper == "?":
        return [ALL], set(range(1, 32)), None
    w = re.fullmatch(r"([0-9]+)W|W([0-9]+)", upper, re.ASCII)
    if w:
        n = int(w.group(1) or w.group(2))
        if not 1 <= n <= 31:
            raise reader.fail(f"day {n} before W is out of range 1-31", at)
        if n >= 29:
            why = (
                f"croniter (and so Airflow) reads {text!r} as the weekday nearest day {n}, or nearest the "
                "last day in shorter months, which differs from Quartz"
            )
            if n == 31:  # the weekday nearest the last day is always the last weekday
                rewrite = " ".join(["0", time[0], time[1], "LW", time[2], "?"])
                raise reader.fail(why, at, "for that reading, the last weekday, write Quartz cron", rewrites=(rewrite,))
            raise reader.fail(why, at, "write the days it should fire on, or LW in Quartz cron")
        if dow_text not in ("*", "?"):
            raise _not_ored(reader, at, f"it ignores day-of-week {dow_text!r}")
        return [Item(ItemKind.NEAREST_WEEKDAY, n)], set(), MonthDays(nearest_weekday=n)
    items: list[Item] = []
    values: set[int] = set()
    last = False
    for raw in listed(at):
        part = raw.token.upper()
        if part == "L":
            last = True
            items.append(Item(ItemKind.LAST_DAY, 0))
        elif "L" in part:
            m = re.fullmatch(r"([0-9]+)-L(/([0-9]+))?", part, re.ASCII)
            if m is None:
                raise reader.fail(
                    "not a valid use of L in 5-field cron",
                    raw,
                    "5-field cron takes L (the last day), L in a list and a-L; for L-n write Quartz cron",
                )
            a = reader.value(m.group(1), raw)
            if m.group(2):
                step = reader.step(m.group(3), raw)
                why = (
                    f"croniter (and so Airflow) reads {raw.token!r} as {a}-31/{step}, counting the step from day {a} "
                    "whatever the month's length"
                )
                raise reader.fail(why, raw, "for that reading", f"{a}-31/{step}")
            if a == 31:
                why = "croniter (and so Airflow) reads 31-L as an equal range, the whole month"
                raise reader.fail(why, raw, "for the last day write L; for croniter's reading", "1-31")
            items.append(Item(ItemKind.RANGE, a, 31, 1))
            values.update(range(a, 32))
        elif "W" in part or "#" in part or part == "?":
            why = "W can only stand alone in day-of-month" if "W" in part else f"{part!r} is not valid here"
            raise reader.fail(why, raw)
        else:
            item_items, item_values = reader.field(raw)
            items.extend(item_items)
            values.update(item_values)
    if "*" in text.split(","):  # croniter sorts a bare '*' first and so reads the field as unrestricted
        return [ALL], set(range(1, 32)), None
    if not last:
        return items, values, None
    if len(values) == 30 and "*" in dow_text:
        why = "croniter (and so Airflow) counts 31 entries here and reads the field as every day"
        raise reader.fail(why, at, "for that reading", "*")
    return items, values, MonthDays(days=frozenset(values), before_last=0)


def _unix_dow(reader: FieldReader, at: Place, dom_text: str) -> tuple[list[Item], set[int], WeekDays | None]:
    """5-field day-of-week: a plain list, ``?``, or n#k / name#k / Ln terms (not mixed with plain days)."""
    text = at.token
    upper = text.upper()
    if upper == "?":
        return [ALL], set(range(0, 8)), None
    if "#" not in upper and "L" not in upper:
        return (*reader.field(at), None)
    parts = upper.split(",")
    items: list[Item] = []
    plain: list[str] = []
    for raw in listed(at):
        part = raw.token.upper()
        ranged = re.fullmatch(r"([A-Z]{3})-([A-Z]{3})#([0-9]+)", part, re.ASCII)
        term = re.fullmatch(r"([A-Z]{3}|[0-9]+)#([0-9]+)|L([0-9]+)", part, re.ASCII)
        if ranged:
            a, b = reader.value(ranged.group(1), raw) % 7, reader.value(ranged.group(2), raw) % 7
            k = ranged.group(3)
            days = reader.croniter_wrap(form.DOW, a, b, 1) if a > b else list(range(a, b + 1))
            why = (
                f"croniter (and so Airflow) reads {raw.token!r} as occurrence {k} of each of those days in the "
                f"month, not as the {k}th of them"
            )
            raise reader.fail(why, raw, "for that reading", ",".join(f"{d}#{k}" for d in days))
        if term:
            items.append(reader.weekday_term(raw, term[1] or term[3], term[2]))
        elif re.fullmatch(r"([A-Z]{3}|[0-9]+)L", part, re.ASCII):
            why = "croniter (and so Airflow) writes the last such day of the month as L followed by the number"
            raise reader.fail(why, raw, "for the last of that day", "L" + str(reader.value(part[:-1], raw) % 7))
        elif "#" in part or "L" in part:
            why = f"{raw.token!r} is not a valid day-of-week term"
            raise reader.fail(why, raw, "5-field cron takes n#k (the k-th day n of the month) and Ln (the last day n)")
        else:
            plain.append(part)
    if plain:
        special = ",".join(p for p in parts if p not in plain)
        if "*" in plain:
            # croniter accepts '*' next to n#k/Ln terms and then fires on those terms alone.
            why = f"croniter (and so Airflow) reads {text!r} as {special!r} alone: it drops the '*'"
            raise reader.fail(why, at, "for that reading", special)
        why = "croniter (and so Airflow) refuses to mix plain days with n#k or Ln terms"
        raise reader.fail(
            why, at, "use one schedule for each kind", rewrites=reader.split(at, [special, ",".join(plain)])
        )
    if dom_text not in ("*", "?"):
        raise _not_ored(reader, at, f"it ignores day-of-month {dom_text!r}, or finds no date at all")
    return items, set(), WeekDays.of_terms(items, True)


def _not_ored(reader: FieldReader, at: Place, ignored: str) -> CronSyntaxError:
    """Day fields that croniter does not OR, with day-of-week or day-of-month unrestricted as the rewrites."""
    why = f"with {at.token!r} croniter (and so Airflow) does not OR the day fields: {ignored}"
    fields = form.TOKEN.findall(reader.expression)
    rewrites = tuple(" ".join([*fields[:i], "*", *fields[i + 1 :]]) for i in (4, 2))
    return reader.fail(why, at, "for either day", rewrites=rewrites)


def _same_in_quartz(items: list[Item], token: str) -> bool:
    """Whether Quartz reads this 5-field month, time or day-of-month token as croniter does."""
    if any(item.kind is ItemKind.WRAP for item in items) or (items == [ALL] and token != "*"):
        return False
    if re.fullmatch(r"[0-9*/,\-]+", token, re.ASCII):
        return True
    # Names: Quartz refuses a name mixed with numbers in a range and ignores a step after a name.
    return re.fullmatch(r"[A-Z]{3}(-[A-Z]{3})?(,[A-Z]{3}(-[A-Z]{3})?)*", token, re.ASCII) is not None
