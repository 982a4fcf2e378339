"""Fuzz every entry point: CLI arguments, importer JSON, serialized payloads and conf windows.

Each input either works or gives the documented error: exit status 2 with one line on stderr for the CLI,
:class:`~hops_timetable.core.validation.ArgumentError` for payloads, a list of one-line errors for imported schedules,
:class:`~hops_timetable.core.conf_window.HopsWindowError` for conf windows; nothing else, and never a bug
(exit status 1). The number of examples and the one-second deadline per example come from the hypothesis profile
(``tests/conftest.py``: ``dev`` by default, ``HYPOTHESIS_PROFILE=ci`` for 5,000 examples per target).

The last test loads DAG files generated from hostile job names through Airflow and checks with a sentinel file
that loading them runs nothing but the DAG definitions.
"""

from __future__ import annotations

import ast
import contextlib
import io
import json
import os
import random
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest
from fuzzing import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from hops_timetable.cli import main
from hops_timetable.cli.importer import import_schedules, load_json, write_dag_files
from hops_timetable.core.conf_window import WINDOW_KEYS, HopsWindowError, parse_conf_window
from hops_timetable.core.export_schedule import KNOWN_KEYS
from hops_timetable.core.validation import ArgumentError
from hops_timetable.timetable import HopsworksTimetable

CRONS = [
    "0 0 * ? * * *",
    "* * * ? * *",
    "0 0 0 L * ?",
    "0 0 0 29 2 ? 2096",
    "@daily",
    "*/5 * * * *",
    "0 0 0 1 1 ? 2020",
]
HOSTILE = ['x"""; open("PWNED","w").write("1"); """', "a\nb", "\\", "'", "{0}", "\x00", "$(id)", "`id`", " " * 3]

json_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**30), max_value=10**30),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=30),
    st.sampled_from(HOSTILE),
)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=8,
)

times = st.one_of(
    st.sampled_from(
        [
            "now",
            "2026-01-01",
            "2026-01-01T10:00:00Z",
            "2026-01-01T10:00:00+14:00",
            "0001-01-01",
            "0001-01-02",
            "9999-12-30",
            "9999-12-31T23:59:59-01:00",
            "1969-12-31T23:59:59Z",
            "2099-12-31T23:59:59Z",
            "1000-01-01",
        ]
    ),
    st.datetimes().map(lambda d: d.isoformat()),
    st.text(max_size=20),
)
numbers = st.one_of(
    st.integers(min_value=-5, max_value=12_000).map(str),
    st.sampled_from(["99999999999999999999", "-1", "0", "1e3", "3.3e10", "NaN", "10000", "10001", "3153600000"]),
    st.text(max_size=5),
)


@st.composite
def cli_arguments(draw: st.DrawFn) -> list[str]:
    """A command of the pure CLI with a random mix of valid, extreme and nonsensical arguments."""
    command = draw(st.sampled_from(["next", "explain", "preview", "simulate"]))
    cron = draw(st.sampled_from(CRONS) | st.text(max_size=25))
    argv = [command]
    if command in ("next", "explain"):
        argv.append(cron)
    elif draw(st.booleans()):
        argv += ["--cron", cron]
    options: dict[str, Any] = {
        "next": {"--after": times, "-n": numbers},
        "explain": {"--now": times},
        "preview": {
            "--start-time": times,
            "--end-time": times,
            "--skip-to-date": times,
            "--now": times,
            "--start-time-offset-seconds": numbers,
            "--max-catchup-runs": numbers,
            "-n": numbers,
        },
        "simulate": {
            "--start-time": times,
            "--end-time": times,
            "--until": times,
            "--now": times,
            "--start-time-offset-seconds": numbers,
            "--max-catchup-runs": numbers,
            "--outage": st.tuples(times, times).map(lambda t: f"{t[0]}..{t[1]}"),
            "--pause": st.tuples(times, times).map(lambda t: f"{t[0]}..{t[1]}"),
            "--limit": numbers,
            "--expand": numbers,
        },
    }[command]
    for flag in draw(st.lists(st.sampled_from(sorted(options)), max_size=6)):
        argv += [flag, draw(options[flag])]
    if command in ("preview", "simulate") and draw(st.booleans()):
        argv.append(draw(st.sampled_from(["--catchup", "--no-catchup"])))
    if draw(st.booleans()):
        argv.append("--json")
    return argv


