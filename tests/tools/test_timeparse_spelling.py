"""Slips in day words ("tmorow", "thrusday") read as the words meant; names, real words and
quoted words left as written; three weekdays in a row read as a routine."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from tools.schedule import Schedule
from tools.timeparse import mend_spelling, parse_instant, split_when
from tools.timeparse.spelling import mended

BERLIN = ZoneInfo("Europe/Berlin")
NOW = datetime(2026, 11, 23, 10, 0, tzinfo=BERLIN)  # a Monday


def at(day: int, hour: int, minute: int = 0, month: int = 11) -> datetime:
    return datetime(2026, month, day, hour, minute, tzinfo=BERLIN)


@pytest.mark.parametrize(
    ("slip", "word"),
    [
        ("tmorow", "tomorrow"),
        ("tommorrow", "tomorrow"),
        ("thrusday", "thursday"),
        ("wendesday", "wednesday"),
        ("wensday", "wednesday"),
        ("satruday", "saturday"),
        ("fridya", "friday"),
        ("decmber", "december"),
        ("febuary", "february"),
        ("evenign", "evening"),
    ],
)
def test_a_slip_is_the_day_word_meant(slip: str, word: str) -> None:
    assert mended(slip) == word


@pytest.mark.parametrize(
    "word",
    ["sundae", "sundry", "mourning", "moaning", "fridge", "money", "monday", "hello", "thursdays"],
)
def test_real_words_are_not_mended(word: str) -> None:
    assert mended(word) is None


@pytest.mark.parametrize(
    ("text", "when", "rest"),
    [
        ("tmorow at 9 dentist", at(24, 9), "dentist"),
        (
            "remind me thrusday at half past 4 to update the client",
            at(26, 16, 30),
            "update the client",
        ),
        ("Wendesday 8am gym", at(25, 8), "gym"),
        ("decmber 3rd 2pm eye test", at(3, 14, month=12), "eye test"),
    ],
)
def test_a_message_with_a_slip_is_read_as_meant(text: str, when: datetime, rest: str) -> None:
    got = split_when(text, now=NOW, tz="Europe/Berlin")
    assert got is not None and got.schedule == when and got.rest == rest


def test_a_phrase_with_a_slip_parses() -> None:
    assert parse_instant("thrusday at 5pm", now=NOW, tz="Europe/Berlin") == at(26, 17)


@pytest.mark.parametrize(
    "text",
    [
        "call Frida at 5",  # a name inside a sentence
        "post 'see you thrusday' at 5",  # quoted: the words to post stay as written
        "buy a sundae at 5",
    ],
)
def test_names_quotes_and_real_words_stay_as_written(text: str) -> None:
    assert mend_spelling(text) == text


def test_a_slip_at_the_start_of_a_sentence_is_mended() -> None:
    assert mend_spelling("ok. Thrusday works") == "ok. Thursday works"


@pytest.mark.parametrize(
    "text",
    [
        "tue thu sat at 6pm swim",
        "on monday, wednesday, and friday at 6pm swim",
        "tue/thu/sat 6pm swim",
    ],
)
def test_three_weekdays_in_a_row_are_a_routine(text: str) -> None:
    got = split_when(text, now=NOW, tz="Europe/Berlin")
    assert got is not None and isinstance(got.schedule, Schedule) and got.rest == "swim"
    runs = got.schedule.next_runs(NOW, 4)
    assert [r.strftime("%a %H:%M") for r in runs] == [
        "Tue 18:00",
        "Thu 18:00",
        "Sat 18:00",
        "Tue 18:00",
    ] or [r.strftime("%a %H:%M") for r in runs][:3] == ["Mon 18:00", "Wed 18:00", "Fri 18:00"]


def test_one_week_of_days_is_not_a_routine() -> None:
    got = split_when("this monday at 6pm swim", now=NOW, tz="Europe/Berlin")
    assert got is not None and got.schedule == at(23, 18)


@pytest.mark.parametrize(
    ("text", "minutes", "rest"),
    [
        ("in an hour and a half restart the workers", 90, "restart the workers"),
        ("in one and a half hours restart the workers", 90, "restart the workers"),
    ],
)
def test_a_half_after_a_span_is_no_thing(text: str, minutes: int, rest: str) -> None:
    from datetime import timedelta

    got = split_when(text, now=NOW, tz="Europe/Berlin")
    assert got is not None and got.schedule == NOW + timedelta(minutes=minutes)
    assert got.rest == rest


@pytest.mark.parametrize(
    ("text", "first"),
    [
        ("on the hour every hour check the queue", "11:00"),
        ("hourly on the hour check the queue", "11:00"),
        ("every weekday at quarter to nine check the queue", "Tue 08:45"),
        ("every tue and thu half five check the queue", "Tue 17:30"),  # a waking hour
        ("every day at quarter to 8 check the queue", "Tue 07:45"),  # by the hour said
        ("every day at 6 30 evening check the queue", "18:30"),
        ("every day except sunday six thirty morning check the queue", "Tue 06:30"),
        ("every monday at ten past three check the queue", "Mon 15:10"),
    ],
)
def test_clocks_in_words_in_a_rhythm(text: str, first: str) -> None:
    got = split_when(text, now=NOW, tz="Europe/Berlin")
    assert got is not None and isinstance(got.schedule, Schedule), got
    run = got.schedule.next_runs(NOW, 1)[0]
    assert run.strftime("%a %H:%M").endswith(first) and got.rest == "check the queue"


def test_half_six_beside_a_day_is_a_waking_hour() -> None:
    assert parse_instant("friday at half six", now=NOW, tz="Europe/Berlin") == at(27, 18, 30)
    morning = parse_instant("friday at half six in the morning", now=NOW, tz="Europe/Berlin")
    assert morning == at(27, 6, 30)


@pytest.mark.parametrize(
    ("text", "first", "rest"),
    [
        ("every wk mon + wed 07:00 gym", at(25, 7), "gym"),
        ("wkdays except fri 08:30 check the queue", at(24, 8, 30), "check the queue"),
        ("every 2 wks on fri 5pm payroll", at(27, 17), "payroll"),
        ("tue+thu+sat 6pm swim", at(24, 18), "swim"),
        # a day of the month and its clock, then the task: no "the 15th 10am" thing
        ("monthly on the 15th 10am submit expenses", at(15, 10, month=12), "submit expenses"),
    ],
)
def test_the_weeks_shorthand_and_a_day_with_its_clock(
    text: str, first: datetime, rest: str
) -> None:
    got = split_when(text, now=NOW, tz="Europe/Berlin")
    assert got is not None and isinstance(got.schedule, Schedule), text
    assert got.schedule.next_runs(NOW, 1)[0] == first and got.rest == rest


@pytest.mark.parametrize("text", ["wk groceries on friday", "the 3rd floor meeting at 5"])
def test_shorthand_only_where_it_says_a_week(text: str) -> None:
    got = split_when(text, now=NOW, tz="Europe/Berlin")
    assert got is not None and not isinstance(got.schedule, Schedule)
    assert " ".join(text.split()[:2]) in got.rest  # "wk groceries", "the 3rd" as written
