"""The parity core: reading exports (untrusted), the meaning of -start_time, and properties over synthesized
exports. Fires come from croniter (an independent engine) and windows from the rules written out by hand."""

from __future__ import annotations

import itertools
import json
import random
from datetime import datetime, timedelta

import pytest
from croniter import croniter
from fuzzing import examples
from hypothesis import example, given, settings
from hypothesis import strategies as st
from support import UTC

from hops_timetable.core.parity.exports import MAX_EXECUTIONS, load_executions, load_schedule_versions
from hops_timetable.core.parity.ledger import load_ledger
from hops_timetable.core.parity.sides import parity
from hops_timetable.core.simulate import Event
from hops_timetable.core.validation import ArgumentError

DAY0 = datetime(2026, 5, 1, tzinfo=UTC)
END = DAY0 + timedelta(days=2)


def _ms(value: datetime) -> int:
    return int((value - datetime(1970, 1, 1, tzinfo=UTC)) / timedelta(milliseconds=1))


def _instant(value: datetime) -> str:
    text = value.strftime("%Y-%m-%dT%H:%M:%S")
    return text + (f".{value.microsecond // 1000:03d}Z" if value.microsecond else "Z")


def _item(ident: int, submitted: datetime, arg: datetime | None, **extra: object) -> dict[str, object]:
    item: dict[str, object] = {
        "id": ident,
        "submissionTime": submitted.strftime("%Y-%m-%dT%H:%M:%S.") + f"{submitted.microsecond // 1000:03d}Z",
        "state": "FINISHED",
        "finalStatus": "SUCCEEDED",
        "args": "" if arg is None else f"-start_time {_instant(arg)}",
    }
    item.update(extra)
    return item


# -- reading ----------------------------------------------------------------------------------------------------


def test_an_empty_listing_has_no_items_key() -> None:
    export = load_executions({"href": "x", "count": 0}, "e")
    assert export.executions == [] and not export.incomplete


def test_pages_merge_by_id_and_the_rerun_is_the_newest_copy() -> None:
    t = datetime(2026, 5, 1, 10, 0, 20, 5000, tzinfo=UTC)
    failed = _item(5, t, t, state="FAILED", finalStatus="FAILED")
    rerun = _item(5, t, t, rerunCount=1)
    for pages in (
        [{"items": [failed], "count": 1}, {"items": [rerun], "count": 1}],
        [{"items": [rerun], "count": 1}, {"items": [failed], "count": 1}],
    ):
        export = load_executions(pages, "e")
        assert [(e.id, e.outcome, e.rerun_count) for e in export.executions] == [(5, "succeeded", 1)]
        assert export.merged_copies == 1


def test_missing_pages_are_noticed_by_count() -> None:
    t = DAY0
    export = load_executions({"items": [_item(1, t, t)], "count": 3}, "e")
    assert export.incomplete


def test_a_spark_job_finished_with_a_failed_application_failed() -> None:
    t = DAY0
    export = load_executions({"items": [_item(1, t, t, finalStatus="FAILED"), _item(2, t, t, state="RUNNING")]}, "e")
    assert [e.outcome for e in export.executions] == ["failed", "running"]


@pytest.mark.parametrize(
    ("item", "words"),
    [
        ({"id": "7", "submissionTime": "2026-05-01T10:00:00.000Z", "state": "FINISHED"}, "id='7'"),
        ({"id": 7, "submissionTime": "2026-05-01 10:00", "state": "FINISHED"}, "submissionTime='2026-05-01 10:00'"),
        (
            {"id": 7, "submissionTime": "2026-05-01T10:00:00.000Z", "state": "FINISHED", "args": "-start_time x"},
            "-start_time='x'",
        ),
        ({"id": 7, "submissionTime": "2026-05-01T10:00:00.000Z", "state": 3}, "state=3"),
        (
            {"id": 7, "submissionTime": "2026-05-01T10:00:00.000Z", "state": "FINISHED", "rerunCount": -1},
            "rerunCount=-1",
        ),
    ],
)
def test_a_bad_execution_is_refused_naming_the_field_and_value(item: dict[str, object], words: str) -> None:
    with pytest.raises(ArgumentError, match="items\\[0\\]") as caught:
        load_executions({"items": [item]}, "e.json")
    assert words in str(caught.value) and "e.json" in str(caught.value)