def _run(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(argv)
    return status, out.getvalue(), err.getvalue()


@settings(max_examples=examples(1000), deadline=None)
@given(cli_arguments())
def test_cli_arguments_work_or_exit_2_with_one_line(argv: list[str]) -> None:
    status, out, err = _run(argv)
    assert status in (0, 2), (argv, err)
    if status == 2:
        assert err.count("\n") == 1 and err.startswith("hops-timetable"), (argv, err)
        if "--json" in argv:
            assert json.loads(out.splitlines()[-1])["status"] == 2
    else:
        assert err == "" and out
        if "--json" in argv:
            json.loads(out)


@pytest.fixture(scope="module")
def airflow_timetables() -> None:
    """Airflow imported once, outside the per-example deadline: importing it takes seconds, comparing does not."""
    import airflow.timetables.interval
    import airflow.timetables.trigger  # noqa: F401


@settings(max_examples=examples(1000), deadline=None)
@given(
    st.sampled_from(["@daily", "@hourly", "*/5 * * * *", "0 0 29 2 *", "0 9 * * 1-5", "0 0 * ? * * *"])
    | st.text(max_size=12),
    st.lists(
        st.tuples(
            st.sampled_from(["--start-time", "--end-time", "--now", "--start-time-offset-seconds", "-n"]),
            times | numbers,
        ),
        max_size=4,
    ),
    st.booleans(),
)
def test_compare_arguments_work_or_exit_2_with_one_line(
    cron: str, options: list[tuple[str, str]], catchup: bool
) -> None:
    argv = ["compare", "--cron", cron, "-n", "20", *(x for pair in options for x in pair)]
    argv += ["--catchup"] if catchup else []
    status, _, err = _run(argv)
    assert status in (0, 2), (argv, err)
    assert (status == 0) == (err == "") and (status == 0 or err.count("\n") == 1), (argv, err)


# -- the importer -------------------------------------------------------------------------------------------

KEYS = [*KNOWN_KEYS, "id"]
field_values = {
    "cronExpression": st.sampled_from(CRONS) | st.text(max_size=25) | json_scalars,
    "startDateTime": st.integers(-(10**15), 10**15) | json_scalars,
    "endDateTime": st.integers(-(10**15), 10**15) | json_scalars,
    "skipToDate": st.integers(-(10**15), 10**15) | json_scalars,
    "jobName": st.text(max_size=40) | st.sampled_from(HOSTILE) | json_scalars,
}


@st.composite
def schedules(draw: st.DrawFn) -> object:
    keys = draw(st.lists(st.sampled_from(KEYS) | st.text(max_size=6), max_size=8, unique=True))
    one = {k: draw(field_values.get(k, json_values)) for k in keys}
    if draw(st.booleans()):
        one["cronExpression"] = draw(st.sampled_from(CRONS))
    return one


documents = st.one_of(
    schedules(),
    st.lists(schedules(), max_size=4),
    st.lists(schedules(), max_size=4).map(lambda items: {"items": items}),
    st.tuples(st.text(max_size=10), schedules()).map(lambda t: {"name": t[0], "jobSchedule": t[1]}),
    json_values,
)


def _dumps(document: object) -> str:
    # NaN and Infinity are what a careless exporter writes; Python's JSON reads them, so the importer must cope.
    return json.dumps(document, allow_nan=True)


@settings(max_examples=examples(1000), deadline=None)
@given(documents)
def test_imported_json_gives_verified_dag_files_or_one_line_errors(document: object) -> None:
    try:
        results = import_schedules(load_json(_dumps(document), "<input>"))
    except ArgumentError as exc:
        assert "\n" not in str(exc)
        return
    ids = [r.dag_id.lower() for r in results]
    assert len(set(ids)) == len(ids)
    for result in results:
        assert all("\n" not in e for e in result.errors), result.errors
        source = result.dag_file()  # verified against the input by the importer itself
        assert (source is None) == bool(result.errors)
        if source is not None:
            ast.parse(source)


# 300: the documents are the library target's above (1,000); this one checks what the CLI adds around them.
@settings(max_examples=examples(300), deadline=None)
@given(documents)
def test_cli_import_exits_0_or_2_and_writes_only_verified_files(document: object) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "in.json"
        path.write_text(_dumps(document))
        out = Path(folder) / "out"
        status, stdout, err = _run(["import", str(path), "--output", str(out), "--json"])
        assert status in (0, 2), err
        assert "Traceback" not in err and all(line.startswith("hops-timetable: error:") for line in err.splitlines())
        data = json.loads(stdout.splitlines()[-1] if stdout.startswith('{"error"') else stdout)
        for written in data.get("written", []):
            ast.parse(Path(written).read_text())


# -- serialized payloads ------------------------------------------------------------------------------------

GOOD = HopsworksTimetable("0 0 * ? * * *").serialize()
payload_values = {
    "version": st.sampled_from([1, 0, -1, 2, True, None, "1", 1.0]) | json_scalars,
    "cron_expression": st.sampled_from(CRONS) | json_scalars,
    "start_time_offset_seconds": st.integers(-5, 10**12) | json_scalars,
    "end_time_offset_seconds": st.integers(-5, 10**12) | json_scalars,
    "max_catchup_runs": st.integers(-5, 10**6) | json_scalars,
    "skip_to_date": times | json_scalars,
}


@st.composite
def payloads(draw: st.DrawFn) -> object:
    if draw(st.integers(0, 9)) == 0:
        return draw(json_values)
    payload: dict[str, Any] = dict(GOOD)
    for key in draw(st.lists(st.sampled_from(sorted(payload_values)), max_size=4, unique=True)):
        if draw(st.booleans()):
            payload.pop(key, None)
        else:
            payload[key] = draw(payload_values[key])
    if draw(st.integers(0, 9)) == 0:
        payload[draw(st.text(max_size=6))] = draw(json_scalars)
    return payload


@given(payloads())
def test_serialized_payloads_load_or_name_the_key(payload: Any) -> None:
    try:
        timetable = HopsworksTimetable.deserialize(payload)
    except ArgumentError as exc:
        message = str(exc)
        assert message.startswith("HopsworksTimetable payload (this hops-timetable reads format version")
        assert "\n" not in message
        return
    again = timetable.serialize()
    assert HopsworksTimetable.deserialize(again) == timetable
    assert again["cron_expression"] == payload["cron_expression"]


# -- conf windows -------------------------------------------------------------------------------------------


@given(st.dictionaries(st.sampled_from([*WINDOW_KEYS, "cmd"]) | st.text(max_size=5), times | json_values, max_size=5))
def test_conf_windows_are_canonical_or_report_every_problem(raw: dict[str, Any]) -> None:
    try:
        window = parse_conf_window({"hops_window": raw})
    except HopsWindowError as exc:
        keys = {k for k, _, _ in exc.problems}
        assert {f"[{k!r}]" for k in raw if k not in WINDOW_KEYS} <= keys
        assert "\n" not in str(exc)
        return
    assert window is not None and window.start < window.end
    assert set(raw) <= set(WINDOW_KEYS)


# -- generated files loaded by Airflow: a sentinel ----------------------------------------------------------

_LOAD = """
import json, sys
from hops_timetable._compat import dag_bag_class
bag = dag_bag_class()(dag_folder=sys.argv[1])
print(json.dumps({"errors": {k: v[-300:] for k, v in bag.import_errors.items()},
                  "dags": {d: dag.timetable.cron_expression for d, dag in bag.dags.items()}}))
"""


def _hostile_names(sentinel: Path, count: int) -> list[str]:
    touch = f"open({str(sentinel)!r}, 'w').write('ran')"
    fixed = [
        f'x"""; {touch}; """',
        f"x'''; {touch}; '''",
        f"x\n{touch}\n",
        f"x\\\n{touch}",
        f"x\r{touch}",
        f"x\x0c{touch}",
        f"# -*- coding: utf-7 -*-\n+AAo-{touch}",
        f"{{{touch}}}",
        f"x'), {touch}, ('",
        f'x"), {touch}, ("',
    ]
    alphabet = "\"'\\\n\r\t\x00\x0b\x0c{}()[];#$`~ \u2028\u2029\u00e9\U0001f600aZ9_.-="
    rng = random.Random(13)
    drawn = ["".join(rng.choice(alphabet) for _ in range(rng.randint(1, 40))) + touch for _ in range(count)]
    return fixed + drawn


def test_generated_dag_files_run_nothing_but_the_dag_definition_when_airflow_loads_them(tmp_path: Path) -> None:
    sentinel = tmp_path / "SENTINEL"
    names = _hostile_names(sentinel, 60)
    results = import_schedules(
        [{"jobName": n, "cronExpression": "0 0 * ? * * *", "endTimeOffsetSeconds": n, n[:10]: n} for n in names]
    )
    assert not [r.errors for r in results if r.errors]
    folder = tmp_path / "dags"
    written = write_dag_files(results, str(folder))
    assert len(written) == len(names)
    env = {**os.environ, "AIRFLOW_HOME": str(tmp_path / "airflow_home")}
    done = subprocess.run(
        [sys.executable, "-c", _LOAD, str(folder)], capture_output=True, text=True, timeout=600, env=env
    )
    assert done.returncode == 0, done.stderr[-2000:]
    loaded = json.loads(done.stdout.splitlines()[-1])
    assert loaded["errors"] == {}
    assert loaded["dags"] == {r.dag_id: "0 0 * ? * * *" for r in results}
    assert not sentinel.exists(), "loading a generated DAG file ran code taken from the input"
    for name, result in zip(names, results, strict=True):
        assert repr(name) in result.docstring()
    # The sentinel can fail: the first name pasted into a docstring, as a naive generator would, runs its code.
    naive = tmp_path / "naive"
    naive.mkdir()
    (naive / "pasted.py").write_text(f'"""{names[0]}"""\nfrom airflow.sdk import dag\n')
    subprocess.run([sys.executable, "-c", _LOAD, str(naive)], capture_output=True, text=True, timeout=600, env=env)
    assert sentinel.read_text() == "ran"
