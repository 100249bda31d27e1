"""Tests for tools.timeparse: instants, recurrences, durations, splitting, corpus guard."""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from tools.schedule import Cron, Every, RRule, Schedule
from tools.timeparse import (
    When,
    explain_invalid_date,
    parse_duration,
    parse_instant,
    parse_recurrence,
    split_when,
)

BERLIN = "Europe/Berlin"
NY = "America/New_York"
SYD = "Australia/Sydney"
DATA = Path(__file__).resolve().parent.parent / "data" / "timeparse"


def at(tz: str, *args: int) -> datetime:
    return datetime(*args, tzinfo=ZoneInfo(tz))  # type: ignore[misc]


NOW = at(BERLIN, 2026, 5, 4, 10, 0)  # a Monday


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("in 2 hours", (2026, 5, 4, 12, 0)),
        ("in half an hour", (2026, 5, 4, 10, 30)),
        ("in 1h30m", (2026, 5, 4, 11, 30)),
        ("2d", None),
        ("in 2d", (2026, 5, 6, 10, 0)),
        ("a couple of hours from now", (2026, 5, 4, 12, 0)),
        ("3 fridays from now", (2026, 5, 22, 9, 0)),
        ("in 15 minutes", (2026, 5, 4, 10, 15)),
        ("in 15'", (2026, 5, 4, 10, 15)),
        ("on December 25th at 9am", (2026, 12, 25, 9, 0)),
        ("2026-12-25 09:00", (2026, 12, 25, 9, 0)),
        ("12/25", (2026, 12, 25, 9, 0)),
        ("the 1st of next month", (2026, 6, 1, 9, 0)),
        ("first tuesday of october", (2026, 10, 6, 9, 0)),
        ("at noon", (2026, 5, 4, 12, 0)),
        ("midnight", (2026, 5, 5, 0, 0)),
        ("tonight", (2026, 5, 4, 18, 0)),
        ("tomorrow morning", (2026, 5, 5, 9, 0)),
        ("this evening", (2026, 5, 4, 18, 0)),
        ("next Monday 3pm", (2026, 5, 11, 15, 0)),
        ("tuesday at 9", (2026, 5, 5, 9, 0)),
        ("at 3pm", (2026, 5, 4, 15, 0)),
        ("9am", (2026, 5, 5, 9, 0)),
        ("at 9", (2026, 5, 4, 21, 0)),
        ("tomorrow at 9", (2026, 5, 5, 9, 0)),
        ("friday at 5:30pm", (2026, 5, 8, 17, 30)),
        ("a quarter past 3pm", (2026, 5, 4, 15, 15)),
        ("half past 4 in the afternoon", (2026, 5, 4, 16, 30)),
        ("three twenty pm", (2026, 5, 4, 15, 20)),
        ("next week", (2026, 5, 11, 9, 0)),
        ("next month", (2026, 6, 1, 9, 0)),
        ("the day after tomorrow at 8", (2026, 5, 6, 8, 0)),
        ("from 3 to 5pm", (2026, 5, 4, 15, 0)),
        ("between 9:30 and 11:00 on thursday", (2026, 5, 7, 9, 30)),
        ("July 13 through 15", (2026, 7, 13, 9, 0)),
        ("march 3 2027", (2027, 3, 3, 9, 0)),
        ("last sunday of march 2027", (2027, 3, 28, 9, 0)),
    ],
)
def test_instants(text: str, expected: tuple[int, ...] | None) -> None:
    got = parse_instant(text, now=NOW, tz=BERLIN)
    if expected is None:
        assert got is None
    else:
        assert got == at(BERLIN, *expected), text
        assert got.tzinfo is not None


def test_bare_hour_picks_next_occurrence() -> None:
    now = at(BERLIN, 2026, 5, 4, 4, 30)
    assert parse_instant("at 3", now=now, tz=BERLIN) == at(BERLIN, 2026, 5, 4, 15, 0)
    late = at(BERLIN, 2026, 5, 4, 23, 0)
    assert parse_instant("9am", now=late, tz=BERLIN) == at(BERLIN, 2026, 5, 5, 9, 0)


