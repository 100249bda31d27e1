"""The time language, kind by kind: several phrasings per rule (issue 16).

Reference: Monday 23 Nov 2026, 10:00 in Europe/Berlin unless a test says otherwise.
"""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from tools.timeparse import (
    Recurrence,
    explain_invalid_date,
    parse_instant,
    parse_recurrence,
    split_when,
)
from tools.timeparse.foreign import Understood
from tools.timeparse.holidays import easter

TZ = "Europe/Berlin"
Z = ZoneInfo(TZ)
NOW = datetime(2026, 11, 23, 10, 0, tzinfo=Z)  # a Monday


def at(text: str, now: datetime = NOW) -> datetime | None:
    got = parse_instant(text, now=now, tz=TZ)
    return got.astimezone(Z).replace(tzinfo=None) if got else None


def dt(y: int, mo: int, d: int, h: int = 9, mi: int = 0) -> datetime:
    return datetime(y, mo, d, h, mi)


def runs(text: str, n: int = 4, now: datetime = NOW) -> list[datetime]:
    sched = parse_recurrence(text, now=now, tz=TZ)
    assert sched is not None, text
    return [r.astimezone(Z).replace(tzinfo=None) for r in sched.next_runs(now, n)]


# ---------------------------------------------------------------- quantities


@pytest.mark.parametrize(
    ("text", "delta"),
    [
        ("in about 2 hours", timedelta(hours=2)),
        ("in around 20 minutes", timedelta(minutes=20)),
        ("in roughly an hour and a half", timedelta(minutes=90)),
        ("in a couple of hours", timedelta(hours=2)),
        ("in another 10 minutes", timedelta(minutes=10)),
        ("in 2 and a half hours", timedelta(minutes=150)),
    ],
)
def test_approximate_quantities(text: str, delta: timedelta) -> None:
    assert at(text) == (NOW + delta).replace(tzinfo=None)


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("9 tomorrow", dt(2026, 11, 24, 9)),
        ("tomorrow 9", dt(2026, 11, 24, 9)),
        ("friday 5", dt(2026, 11, 27, 17)),
        ("wednesday 11", dt(2026, 11, 25, 11)),
    ],
)
def test_bare_hour_beside_a_day(text: str, want: datetime) -> None:
    assert at(text) == want


# A bare hour beside a named day is read the same with or without "at": hours 1-7 with
# no am/pm are afternoon ones (a reminder "friday at 5" is rarely for 05:00), 8-12 as
# written; an explicit meridiem, 24-hour clock or part of day always wins.
@pytest.mark.parametrize(
    ("plain", "with_at", "want"),
    [
        ("friday 5", "friday at 5", dt(2026, 11, 27, 17)),
        ("tomorrow 3", "tomorrow at 3", dt(2026, 11, 24, 15)),
        ("3 tomorrow", "at 3 tomorrow", dt(2026, 11, 24, 15)),
        ("saturday 7", "on saturday at 7", dt(2026, 11, 28, 19)),
        ("tomorrow 9", "tomorrow at 9", dt(2026, 11, 24, 9)),
        ("friday 8", "friday at 8", dt(2026, 11, 27, 8)),
        ("sunday 12", "sunday at 12", dt(2026, 11, 29, 12)),
    ],
)
def test_bare_hour_beside_a_day_with_or_without_at(
    plain: str, with_at: str, want: datetime
) -> None:
    assert at(plain) == want
    assert at(with_at) == want


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("friday at 5am", dt(2026, 11, 27, 5)),
        ("tomorrow at 05:00", dt(2026, 11, 24, 5)),
        ("tomorrow at 3 in the morning", dt(2026, 11, 24, 3)),
        ("friday at 5:30", dt(2026, 11, 27, 5, 30)),
    ],
)
def test_hour_beside_a_day_keeps_what_is_written(text: str, want: datetime) -> None:
    assert at(text) == want


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("3 o'clock pm", dt(2026, 11, 23, 15)),
        ("3 oclock p.m.", dt(2026, 11, 23, 15)),
        ("8 o clock am tomorrow", dt(2026, 11, 24, 8)),
        ("7 o'clock in the evening", dt(2026, 11, 23, 19)),
    ],
)
def test_oclock_with_meridiem(text: str, want: datetime) -> None:
    assert at(text) == want


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("20 minutes from 3pm", dt(2026, 11, 23, 15, 20)),
        ("an hour after noon tomorrow", dt(2026, 11, 24, 13)),
        ("2 days before friday", dt(2026, 11, 25, 9)),
        ("the day after tomorrow at 6pm", dt(2026, 11, 25, 18)),
        ("3 weeks after dec 1", dt(2026, 12, 22, 9)),
    ],
)
def test_offsets_from_a_time(text: str, want: datetime) -> None:
    assert at(text) == want


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("later than 3pm but before 5pm", dt(2026, 11, 23, 15)),
        ("after 2pm but before 4pm tomorrow", dt(2026, 11, 24, 14)),
        ("not earlier than 6pm and before 8pm", dt(2026, 11, 23, 18)),
    ],
)
def test_bounded_window_gives_its_start(text: str, want: datetime) -> None:
    assert at(text) == want


# ---------------------------------------------------------------- partial dates


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("march", dt(2027, 3, 1)),
        ("in march", dt(2027, 3, 1)),
        ("2027-03", dt(2027, 3, 1)),
        ("2027/3", dt(2027, 3, 1)),
        ("03-2027", dt(2027, 3, 1)),
        ("3.2027", dt(2027, 3, 1)),
        ("2027-14", None),
        ("03/2027", dt(2027, 3, 1)),
        ("march 2027", dt(2027, 3, 1)),
        ("the 20th of next month", dt(2026, 12, 20)),
        ("the 5th", dt(2026, 12, 5)),
        ("25th", dt(2026, 11, 25)),
        ("3/15/27", dt(2027, 3, 15)),
        ("16.12", dt(2026, 12, 16)),
        ("24.11.27", dt(2027, 11, 24)),
        ("2027/01/05", dt(2027, 1, 5)),
        ("21/12", dt(2026, 12, 21)),
        ("7. april", dt(2027, 4, 7)),
    ],
)
def test_partial_dates(text: str, want: datetime | None) -> None:
    assert at(text) == want


def test_four_digits_after_a_date_is_a_clock_when_no_year_fits() -> None:
    assert at("12 nov 1115") == dt(2027, 11, 12, 11, 15)
    assert at("dec 3 2125") == dt(2026, 12, 3, 21, 25)
    assert at("dec 3 2027") == dt(2027, 12, 3, 9)


# ---------------------------------------------------------------- named days


def test_easter_computus_known_years() -> None:
    assert [easter(y) for y in (2013, 2019, 2024, 2025, 2027, 2038)] == [
        date(2013, 3, 31),
        date(2019, 4, 21),
        date(2024, 3, 31),
        date(2025, 4, 20),
        date(2027, 3, 28),
        date(2038, 4, 25),
    ]


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("christmas", dt(2026, 12, 25)),
        ("on christmas", dt(2026, 12, 25)),
        ("xmas eve at 6pm", dt(2026, 12, 24, 18)),
        ("last christmas", dt(2025, 12, 25)),
        ("christmas 2030", dt(2030, 12, 25)),
        ("a year after christmas", dt(2027, 12, 25)),
        ("thanksgiving", dt(2026, 11, 26)),
        ("thanksgiving 2027", dt(2027, 11, 25)),
        ("black friday", dt(2026, 11, 27)),
        ("easter monday", dt(2027, 3, 29)),
        ("good friday 2025", dt(2025, 4, 18)),
        ("3 days after easter", dt(2027, 3, 31)),
        ("the ides of march", dt(2027, 3, 15)),
        ("the ides of june", dt(2027, 6, 13)),
        ("mother's day", dt(2027, 5, 9)),
        ("memorial day 2027", dt(2027, 5, 31)),
        ("new year's eve", dt(2026, 12, 31)),
        ("halloween", dt(2027, 10, 31)),
    ],
)
def test_holidays_and_offsets(text: str, want: datetime) -> None:
    assert at(text) == want


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("the week of dec 9", dt(2026, 12, 7)),
        ("week of christmas", dt(2026, 12, 21)),
        ("the closest monday to dec 25", dt(2026, 12, 28)),
        ("the second closest monday to dec 25", dt(2026, 12, 21)),
        ("the nearest friday to new year's day", dt(2027, 1, 1)),
        ("the third last week of 2018", dt(2018, 12, 10)),
        ("the first week of 2019", dt(2019, 1, 7)),
        ("the last day of 2027", dt(2027, 12, 31)),
        ("third tuesday after christmas 2014", dt(2015, 1, 13)),
        ("the friday before christmas", dt(2026, 12, 18)),
        ("end of the month", dt(2026, 11, 30)),
        ("beginning of next month", dt(2026, 12, 1)),
        ("eoy", dt(2026, 12, 31)),
    ],
)
def test_weeks_and_days_defined_from_others(text: str, want: datetime) -> None:
    assert at(text) == want


@pytest.mark.parametrize(
    ("text", "want"),
    [
        # the n-th weekday with no month said: this month's if still ahead, else the next's
        ("the first monday", dt(2026, 12, 7)),
        ("4th tuesday", dt(2026, 11, 24)),
        ("the second friday at 3pm", dt(2026, 12, 11, 15)),
        ("the 5th sunday", dt(2026, 11, 29)),
        ("5th thursday", dt(2026, 12, 31)),
        ("the 5th wednesday", dt(2026, 12, 30)),
        # ... or of the month that many months on
        ("the first monday in 2 months", dt(2027, 1, 4)),
        ("on the first monday in 2 months", dt(2027, 1, 4)),
        ("on the 2nd tuesday", dt(2026, 12, 8)),
        ("third friday in a month", dt(2026, 12, 18)),
        ("last sunday in 3 months time", dt(2027, 2, 28)),
        # "monday the 1st" stays a day of the month that is a Monday
        ("monday the 1st", dt(2027, 2, 1)),
        # the day after next, the day before last
        ("the day after next", dt(2026, 11, 25)),
        ("day after next at 6pm", dt(2026, 11, 25, 18)),
        # a two-digit year after an apostrophe, and "in the year"
        ("christmas '28", dt(2028, 12, 25)),
        ("thanksgiving '27 at noon", dt(2027, 11, 25, 12)),
        ("june 3rd in the year 2029", dt(2029, 6, 3)),
        ("the 4th of july in the year '30", dt(2030, 7, 4)),
        # spellings
        ("president's day", dt(2027, 2, 15)),
        ("st patty's day", dt(2027, 3, 17)),
        ("tomorrow at mid-night", dt(2026, 11, 25, 0)),
        # counted weekdays and named days
        ("2 fridays after christmas", dt(2027, 1, 8)),
        ("3 sundays before new year's day", dt(2026, 12, 13)),
        ("2 thanksgivings from now", dt(2027, 11, 25)),
        ("1 christmas from now", dt(2026, 12, 25)),
        ("3 easters ago", dt(2024, 3, 31)),
        ("2 days after 2 black fridays from now", dt(2027, 11, 28)),
        # a clock before or after a day defined from another
        ("the friday after christmas at 5pm", dt(2027, 1, 1, 17)),
        ("5:30pm on the monday after easter", dt(2027, 3, 29, 17, 30)),
        ("at noon on the second tuesday after new year's day", dt(2027, 1, 12, 12)),
        ("the day before thanksgiving at 6", dt(2026, 11, 25, 18)),
        ("monday after 3pm", dt(2026, 11, 23, 15)),
        # "8p" / "9a" with a day or "at", before or after it
        ("8p tomorrow", dt(2026, 11, 24, 20)),
        ("friday 9a", dt(2026, 11, 27, 9)),
    ],
)
def test_nth_weekdays_years_and_spellings(text: str, want: datetime) -> None:
    assert at(text) == want


