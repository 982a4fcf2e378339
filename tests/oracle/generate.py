"""Regenerate the Quartz 2.3.2 golden vectors (``quartz_vectors.jsonl.xz``) that ``test_oracle.py`` replays.

Needs Java (javac 11 or later) and the Quartz 2.3.2 jar with its slf4j dependency. On Debian they are the
packages ``libquartz2-java`` (Quartz 2.3.2) and ``libslf4j-java``::

    apt-get download libquartz2-java libslf4j-java
    for deb in *.deb; do dpkg-deb -x "$deb" quartz; done
    python tests/oracle/generate.py --classpath quartz/usr/share/java/quartz2.jar:quartz/usr/share/java/slf4j-api.jar

The expressions are drawn from a fixed seed: random Quartz expressions over the whole grammar (every field, the
day specials ``L``, ``L-n``, ``nW``, ``LW``, ``nL``, ``n#k``, names, ranges, wrap-around ranges, steps, the year
field, seconds), a share of malformed ones for the accept/reject agreement, and hand-picked ones (each special
construct, leap days, month ends, year limits, the constructs the engine refuses). Start instants are random
seconds in 1970-2100 and instants next to month ends, leap days and year boundaries. ``QuartzOracle.java``
answers next 6 and previous 6 fires per start; how it derives previous fires from ``getTimeAfter`` is written
at its top. The header line of the output keeps the Java timing of the ``getTimeAfter`` chains.
"""

from __future__ import annotations

import argparse
import calendar
import json
import lzma
import random
import subprocess
import sys
import tempfile
from datetime import datetime, timezone
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUTPUT = HERE / "quartz_vectors.jsonl.xz"
SEED = 20261201
UTC = timezone.utc

DOW = ["SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"]
MONTHS = ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"]

# Each special construct, leap years, month ends, year limits, seconds, and the constructs on which Quartz and
# the engine's dialect part ways (kept so that the vectors show Quartz's own reading of them).
HAND_PICKED = [
    "0 0 0 L * ?",
    "0 0 0 L-1 * ?",
    "0 0 0 L-15 * ?",
    "0 0 0 L-28 * ?",
    "0 0 0 L-30 * ?",
    "0 0 0 LW * ?",
    "0 0 0 1W * ?",
    "0 0 0 15W * ?",
    "0 0 0 28W * ?",
    "0 0 0 29W * ?",
    "0 0 0 31W * ?",
    "0 0 0 ? * L",
    "0 0 0 ? * 1L",
    "0 0 0 ? * 6L",
    "0 0 0 ? * FRIL",
    "0 0 0 ? * 2#1",
    "0 0 0 ? * 2#5",
    "0 0 0 ? * 6#3",
    "0 0 0 ? * FRI#3",
    "0 0 0 ? * 2#1,3",
    "0 0 0 ? * 3,2#1",
    "0 0 0 29 2 ?",
    "0 0 0 29 FEB ? 2024-2040",
    "0 0 12 28-31 2 ?",
    "0 0 0 31 * ?",
    "0 0 0 30 * ?",
    "0 0 0 31 4,6,9,11 ?",
    "59 59 23 31 12 ?",
    "0 0 0 1 1 ? 1970",
    "0 0 0 1 1 ? 2099",
    "0 0 0 * * ? 2098-2099",
    "0 0 0 1 1 ? */10",
    "0 0 0 1 1 ? 1970/7",
    "0 0 0 1 1 ? 2000,2004,2096",
    "* * * * * ?",
    "*/7 * * * * ?",
    "0/15 * * * * ?",
    "5-10,50 * * ? * *",
    "0 0 * ? * * *",
    "0 0 0 ? * MON-FRI",
    "0 0 0 ? * FRI-MON",
    "0 0 0 ? * 7-2",
    "0 0 0 ? * SAT-SUN",
    "0 0 0 ? * 2-6/2",
    "0 0 0 ? * */2",
    "0 0 0 ? * 3/3",
    "0 0 0 ? * MON/2",
    "0 0 0 ? * SUN-THU/7",
    "0 0 0 1 JAN/3 ?",
    "0 0 0 1 MAY-JUN/6 ?",
    "0 0 0 1 FEB-AUG/8 ?",
    "0 0 0 1 APR-MAR/2 ?",
    "0 0 0 ? * 2-SEP",
    "0 0 0 ? * SUN-2",
    "0 0 0 ? * FRI-7",
    "0 0 0 1 1-OCT ?",
    "0 0 0 1 JUN-9 ?",
    "0 0 0 1 3-APR ?",
    "0 0 22-2 * * ?",
    "0 50-10 * * * ?",
    "0 0 0 28-3 * ?",
    "0 0 0 1 11-2 ?",
    "0 0 0 1 NOV-FEB ?",
    "0 0 0 ? * THU-TUE/2",
    "0 0 0 ? * 5-3/2",
    "0 0 0 L-3W * ?",
    "0 0 0 LW,1 * ?",
    "0 0 0 1,L * ?",
    "0 0 0 ? * 6L,2",
    "0 0 0 ? * 1#6",
    "0 0 0 ? * 8",
    "0 0 0 32 * ?",
    "0 0 0 0 * ?",
    "0 0 24 * * ?",
    "60 0 0 * * ?",
    "0 0 0 * 13 ?",
    "0 0 0 * * ? 1969",
    "0 0 0 * * ? 2100",
    "0 0 0 * * ? 2299",
    "0 0 0 ? ? *",
    "0 0 0 * * *",
    "0 0 0 1 * ? * *",
    "0 0 0 1 *",
    "0 0/60 * * * ?",
    "0 0/59 * * * ?",
    "0 0 0/24 * * ?",
    "0 0 0 1/32 * ?",
    "0 0 0 1 1/13 ?",
    "0 0 0 ? * 1/8",
    "0 0 0 ? * 1/7",
    "0 0 0 1 1 ? 1970/130",
    "0 0 0 1 1 ? 1970/129",
    "0 0 0 ? * MONDAY",
    "0 0 0 ? * mon",
    "0 0 0 1 jan ?",
    "0 0 0 ? * L-2",
    "0 0 0 LW-2 * ?",
    "0 0 0 W * ?",
    "0 0 0 1-5W * ?",
    "0 0 0 ? * 1-3L",
    "0 0 0 ? * 1-3#2",
    "0 0 0 ? * #2",
    "0 0 0 L/2 * ?",
    "0 0 0 1-L * ?",
    "0 0 0 ? * 0",
    "0 0 0 ? * 7",
    "0 0 0 ? * 1-7",
    "0 0 0 * JAN-DEC ?",
    "0 0 0 ? * SUN-SAT",
    "0 0 0 ? * SAT-SUN/2",
]