@pytest.mark.parametrize(
    ("text", "utc"),
    [
        ("at 3pm PST", (2026, 5, 4, 23, 0)),
        ("15:00 Europe/Berlin", (2026, 5, 4, 13, 0)),
        ("9am UTC+2", (2026, 5, 5, 7, 0)),
        ("Thursday 8:00 GMT", (2026, 5, 7, 8, 0)),
        ("3pm CET", (2026, 5, 4, 14, 0)),
        ("10am IST", (2026, 5, 5, 4, 30)),
        ("2026-12-25T09:00:00+01:00", (2026, 12, 25, 8, 0)),
    ],
)
def test_explicit_zones(text: str, utc: tuple[int, ...]) -> None:
    got = parse_instant(text, now=NOW, tz=BERLIN)
    assert got is not None
    assert got == at("UTC", *utc)
    assert got.utcoffset() == timedelta(hours=2 if got.month < 10 else 1)


def test_dst_spring_forward_gap_moves_forward() -> None:
    now = at(BERLIN, 2026, 3, 28, 12, 0)
    got = parse_instant("tomorrow at 2:30am", now=now, tz=BERLIN)
    assert got is not None
    assert (got.hour, got.minute, got.utcoffset()) == (3, 30, timedelta(hours=2))


def test_dst_fall_back_takes_first_occurrence() -> None:
    now = at(BERLIN, 2026, 10, 24, 12, 0)
    got = parse_instant("tomorrow at 2:30am", now=now, tz=BERLIN)
    assert got is not None
    assert (got.hour, got.minute, got.utcoffset()) == (2, 30, timedelta(hours=2))
    relative = parse_instant("in 24 hours", now=now, tz=BERLIN)
    assert relative is not None
    # Hours are elapsed time: across the fall-back night 24 hours later is 11:00 on the
    # wall clock (aware arithmetic inside one ZoneInfo would say 12:00, 25 hours later).
    assert relative.astimezone(UTC) - now.astimezone(UTC) == timedelta(hours=24)
    assert (relative.hour, relative.minute) == (11, 0)
    # Days are calendar days: the wall clock is kept.
    day_later = parse_instant("in 1 day", now=now, tz=BERLIN)
    assert day_later is not None and (day_later.day, day_later.hour) == (25, 12)


def test_new_york_and_sydney() -> None:
    ny_now = at(NY, 2026, 3, 7, 20, 0)
    assert parse_instant("tomorrow at 9am", now=ny_now, tz=NY) == at(NY, 2026, 3, 8, 9, 0)
    syd_now = at(SYD, 2026, 4, 5, 10, 0)  # the day Sydney leaves DST
    assert parse_instant("at 3pm", now=syd_now, tz=SYD) == at(SYD, 2026, 4, 5, 15, 0)


def test_result_independent_of_now_zone() -> None:
    a = parse_instant("tomorrow at 9", now=NOW, tz=NY)
    b = parse_instant("tomorrow at 9", now=NOW.astimezone(ZoneInfo("UTC")), tz=NY)
    assert a == b == at(NY, 2026, 5, 5, 9, 0)


NEGATIVES = [
    "laughing out loud",
    "3 30",
    "650-650-6500",
    "at 650-650-6500",
    "1 adult",
    "two three",
    "A4 A5",
    "4a",
    "4a.",
    "rat 6",
    "Pay ABC 2000",
    "this is the one",
    "this past one",
    "at single",
    "single o'clock",
    "in 15",
    "call mom",
    "may I ask",
    "I sat down",
]