@pytest.mark.parametrize("text", ["8p", "4a", "room 4a", "'19"])
def test_lone_letters_and_numbers_are_no_time(text: str) -> None:
    assert at(text) is None


# ---------------------------------------------------------------- people's messages


def test_midnight_today_is_tonights_midnight() -> None:
    tonight = dt(2026, 11, 24, 0)
    assert at("at midnight") == tonight
    assert at("today at midnight") == tonight
    assert at("tonight at midnight") == tonight
    assert at("friday at midnight") == dt(2026, 11, 28, 0)


def test_next_weekday_is_in_next_week() -> None:
    # Documented: "next friday" on a Monday is the Friday of next week; "friday" and
    # "this friday" are the coming one.
    assert at("next friday") == dt(2026, 12, 4)
    assert at("this friday") == dt(2026, 11, 27)
    assert at("friday") == dt(2026, 11, 27)


def test_feb_30_is_explained_not_guessed() -> None:
    for text in ("on Feb 30", "remind me on february 30th to pay rent", "30 feb"):
        assert parse_instant(text, now=NOW, tz=TZ) is None
        assert split_when(text, now=NOW, tz=TZ) is None
        assert explain_invalid_date(text) == "February has no 30th — did you mean March 2nd?"
    assert explain_invalid_date("april 31") == "April has no 31st — did you mean May 1st?"


def test_offline_reply_explains_an_impossible_date() -> None:
    from tools.agent.offline import plan

    got = plan("remind me on Feb 30 to pay rent", NOW, TZ)
    assert isinstance(got, str) and "February has no 30th" in got


@pytest.mark.parametrize(
    ("text", "month", "day", "rest"),
    [
        ("Ana's birthday is on March 3rd", 3, 3, "Ana's birthday"),
        ("my anniversary is june 12", 6, 12, "my anniversary"),
        ("Mom's birthday: 3 May", 5, 3, "Mom's birthday"),
        ("our wedding anniversary on the 4th of july", 7, 4, "our wedding anniversary"),
    ],
)
def test_birthdays_and_anniversaries_are_yearly(text: str, month: int, day: int, rest: str) -> None:
    got = runs(text, 3)
    assert [(r.month, r.day) for r in got] == [(month, day)] * 3
    assert [r.year for r in got] == [got[0].year, got[0].year + 1, got[0].year + 2]
    found = split_when(text, now=NOW, tz=TZ)
    assert found is not None and found.rest == rest


@pytest.mark.parametrize(
    ("text", "rest"),
    [
        ("remind me of Tom's birthday on the 2nd of december", "Tom's birthday"),
        ("remind me about our anniversary on may 5", "our anniversary"),
        ("remind me Ana's birthday is on March 3rd", "Ana's birthday"),
        ("ping me for dad's birthday, june 8", "for dad's birthday"),
    ],
)
def test_an_occasion_inside_a_request_is_what_to_remind_of(text: str, rest: str) -> None:
    found = split_when(text, now=NOW, tz=TZ)
    assert found is not None and isinstance(found.schedule, Recurrence)
    assert found.rest == rest


def test_birthday_without_a_date_is_not_yearly() -> None:
    assert parse_recurrence("birthday party tomorrow", now=NOW, tz=TZ) is None


# ---------------------------------------------------------------- recurrences


@pytest.mark.parametrize(
    ("text", "days"),
    [
        ("last day of every month", [30, 31, 31, 28]),
        ("the 2nd to last day of every month", [29, 30, 30, 27]),
        ("the first and last day of each month", [30, 1, 31, 1]),
        ("begin of each month", [1, 1, 1, 1]),
        ("at the start of every month", [1, 1, 1, 1]),
    ],
)
def test_days_of_the_month(text: str, days: list[int]) -> None:
    assert [r.day for r in runs(text)] == days


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("the first friday of every month", [4, 1, 5, 5]),
        ("last weekday of every month", [30, 31, 29, 26]),
        ("every 2nd to last friday of the month", [18, 22, 19, 19]),
        ("1st, 2nd, and 3rd friday of every month", [4, 11, 18, 1]),
        ("first, second and third friday of every month", [4, 11, 18, 1]),
    ],
)
def test_nth_weekdays(text: str, want: list[int]) -> None:
    assert [r.day for r in runs(text)] == want


@pytest.mark.parametrize(
    ("text", "gap_weeks"),
    [("every other weekend", 2), ("every 4 weekends", 4), ("each 3rd weekend", 3)],
)
def test_weekends_with_intervals(text: str, gap_weeks: int) -> None:
    got = runs(text, 4)
    assert [r.weekday() for r in got] == [5, 6, 5, 6]
    assert got[2] - got[0] == timedelta(weeks=gap_weeks)


@pytest.mark.parametrize(
    ("text", "count"),
    [
        ("every friday twice", 2),
        ("fridays twice", 2),
        ("every day for 3 occurrences", 3),
        ("daily at 8am 4 times", 4),
        ("every monday once", 1),
        ("every day thrice", 3),
    ],
)
def test_counts(text: str, count: int) -> None:
    assert len(runs(text, 10)) == count


def test_twice_a_day_is_two_times_not_a_count() -> None:
    assert len(runs("twice a day", 10)) == 10


@pytest.mark.parametrize(
    ("text", "last"),
    [
        ("every day for the next month", date(2026, 12, 23)),
        ("every day for a week", date(2026, 11, 30)),
        ("every monday for the next year", date(2027, 11, 22)),
        ("every day until dec 5", date(2026, 12, 5)),
    ],
)
def test_spans_end_the_recurrence(text: str, last: date) -> None:
    got = runs(text, 500)
    assert got[-1].date() <= last
    assert got[-1].date() > last - timedelta(days=7)


def test_from_month_until_month() -> None:
    got = runs("every monday from november until february", 100)
    assert got[0] == dt(2026, 11, 30)
    assert got[-1] < dt(2027, 2, 1)


@pytest.mark.parametrize(
    "text",
    ["starting next monday every day at 9", "starting dec 1, every day at 9", "from dec 1 daily"],
)
def test_starting_a_date(text: str) -> None:
    first = runs(text, 1)[0]
    assert first.date() in (date(2026, 11, 30), date(2026, 12, 1))
    assert first.hour == 9


@pytest.mark.parametrize(
    ("text", "days"),
    [
        ("on the 1st and 15th of every month", [1, 15, 1, 15]),
        ("every month on the 1st and 15th", [1, 15, 1, 15]),
        ("monthly on the 10th, 20th and 30th", [30, 10, 20, 30]),
    ],
)
def test_lists_of_month_days(text: str, days: list[int]) -> None:
    assert [r.day for r in runs(text)] == days


@pytest.mark.parametrize(
    ("text", "step"),
    [
        ("minutely", timedelta(minutes=1)),
        ("hourly", timedelta(hours=1)),
        ("every hour", timedelta(hours=1)),
        ("fortnightly", timedelta(weeks=2)),
        ("biweekly", timedelta(weeks=2)),
    ],
)
def test_frequency_words(text: str, step: timedelta) -> None:
    got = runs(text, 3)
    assert got[1] - got[0] == step and got[2] - got[1] == step


def test_week_numbers() -> None:
    got = runs("every year in week 5 on monday", 2)
    assert [r.isocalendar()[1] for r in got] == [5, 5]
    assert got[0].weekday() == 0


# ---------------------------------------------------------------- other languages


@pytest.mark.parametrize(
    ("text", "want", "language"),
    [
        ("morgen um 9 Uhr", dt(2026, 11, 24, 9), "German"),
        ("in 2 Stunden", dt(2026, 11, 23, 12), "German"),
        ("mañana a las 9", dt(2026, 11, 24, 9), "Spanish"),
        ("el próximo lunes a las 10", dt(2026, 11, 30, 10), "Spanish"),
        ("demain à 9h", dt(2026, 11, 24, 9), "French"),
        ("dans 3 jours", dt(2026, 11, 26, 10), "French"),
        ("amanhã às 9", dt(2026, 11, 24, 9), "Portuguese"),
        ("jutro o 9", dt(2026, 11, 24, 9), "Polish"),
        ("za 2 godziny", dt(2026, 11, 23, 12), "Polish"),
    ],
)
def test_other_languages_fall_back_and_say_so(text: str, want: datetime, language: str) -> None:
    got = parse_instant(text, now=NOW, tz=TZ)
    assert isinstance(got, Understood)
    assert got.astimezone(Z).replace(tzinfo=None) == want
    assert got.language == language
    assert got.understood.startswith(f"read as {language}: ")


def test_other_language_inside_a_message() -> None:
    found = split_when("erinnere mich morgen um 9 Uhr an den Arzttermin", now=NOW, tz=TZ)
    assert found is not None
    assert isinstance(found.schedule, Understood)
    assert found.schedule.astimezone(Z).replace(tzinfo=None) == dt(2026, 11, 24, 9)
    assert found.rest == "erinnere mich an den Arzttermin"


@pytest.mark.parametrize("text", ["A4 A5", "1 adult", "rat 6", "hello there", "two three"])
def test_fallback_reads_no_noise(text: str) -> None:
    assert parse_instant(text, now=NOW, tz=TZ) is None


def test_english_result_is_plain() -> None:
    got = parse_instant("tomorrow at 9", now=NOW, tz=TZ)
    assert got is not None and not isinstance(got, Understood)


# ---------------------------------------------------------------- periods


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("this summer", dt(2027, 6, 21)),
        ("next spring", dt(2027, 3, 20)),
        ("this winter", dt(2026, 12, 21)),
        ("autumn 2027", dt(2027, 9, 23)),
        ("Q3 2027", dt(2027, 7, 1)),
        ("the 2nd quarter", dt(2027, 4, 1)),  # this year's is over: next year's
        ("4th quarter of next year", dt(2027, 10, 1)),
        ("early march", dt(2027, 3, 1)),
        ("mid-march", dt(2027, 3, 11)),
        ("late march 2028", dt(2028, 3, 21)),
        ("the end of february", dt(2027, 2, 28)),
        ("the past 2 days", dt(2026, 11, 21, 0)),
        ("the next 3 weeks", dt(2026, 11, 30, 0)),
        ("next month on the 15th", dt(2026, 12, 15)),
        ("on the 3rd of next month", dt(2026, 12, 3)),
        ("march 3 next year", dt(2027, 3, 3)),
    ],
)
def test_seasons_quarters_and_parts_of_months(text: str, want: datetime) -> None:
    assert at(text) == want


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("this time tomorrow", dt(2026, 11, 24, 10)),
        ("tomorrow same time", dt(2026, 11, 24, 10)),
        ("same time next week", dt(2026, 11, 30, 10)),
        ("at the same time on friday", dt(2026, 11, 27, 10)),
        ("same time next month", dt(2026, 12, 23, 10)),
    ],
)
def test_same_time_on_another_day(text: str, want: datetime) -> None:
    assert at(text) == want