def test_too_many_executions_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("hops_timetable.core.parity.exports.MAX_EXECUTIONS", 2)
    items = [_item(i, DAY0, DAY0) for i in range(3)]
    with pytest.raises(ArgumentError, match="more than 2 executions"):
        load_executions({"items": items}, "e")
    assert MAX_EXECUTIONS >= 100_000


def test_a_schedule_reads_as_the_rest_api_writes_it() -> None:
    start = datetime(2026, 5, 1, 10, 17, 16, 123000, tzinfo=UTC)
    job = {
        "name": "j",
        "jobSchedule": {
            "cronExpression": "0 0 * ? * * *",
            "startDateTime": _ms(start),
            "catchup": True,
            "maxCatchupRuns": 2,
            "startTimeOffsetSeconds": 3600,
        },
    }
    (version,) = load_schedule_versions(job, "s")
    assert version.settings.start == start and version.settings.catchup and version.settings.offset == 3600
    assert version.settings.max_catchup_runs == 2


def test_a_negative_offset_needs_the_offset_model() -> None:
    schedule = {"cronExpression": "0 0 * ? * * *", "startTimeOffsetSeconds": -3600}
    with pytest.raises(ArgumentError) as caught:
        load_schedule_versions(schedule, "s")
    assert "relative to the interval start" in str(caught.value) and "relative to the fire" in str(caught.value)
    assert load_schedule_versions(schedule, "s", "interval-start")[0].settings.offset == 3600
    assert load_schedule_versions(schedule, "s", "fire")[0].settings.offset == 0


def test_versions_need_distinct_effective_times() -> None:
    one = {"cronExpression": "0 0 * ? * * *"}
    with pytest.raises(ArgumentError, match="same time"):
        load_schedule_versions({"versions": [one, one]}, "s")


def test_a_ledger_reads_windows_and_refuses_a_bad_header() -> None:
    rows = load_ledger("HOPS_START_TIME,HOPS_END_TIME,STATE\n2026-05-01T10:00:00Z,2026-05-01T11:00:00Z,FAILED\n", "l")
    assert [(r.start.hour, r.end.hour, r.outcome) for r in rows] == [(10, 11, "failed")]
    with pytest.raises(ArgumentError, match="lacks HOPS_END_TIME"):
        load_ledger("HOPS_START_TIME\n2026-05-01T10:00:00Z\n", "l")


# -- properties over synthesized exports ------------------------------------------------------------------------

CRONS = ["0 * * * *", "*/20 * * * *", "0 */3 * * *", "30 9,17 * * *", "15 6 * * 1-5"]


def _fires(cron: str, after: datetime, before: datetime) -> list[datetime]:
    it = croniter(cron, after)
    out = []
    while (fire := it.get_next(datetime)) < before:
        out.append(fire)
    return out


@st.composite
def histories(draw: st.DrawFn) -> dict[str, object]:
    cron = draw(st.sampled_from(CRONS))
    start = DAY0 + timedelta(milliseconds=draw(st.integers(0, 86_400_000)))
    catchup = draw(st.booleans())
    bound = draw(st.sampled_from([None, 1, 2, 3]))
    outage_from = DAY0 + timedelta(minutes=draw(st.integers(0, 2 * 24 * 60)))
    outage_to = outage_from + timedelta(minutes=draw(st.integers(1, 12 * 60)), seconds=7)
    return {
        "cron": cron,
        "start": start,
        "catchup": catchup,
        "bound": bound,
        "outage": (outage_from, outage_to) if draw(st.booleans()) else None,
        "meaning": draw(st.sampled_from(["next", "fire", "logical"])),
        "seed": draw(st.integers(0, 2**32)),
    }