@pytest.mark.parametrize("text", NEGATIVES)
def test_negatives(text: str) -> None:
    assert parse_instant(text, now=NOW, tz=BERLIN) is None
    assert parse_recurrence(text, now=NOW, tz=BERLIN) is None
    assert split_when(text, now=NOW, tz=BERLIN) is None


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   ",
        "x" * 10_000,
        "😀😀",
        "Feb 30",
        "at 25:00",
        "13/45",
        "31/31/2026",
        "every",
        "\x00",
        "9" * 500,
        "every " * 2000,
    ],
)
def test_bad_inputs_fast(text: str) -> None:
    t0 = time.perf_counter()
    assert parse_instant(text, now=NOW, tz=BERLIN) is None
    assert parse_recurrence(text, now=NOW, tz=BERLIN) is None
    assert split_when(text, now=NOW, tz=BERLIN) is None
    assert parse_duration(text) is None
    assert time.perf_counter() - t0 < 0.5


def test_unknown_zone_is_none() -> None:
    assert parse_instant("at 3pm", now=NOW, tz="Mars/Olympus") is None


def test_explain_invalid_date() -> None:
    assert explain_invalid_date("Feb 30") == "February has no 30th — did you mean March 2nd?"
    assert explain_invalid_date("april 31st") == "April has no 31st — did you mean May 1st?"
    assert explain_invalid_date("Feb 3") is None


@pytest.mark.parametrize(
    ("text", "spec"),
    [
        ("every weekday at 8", Cron("0 8 * * 1-5")),
        ("every Monday and Wednesday at 6am", Cron("0 6 * * 1,3")),
        ("daily at 8am and 8pm", Cron("0 8,20 * * *")),
        ("first of every month at 10", Cron("0 10 1 * *")),
        ("every year on March 3rd", Cron("0 9 3 3 *")),
        ("every morning at 7", Cron("0 7 * * *")),
        ("every evening at 7", Cron("0 19 * * *")),
        ("twice a day", Cron("0 9,21 * * *")),
        ("every weekend", Cron("0 9 * * 0,6")),
    ],
)
def test_recurrence_cron(text: str, spec: Cron) -> None:
    got = parse_recurrence(text, now=NOW, tz=BERLIN)
    assert got is not None
    assert got.spec == spec
    assert got.tz == BERLIN
    assert got.describe()


def test_recurrence_intervals() -> None:
    got = parse_recurrence("every 45 minutes", now=NOW, tz=BERLIN)
    assert got is not None and got.spec == Every(2700, NOW + timedelta(minutes=45))
    got = parse_recurrence("every 2 hours", now=NOW, tz=BERLIN)
    assert got is not None and isinstance(got.spec, Every) and got.spec.seconds == 7200
    for text in ("every hour", "hourly"):
        got = parse_recurrence(text, now=NOW, tz=BERLIN)
        assert got is not None and isinstance(got.spec, Every) and got.spec.seconds == 3600


def test_every_other_friday_rrule() -> None:
    got = parse_recurrence("every other Friday", now=NOW, tz=BERLIN)
    assert got is not None and isinstance(got.spec, RRule)
    assert "INTERVAL=2" in got.spec.rule and "BYDAY=FR" in got.spec.rule
    runs = got.next_runs(NOW, 3)
    assert runs == [
        at(BERLIN, 2026, 5, 8, 9, 0),
        at(BERLIN, 2026, 5, 22, 9, 0),
        at(BERLIN, 2026, 6, 5, 9, 0),
    ]


def test_first_tuesday_of_every_month() -> None:
    got = parse_recurrence("first tuesday of every month", now=NOW, tz=BERLIN)
    assert got is not None and isinstance(got.spec, RRule) and "BYDAY=1TU" in got.spec.rule
    assert got.next_runs(NOW, 1) == [at(BERLIN, 2026, 5, 5, 9, 0)]


def test_recurrence_end_conditions() -> None:
    got = parse_recurrence("every day at 9am until Dec 1", now=NOW, tz=BERLIN)
    assert got is not None and got.until == at(BERLIN, 2026, 12, 1, 23, 59, 59)
    got = parse_recurrence("every day at 9am 5 times", now=NOW, tz=BERLIN)
    assert got is not None and got.max_runs == 5 and len(got.next_runs(NOW, 10)) == 5
    got = parse_recurrence("every day for 2 weeks", now=NOW, tz=BERLIN)
    assert got is not None and got.until == NOW + timedelta(weeks=2)