def test_seasons_need_a_modifier() -> None:
    assert at("spring") is None and at("fall") is None


def test_clock_after_a_date() -> None:
    assert at("19/12 1510") == dt(2026, 12, 19, 15, 10)
    assert at("8/may") == dt(2027, 5, 8)
    assert at("may/8") == dt(2027, 5, 8)


# ---------------------------------------------------------------- sub-daily rhythms


def _clock(r: datetime) -> str:
    return r.strftime("%a %H:%M")


def test_window_of_minutes_stops_at_its_end() -> None:
    got = runs("every 15 minutes between 9am and 5pm on weekdays", 30)
    assert _clock(got[0]) == "Mon 10:15"
    assert "Mon 17:00" in map(_clock, got) and "Mon 17:15" not in map(_clock, got)
    assert _clock(got[got.index(next(r for r in got if _clock(r) == "Mon 17:00")) + 1]) == (
        "Tue 09:00"
    )


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("every 30 minutes from 9:30am to 5:30pm", ["10:30", "11:00", "11:30"]),
        ("every 2 hours from 9 to 17", ["11:00", "13:00", "15:00", "17:00", "09:00"]),
        ("every hour from 9 to 5", ["11:00", "12:00", "13:00"]),
        ("every hour at minute 30", ["10:30", "11:30", "12:30"]),
        ("each hour on the half hour", ["10:30", "11:30", "12:30"]),
        ("hourly at :45", ["10:45", "11:45", "12:45"]),
        ("every half hour", ["10:30", "11:00", "11:30"]),
        ("every quarter hour", ["10:15", "10:30", "10:45"]),
    ],
)
def test_sub_daily_windows_and_marks(text: str, want: list[str]) -> None:
    assert [r.strftime("%H:%M") for r in runs(text, len(want))] == want


def test_ordinal_day_of_the_month_versus_every_nth_day() -> None:
    assert [r.day for r in runs("every 2nd day of the month", 3)] == [2, 2, 2]
    got = runs("every 2nd day", 3)
    assert got[1] - got[0] == timedelta(days=2)
    assert [r.day for r in runs("every month on the 1st and last day", 4)] == [30, 1, 31, 1]


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("aug 9 96", dt(1996, 8, 9)),
        ("3 aug 96", dt(1996, 8, 3)),
        ("aug 9, 96", dt(1996, 8, 9)),
        ("march 3 '27", dt(2027, 3, 3)),
        ("3 march '27", dt(2027, 3, 3)),
        ("march 3, 28", dt(2028, 3, 3)),
    ],
)
def test_two_digit_years(text: str, want: datetime) -> None:
    assert at(text) == want


def test_two_small_digits_after_a_date_stay_an_hour() -> None:
    assert at("march 3 at 10") == dt(2027, 3, 3, 10)
    assert at("aug 9, 10am") == dt(2027, 8, 9, 10)


@pytest.mark.parametrize("text", ["6.5", "at 6.5 kilograms", "1-2-3", "20-30-12", "3.15"])
def test_numbers_are_not_dates(text: str) -> None:
    assert parse_instant(text, now=NOW, tz=TZ) is None


def test_dotted_dates_need_a_sign_of_being_dates() -> None:
    assert at("16.12") == dt(2026, 12, 16)
    assert at("06.05") == dt(2027, 5, 6)
    assert at("11.9.") == dt(2027, 9, 11)
    assert at("tomorrow.") == dt(2026, 11, 24)


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("later than 9:30 but before 11:00 on thursday", dt(2026, 11, 26, 9, 30)),
        ("in 2 more minutes", dt(2026, 11, 23, 10, 2)),
        ("in 3 extra days", dt(2026, 11, 26, 10)),
        ("2027q2", dt(2027, 4, 1)),
        ("27Q3", dt(2027, 7, 1)),
        ("late last night", dt(2026, 11, 22, 21)),
        ("monday early in the morning", dt(2026, 11, 30, 6)),
        ("tuesday in the early hours", dt(2026, 11, 24, 6)),
        ("31/oct/2027", dt(2027, 10, 31)),
        ("31-oct-27", dt(2027, 10, 31)),
        ("10.31.2027", dt(2027, 10, 31)),
        ("for 10 days from dec 18", dt(2026, 12, 18)),
        ("10 days from dec 18", dt(2026, 12, 28)),
    ],
)
def test_more_phrasings(text: str, want: datetime) -> None:
    assert at(text) == want


def test_weekday_with_a_date() -> None:
    # Named with its weekday, a date just past is that date; a mismatched weekday
    # yields to the date rather than jumping years ahead.
    assert at("saturday, nov 21") == dt(2026, 11, 21)
    assert at("friday, nov 27") == dt(2026, 11, 27)
    assert at("tuesday, jan 10") == dt(2027, 1, 10)
    assert at("friday the 13th") == dt(2027, 8, 13)


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("next tuesday lunchtime", dt(2026, 12, 1, 12)),
        ("tomorrow lunch time", dt(2026, 11, 24, 12)),
        ("december 6 very early afternoon", dt(2026, 12, 6, 12)),
        ("on december 7 th evening", dt(2026, 12, 7, 18)),
    ],
)
def test_parts_of_day_spellings(text: str, want: datetime) -> None:
    assert at(text) == want


@pytest.mark.parametrize(
    ("text", "first", "second"),
    [
        ("every 2 weeks starting next friday", dt(2026, 12, 4), dt(2026, 12, 18)),
        ("every month starting dec 15", dt(2026, 12, 15), dt(2027, 1, 15)),
        ("weekly starting wednesday", dt(2026, 11, 25), dt(2026, 12, 2)),
        ("every year starting march 3", dt(2027, 3, 3), dt(2028, 3, 3)),
    ],
)
def test_a_rhythm_keeps_its_start_day(text: str, first: datetime, second: datetime) -> None:
    assert runs(text, 2) == [first, second]


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("morgen", dt(2026, 11, 24, 9)),
        ("morgen abends", dt(2026, 11, 24, 18)),
        ("Montag nachmittags", dt(2026, 11, 30, 15)),
        ("mañana por la tarde", dt(2026, 11, 24, 15)),
        ("demain soir", dt(2026, 11, 24, 18)),
        ("amanhã à noite", dt(2026, 11, 24, 21)),
        ("jutro rano", dt(2026, 11, 24, 9)),
        ("Montag, 13. Dezember 2027 nach 13:30", dt(2027, 12, 13, 13, 30)),
    ],
)
def test_other_languages_parts_of_day_and_hedges(text: str, want: datetime) -> None:
    got = parse_instant(text, now=NOW, tz=TZ)
    assert isinstance(got, Understood)
    assert got.astimezone(Z).replace(tzinfo=None) == want


def test_holiday_words_inside_a_message() -> None:
    assert split_when("remind me to buy the christmas tree", now=NOW, tz=TZ) is None
    assert split_when("remind me to plan easter", now=NOW, tz=TZ) is None
    found = split_when("remind me on christmas to call grandma", now=NOW, tz=TZ)
    assert found is not None and found.rest == "call grandma"
    assert found.schedule == datetime(2026, 12, 25, 9, tzinfo=Z)
    found = split_when("remind me christmas eve at 6pm to wrap gifts", now=NOW, tz=TZ)
    assert found is not None and found.schedule == datetime(2026, 12, 24, 18, tzinfo=Z)


@pytest.mark.parametrize(
    ("text", "first", "second"),
    [
        ("every christmas", dt(2026, 12, 25), dt(2027, 12, 25)),
        ("every thanksgiving at 6pm", dt(2026, 11, 26, 18), dt(2027, 11, 25, 18)),
        ("annually on memorial day", dt(2027, 5, 31), dt(2028, 5, 29)),
        ("each halloween at 7pm", dt(2027, 10, 31, 19), dt(2028, 10, 31, 19)),
    ],
)
def test_yearly_holidays(text: str, first: datetime, second: datetime) -> None:
    assert runs(text, 2) == [first, second]


def test_holidays_without_a_fixed_rule_are_not_recurrences() -> None:
    # Black Friday is no fixed n-th Friday (and no fixed distance from Easter): RRULE
    # cannot say it, so it is refused rather than approximated.
    assert parse_recurrence("every black friday", now=NOW, tz=TZ) is None


# Easter moves by the computus; RRULE's BYEASTER says "n days from Easter Sunday".
@pytest.mark.parametrize(
    ("text", "first", "second"),
    [
        ("every easter", dt(2027, 3, 28), dt(2028, 4, 16)),
        ("every easter sunday at 10am", dt(2027, 3, 28, 10), dt(2028, 4, 16, 10)),
        ("each good friday at 6pm", dt(2027, 3, 26, 18), dt(2028, 4, 14, 18)),
        ("every easter monday", dt(2027, 3, 29), dt(2028, 4, 17)),
        ("every year on ash wednesday", dt(2027, 2, 10), dt(2028, 3, 1)),
        ("every pentecost in the evening", dt(2027, 5, 16, 18), dt(2028, 6, 4, 18)),
    ],
)
def test_movable_feasts_repeat_yearly(text: str, first: datetime, second: datetime) -> None:
    assert runs(text, 2) == [first, second]
    assert explain_invalid_date(text) is None


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("july 13-15", dt(2027, 7, 13)),
        ("dec 3 - 5", dt(2026, 12, 3)),
        ("13-15 july", dt(2027, 7, 13)),
        ("march 3-5 2028", dt(2028, 3, 3)),
    ],
)
def test_day_ranges_are_not_two_digit_years(text: str, want: datetime) -> None:
    assert at(text) == want


def test_quarter_names_inside_a_message_are_things() -> None:
    assert split_when("finish the q1 report", now=NOW, tz=TZ) is None
    found = split_when("finish the q1 report tomorrow", now=NOW, tz=TZ)
    assert found is not None and found.rest == "finish the q1 report"


def test_signed_offsets() -> None:
    assert at("+2 weeks") == dt(2026, 12, 7, 10)
    assert at("-3 days") == dt(2026, 11, 20, 10)
    # Inside a phrase the dash is a range, not a sign: the next 09:30-11:00.
    assert at("9h30 - 11h") == dt(2026, 11, 24, 9, 30)