def _field(rng: random.Random, lo: int, hi: int, names: list[str] | None = None, max_items: int = 3) -> str:
    """A random plain field over [lo, hi]: values, ranges (wrapping too), steps; names where the field has them."""
    roll = rng.random()
    if roll < 0.22:
        return "*"
    if names is not None and roll < 0.26:
        return "/".join(["*", str(rng.randint(1, hi - lo + 1))])

    use_names = False

    def show(v: int) -> str:
        # Names or numbers per list item, with an occasional mix inside one range.
        if names is not None and (use_names if rng.random() < 0.93 else not use_names):
            return names[v - lo]
        return str(v)

    parts: list[str] = []
    for _ in range(rng.randint(1, max_items)):
        kind = rng.choice(["value", "value", "range", "range", "start-step", "star-step", "range-step"])
        if rng.random() < 0.06:
            kind = "wrap"
        # Quartz drops a step that follows a name: keep that rare, the engine refuses it anyway.
        use_names = rng.random() < (0.5 if kind in ("value", "range", "wrap") else 0.05)
        a = rng.randint(lo, hi)
        if kind == "value":
            parts.append(show(a))
        elif kind == "range":
            parts.append(f"{show(a)}-{show(rng.randint(a, hi))}")
        elif kind == "wrap":
            b = rng.randint(lo, hi)
            parts.append(f"{show(max(a, b))}-{show(min(a, b))}")
        elif kind == "start-step":
            parts.append(f"{show(a)}/{rng.randint(1, hi - lo + 1)}")
        elif kind == "star-step":
            parts.append(f"*/{rng.randint(1, hi - lo + 1)}")
        else:
            parts.append(f"{show(a)}-{show(rng.randint(a, hi))}/{rng.randint(1, hi - lo + 1)}")
    return ",".join(parts)


def _time_field(rng: random.Random, lo: int, hi: int) -> str:
    # Mostly small sets so that fire chains span days and months, not seconds.
    roll = rng.random()
    if roll < 0.45:
        return str(rng.randint(lo, hi))
    return _field(rng, lo, hi)