def test_recurrence_dst() -> None:
    now = at(BERLIN, 2026, 3, 27, 12, 0)
    got = parse_recurrence("every day at 2:30am", now=now, tz=BERLIN)
    assert got is not None
    runs = got.next_runs(now, 3)
    assert [(r.day, r.hour, r.minute) for r in runs] == [(28, 2, 30), (29, 3, 30), (30, 2, 30)]


def test_describe_round_trip() -> None:
    got = parse_recurrence("every weekday at 8", now=NOW, tz=BERLIN)
    assert got is not None
    assert "08:00" in got.describe() and BERLIN in got.describe()
    again = Schedule(got.spec, got.tz)
    assert again.next_runs(NOW, 3) == got.next_runs(NOW, 3)


@pytest.mark.parametrize(
    ("text", "rest"),
    [
        ("remind me tomorrow at 9 to call mom", "call mom"),
        ("in 30 minutes turn off the porch light", "turn off the porch light"),
        ("turn the porch light off in 30 minutes", "turn the porch light off"),
        ("remind me to water the plants on friday at 6pm please", "water the plants"),
        ("remind me about the dentist next tuesday at 3pm", "the dentist"),
        ("call the office at 5 about the report", "call the office about the report"),
    ],
)
def test_split_when_instant(text: str, rest: str) -> None:
    got = split_when(text, now=NOW, tz=BERLIN)
    assert isinstance(got, When)
    assert isinstance(got.schedule, datetime)
    assert got.rest == rest


def test_split_when_values() -> None:
    got = split_when("remind me tomorrow at 9 to call mom", now=NOW, tz=BERLIN)
    assert got is not None and got.schedule == at(BERLIN, 2026, 5, 5, 9, 0)
    got = split_when("turn the porch light off in 30 minutes", now=NOW, tz=BERLIN)
    assert got is not None and got.schedule == NOW + timedelta(minutes=30)


def test_split_when_recurrence() -> None:
    got = split_when("stretch every weekday at 8", now=NOW, tz=BERLIN)
    assert got is not None and isinstance(got.schedule, Schedule)
    assert got.schedule.spec == Cron("0 8 * * 1-5") and got.rest == "stretch"
    got = split_when("remind me to take pills every day at 8am and 8pm", now=NOW, tz=BERLIN)
    assert got is not None and isinstance(got.schedule, Schedule)
    assert got.rest == "take pills"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("30 minutes", timedelta(minutes=30)),
        ("1h30m", timedelta(hours=1, minutes=30)),
        ("an hour and a half", timedelta(hours=1, minutes=30)),
        ("2d", timedelta(days=2)),
        ("90 secs", timedelta(seconds=90)),
        ("a couple of hours", timedelta(hours=2)),
        ("1.5 hours", timedelta(hours=1, minutes=30)),
        ("two weeks", timedelta(weeks=2)),
        ("0 minutes", timedelta(0)),
        ("laughing", None),
        ("3 30", None),
        ("", None),
    ],
)
def test_parse_duration(text: str, expected: timedelta | None) -> None:
    assert parse_duration(text) == expected


# ---------------------------------------------------------------- corpus regression guard