# Two clock times in a one-off phrase: a person asking for one reminder names one time.
# "tomorrow at 9 and 9" (a slip, or two reminders) is refused so the caller asks, never
# silently read as one of them (it was 21:00); a range needs "between" or two different
# ends ("9 to 5", "between 9 and 11").
@pytest.mark.parametrize(
    "text",
    [
        "tomorrow at 9 and 9",
        "tomorrow at 9 and 5",
        "at 3pm and 5pm",
        "friday at 10 and 4",
        "at 9 at 9",
        "at 9 at 10",
        "tomorrow tomorrow",
        "monday on monday",
        "9am 9am",
        "between 9 and 9",
        "from 3pm to 3pm",
        "tomorrow at 9 tomorrow at 9",
    ],
)
def test_repeated_or_conflicting_times_are_refused(text: str) -> None:
    assert at(text) is None


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("between 9 and 11 tomorrow", dt(2026, 11, 24, 9)),
        ("tomorrow between 3 and 5pm", dt(2026, 11, 24, 15)),
        ("on the 2nd and 3rd of december", dt(2026, 12, 2)),
        ("from 9 to 5 on friday", dt(2026, 11, 27, 9)),
    ],
)
def test_real_ranges_still_give_their_start(text: str, want: datetime) -> None:
    assert at(text) == want


@pytest.mark.parametrize(
    "text",
    [
        "remind me tomorrow at 9 and 9 to call Ana",
        "remind me tomorrow at 9 and 5 to call Ana",
        "call Ana on friday at 3pm or 4pm",
        "water the plants at 8 and at 6 tomorrow",
        "remind me tomorrow at 9 and again at 5",
        "remind me at 9 and also at 11 to drink water",
        "stretch at 8 and then again at 6 tomorrow",
    ],
)
def test_two_times_inside_a_message_are_not_guessed(text: str) -> None:
    assert split_when(text, now=NOW, tz=TZ) is None


def test_and_after_a_time_can_start_the_task() -> None:
    found = split_when("tomorrow at 9 and call Ana", now=NOW, tz=TZ)
    assert found is not None and found.schedule == datetime(2026, 11, 24, 9, tzinfo=Z)
    assert found.rest == "and call Ana"


# ISO week numbers: the Monday of that week (the coming one when no year is named).
@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("week 36", dt(2027, 9, 6)),
        ("week 36 of 2027", dt(2027, 9, 6)),
        ("week 10 2027", dt(2027, 3, 8)),
        ("calendar week 2", dt(2027, 1, 11)),
        ("in week 50", dt(2026, 12, 7)),
        ("wk 50", dt(2026, 12, 7)),
        ("week no. 50", dt(2026, 12, 7)),
        ("week 53 of 2026", dt(2026, 12, 28)),
        ("week 54", None),
        ("week 53 of 2027", None),
    ],
)
def test_week_numbers_as_instants(text: str, want: datetime | None) -> None:
    assert at(text) == want


# A weekday with a number: once a clock time is given the number is the day of the month
# ("at 3pm on sunday 29"); numbers too big for an hour are days; four digits beside a
# weekday are a clock time when no reminder would name that year.
@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("after 15:00 on sunday 29", dt(2026, 11, 29, 15)),
        ("at 3pm on sunday 29", dt(2026, 11, 29, 15)),
        ("sunday 29 at 3pm", dt(2026, 11, 29, 15)),
        ("on tuesday 19 at 17:00", dt(2027, 1, 19, 17)),
        ("tuesday 19 at 5pm", dt(2027, 1, 19, 17)),
        ("on sunday 1925", dt(2026, 11, 29, 19, 25)),
        ("friday 1430", dt(2026, 11, 27, 14, 30)),
        ("friday 5", dt(2026, 11, 27, 17)),
        ("sunday 29", dt(2026, 11, 29)),
    ],
)
def test_weekday_with_a_number(text: str, want: datetime) -> None:
    assert at(text) == want


# Decades and centuries are calendar units like years.
@pytest.mark.parametrize(
    ("text", "years"),
    [
        ("in a decade", 10),
        ("2 decades ago", -20),
        ("3 decades from now", 30),
        ("in a century", 100),
        ("a century and 2 years from now", 102),
        ("in 1 decade and 2 years", 12),
    ],
)
def test_decades_and_centuries(text: str, years: int) -> None:
    assert at(text) == NOW.replace(tzinfo=None, year=2026 + years)


# "next/last <unit>" for every calendar unit: a fortnight is two weeks from this week's
# Monday; a decade or century shifts the year by 10 or 100 (its first day, as for "next
# year": Homar has no decade grain); "this decade" names no single start and is refused.
@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("next fortnight", dt(2026, 12, 7)),
        ("the following fortnight", dt(2026, 12, 7)),
        ("last fortnight", dt(2026, 11, 9)),
        ("next decade", dt(2036, 1, 1)),
        ("the coming decade", dt(2036, 1, 1)),
        ("last decade", dt(2016, 1, 1)),
        ("next century", dt(2126, 1, 1)),
        ("the previous century", dt(1926, 1, 1)),
    ],
)
def test_next_and_last_fortnight_decade_century(text: str, want: datetime) -> None:
    assert at(text) == want


@pytest.mark.parametrize("text", ["this decade", "the current century"])
def test_this_decade_is_no_time(text: str) -> None:
    assert at(text) is None


# "<duration> before/earlier" at the end of a phrase counts back from now, like "ago".
@pytest.mark.parametrize(
    ("text", "delta"),
    [
        ("10 days before", timedelta(days=-10)),
        ("2 hours earlier", timedelta(hours=-2)),
        ("a week before", timedelta(days=-7)),
    ],
)
def test_duration_before_means_ago(text: str, delta: timedelta) -> None:
    assert at(text) == NOW.replace(tzinfo=None) + delta


def test_anchored_before_is_still_an_offset() -> None:
    assert at("3 days before christmas") == dt(2026, 12, 22)


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("1/1/27 9:02:43.1", datetime(2027, 1, 1, 9, 2, 43)),
        ("tomorrow at 10:15:30.250", datetime(2026, 11, 24, 10, 15, 30)),
    ],
)
def test_clock_with_fractional_seconds(text: str, want: datetime) -> None:
    assert at(text) == want


# A dotted pair after a full date is its clock time; a comma glued to the next word
# still separates ("10:00:00,2021").
@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("29.12.2026 13.12", dt(2026, 12, 29, 13, 12)),
        ("on 24.12.2026 at 18.30", dt(2026, 12, 24, 18, 30)),
        ("tue jan 5 10:00:00,2027", dt(2027, 1, 5, 10)),
        ("friday,27 november", dt(2026, 11, 27)),
    ],
)
def test_dotted_clock_after_a_date_and_glued_commas(text: str, want: datetime) -> None:
    assert at(text) == want


# An offset in hours or minutes fixes the time of day; a part of day or clock beside it
# would silently replace it ("after 22h in the evening" is not 18:00 tomorrow).
@pytest.mark.parametrize(
    "text", ["in the evening after 22h", "in 2 hours in the morning", "in 30 minutes at 5pm"]
)
def test_offset_in_hours_with_a_time_of_day_is_refused(text: str) -> None:
    assert at(text) is None


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("in 2 days at 5pm", dt(2026, 11, 25, 17)),
        ("in a week in the evening", dt(2026, 11, 30, 18)),
    ],
)
def test_offset_in_days_takes_a_time_of_day(text: str, want: datetime) -> None:
    assert at(text) == want


# British "<day> week" / "a week <day>": that day a week (or fortnight) later.
@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("tomorrow week", dt(2026, 12, 1)),
        ("a week tomorrow", dt(2026, 12, 1)),
        ("friday week", dt(2026, 12, 4)),
        ("a week on friday", dt(2026, 12, 4)),
        ("friday fortnight", dt(2026, 12, 11)),
        ("a fortnight on saturday", dt(2026, 12, 12)),
        ("next week", dt(2026, 11, 30)),
    ],
)
def test_day_a_week_later(text: str, want: datetime) -> None:
    assert at(text) == want


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("2027/aug/10", dt(2027, 8, 10)),
        ("2027-aug-10", dt(2027, 8, 10)),
        ("aug-10-2027", dt(2027, 8, 10)),
    ],
)
def test_dates_with_a_month_name_between_numbers(text: str, want: datetime) -> None:
    assert at(text) == want


# Era markers on years: AD/CE as given, the Buddhist era (BE) 543 years ahead.
@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("10 august 2027 ad", dt(2027, 8, 10)),
        ("10 August 2570 BE", dt(2027, 8, 10)),
        ("august 10, 2027 CE", dt(2027, 8, 10)),
        ("10 august 88 AD", dt(88, 8, 10)),
    ],
)
def test_era_markers_on_years(text: str, want: datetime) -> None:
    assert at(text) == want


def test_be_after_a_clock_is_a_word() -> None:
    assert split_when("at 9 be there", now=NOW, tz=TZ) is not None


def test_repeating_a_movable_feast_is_found_in_a_message() -> None:
    found = split_when("remind me each good friday to call mum", now=NOW, tz=TZ)
    assert found is not None and found.rest == "call mum"
    assert not isinstance(found.schedule, datetime)
    got = [r.astimezone(Z).replace(tzinfo=None) for r in found.schedule.next_runs(NOW, 2)]
    assert got == [dt(2027, 3, 26), dt(2028, 4, 14)]


@pytest.mark.parametrize("text", ["every black friday", "remind me each black friday to shop"])
def test_repeating_a_holiday_without_a_rule_is_explained(text: str) -> None:
    # RRULE cannot say Black Friday, so it is refused — with what to type instead.
    note = explain_invalid_date(text)
    assert note is not None and "every year on" in note and "on " in note
    assert split_when(text, now=NOW, tz=TZ) is None


def test_fixed_holidays_need_no_explanation() -> None:
    assert explain_invalid_date("every christmas") is None
    assert explain_invalid_date("on easter") is None


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("26. 10.27", dt(2027, 10, 26)),
        ("30 . 09 . 27 12.12", dt(2027, 9, 30, 12, 12)),
        ("1 . 2 . 2027", dt(2027, 2, 1)),
    ],
)
def test_dotted_dates_with_spaces(text: str, want: datetime) -> None:
    assert at(text) == want


@pytest.mark.parametrize(
    ("text", "want"),
    [("20.12. 22.10", dt(2026, 12, 20, 22, 10)), ("14.7. 0900-1005", dt(2027, 7, 14, 9))],
)
def test_a_closed_dotted_date_keeps_the_clock_after_it(text: str, want: datetime) -> None:
    assert at(text) == want


# A range whose far end is a date and whose start is a bare day number: both are days of
# that month ("14-15.11.2027", "between 21 and 22.12.2026"), never a clock time.
@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("between 21 and 22.12.2026", dt(2026, 12, 21)),
        ("14-15.12.2026", dt(2026, 12, 14)),
        ("05-06.12.26", dt(2026, 12, 5)),
        ("from 3. to 5.12.2026", dt(2026, 12, 3)),
        ("07.-10.08.2027", dt(2027, 8, 7)),
        ("5. - 16.8.", dt(2027, 8, 5)),
    ],
)
def test_day_ranges_ending_in_a_date(text: str, want: datetime) -> None:
    assert at(text) == want


# The same rule for repeats: a time listed twice or a meridiem against the part of day is
# a slip, refused rather than read as one of its readings.
@pytest.mark.parametrize(
    "text",
    [
        "every day at 9 and 9",
        "daily at 8:30 and 8:30",
        "every morning at 9pm",
        "every day at 3pm in the morning",
        "every evening at 7am",
    ],
)
def test_repeated_or_conflicting_times_in_a_recurrence_are_refused(text: str) -> None:
    assert parse_recurrence(text, now=NOW, tz=TZ) is None