def _synthesize(h: dict[str, object]) -> tuple[dict[str, object], list[dict[str, object]], dict[datetime, datetime]]:
    """The schedule, the executions and each run fire's expected interval start, by the rules written out."""
    cron, start, meaning = str(h["cron"]), h["start"], h["meaning"]
    assert isinstance(start, datetime)
    # Fires past the compared range too: a catch-up at its end picks the newest fire, which may lie after it.
    fires = _fires(cron, start, END + timedelta(days=1))
    launched: list[tuple[datetime, datetime]] = []  # (fire, submitted)
    outage = h["outage"]
    assert outage is None or isinstance(outage, tuple)
    missed = [f for f in fires if outage and outage[0] <= f < outage[1]]
    keep = 1 if not h["catchup"] else h["bound"]
    assert keep is None or isinstance(keep, int)
    kept = missed if keep is None else missed[-keep:]
    rnd = random.Random(str(h["seed"]))
    for fire in fires:
        if fire in missed:
            if fire in kept:
                assert outage is not None
                launched.append((fire, outage[1] + timedelta(seconds=kept.index(fire))))
        else:
            launched.append((fire, fire + timedelta(seconds=rnd.randint(1, 59), milliseconds=rnd.randint(0, 999))))
    expected: dict[datetime, datetime] = {}
    items = []
    for i, (fire, submitted) in enumerate(launched):
        previous = croniter(cron, fire).get_prev(datetime)
        interval_start = max(previous, start)
        following = croniter(cron, fire).get_next(datetime)
        arg = {"next": following, "fire": fire, "logical": interval_start}[str(meaning)]
        items.append(_item(100 + i, submitted, arg))
        if fire < END:
            expected[fire] = interval_start
    schedule = {"cronExpression": cron, "startDateTime": _ms(start), "catchup": h["catchup"]}
    if h["bound"] is not None:
        schedule["maxCatchupRuns"] = h["bound"]
    return schedule, items, expected


def _declared(h: dict[str, object]) -> list[Event]:
    """The outage, declared when the data cannot show it: its catch-up launch looks on time (within the grace)."""
    outage = h["outage"]
    if not isinstance(outage, tuple):
        return []
    fire = croniter(str(h["cron"]), outage[1]).get_prev(datetime)
    return [Event("outage", outage[0], outage[1])] if outage[1] - fire <= timedelta(minutes=2) else []


def _pages(items: list[dict[str, object]], seed: int) -> list[dict[str, object]]:
    rnd = random.Random(seed)
    shuffled = items + rnd.sample(items, k=min(3, len(items)))  # a few copies on two pages
    rnd.shuffle(shuffled)
    cuts = sorted(rnd.sample(range(len(shuffled) + 1), k=min(3, len(shuffled) + 1)))
    bounds = [0, *cuts, len(shuffled)]
    return [{"items": shuffled[a:b], "count": len(items)} for a, b in itertools.pairwise(bounds) if b > a]


PAST_THE_END = {  # an outage running past the range: its catch-up, after the range, runs fires inside it
    "cron": "0 * * * *",
    "start": DAY0,
    "catchup": True,
    "bound": None,
    "outage": (datetime(2026, 5, 2, 13, 2, tzinfo=UTC), datetime(2026, 5, 3, 1, 2, 7, tzinfo=UTC)),
    "meaning": "next",
    "seed": 0,
}

OUTAGE_AT_THE_START = {  # the first two fires dropped by the outage, the third launched late: no clock skew shown
    "cron": "0 */3 * * *",
    "start": DAY0,
    "catchup": False,
    "bound": None,
    "outage": (DAY0, datetime(2026, 5, 1, 9, 2, 7, tzinfo=UTC)),
    "meaning": "logical",
    "seed": 0,
}