def _load(name: str) -> list[dict[str, object]]:
    with (DATA / name).open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def test_corpus_accuracy_guard() -> None:
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from bench.timeparse import instant_ok, recurrence_ok, subsets

    def accuracy(name: str) -> tuple[float, float]:
        hit = {True: 0, False: 0}
        tot = {True: 0, False: 0}
        for row in _load(name):
            core, strict = subsets(row)
            if not core:
                continue
            now = datetime.fromisoformat(str(row["reference_time"]))
            ok = instant_ok(row, parse_instant(str(row["phrase"]), now=now, tz=str(row["tz"])))
            tot[False] += 1
            hit[False] += ok
            if strict:
                tot[True] += 1
                hit[True] += ok
        return hit[True] / tot[True], hit[False] / tot[False]

    strict, core = accuracy("duckling_en_time.jsonl")
    assert strict >= 0.96 and core >= 0.94
    _, tz_core = accuracy("duckling_en_time_tz_variants.jsonl")
    assert tz_core >= 0.94
    for row in _load("duckling_en_time_negative.jsonl"):
        now = datetime.fromisoformat(str(row["reference_time"]))
        assert parse_instant(str(row["phrase"]), now=now, tz=str(row["tz"])) is None
    rec = [r for r in _load("recurrence_en.jsonl") if "ambiguous_anchor" not in r["tags"]]  # type: ignore[operator]
    good = 0
    for row in rec:
        now = datetime.fromisoformat(str(row["reference_time"]))
        good += recurrence_ok(row, parse_recurrence(str(row["phrase"]), now=now, tz=str(row["tz"])))
    assert good / len(rec) >= 0.98


# ---------------------------------------------------------------- exceptions ("except …")


def _local_days(s: Schedule, n: int, now: datetime = NOW) -> list[str]:
    return [r.astimezone(ZoneInfo(BERLIN)).date().isoformat() for r in s.next_runs(now, n)]


def _rec(text: str, now: datetime = NOW) -> Schedule:
    s = parse_recurrence(text, now=now, tz=BERLIN)
    assert s is not None, text
    return s


@pytest.mark.parametrize(
    "text",
    [
        "daily except tomorrow",
        "every day except for tomorrow",
        "daily, except on tomorrow",
        "every day excluding tomorrow",
        "each day but not tomorrow",
        "daily skipping tomorrow",
    ],
)
def test_except_a_relative_day(text: str) -> None:
    s = _rec(text)
    assert isinstance(s.spec, RRule) and s.spec.exclude == ("EXDATE:20260505",)
    assert _local_days(s, 3) == ["2026-05-06", "2026-05-07", "2026-05-08"]


@pytest.mark.parametrize(
    "text",
    [
        "every day at 9am except may 6th and may 8th",
        "daily at 9 except on may 6 and may 8",
        "every day at 09:00 except for 6 may, 8 may",
        "every day at 9am except may 6th and 8th",
        "daily at 9am except 5/6 and 5/8",
    ],
)
def test_except_a_list_of_dates(text: str) -> None:
    s = _rec(text)
    assert isinstance(s.spec, RRule)
    assert set(s.spec.exclude) == {"EXDATE:20260506", "EXDATE:20260508"}
    assert _local_days(s, 4, at(BERLIN, 2026, 5, 5, 12)) == [
        "2026-05-07",
        "2026-05-09",
        "2026-05-10",
        "2026-05-11",
    ]
    assert s.describe() == "every day at 09:00 except 6 May and 8 May (Europe/Berlin)"


@pytest.mark.parametrize(
    "text",
    [
        "every 8 hours except tomorrow at 8am and 5/7 at 4pm",
        "every 8 hours except for tomorrow at 8am, 7 may at 16:00",
        "every eight hours excluding tomorrow at 8 am and may 7th at 4pm",
    ],
)
def test_except_wall_times_on_a_sub_daily_interval(text: str) -> None:
    s = _rec(text, at(BERLIN, 2026, 5, 4, 0, 0))
    assert isinstance(s.spec, RRule) and s.spec.parts() == {"FREQ": "HOURLY", "INTERVAL": "8"}
    assert set(s.spec.exclude) == {"EXDATE:20260505T080000", "EXDATE:20260507T160000"}
    walls = [
        r.astimezone(ZoneInfo(BERLIN)).strftime("%d %H")
        for r in s.next_runs(at(BERLIN, 2026, 5, 4, 0, 0), 12)
    ]
    assert "05 08" not in walls and "07 16" not in walls
    assert walls[:4] == ["04 08", "04 16", "05 00", "05 16"]