def _dom(rng: random.Random) -> str:
    roll = rng.random()
    if roll < 0.5:
        return _field(rng, 1, 31)
    if roll < 0.6:
        return "L"
    if roll < 0.7:
        return f"L-{rng.randint(1, 30)}"
    if roll < 0.82:
        return f"{rng.randint(1, 31)}W"
    if roll < 0.87:
        return "LW"
    return rng.choice(["L-0", "L-31", "0W", "32W", "LW,1", "L,5", "1,2W", "L-3W", "W", "L-", "15L", "1-5W"])


def _dow(rng: random.Random) -> str:
    roll = rng.random()

    def day() -> str:
        v = rng.randint(1, 7)
        return DOW[v - 1] if rng.random() < 0.4 else str(v)

    if roll < 0.45:
        return _field(rng, 1, 7, DOW)
    if roll < 0.52:
        return "L"
    if roll < 0.65:
        return f"{day()}L"
    if roll < 0.82:
        return f"{day()}#{rng.randint(1, 5)}"
    if roll < 0.88:
        return f"{day()}#{rng.randint(1, 5)},{day()}"
    return rng.choice(["0", "8", "1#0", "1#6", "L,2", "1-3L", "1-3#2", "#2", "L-2", "2#1#2", "MON#2,TUE#3"])


def _year(rng: random.Random) -> str | None:
    roll = rng.random()
    if roll < 0.6:
        return None
    if roll < 0.7:
        return "*"
    if roll < 0.8:
        a = rng.randint(1970, 2099)
        return f"{a}-{rng.randint(a, 2099)}"
    if roll < 0.88:
        return ",".join(str(rng.randint(1990, 2060)) for _ in range(rng.randint(1, 4)))
    if roll < 0.95:
        return f"{rng.choice(['*', str(rng.randint(1970, 2050))])}/{rng.randint(1, 40)}"
    return rng.choice(["1969", "2100", "2099-1970", "1970-2100", "2050-2030"])


def random_expression(rng: random.Random) -> str:
    seconds = "0" if rng.random() < 0.7 else _time_field(rng, 0, 59)
    minutes = _time_field(rng, 0, 59)
    hours = _time_field(rng, 0, 23)
    months = "*" if rng.random() < 0.5 else _field(rng, 1, 12, MONTHS, max_items=2)
    if rng.random() < 0.5:
        dom, dow = _dom(rng), "?"
    else:
        dom, dow = "?", _dow(rng)
    fields = [seconds, minutes, hours, dom, months, dow]
    year = _year(rng)
    if year is not None:
        fields.append(year)
    text = " ".join(fields)
    if rng.random() < 0.03:
        # Malformed on purpose: a field dropped, doubled, or both day fields "?" or restricted.
        mutation = rng.randint(0, 3)
        if mutation == 0:
            text = " ".join(fields[:5])
        elif mutation == 1:
            text = " ".join([*fields, "*", "*"])
        elif mutation == 2:
            text = " ".join([*fields[:3], "?", fields[4], "?"])
        else:
            text = " ".join([*fields[:3], "1", fields[4], "2"])
    return text


def _epoch(*args: int) -> int:
    return int(datetime(*args, tzinfo=UTC).timestamp())


def starts_for(rng: random.Random, expression: str, count: int) -> list[int]:
    """Start instants: random seconds, month ends, leap days, year boundaries; inside the year field's range."""
    fields = expression.split()
    lo_year, hi_year = 1970, 2100
    if len(fields) == 7:
        years = [int(x) for x in "".join(c if c.isdigit() else " " for c in fields[6]).split() if len(x) == 4]
        if years:
            lo_year, hi_year = max(1970, min(years) - 2), min(2100, max(years) + 2)
            if lo_year > hi_year:
                lo_year, hi_year = 1970, 2100
    out: list[int] = []
    for _ in range(count):
        roll = rng.random()
        near_lo, near_hi = max(lo_year, 1995), min(hi_year, 2045)
        if rng.random() < 0.7 and near_lo <= near_hi:
            year = rng.randint(near_lo, near_hi)
        else:
            year = rng.randint(lo_year, hi_year)
        month = rng.randint(1, 12)
        if roll < 0.55:
            day = rng.randint(1, calendar.monthrange(year, month)[1])
            t = _epoch(year, month, day, rng.randint(0, 23), rng.randint(0, 59), rng.randint(0, 59))
        elif roll < 0.75:
            last = calendar.monthrange(year, month)[1]
            t = _epoch(year, month, last, 23, 59, 59) + rng.choice([-86400, -1, 0, 1, 86400])
        elif roll < 0.85:
            leap = rng.choice([y for y in range(lo_year, hi_year + 1) if calendar.isleap(y)] or [year])
            t = _epoch(leap, 2, 28, 23, 59, 59) + rng.choice([0, 1, 86400, 86401])
        else:
            t = _epoch(year, 1, 1) + rng.choice([-1, 0, 1, 3600])
        out.append(max(0, min(t, _epoch(2100, 12, 31))))
    return out