def test_morning_and_evening_times_still_read() -> None:
    assert runs("every morning at 7", 1) == [dt(2026, 11, 24, 7)]
    assert runs("every evening at 7", 1) == [dt(2026, 11, 23, 19)]
    assert runs("every day at 9am and 9pm", 2) == [dt(2026, 11, 23, 21), dt(2026, 11, 24, 9)]


# A year-first date with a 12-hour clock and its meridiem: the meridiem belongs to the
# clock (it read as None, or split off as 02:26, or "2027-10-09" as a range from 20:27).
@pytest.mark.parametrize(
    "text",
    [
        "2027/10/9 2:26 pm",
        "2027/10/09 2:26 pm",
        "2027-10-09 2:26 pm",
        "2027-10-09 2:26 p.m.",
        "2027.10.09 2:26 PM",
        "2027/10/9 at 2:26 pm",
    ],
)
def test_year_first_date_with_a_meridiem_clock(text: str) -> None:
    assert at(text) == dt(2027, 10, 9, 14, 26)
    found = split_when(f"remind me {text} to file taxes", now=NOW, tz=TZ)
    assert found is not None
    assert found.schedule.astimezone(Z).replace(tzinfo=None) == dt(2027, 10, 9, 14, 26)
    assert found.rest == "file taxes"


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("2027-10-09 02:26", dt(2027, 10, 9, 2, 26)),
        ("2027-10-09 14:26", dt(2027, 10, 9, 14, 26)),
        ("2027-10-09 2:26 am", dt(2027, 10, 9, 2, 26)),
        ("2027-10-09T02:26", dt(2027, 10, 9, 2, 26)),
    ],
)
def test_year_first_date_with_a_clock(text: str, want: datetime) -> None:
    assert at(text) == want


# The meridiem written before the clock, in the order East Asian dates use ("PM 2:26").
@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("pm 2:26", dt(2026, 11, 23, 14, 26)),
        ("tomorrow PM 2:26", dt(2026, 11, 24, 14, 26)),
        ("2027/10/9 PM 2:26", dt(2027, 10, 9, 14, 26)),
        ("friday a.m. 9:30", dt(2026, 11, 27, 9, 30)),
        ("tomorrow am 12:15", dt(2026, 11, 24, 0, 15)),
    ],
)
def test_meridiem_before_the_clock(text: str, want: datetime) -> None:
    assert at(text) == want


@pytest.mark.parametrize("text", ["am 13:30", "tomorrow am 2:26 pm"])
def test_meridiem_before_the_clock_must_agree(text: str) -> None:
    assert at(text) is None


# Round and square brackets around part of a time are punctuation, wherever they stand.
@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("[sept] 2027", dt(2027, 9, 1)),
        ("(sept) 2027", dt(2027, 9, 1)),
        ("friday [9am]", dt(2026, 11, 27, 9)),
        ("(9am) friday", dt(2026, 11, 27, 9)),
        ("friday (9am)", dt(2026, 11, 27, 9)),
        ("dec 3 [thursday]", dt(2026, 12, 3)),
    ],
)
def test_brackets_inside_a_time(text: str, want: datetime) -> None:
    assert at(text) == want


def test_a_bracketed_clock_before_a_day_is_not_split_from_it() -> None:
    # "(9am)" alone read as tomorrow 09:00, leaving "friday" in the reminder's text.
    found = split_when("remind me (9am) friday to call Ana", now=NOW, tz=TZ)
    assert found is not None
    assert found.schedule == datetime(2026, 11, 27, 9, tzinfo=Z)
    assert found.rest == "call Ana"


@pytest.mark.parametrize(
    ("text", "rest"),
    [
        ("call (Ana friday) at 9am", "call Ana"),
        ("remind me 05.12.2027 (8 o'clock) to call mom", "call mom"),
        ("call Ana (about the party) friday 9am", "call Ana (about the party)"),
        ("call Ana [friday 9am] about [the party]", "call Ana about [the party]"),
    ],
)
def test_the_rest_keeps_no_half_of_a_bracket(text: str, rest: str) -> None:
    found = split_when(text, now=NOW, tz=TZ)
    assert found is not None and found.rest == rest


# A two-digit year means the same in every notation: the year within 30 years ahead of
# today, else the century before (in 2026: '50 is 2050, '60 is 1960).
@pytest.mark.parametrize(("yy", "year"), [("17", 2017), ("50", 2050), ("56", 2056), ("60", 1960)])
def test_two_digit_years_read_alike_in_every_notation(yy: str, year: int) -> None:
    want = dt(year, 3, 4)
    assert at(f"3/4/{yy}") == want
    assert at(f"4.3.{yy}") == want
    assert at(f"march 4, '{yy}") == want


def test_a_smiley_in_the_rest_is_kept() -> None:
    found = split_when("remind me friday at 9 to send the slides to Omar :)", now=NOW, tz=TZ)
    assert found is not None and found.rest.endswith(":)")


# ---------------------------------------------------------------- more recurrence kinds


@pytest.mark.parametrize(
    ("text", "first", "last_before"),
    [
        # The end month comes before the start month in the calendar: the one after it.
        ("weekly from september to june", date(2027, 9, 1), date(2028, 6, 1)),
        ("every friday from 1 march to 28 february", date(2027, 3, 5), date(2028, 2, 29)),
        ("every tuesday from march until february", date(2027, 3, 2), date(2028, 2, 1)),
    ],
)
def test_a_span_ends_after_it_starts(text: str, first: date, last_before: date) -> None:
    got = runs(text, 200)
    assert got[0].date() == first
    assert got[-1].date() < last_before
    assert got[-1].date() > last_before - timedelta(days=8)


@pytest.mark.parametrize(
    ("text", "days", "clock"),
    [
        ("every working day at 9", {0, 1, 2, 3, 4}, (9, 0)),
        ("business days at noon", {0, 1, 2, 3, 4}, (12, 0)),
        ("on workdays at 8:15", {0, 1, 2, 3, 4}, (8, 15)),
        ("each weeknight at 10", {0, 1, 2, 3, 4}, (22, 0)),
        ("every weeknight", {0, 1, 2, 3, 4}, (21, 0)),
        ("school nights at 8", {6, 0, 1, 2, 3}, (20, 0)),
    ],
)
def test_working_days_and_weeknights(text: str, days: set[int], clock: tuple[int, int]) -> None:
    got = runs(text, 10)
    assert {r.weekday() for r in got} == days
    assert {(r.hour, r.minute) for r in got} == {clock}


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("the last business day of the month", dt(2026, 11, 30)),
        ("on the last workday of the month", dt(2026, 11, 30)),
        ("the first working day of next month", dt(2026, 12, 1)),
        ("the second weekday of december at 3pm", dt(2026, 12, 2, 15)),
        ("the 2nd to last business day of january", dt(2027, 1, 28)),
        ("the last working day of 2027", dt(2027, 12, 31)),
    ],
)
def test_nth_working_day(text: str, want: datetime) -> None:
    assert at(text) == want


@pytest.mark.parametrize(
    ("text", "hours"),
    [
        ("every day at 9 and 5", [9, 17]),
        ("daily at 8, 12 and 4", [8, 12, 16]),
        ("every day at 9am and 5", [9, 17]),
        ("every day at 10pm and 6", [6, 22]),  # 6 after 22:00 is the next morning's
        ("every day at 5 and 9", [5, 9]),
    ],
)
def test_listed_bare_hours_follow_the_day(text: str, hours: list[int]) -> None:
    got = runs(text, 6)
    assert sorted({r.hour for r in got}) == hours


@pytest.mark.parametrize(
    ("text", "hour"),
    [
        ("every friday at 3", 15),
        ("every day at 5", 17),
        ("each monday at 7", 19),
        ("every weekday at 1", 13),
        ("every day at 8", 8),
        ("every day at 11", 11),
        ("every friday at 3am", 3),
        ("every morning at 7", 7),
        ("every day at 5 o'clock", 5),
        ("every day at 6:30", 6),
    ],
)
def test_one_bare_hour_in_a_repeat_is_read_as_beside_a_day(text: str, hour: int) -> None:
    """ "friday at 3" is 15:00 (`instant`: a bare hour before 8 beside a day is an
    afternoon one), so "every friday at 3" is too; a clock with minutes, "o'clock", am/pm or
    a part of day say it themselves."""
    assert {r.hour for r in runs(text, 3)} == {hour}
    day = re.sub(r"^(?:every|each)\s+", "", text)
    if day.split()[0] in ("friday", "monday") and "o'clock" not in text:
        assert at(day).hour == hour  # the one-off and the repeat agree


@pytest.mark.parametrize(
    ("text", "step"),
    [
        ("every 1.5 hours", timedelta(minutes=90)),
        ("every hour and a half", timedelta(minutes=90)),
        ("every 2 and a half hours", timedelta(minutes=150)),
        ("every one and a half hours", timedelta(minutes=90)),
        ("every day and a half", timedelta(hours=36)),
        ("every 0.5 hours", timedelta(minutes=30)),
    ],
)
def test_rhythms_in_parts_of_a_unit(text: str, step: timedelta) -> None:
    got = runs(text, 3)
    assert got[1] - got[0] == step and got[2] - got[1] == step
    assert got[0] - NOW.replace(tzinfo=None) == step


@pytest.mark.parametrize(
    ("text", "first_two"),
    [
        ("every 2 hours starting tomorrow at 8am", [dt(2026, 11, 24, 8), dt(2026, 11, 24, 10)]),
        ("every 36 hours at 3pm", [dt(2026, 11, 23, 15), dt(2026, 11, 25, 3)]),
        ("every 90 minutes from 4pm", [dt(2026, 11, 23, 16), dt(2026, 11, 23, 17, 30)]),
        ("every day starting at 6pm", [dt(2026, 11, 23, 18), dt(2026, 11, 24, 18)]),
        ("every evening starting at 7", [dt(2026, 11, 23, 19), dt(2026, 11, 24, 19)]),
        (
            "every weekday starting friday at 8:30",
            [dt(2026, 11, 27, 8, 30), dt(2026, 11, 30, 8, 30)],
        ),
        ("daily from tomorrow at 7pm", [dt(2026, 11, 24, 19), dt(2026, 11, 25, 19)]),
    ],
)
def test_a_start_with_a_time_is_kept(text: str, first_two: list[datetime]) -> None:
    assert runs(text, 2) == first_two


@pytest.mark.parametrize(
    "text",
    [
        "every day at 9 starting at 6pm",  # two times of day: which one?
        "every evening starting at 7am",  # an evening at 7am?
        "every 2 hours on weekdays at 9",  # where the rhythm restarts each day is not said
        "every 2 hours at 9 and 5",
    ],
)
def test_times_that_disagree_are_not_guessed(text: str) -> None:
    assert parse_recurrence(text, now=NOW, tz=TZ) is None