@pytest.mark.parametrize(
    "text",
    [
        "every 8 hours except daily at 12am",
        "every 8 hours except at midnight",
        "every 8 hours except every day at midnight",
        "every 8 hours except 12am",
    ],
)
def test_except_a_daily_time(text: str) -> None:
    s = _rec(text, at(BERLIN, 2026, 5, 4, 0, 0))
    assert isinstance(s.spec, RRule)
    assert s.spec.exclude == ("EXRULE:FREQ=DAILY;BYHOUR=0;BYMINUTE=0",)
    hours = [
        r.astimezone(ZoneInfo(BERLIN)).hour for r in s.next_runs(at(BERLIN, 2026, 5, 4, 0, 0), 6)
    ]
    assert hours == [8, 16, 8, 16, 8, 16]
    assert s.describe() == "every 8 hours except daily at 00:00 (Europe/Berlin)"


@pytest.mark.parametrize(
    ("text", "exclude"),
    [
        ("every monday except for the 2nd monday in june", "EXDATE:20260608"),
        ("every monday except the second monday of june", "EXDATE:20260608"),
        ("every monday except each 2nd monday in june", "EXRULE:FREQ=YEARLY;BYMONTH=6;BYDAY=2MO"),
        ("mondays except every 2nd monday in june", "EXRULE:FREQ=YEARLY;BYMONTH=6;BYDAY=2MO"),
    ],
)
def test_except_nth_weekday(text: str, exclude: str) -> None:
    s = _rec(text)
    assert isinstance(s.spec, RRule) and s.spec.exclude == (exclude,)
    got = _local_days(s, 6, at(BERLIN, 2026, 5, 28))
    assert got == [
        "2026-06-01",
        "2026-06-15",
        "2026-06-22",
        "2026-06-29",
        "2026-07-06",
        "2026-07-13",
    ]


def test_except_recurring_every_year() -> None:
    s = _rec("every monday at 9 except each 2nd monday in june")
    assert s.describe() == "every Monday at 09:00 except the second Monday of June (Europe/Berlin)"
    assert "2027-06-14" not in _local_days(s, 6, at(BERLIN, 2027, 5, 31))


@pytest.mark.parametrize(
    ("text", "days"),
    [
        ("daily except weekends", "1-5"),
        ("every day at 9am except saturdays and sundays", "1-5"),
        ("every day except mondays at 9am", "0,2,3,4,5,6"),
        ("every weekday at 8:30 except fridays", "1-4"),
    ],
)
def test_except_weekdays_stay_simple(text: str, days: str) -> None:
    s = _rec(text)
    if isinstance(s.spec, Cron):
        assert s.spec.expr.split()[-1] == days
    else:
        assert isinstance(s.spec, RRule) and not s.spec.exclude


def test_except_months_and_ranges() -> None:
    s = _rec("every tuesday except in july and august")
    assert isinstance(s.spec, RRule) and s.spec.exclude == ("EXRULE:FREQ=DAILY;BYMONTH=7,8",)
    assert not any(d[5:7] in ("07", "08") for d in _local_days(s, 20, at(BERLIN, 2026, 6, 20)))
    s = _rec("every day except next week")
    assert len(s.spec.exclude) == 7  # type: ignore[union-attr]
    assert _local_days(s, 1, at(BERLIN, 2026, 5, 10, 12)) == ["2026-05-18"]


def test_except_with_end_conditions_after_it() -> None:
    s = _rec("daily except weekends until may 20")
    assert s.until is not None and s.until.date().isoformat() == "2026-05-20"
    s = _rec("every day except tomorrow 3 times")
    assert s.max_runs == 3
    assert _local_days(s, 5) == ["2026-05-06", "2026-05-07", "2026-05-08"]
    s = _rec("daily starting may 10 except on may 12 and may 14")
    assert _local_days(s, 4) == ["2026-05-10", "2026-05-11", "2026-05-13", "2026-05-15"]


