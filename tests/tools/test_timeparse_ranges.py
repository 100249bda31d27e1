"""Ranges of clock times: the start takes the end's day, meridiem and zone."""

from __future__ import annotations

from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import pytest

from tools.timeparse import parse_instant, split_when

BERLIN = "Europe/Berlin"
NOW = datetime(2026, 11, 23, 8, 0, tzinfo=UTC)  # 09:00 in Berlin, a Monday


def berlin(*args: int) -> datetime:
    return datetime(*args, tzinfo=ZoneInfo(BERLIN))  # type: ignore[misc]


TOMORROW_3PM = (2026, 11, 24, 15, 0)
TOMORROW_9AM = (2026, 11, 24, 9, 0)
FRIDAY_3PM = (2026, 11, 27, 15, 0)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # the shared day after the range applies to its start
        ("between 3 and 5 tomorrow", TOMORROW_3PM),
        ("3 to 5 tomorrow", TOMORROW_3PM),
        ("from 3 till 5 tomorrow", TOMORROW_3PM),
        ("3-5 tomorrow", TOMORROW_3PM),
        ("tomorrow between 3 and 5", TOMORROW_3PM),
        ("tomorrow from 3 to 5", TOMORROW_3PM),
        ("between 3 and 5 on friday", FRIDAY_3PM),
        ("3-5pm on Friday", FRIDAY_3PM),
        ("from 3pm to 5pm on friday", FRIDAY_3PM),
        # working hours: "9 to 5" is 09:00-17:00
        ("from 9 to 5 tomorrow", TOMORROW_9AM),
        ("9-5 tomorrow", TOMORROW_9AM),
        ("tomorrow 9 to 5", TOMORROW_9AM),
        ("monday 9-5", (2026, 11, 30, 9, 0)),  # it is Monday 09:00 now, like "monday 9am"
        ("9:30 - 11 tomorrow", (2026, 11, 24, 9, 30)),
        ("from 930 to 1130 tomorrow", (2026, 11, 24, 9, 30)),
        ("from 11 to 1 tomorrow", (2026, 11, 24, 11, 0)),
        # the end's meridiem carries to a start without one
        ("tomorrow from 3 to 5pm", TOMORROW_3PM),
        ("tomorrow 3-5 pm", TOMORROW_3PM),
        ("tomorrow from 9 to 5pm", TOMORROW_9AM),
        ("Friday 10 to 11am", (2026, 11, 27, 10, 0)),
        ("friday from 10 to 2", (2026, 11, 27, 10, 0)),
        ("10-11am tomorrow", (2026, 11, 24, 10, 0)),
        ("from 3 to 5 in the afternoon tomorrow", TOMORROW_3PM),
        ("between 2 and 4 this afternoon", (2026, 11, 23, 14, 0)),
        # a start with its own meridiem or a 24h clock keeps it
        ("from 10am to noon next Tuesday", (2026, 12, 1, 10, 0)),
        ("from 7pm to 9 tomorrow", (2026, 11, 24, 19, 0)),
        ("from 11pm to 1am tomorrow", (2026, 11, 24, 23, 0)),
        ("from 9:00 to 17:00 tomorrow", TOMORROW_9AM),
        ("between 9:30 and 11:00 on thursday", (2026, 11, 26, 9, 30)),
        # no day: the end is the next time the clock shows it
        ("from 3 to 5", (2026, 11, 23, 15, 0)),
        ("from 3 to 5pm", (2026, 11, 23, 15, 0)),
    ],
)
def test_range_start_takes_the_ends_day_and_meridiem(text: str, expected: tuple[int, ...]) -> None:
    assert parse_instant(text, now=NOW, tz=BERLIN) == berlin(*expected)


def test_range_without_day_before_dawn_is_the_next_occurrence() -> None:
    early = datetime(2026, 11, 23, 1, 0, tzinfo=UTC)  # 02:00 in Berlin
    assert parse_instant("from 5 to 7", now=early, tz=BERLIN) == berlin(2026, 11, 23, 5, 0)
    assert parse_instant("from 5 to 7pm", now=early, tz=BERLIN) == berlin(2026, 11, 23, 17, 0)


def test_range_end_zone_carries_to_start() -> None:
    got = parse_instant("from 3 to 5 pm gmt tomorrow", now=NOW, tz=BERLIN)
    assert got == datetime(2026, 11, 24, 15, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("tomorrow at 9", (2026, 11, 24, 9, 0)),
        ("friday 3pm", FRIDAY_3PM),
        ("dec 3-5", (2026, 12, 3, 9, 0)),
        ("3-5 friday", (2027, 3, 5, 9, 0)),  # 5 March 2027 is a Friday: a date
        ("between the 3rd and 5th of march", (2027, 3, 3, 9, 0)),
    ],
)
def test_plain_times_and_date_ranges_are_unchanged(text: str, expected: tuple[int, ...]) -> None:
    assert parse_instant(text, now=NOW, tz=BERLIN) == berlin(*expected)


@pytest.mark.parametrize(
    "text",
    ["between 2 and 3 people", "3 and 5 start the oven", "from 3 to 5 apples", "9 to 5 job"],
)
def test_number_ranges_that_are_no_time(text: str) -> None:
    assert parse_instant(text, now=NOW, tz=BERLIN) is None


@pytest.mark.parametrize(
    ("message", "expected", "rest"),
    [
        ("remind me between 3 and 5 tomorrow to call mom", TOMORROW_3PM, "call mom"),
        ("from 9 to 5 tomorrow check the server", TOMORROW_9AM, "check the server"),
        ("tomorrow from 3 to 5pm feed the cat", TOMORROW_3PM, "feed the cat"),
    ],
)
def test_split_when_reads_range_start(message: str, expected: tuple[int, ...], rest: str) -> None:
    got = split_when(message, now=NOW, tz=BERLIN)
    assert got is not None
    assert got.schedule == berlin(*expected)
    assert got.rest == rest