@pytest.mark.parametrize(
    ("text", "first", "last"),
    [
        ("every day this week", dt(2026, 11, 24), dt(2026, 11, 29)),
        ("every day next week at 8", dt(2026, 11, 30, 8), dt(2026, 12, 6, 8)),
        ("each day for the rest of the month at 7pm", dt(2026, 11, 23, 19), dt(2026, 11, 30, 19)),
        ("every monday next month", dt(2026, 12, 7), dt(2026, 12, 28)),
        ("every weekday next week at 9am", dt(2026, 11, 30), dt(2026, 12, 4)),
        ("hourly for the rest of the day", dt(2026, 11, 23, 11), dt(2026, 11, 23, 23)),
    ],
)
def test_a_calendar_period_bounds_a_recurrence(text: str, first: datetime, last: datetime) -> None:
    got = runs(text, 100)
    assert (got[0], got[-1]) == (first, last)


@pytest.mark.parametrize(
    ("text", "want"),
    [
        # Hebrew-calendar days begin at sunset: each is read from its eve (erev), the
        # day before the date calendars print (Yom Kippur 2024 is 12 October).
        ("rosh hashanah 2025", dt(2025, 9, 22)),
        ("yom kippur 2024", dt(2024, 10, 11)),
        ("passover", dt(2027, 4, 21)),
        ("pesach 2026", dt(2026, 4, 1)),
        ("hanukkah", dt(2026, 12, 4)),
        ("chanukah 2013", dt(2013, 11, 27)),
        ("purim 2024", dt(2024, 3, 23)),  # a leap year: in Adar II
        ("shavuot 2025", dt(2025, 6, 1)),
        ("tisha b'av 2022", dt(2022, 8, 6)),  # 9 Av a Saturday: kept on Sunday 7 August
        ("veteran's day", dt(2027, 11, 11)),
    ],
)
def test_hebrew_calendar_days_and_more(text: str, want: datetime) -> None:
    assert at(text) == want


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("10-31-74", dt(1974, 10, 31)),
        ("3-3-2027", dt(2027, 3, 3)),
        ("31-10-2027", dt(2027, 10, 31)),  # only day first is a date
        ("12-11-2027", dt(2027, 12, 11)),  # month first, as with slashes
    ],
)
def test_dashed_dates_read_like_slashed_ones(text: str, want: datetime) -> None:
    assert at(text) == want
    assert at(text.replace("-", "/")) == want


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("2 thursdays ago", dt(2026, 11, 12)),
        ("a monday ago", dt(2026, 11, 16)),
        ("3 fridays back", dt(2026, 11, 6)),
        ("2 thursdays from now", dt(2026, 12, 3)),
        ("the last week-end in december", dt(2026, 12, 25, 18)),
    ],
)
def test_counted_weekdays_and_spellings(text: str, want: datetime) -> None:
    assert at(text) == want


@pytest.mark.parametrize(
    ("text", "want"),
    [
        # Hijri months from the moon (as observed in Saudi Arabia).
        ("eid al-fitr 2023", dt(2023, 4, 21)),
        ("eid ul fitr 2024", dt(2024, 4, 10)),
        ("eid al-adha 2023", dt(2023, 6, 28)),
        ("bakrid 2024", dt(2024, 6, 16)),
        ("ramadan 2025", dt(2025, 3, 1)),
        ("islamic new year 2024", dt(2024, 7, 7)),
        ("ashura 2024", dt(2024, 7, 16)),
        ("mawlid 2023", dt(2023, 9, 27)),
        # Chinese New Year: the new moon's day in China.
        ("chinese new year 2024", dt(2024, 2, 10)),
        ("lunar new year 2025", dt(2025, 1, 29)),
        ("chinese new year 2033", dt(2033, 1, 31)),
        # Hindu lunisolar days, as Indian calendars list them.
        ("diwali 2022", dt(2022, 10, 24)),
        ("deepavali 2023", dt(2023, 11, 12)),
        ("holi 2024", dt(2024, 3, 25)),
        ("holika dahan 2022", dt(2022, 3, 17)),
        ("raksha bandhan 2019", dt(2019, 8, 15)),
        ("ganesh chaturthi 2023", dt(2023, 9, 19)),
        ("dussehra 2022", dt(2022, 10, 5)),
        ("maha shivaratri 2024", dt(2024, 3, 8)),
        ("makar sankranti 2023", dt(2023, 1, 15)),
        ("baisakhi 2024", dt(2024, 4, 13)),
        ("orthodox easter 2024", dt(2024, 5, 5)),
        ("boss's day 2026", dt(2026, 10, 16)),
    ],
)
def test_days_of_other_calendars(text: str, want: datetime) -> None:
    assert at(text) == want


def test_a_hijri_day_twice_in_one_year_is_not_skipped() -> None:
    # Ramadan begins in January 2030 and again in December 2030.
    spring = datetime(2030, 2, 1, 10, tzinfo=Z)
    got = at("ramadan", now=spring)
    assert got is not None and (got.year, got.month) == (2030, 12)


@pytest.mark.parametrize("text", ["book the holiday", "the pongal recipe", "I love the holidays"])
def test_holiday_words_inside_other_words_are_no_time(text: str) -> None:
    assert split_when(text, now=NOW, tz=TZ) is None


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("the feast of the epiphany", dt(2027, 1, 6)),
        ("advent sunday", dt(2026, 11, 29)),
        ("arbor day 2027", dt(2027, 4, 30)),
        ("administrative professionals day 2024", dt(2024, 4, 24)),
        ("election day 2024", dt(2024, 11, 5)),
        ("grandparents day 2024", dt(2024, 9, 8)),
        ("victoria day 2024", dt(2024, 5, 20)),
        ("remembrance sunday 2024", dt(2024, 11, 10)),
        ("mothering sunday 2024", dt(2024, 3, 10)),
        ("yom hazikaron 2024", dt(2024, 5, 12)),  # kept on Monday 13 May, from its eve
        ("clean monday 2024", dt(2024, 3, 18)),
        ("taanit esther 2024", dt(2024, 3, 21)),  # a dawn fast: the day itself
        ("fast of gedaliah 2024", dt(2024, 10, 6)),  # 3 Tishrei a Saturday: on Sunday
        ("mid-autumn festival 2024", dt(2024, 9, 17)),
        ("dragon boat festival 2023", dt(2023, 6, 22)),
        ("lantern festival 2025", dt(2025, 2, 12)),
        ("qingming 2024", dt(2024, 4, 4)),
        ("vishu day 2024", dt(2024, 4, 14)),  # the Sun entered Aries after sunset on the 13th
        ("akshaya tritiya 2024", dt(2024, 5, 10)),
    ],
)
def test_more_named_days(text: str, want: datetime) -> None:
    assert at(text) == want


@pytest.mark.parametrize(
    ("text", "days", "clock"),
    [
        ("twice a week on mon and thu", {0, 3}, (9, 0)),
        ("3 times a week on mon, wed and fri at 7am", {0, 2, 4}, (7, 0)),
    ],
)
def test_times_a_week_on_named_days(text: str, days: set[int], clock: tuple[int, int]) -> None:
    got = runs(text, 8)
    assert {r.weekday() for r in got} == days
    assert {(r.hour, r.minute) for r in got} == {clock}


def test_times_a_week_that_do_not_match_the_days_are_not_guessed() -> None:
    assert parse_recurrence("twice a week on monday", now=NOW, tz=TZ) is None


@pytest.mark.parametrize("text", ["semi-annually", "half-yearly"])
def test_half_yearly_words(text: str) -> None:
    got = runs(text, 3)
    assert [(r.year * 12 + r.month) - (got[0].year * 12 + got[0].month) for r in got] == [0, 6, 12]


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("world water day", dt(2027, 3, 22)),
        ("mandela day 2027", dt(2027, 7, 18)),
        ("orthodox christmas", dt(2027, 1, 7)),
        ("parents day 2024", dt(2024, 7, 28)),
        ("yoga day", dt(2027, 6, 21)),
    ],
)
def test_observances(text: str, want: datetime) -> None:
    assert at(text) == want


def test_an_observance_word_alone_is_no_time() -> None:
    got = split_when("remind me to do yoga tomorrow at 7", now=NOW, tz=TZ)
    assert got is not None and got.rest == "do yoga"
    assert got.schedule == datetime(2026, 11, 24, 19, 0, tzinfo=Z)


@pytest.mark.parametrize(
    ("text", "rest"),
    [
        ("remind me that I lent him money", None),
        ("I had an epiphany", None),
        ("remind me that rakhi owes me money", None),
        ("remind me that vishu owes me money", None),
        ("ping me about the advent calendar tomorrow", "the advent calendar"),
        ("remind me my assumption was wrong tomorrow", "my assumption was wrong"),
    ],
)
def test_holiday_names_that_are_ordinary_words_need_their_phrase(
    text: str, rest: str | None
) -> None:
    """ "Lent", "advent", "epiphany", "assumption" and "Rakhi" are words and names too: only
    the day's own phrase ("the start of lent", "advent sunday") names the day."""
    got = split_when(text, now=NOW, tz=TZ)
    assert (got.rest if got else None) == rest
    assert at("the start of lent") == dt(2027, 2, 10)
    assert at("advent sunday") == dt(2026, 11, 29)


# ---------------------------------------------------------------- bounds, "-ish", parts of days


@pytest.mark.parametrize(
    ("text", "delta"),
    [
        ("in a little over an hour", timedelta(hours=1)),
        ("in just under 2 hours", timedelta(hours=2)),
        ("in more than 20 minutes", timedelta(minutes=20)),
        ("in less than half an hour", timedelta(minutes=30)),
        ("in slightly over 3 days", timedelta(days=3)),
        ("a bit more than an hour from now", timedelta(hours=1)),
        ("at least 2 hours from now", timedelta(hours=2)),
        ("no more than 45 minutes from now", timedelta(minutes=45)),
    ],
)
def test_a_bound_on_a_quantity_reads_the_quantity(text: str, delta: timedelta) -> None:
    """ "over", "under", "more/less than", "at least/most" with any hedge before them: the
    quantity said is the time (as "within 2 hours" already is)."""
    assert at(text) == (NOW + delta).replace(tzinfo=None)


@pytest.mark.parametrize(
    ("text", "same_as"),
    [
        ("6pm-ish", "around 6pm"),
        ("noonish", "around noon"),
        ("tomorrow 8ish", "tomorrow around 8"),
        ("5ish", "around 5"),
        ("friday at 7-ish", "friday at around 7"),
        ("midnight-ish", "around midnight"),
    ],
)
def test_ish_after_a_clock_is_around_it(text: str, same_as: str) -> None:
    want = at(same_as)
    assert want is not None, same_as
    assert at(text) == want


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("20 of next month", dt(2026, 12, 20)),
        ("the 3 of next month", dt(2026, 12, 3)),
        ("on the 31 of next month at 5pm", dt(2026, 12, 31, 17)),
        ("28 of this month", dt(2026, 11, 28)),
        ("the 2 of the following month", dt(2026, 12, 2)),
    ],
)
def test_a_plain_day_number_of_a_relative_month(text: str, want: datetime) -> None:
    assert at(text) == want


def test_a_plain_day_number_of_a_relative_month_must_exist() -> None:
    assert at("31 of this month") is None  # November has 30 days