@pytest.mark.parametrize(
    "text",
    [
        "every day except holidays",
        "daily except daily",
        "every day except whenever",
        "every monday except the 45th",
    ],
)
def test_unreadable_or_empty_exceptions_are_none(text: str) -> None:
    assert parse_recurrence(text, now=NOW, tz=BERLIN) is None


def test_first_and_last_instance_of_weekdays_is_bysetpos() -> None:
    for text in (
        "monthly on the first and last instance of tue and fri",
        "every month on the 1st and last instance of tuesday and friday",
    ):
        s = _rec(text)
        assert isinstance(s.spec, RRule)
        assert s.spec.parts()["BYSETPOS"] == "1,-1" and s.spec.parts()["BYDAY"] == "TU,FR"
        assert _local_days(s, 4, at(BERLIN, 2026, 5, 31)) == [
            "2026-06-02",
            "2026-06-30",
            "2026-07-03",
            "2026-07-31",
        ]
    s = _rec("monthly on the first and last instance of tue and fri")
    assert s.describe() == (
        "on the first and last Tuesday or Friday of every month at 09:00 (Europe/Berlin)"
    )


def test_last_weekday_of_every_month() -> None:
    s = _rec("every month on the last weekday")
    assert _local_days(s, 3) == ["2026-05-29", "2026-06-30", "2026-07-31"]
    assert s.describe().startswith("on the last weekday of every month")


def test_split_when_keeps_exceptions() -> None:
    got = split_when(
        "remind me every day at 9 except sundays to water the plants", now=NOW, tz=BERLIN
    )
    assert got is not None and got.rest == "water the plants"
    assert isinstance(got.schedule, Schedule)
    assert "2026-05-10" not in _local_days(got.schedule, 7)


# ---------------------------------------------------------------- whole phrases only

NOV = at(BERLIN, 2026, 11, 23, 9, 0)  # 08:00 UTC, a Monday


@pytest.mark.parametrize(
    ("text", "minutes"),
    [
        ("in 1 hour and 30 minutes", 90),
        ("in 2 hours and 15 minutes", 135),
        ("in an hour and 45 minutes", 105),
        ("in an hour and a half", 90),
        ("in 1 hour, 30 minutes", 90),
        ("in 1 hour & 30 minutes", 90),
        ("in 1 hour and 30", 90),
        ("in 2 hours and 5", 125),
        ("in 1h and 30m", 90),
        ("after 1 hour and 30 minutes", 90),
        ("1 hour and 30 minutes from now", 90),
        ("in 1 day and 3 hours", 27 * 60),
    ],
)
def test_compound_relative_durations(text: str, minutes: int) -> None:
    want = NOV + timedelta(minutes=minutes)
    assert parse_instant(text, now=NOV, tz=BERLIN) == want
    for message in (
        f"{text} start the dishwasher",
        f"start the dishwasher {text}",
        f"remind me {text} to start the dishwasher",
        f"start {text} the dishwasher",
    ):
        got = split_when(message, now=NOV, tz=BERLIN)
        assert got is not None and got.schedule == want, message
        assert got.rest == "start the dishwasher", message


@pytest.mark.parametrize(
    "text",
    [
        "in 1 hour and 30 minutes start the",
        "in 1 hour and 30 minutes start the dishwasher",
        "in 2 hours and 30 minutes call mom",
        "in 1 hour and 30 start",
        "tomorrow at 9 call mom",
        "from 3 to 5pm feed the cat",
        "between the 3rd and 5th of march buy flowers",
        "at 3 for 2 hours then stop",
        "for 2 hours and cake starting at 3",
        "every day at 8 start the dishwasher",
        "every 2 hours water the plants",
    ],
)
def test_trailing_words_are_not_a_time(text: str) -> None:
    """A phrase is a time only when every word is read; the rest is for split_when."""
    assert parse_instant(text, now=NOV, tz=BERLIN) is None
    assert parse_recurrence(text, now=NOV, tz=BERLIN) is None