def build_inputs(count: int, starts_per_expression: int) -> list[tuple[str, list[int]]]:
    rng = random.Random(SEED)
    seen: set[str] = set()
    expressions: list[str] = []
    for text in HAND_PICKED:
        if text not in seen:
            seen.add(text)
            expressions.append(text)
    while len(expressions) < count:
        text = random_expression(rng)
        if text not in seen:
            seen.add(text)
            expressions.append(text)
    hand = set(HAND_PICKED)
    return [(text, starts_for(rng, text, starts_per_expression * (4 if text in hand else 1))) for text in expressions]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--classpath", required=True, help="the Quartz 2.3.2 jar and slf4j-api, ':'-separated")
    parser.add_argument("--expressions", type=int, default=24_000)
    parser.add_argument("--starts", type=int, default=8, help="start instants per expression")
    parser.add_argument("--output", type=Path, default=OUTPUT)
    args = parser.parse_args()
    inputs = build_inputs(args.expressions, args.starts)
    with tempfile.TemporaryDirectory() as build:
        subprocess.run(["javac", "-d", build, "-cp", args.classpath, str(HERE / "QuartzOracle.java")], check=True)
        version = subprocess.run(
            ["java", "-cp", f"{build}:{args.classpath}", "-version"], capture_output=True, text=True, check=True
        ).stderr.splitlines()[0]
        stdin = "".join(f"{text}\t{','.join(map(str, starts))}\n" for text, starts in inputs)
        done = subprocess.run(
            ["java", "-cp", f"{build}:{args.classpath}", "QuartzOracle"],
            input=stdin,
            capture_output=True,
            text=True,
        )
        if done.returncode:
            raise SystemExit(f"the driver failed: {done.stderr[-2000:]}")
    lines = done.stdout.splitlines()
    if len(lines) != len(inputs):
        raise SystemExit(f"the driver answered {len(lines)} lines for {len(inputs)} expressions")
    stats = dict(item.split("=") for item in done.stderr.split()[-2:])
    records: list[str] = []
    accepted = starts_total = 0
    for (text, starts), line in zip(inputs, lines, strict=True):
        status, *rest = line.split("\t")
        if status == "ERR":
            records.append(json.dumps([text, rest[0] if rest else ""], separators=(",", ":")))
            continue
        accepted += 1
        if status in ("HANG", "THROW"):
            # Quartz accepted the expression but getTimeAfter never returns (or throws) on it.
            records.append(json.dumps([text, None, status], separators=(",", ":")))
            continue
        cases = []
        for start, answer in zip(starts, rest, strict=True):
            nxt_text, prv_text = answer.split(";")
            nxt = [int(x) for x in nxt_text.split(",") if x]
            # "X": Quartz's getTimeAfter is not monotone there, so it has no consistent previous fires.
            prv = None if prv_text == "X" else [int(x) for x in prv_text.split(",") if x]
            # Deltas (to the start, then between fires) keep the file small.
            cases.append([start, _deltas(start, nxt), None if prv is None else _deltas(start, prv)])
            starts_total += 1
        records.append(json.dumps([text, None, cases], separators=(",", ":")))
    header = {
        "engine": "Quartz 2.3.2 (org.quartz.CronExpression, UTC)",
        "java": version,
        "seed": SEED,
        "expressions": len(inputs),
        "accepted": accepted,
        "starts": starts_total,
        # Quartz stops at the current year + 100 (its MAX_YEAR): a missing fire past it says nothing.
        "quartz_max_year": datetime.now(UTC).year + 100,
        "next_calls": int(stats["calls"]),
        "next_nanos": int(stats["nanos"]),
        "format": "[expression, error or null, [[start, next deltas, previous deltas or null], ...] or HANG or THROW]",
    }
    with lzma.open(args.output, "wt", encoding="utf-8", preset=9 | lzma.PRESET_EXTREME) as fh:
        fh.write(json.dumps(header) + "\n")
        for record in records:
            fh.write(record + "\n")
    print(json.dumps(header, indent=1))
    return 0


def _deltas(start: int, fires: list[int]) -> list[int]:
    out, at = [], start
    for fire in fires:
        out.append(abs(fire - at))
        at = fire
    return out


if __name__ == "__main__":
    sys.exit(main())