@pytest.mark.parametrize(
    ("text", "same_as"),
    [
        ("the night before christmas", "december 24 at night"),
        ("the morning after christmas", "december 26 in the morning"),
        ("the evening before new year's day", "december 31 in the evening"),
        ("the afternoon after next friday", "saturday 5 december in the afternoon"),
        ("on the morning before thanksgiving", "november 25 in the morning"),
    ],
)
def test_a_part_of_the_day_before_or_after_a_day(text: str, same_as: str) -> None:
    want = at(same_as)
    assert want is not None, same_as
    assert at(text) == want


@pytest.mark.parametrize(
    "text", ["the morning after 3pm", "the evening before my birthday", "the night before 9am"]
)
def test_a_part_of_the_day_needs_a_day_to_be_before_or_after(text: str) -> None:
    assert at(text) is None


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("fri 3p", dt(2026, 11, 27, 15)),
        ("tomorrow 7a", dt(2026, 11, 24, 7)),
        ("saturday 11a", dt(2026, 11, 28, 11)),
        ("dec 3 9p", dt(2026, 12, 3, 21)),
    ],
)
def test_a_one_letter_meridiem_after_a_day(text: str, want: datetime) -> None:
    assert at(text) == want


@pytest.mark.parametrize("text", ["3a", "section 4a", "5p"])
def test_a_one_letter_meridiem_alone_is_no_time(text: str) -> None:
    assert at(text) is None


@pytest.mark.parametrize(
    ("text", "weekdays"),
    [
        ("every tue/thu", [1, 3, 1, 3]),
        ("mondays/wednesdays at 6pm", [0, 2, 0, 2]),  # 6pm today is still ahead
        ("every mon / wed / fri", [2, 4, 0, 2]),
    ],
)
def test_weekdays_listed_with_slashes(text: str, weekdays: list[int]) -> None:
    assert [r.weekday() for r in runs(text)] == weekdays


@pytest.mark.parametrize(
    ("text", "days"),
    [
        ("every second-to-last friday of the month", [18, 22, 19, 19]),
        ("the third-to-last day of every month", [28, 29, 29, 26]),
    ],
)
def test_hyphenated_to_last(text: str, days: list[int]) -> None:
    assert [r.day for r in runs(text)] == days


@pytest.mark.parametrize("text", ["the morning after", "friday before", "at 5 until", "noon from"])
def test_a_phrase_ending_in_a_pointing_word_is_incomplete(text: str) -> None:
    """ "after", "before", "from", "until" point at a time; with none after them the
    phrase names no time ("the morning after" what?)."""
    assert at(text) is None


def test_a_pointing_word_stays_in_the_message_when_its_object_is_no_time() -> None:
    got = split_when("remind me friday before the exam", now=NOW, tz=TZ)
    assert got is not None and got.schedule == datetime(2026, 11, 27, 9, 0, tzinfo=Z)
    assert got.rest == "before the exam"


# ---------------------------------------------------------------- meals, bedtime, business days


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("tomorrow at breakfast", dt(2026, 11, 24, 8)),
        ("after breakfast tomorrow", dt(2026, 11, 24, 9)),
        ("at dinner", dt(2026, 11, 23, 19)),
        ("friday dinnertime", dt(2026, 11, 27, 19)),
        ("after dinner on saturday", dt(2026, 11, 28, 20)),
        ("at supper time", dt(2026, 11, 23, 19)),
        ("before bed", dt(2026, 11, 23, 22)),
        ("tomorrow at bedtime", dt(2026, 11, 24, 22)),
        ("before going to bed on sunday", dt(2026, 11, 29, 22)),
    ],
)
def test_meals_and_bedtime_are_times_of_day(text: str, want: datetime) -> None:
    assert at(text) == want


@pytest.mark.parametrize(
    ("message", "rest", "when"),
    [
        ("remind me to make lunch tomorrow", "make lunch", dt(2026, 11, 24, 9)),
        ("remind me to cook dinner on friday", "cook dinner", dt(2026, 11, 27, 9)),
        ("remind me to take my pills after dinner", "take my pills", dt(2026, 11, 23, 20)),
        ("remind me at breakfast tomorrow to call Ana", "call Ana", dt(2026, 11, 24, 8)),
        ("remind me to make the bed tomorrow", "make the bed", dt(2026, 11, 24, 9)),
    ],
)
def test_a_meal_is_a_time_only_after_a_preposition(message: str, rest: str, when: datetime) -> None:
    """ "make lunch", "cook dinner": the meal is the thing to do; "at/after/before dinner"
    is when."""
    got = split_when(message, now=NOW, tz=TZ)
    assert got is not None
    assert got.rest == rest
    assert isinstance(got.schedule, datetime)
    assert got.schedule.astimezone(Z).replace(tzinfo=None) == when


@pytest.mark.parametrize("message", ["remind me to buy lunch", "remind me to book dinner"])
def test_a_meal_as_the_thing_to_do_is_no_time(message: str) -> None:
    assert split_when(message, now=NOW, tz=TZ) is None


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("in 3 business days", dt(2026, 11, 26, 10)),
        ("in 5 working days", dt(2026, 11, 30, 10)),
        ("5 business days from now", dt(2026, 11, 30, 10)),
        ("in 2 weekdays at 5pm", dt(2026, 11, 25, 17)),
        ("in one business day", dt(2026, 11, 24, 10)),
    ],
)
def test_business_days_skip_weekends(text: str, want: datetime) -> None:
    assert at(text) == want


def test_business_days_from_a_weekend() -> None:
    saturday = datetime(2026, 11, 28, 15, 0, tzinfo=Z)
    assert at("in 1 business day", now=saturday) == dt(2026, 11, 30, 15)
    assert at("in 6 business days", now=saturday) == dt(2026, 12, 7, 15)


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("1630 hours", dt(2026, 11, 23, 16, 30)),
        ("tomorrow at 0800 hours", dt(2026, 11, 24, 8)),
        ("1630h", dt(2026, 11, 23, 16, 30)),
        ("seventeen hundred hours", dt(2026, 11, 23, 17)),
        ("at 19 hundred", dt(2026, 11, 23, 19)),
    ],
)
def test_military_times(text: str, want: datetime) -> None:
    assert at(text) == want


@pytest.mark.parametrize("text", ["two hundred", "17 hundred"])
def test_a_hundred_alone_is_a_number(text: str) -> None:
    assert at(text) is None


@pytest.mark.parametrize(
    ("text", "same_as"),
    [
        ("this wknd", "this weekend"),
        ("next wknd", "next weekend"),
        ("tomorrow eve", "tomorrow evening"),
        ("this eve at 7", "this evening at 7"),
        ("friday eve", "friday evening"),
    ],
)
def test_chat_spellings(text: str, same_as: str) -> None:
    want = at(same_as)
    assert want is not None, same_as
    assert at(text) == want


def test_eve_of_a_holiday_is_still_the_day_before() -> None:
    assert at("christmas eve") == dt(2026, 12, 24)
    assert at("new year's eve") == dt(2026, 12, 31)


@pytest.mark.parametrize(
    ("text", "hour"),
    [
        ("every day after dinner", 20),
        ("every day at breakfast", 8),
        ("daily at supper time", 19),
        ("every weekday at lunchtime", 12),
        ("every night before bed", 22),
        ("every sunday after breakfast", 9),
    ],
)
def test_meals_and_bedtime_in_recurrences(text: str, hour: int) -> None:
    got = runs(text, 3)
    assert {(r.hour, r.minute) for r in got} == {(hour, 0)}


# ---------------------------------------------------------------- times inside a message


def _split(message: str) -> tuple[datetime | None, str | None]:
    got = split_when(message, now=NOW, tz=TZ)
    if got is None:
        return None, None
    assert isinstance(got.schedule, datetime), message
    return got.schedule.astimezone(Z).replace(tzinfo=None), got.rest


@pytest.mark.parametrize(
    ("message", "when", "rest"),
    [
        ("remind me to take the 8:15 train tomorrow", dt(2026, 11, 24), "take the 8:15 train"),
        (
            "remind me about the 3 pm call in 10 minutes",
            dt(2026, 11, 23, 10, 10),
            "the 3 pm call",
        ),
        (
            "remind me on friday about my 10am dentist visit",
            dt(2026, 11, 27),
            "my 10am dentist visit",
        ),
        ("ping me tonight about the 6:30 bus", dt(2026, 11, 23, 18), "the 6:30 bus"),
    ],
)
def test_a_time_that_describes_a_thing_is_not_the_reminders_time(
    message: str, when: datetime, rest: str
) -> None:
    """ "the 8:15 train", "my 10am dentist visit": a time between a determiner and a noun
    names the thing; another time in the message is when to remind."""
    assert _split(message) == (when, rest)


@pytest.mark.parametrize(
    ("message", "when", "rest"),
    [
        (
            "remind me to bring chairs to the 6pm party",
            dt(2026, 11, 23, 18),
            "bring chairs to the 6pm party",
        ),
        ("remind me about the 4:30 meeting", dt(2026, 11, 23, 16, 30), "the 4:30 meeting"),
    ],
)
def test_a_time_that_describes_a_thing_is_used_when_it_is_the_only_one(
    message: str, when: datetime, rest: str
) -> None:
    """With no other time, the thing's time is the time, and the thing keeps its words."""
    assert _split(message) == (when, rest)


@pytest.mark.parametrize(
    ("message", "when", "rest"),
    [
        (
            "remind me 2 days before my dentist appointment on the 20th",
            dt(2026, 12, 18),
            "my dentist appointment on the 20th",
        ),
        (
            "remind me 30 minutes before my flight tomorrow at 6pm",
            dt(2026, 11, 24, 17, 30),
            "my flight tomorrow at 6pm",
        ),
        (
            "remind me a day before the rent is due on dec 1",
            dt(2026, 11, 30),
            "the rent is due on dec 1",
        ),
        (
            "remind me an hour after the game starts at 8pm",
            dt(2026, 11, 23, 21),
            "the game starts at 8pm",
        ),
    ],
)
def test_an_offset_from_an_event_with_its_time(message: str, when: datetime, rest: str) -> None:
    """ "2 days before <event> on the 20th": the event's time moved by the offset."""
    assert _split(message) == (when, rest)


@pytest.mark.parametrize(
    "message",
    [
        "remind me to leave 2 hours before my flight",
        "remind me 10 minutes before the meeting",
        "remind me a day after the party",
    ],
)
def test_an_offset_from_an_event_without_its_time_is_asked(message: str) -> None:
    """ "2 hours before my flight": the flight's time is not known, so no time is."""
    assert split_when(message, now=NOW, tz=TZ) is None


@pytest.mark.parametrize(
    ("message", "when", "rest"),
    [
        ("remind me tomorrow to call mom at 5", dt(2026, 11, 24, 17), "call mom"),
        ("remind me at 5 to call mom tomorrow", dt(2026, 11, 24, 17), "call mom"),
        (
            "remind me on friday to pick up the cake at 4pm",
            dt(2026, 11, 27, 16),
            "pick up the cake",
        ),
        ("at 9 remind me to stretch tomorrow", dt(2026, 11, 24, 9), "stretch"),
        (
            "ping me next monday, I need to pay rent at noon",
            dt(2026, 11, 30, 12),
            "I need to pay rent",
        ),
    ],
)
def test_a_day_and_a_time_of_day_said_apart_make_one_time(
    message: str, when: datetime, rest: str
) -> None:
    assert _split(message) == (when, rest)