@settings(max_examples=examples(100))
@given(histories())
@example(PAST_THE_END)
@example(OUTAGE_AT_THE_START)  # read as logical, no longer refused as also next with the clock 6 h ahead
def test_windows_are_recovered_exactly_and_the_meaning_detected_or_refused(h: dict[str, object]) -> None:
    schedule, items, expected = _synthesize(h)
    versions = load_schedule_versions(schedule, "s")
    export = load_executions(_pages(items, int(h["seed"])), "e")  # type: ignore[call-overload]
    outcome = parity(versions, DAY0, END, executions=export.executions, outages=_declared(h))
    reading = outcome.reading
    assert reading is not None
    if reading.meaning is None:
        # Refused: too few votes, no clear majority, or a skewed clock that an unrun first fire explains as well.
        assert sum(reading.votes.values()) < 2 or len([v for v in reading.votes.values() if v]) > 1 or reading.ambiguous
        assert outcome.report is None
        return
    assert reading.meaning == h["meaning"]
    report = outcome.report
    assert report is not None
    assert report.exit_status == 0, report.verdict()
    windows = {row.fire: row.hopsworks for row in report.rows if row.hopsworks_runs}
    assert set(windows) == set(expected)
    for fire, interval_start in expected.items():
        window = windows[fire]
        assert window is not None and (window.start, window.end) == (interval_start, fire)


@settings(max_examples=examples(100))
@given(histories())
def test_page_order_and_splits_change_nothing(h: dict[str, object]) -> None:
    schedule, items, _ = _synthesize(h)
    versions = load_schedule_versions(schedule, "s")
    reports = []
    for seed in (1, 2):
        export = load_executions(_pages(items, seed), "e")
        outcome = parity(versions, DAY0, END, executions=export.executions, outages=_declared(h))
        reports.append((outcome.reading, None if outcome.report is None else outcome.report.rows))
    assert reports[0] == reports[1]


@settings(max_examples=examples(100))
@given(histories(), st.sampled_from([3600, 900]))
def test_an_offset_off_on_the_airflow_side_shifts_every_window(h: dict[str, object], extra: int) -> None:
    schedule, items, expected = _synthesize(h)
    versions = load_schedule_versions(schedule, "s")
    shifted = load_schedule_versions(dict(schedule, startTimeOffsetSeconds=extra), "s")
    export = load_executions({"items": items}, "e")
    outcome = parity(
        versions,
        DAY0,
        END,
        executions=export.executions,
        airflow_versions=shifted,
        meaning=str(h["meaning"]),
        outages=_declared(h),
    )
    report = outcome.report
    assert report is not None
    ran = [row for row in report.rows if row.hopsworks_runs]
    assert len(ran) == len(expected)
    assert all(row.status == "differs" and row.how == f"shifted by {-extra} s" for row in ran)
    assert all(row.hint == "offset model?" for row in ran)
    assert report.exit_status == (3 if ran else 4)


@settings(max_examples=examples(100))
@given(histories())
@example(
    {
        "cron": "0 * * * *",
        "start": datetime(2026, 5, 1, 0, 0, tzinfo=UTC),
        "catchup": False,
        "bound": None,
        "outage": (
            datetime(2026, 5, 1, 0, 0, tzinfo=UTC),
            datetime(2026, 5, 1, 1, 2, 7, tzinfo=UTC),
        ),
        "meaning": "next",
        "seed": 0,
    },
)  # a stated meaning once absorbed by a made-up clock skew
@example(OUTAGE_AT_THE_START)  # once parity: the stated meaning taken with a made-up clock skew
def test_the_wrong_meaning_stated_never_gives_parity(h: dict[str, object]) -> None:
    schedule, items, expected = _synthesize(h)
    if not expected:
        return
    versions = load_schedule_versions(schedule, "s")
    export = load_executions({"items": items}, "e")
    wrong = {"next": "fire", "fire": "logical", "logical": "next"}[str(h["meaning"])]
    outcome = parity(versions, DAY0, END, executions=export.executions, meaning=wrong, outages=_declared(h))
    # Differences, or executions no fire can be found for (an argument that is no value of the stated meaning).
    assert outcome.report is not None and outcome.report.exit_status in (3, 4)
    assert outcome.report.exit_status == 3 or outcome.report.unplaced


def test_json_of_the_fixture_helpers_round_trips() -> None:
    item = _item(1, DAY0, DAY0)
    assert json.loads(json.dumps(item)) == item