def test_ranges_still_read_their_start() -> None:
    assert parse_instant("from 3 to 5pm", now=NOV, tz=BERLIN) == at(BERLIN, 2026, 11, 23, 15)
    assert parse_instant("between the 3rd and 5th of march", now=NOV, tz=BERLIN) == at(
        BERLIN, 2027, 3, 3, 9
    )
    assert parse_instant("dec 3-5", now=NOV, tz=BERLIN) == at(BERLIN, 2026, 12, 3, 9)
    assert parse_instant("at 3pm for 2 hours", now=NOV, tz=BERLIN) == at(BERLIN, 2026, 11, 23, 15)


@pytest.mark.parametrize(
    ("message", "when", "rest"),
    [
        ("in 1 hour and 30 minutes start the dishwasher", (2026, 11, 23, 10, 30), None),
        ("start the dishwasher in 1 hour and 30 minutes", (2026, 11, 23, 10, 30), None),
        ("start in 1 hour and 30 minutes the dishwasher", (2026, 11, 23, 10, 30), None),
        ("tomorrow at 9 call mom about the trip", (2026, 11, 24, 9, 0), "call mom about the trip"),
        ("call mom tomorrow at 9 about the trip", (2026, 11, 24, 9, 0), "call mom about the trip"),
        ("call mom about the trip tomorrow at 9", (2026, 11, 24, 9, 0), "call mom about the trip"),
        ("remind me to call mom the day after tomorrow at 10", (2026, 11, 25, 10, 0), "call mom"),
        ("the day after tomorrow at 10 call mom", (2026, 11, 25, 10, 0), "call mom"),
        ("post the weekly report tonight", (2026, 11, 23, 18, 0), "post the weekly report"),
        ("post the weekly report at 5pm", (2026, 11, 23, 17, 0), "post the weekly report"),
        ("post tomorrow at 9 the weekly report", (2026, 11, 24, 9, 0), "post the weekly report"),
        ("check the oven on friday at 6pm please", (2026, 11, 27, 18, 0), "check the oven"),
    ],
)
def test_split_when_anywhere(message: str, when: tuple[int, ...], rest: str | None) -> None:
    got = split_when(message, now=NOV, tz=BERLIN)
    assert got is not None
    assert got.schedule == at(BERLIN, *when)
    assert got.rest == (rest or "start the dishwasher")


@pytest.mark.parametrize(
    ("message", "cron", "rest"),
    [
        ("every day at 8 start the dishwasher", "0 8 * * *", "start the dishwasher"),
        ("start the dishwasher every day at 8", "0 8 * * *", "start the dishwasher"),
        ("start every weekday at 8am the dishwasher", "0 8 * * 1-5", "start the dishwasher"),
        ("water the plants every afternoon", "0 14 * * *", "water the plants"),
        ("post the weekly report every monday at 9", "0 9 * * 1", "post the weekly report"),
    ],
)
def test_split_when_recurrence_anywhere(message: str, cron: str, rest: str) -> None:
    got = split_when(message, now=NOV, tz=BERLIN)
    assert got is not None and isinstance(got.schedule, Schedule)
    assert got.schedule.spec == Cron(cron) and got.rest == rest


def test_every_n_hours_short_unit() -> None:
    for text in ("every 2h", "every 2 h", "every 2 hours"):
        got = parse_recurrence(text, now=NOV, tz=BERLIN)
        assert got is not None and isinstance(got.spec, Every), text
        assert got.spec.seconds == 7200


def test_month_edges_need_their_article() -> None:
    for text in ("every month at the start", "beginning of each month", "every month end"):
        got = parse_recurrence(text, now=NOV, tz=BERLIN)
        assert got is not None, text
    assert parse_recurrence("every day start", now=NOV, tz=BERLIN) is None