@pytest.mark.parametrize(
    ("message", "when", "rest"),
    [
        (
            "remind me tomorrow that the store closes at 6",
            dt(2026, 11, 24),
            "the store closes at 6",
        ),
        ("remind me tomorrow about the meeting at 3", dt(2026, 11, 24), "the meeting at 3"),
        ("remind me on friday to plan next week", dt(2026, 11, 27), "plan next week"),
        ("remind me tonight to set an alarm for 6am", dt(2026, 11, 23, 18), "set an alarm for 6am"),
    ],
)
def test_a_second_time_that_is_part_of_what_to_say_stays_in_it(
    message: str, when: datetime, rest: str
) -> None:
    """After "that"/"about", or a second day, or a time already complete ("tonight"), the
    other time is part of the text, not the reminder's."""
    assert _split(message) == (when, rest)


@pytest.mark.parametrize(
    "message", ["remind me to swim in the spring tomorrow", "remind me next friday tomorrow"]
)
def test_two_days_side_by_side_are_asked_about(message: str) -> None:
    assert split_when(message, now=NOW, tz=TZ) is None


@pytest.mark.parametrize(
    ("message", "expr", "rest"),
    [
        ("remind me at 7pm to water plants every day", "0 19 * * *", "water plants"),
        ("remind me daily to take pills at 8am", "0 8 * * *", "take pills"),
        (
            "remind me every friday to submit the timesheet at 4pm",
            "0 16 * * 5",
            "submit the timesheet",
        ),
        ("water the plants every day", "0 9 * * *", "water the plants"),
    ],
)
def test_a_rhythm_and_its_time_of_day_said_apart(message: str, expr: str, rest: str) -> None:
    got = split_when(message, now=NOW, tz=TZ)
    assert got is not None and isinstance(got.schedule, Recurrence)
    assert getattr(got.schedule.spec, "expr", None) == expr
    assert got.rest == rest


@pytest.mark.parametrize(
    ("message", "when", "rest"),
    [
        ("remind me to read chapter 7 tomorrow", dt(2026, 11, 24), "read chapter 7"),
        ("remind me to buy an iPhone 15 next week", dt(2026, 11, 30), "buy an iPhone 15"),
        ("remind me to review PR 42 tomorrow at 10", dt(2026, 11, 24, 10), "review PR 42"),
        ("remind me to go to gate 12 on friday", dt(2026, 11, 27), "go to gate 12"),
        ("remind me to call 555-1234 tomorrow morning", dt(2026, 11, 24), "call 555-1234"),
    ],
)
def test_numbers_that_name_things_are_not_hours(message: str, when: datetime, rest: str) -> None:
    assert _split(message) == (when, rest)


def test_a_range_of_clock_digits_is_still_a_range() -> None:
    assert at("930-1130 tomorrow") == dt(2026, 11, 24, 9, 30)
    assert at("0900-1700") == dt(2026, 11, 24, 9)


def test_in_the_season() -> None:
    assert at("in the spring") == at("this spring") == dt(2027, 3, 20)
    assert at("in the summer") == dt(2027, 6, 21)


@pytest.mark.parametrize(
    ("text", "want"),
    [
        (
            "the next 4 sundays at 11",
            [dt(2026, 11, 29, 11), *(dt(2026, 12, d, 11) for d in (6, 13, 20))],
        ),
        (
            "on the next three fridays at 5pm",
            [dt(2026, 11, 27, 17), dt(2026, 12, 4, 17), dt(2026, 12, 11, 17)],
        ),
        ("for the coming 2 mornings at 7", [dt(2026, 11, 24, 7), dt(2026, 11, 25, 7)]),
        ("the next 2 days", [dt(2026, 11, 24), dt(2026, 11, 25)]),
        # beside a rhythm it ends the rhythm
        (
            "every day at 8 for the next 3 days",
            [dt(2026, 11, 24, 8), dt(2026, 11, 25, 8), dt(2026, 11, 26, 8)],
        ),
    ],
)
def test_the_next_n_days_of_a_kind_repeat_that_many_times(text: str, want: list[datetime]) -> None:
    assert runs(text, 10) == want


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("every year on Emil's birthday, january 19", dt(2027, 1, 19)),
        ("remind me every year on march 3 on Ana's birthday", dt(2027, 3, 3)),
        ("annually on our anniversary, june 3rd", dt(2027, 6, 3)),
    ],
)
def test_a_yearly_occasion_is_on_the_day_said_beside_it(text: str, want: datetime) -> None:
    got = split_when(text, now=NOW, tz=TZ)
    assert got is not None and isinstance(got.schedule, Recurrence)
    assert runs_of(got.schedule, 1) == [want]


@pytest.mark.parametrize(
    "text", ["remind me every year on his birthday", "yearly on our anniversary call mum"]
)
def test_a_yearly_occasion_without_its_day_is_no_first_of_january(text: str) -> None:
    got = split_when(text, now=NOW, tz=TZ)
    assert got is None or not isinstance(got.schedule, Recurrence)


@pytest.mark.parametrize(
    ("text", "want"),
    [
        # a clock as many languages say one, after "at"
        ("at 17 hours", dt(2026, 11, 23, 17)),
        ("tomorrow at 8 hours", dt(2026, 11, 24, 8)),
        ("friday at 9 hours", dt(2026, 11, 27, 9)),
        # a span otherwise
        ("in 8 hours", dt(2026, 11, 23, 18)),
        ("in one hour and half", dt(2026, 11, 23, 11, 30)),
        ("in 2 hours and half", dt(2026, 11, 23, 12, 30)),
    ],
)
def test_hours_as_a_clock_and_as_a_span(text: str, want: datetime) -> None:
    assert at(text) == want


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("every tue+fri 19h", [dt(2026, 11, 24, 19), dt(2026, 11, 27, 19)]),
        ("every monday at 7h30", [dt(2026, 11, 30, 7, 30), dt(2026, 12, 7, 7, 30)]),
        ("every mon/wed at 18h", [dt(2026, 11, 23, 18), dt(2026, 11, 25, 18)]),
    ],
)
def test_clocks_written_with_h_in_a_rhythm(text: str, want: list[datetime]) -> None:
    assert runs(text, 2) == want


def test_every_2h_is_still_a_rhythm_of_hours() -> None:
    assert runs("every 2h", 2) == [dt(2026, 11, 23, 12), dt(2026, 11, 23, 14)]


def test_every_90m_is_a_rhythm_of_minutes() -> None:
    assert runs("every 90m", 2) == [dt(2026, 11, 23, 11, 30), dt(2026, 11, 23, 13)]
    assert runs("every 3 months", 1) != runs("every 3m", 1)


def test_three_quarters_of_an_hour_is_no_clock() -> None:
    assert split_when("delay the pizza by three quarters of an hour", now=NOW, tz=TZ) is None


@pytest.mark.parametrize("text", ["in the next 2 days", "within the next 3 days"])
def test_a_time_within_the_next_days_is_no_rhythm(text: str) -> None:
    assert parse_recurrence(text, now=NOW, tz=TZ) is None


@pytest.mark.parametrize(
    ("text", "zone", "want"),
    [
        # The equinox or solstice's own day where the phrase is read, not a fixed date.
        ("summer 2012", "America/New_York", date(2012, 6, 20)),  # 23:09 UTC on the 20th
        ("summer 2012", "Europe/Berlin", date(2012, 6, 21)),
        ("spring 2024", "America/New_York", date(2024, 3, 19)),  # 03:06 UTC on the 20th
        ("spring of 2024", "Asia/Tokyo", date(2024, 3, 20)),
        ("winter 2027", "Europe/Berlin", date(2027, 12, 22)),  # 02:42 UTC on the 22nd
        ("winter 2027", "America/Los_Angeles", date(2027, 12, 21)),
        ("fall 2026", "Europe/London", date(2026, 9, 23)),  # 00:05 UTC on the 23rd
        ("the fall of 2026", "America/Chicago", date(2026, 9, 22)),
    ],
)
def test_a_season_begins_on_its_equinox_or_solstice_where_read(
    text: str, zone: str, want: date
) -> None:
    got = parse_instant(text, now=NOW, tz=zone)
    assert got is not None and got.astimezone(ZoneInfo(zone)).date() == want


@pytest.mark.parametrize(
    ("message", "when", "rest"),
    [
        (
            "remind me to pack for the 3 day trip on thursday",
            dt(2026, 11, 26),
            "pack for the 3 day trip",
        ),
        (
            "remind me to start the 30 minute timer at 4",
            dt(2026, 11, 23, 16),
            "start the 30 minute timer",
        ),
        (
            "remind me to book the 2 week holiday tomorrow",
            dt(2026, 11, 24),
            "book the 2 week holiday",
        ),
    ],
)
def test_a_number_before_a_unit_is_a_quantity(message: str, when: datetime, rest: str) -> None:
    """ "a 3 day trip", "the 30 minute timer": the number measures the thing."""
    assert _split(message) == (when, rest)


def test_a_rhythm_and_its_hours_said_apart() -> None:
    got = split_when("remind me every 3 hours to drink water between 9 and 5", now=NOW, tz=TZ)
    assert got is not None and isinstance(got.schedule, Recurrence)
    assert [r.hour for r in runs_of(got.schedule, 4)] == [12, 15, 9, 12]
    assert got.rest == "drink water"


def test_a_rhythm_for_the_next_unit_ends() -> None:
    got = split_when(
        "remind me every 10 minutes for the next hour to check the oven", now=NOW, tz=TZ
    )
    assert got is not None and isinstance(got.schedule, Recurrence)
    assert got.schedule.until == NOW + timedelta(hours=1)
    assert got.rest == "check the oven"
    every = parse_recurrence("every 5 minutes for the next minute", now=NOW, tz=TZ)
    assert every is not None and every.until == NOW + timedelta(minutes=1)


@pytest.mark.parametrize(
    ("text", "hour"), [("every weekday after work", 17), ("every monday after school", 15)]
)
def test_after_work_and_school_in_recurrences(text: str, hour: int) -> None:
    assert {r.hour for r in runs(text, 3)} == {hour}


def runs_of(sched: Recurrence, n: int) -> list[datetime]:
    return [r.astimezone(Z).replace(tzinfo=None) for r in sched.next_runs(NOW, n)]


@pytest.mark.parametrize(
    ("text", "want"),
    [
        # alone, a weekend starts where its span does (Friday 18:00, as Duckling reads it)
        ("this weekend", dt(2026, 11, 27, 18)),
        ("over the weekend", dt(2026, 11, 27, 18)),
        ("next weekend", dt(2026, 12, 4, 18)),
        # with a time of day or a part of the day, it is that time on its Saturday
        ("this weekend at 11", dt(2026, 11, 28, 11)),
        ("the weekend at 10am", dt(2026, 11, 28, 10)),
        ("next weekend at 3pm", dt(2026, 12, 5, 15)),
        ("this weekend in the morning", dt(2026, 11, 28, 9)),
        ("weekend at 7", dt(2026, 11, 28, 19)),
    ],
)
def test_a_weekend_and_a_time_of_day_on_it(text: str, want: datetime) -> None:
    assert at(text) == want