def test_the_work_grows_linearly_with_the_executions(monkeypatch: pytest.MonkeyPatch) -> None:
    """Counted, not timed: the cron steps for 2,000 executions are at most twice those for 1,000 (plus a little)."""
    from hops_timetable.core.cron import QuartzCron

    steps = 0
    for name in ("next_after", "prev_before", "matches"):
        real = getattr(QuartzCron, name)

        def counting(self: QuartzCron, dt: datetime, _real: object = real) -> object:
            nonlocal steps
            steps += 1
            return _real(self, dt)  # type: ignore[operator]

        monkeypatch.setattr(QuartzCron, name, counting)

    def run(n: int) -> int:
        nonlocal steps
        steps = 0
        fires = [DAY0 + timedelta(hours=i + 1) for i in range(n)]
        items = [_item(i, f + timedelta(seconds=20), f) for i, f in enumerate(fires)]
        schedule = {"cronExpression": "0 0 * ? * * *", "startDateTime": _ms(DAY0)}
        export = load_executions({"items": items, "count": n}, "e")
        outcome = parity(
            load_schedule_versions(schedule, "s"), DAY0, fires[-1] + timedelta(hours=1), executions=export.executions
        )
        assert outcome.report is not None and outcome.report.exit_status == 0
        return steps

    small, large = run(1_000), run(2_000)
    assert small >= 1_000 and large <= 2 * small + 50, (small, large)


# -- the listing read piece by piece ------------------------------------------------------------------------------


def _in_chunks(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


@pytest.mark.parametrize("size", [1, 2, 3, 7, 64, 10_000])
def test_a_listing_read_in_chunks_of_any_size_is_the_parsed_one(size: int) -> None:
    from hops_timetable.core.parity.exports import read_executions

    t = datetime(2026, 5, 1, 10, 0, 20, 5000, tzinfo=UTC)
    pages = [
        {"href": "h", "items": [_item(1, t, t), _item(2, t, t, state="RUNNING")], "count": 4},
        {"count": 4, "items": [_item(1, t, t, rerunCount=1, progress=1.5e-3)]},
        {"href": "h", "count": 4},  # a page without items: it holds none
    ]
    for data in (pages, pages[0]):
        text = json.dumps(data, indent=1)
        streamed = read_executions(_in_chunks(text, size), "e.json")
        assert streamed == load_executions(data, "e.json")
    assert read_executions(_in_chunks(json.dumps(pages), size), "e").incomplete  # 2 of the 4 counted


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ('{"items": [{"id": 1,', "is not a JSON executions listing"),
        ('{"items": [] "count": 0}', "expected ',' or '}' in a page"),
        ('[{"items": []}, 3]', "page 1: expected an object"),
        ('{"items": {"id": 1}}', "items={'id': 1} is not a list"),
        ('{"items": []} x', "text after the listing"),
    ],
)
def test_a_broken_listing_read_in_chunks_is_refused_naming_the_file(text: str, words: str) -> None:
    from hops_timetable.core.parity.exports import read_executions

    with pytest.raises(ArgumentError) as caught:
        read_executions(_in_chunks(text, 5), "e.json")
    assert words in str(caught.value) and "e.json" in str(caught.value)


def test_memory_per_execution_stays_small() -> None:
    """The executions, the replayed plan, the runs and the rows are not all held at once: each execution more adds
    a fixed small number of bytes to the peak (about 130; holding them as objects took about 1,450)."""
    import tracemalloc

    from hops_timetable.core.parity.exports import read_executions

    versions = load_schedule_versions({"cronExpression": "0 0 * ? * * *", "startDateTime": _ms(DAY0)}, "s")

    def peak(n: int) -> int:
        fires = [DAY0 + timedelta(hours=h + 1) for h in range(n)]
        text = json.dumps({"items": [_item(i, f + timedelta(seconds=21), f) for i, f in enumerate(fires)], "count": n})
        tracemalloc.start()
        try:
            executions = read_executions([text], "e.json").executions
            outcome = parity(versions, fires[0], fires[-1] + timedelta(hours=1), executions=executions)
            assert outcome.report is not None and outcome.report.summary["match"] == n
            assert sum(1 for _ in outcome.report.rows) == n
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    assert (peak(1_000) - peak(250)) / 750 < 400
