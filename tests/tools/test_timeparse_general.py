"""More of the time language, kind by kind, written from the grammar (issue 16, held-out gaps).

Each rule is tested with several phrasings invented here, not taken from a corpus.
Reference: Monday 23 Nov 2026, 10:00 in Europe/Berlin.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from tools.schedule import Cron
from tools.timeparse import parse_instant, parse_recurrence

TZ = "Europe/Berlin"
Z = ZoneInfo(TZ)
NOW = datetime(2026, 11, 23, 10, 0, tzinfo=Z)  # a Monday


def at(text: str, now: datetime = NOW) -> datetime | None:
    got = parse_instant(text, now=now, tz=TZ)
    return got.astimezone(Z).replace(tzinfo=None) if got else None


def runs(text: str, n: int = 4, now: datetime = NOW) -> list[datetime]:
    sched = parse_recurrence(text, now=now, tz=TZ)
    assert sched is not None, text
    return [r.astimezone(Z).replace(tzinfo=None) for r in sched.next_runs(now, n)]


# ---------------------------------------------------------------- "… time", "or so"


@pytest.mark.parametrize(
    ("text", "delta"),
    [
        ("in three weeks time", timedelta(weeks=3)),
        ("in 3 weeks' time", timedelta(weeks=3)),
        ("in two days time", timedelta(days=2)),
        ("in an hour's time", timedelta(hours=1)),
        ("in 10 minutes time", timedelta(minutes=10)),
        ("in an hour or so", timedelta(hours=1)),
        ("in 20 minutes or so", timedelta(minutes=20)),
        ("in a couple of days or so", timedelta(days=2)),
    ],
)
def test_offset_with_time_or_or_so(text: str, delta: timedelta) -> None:
    assert at(text) == (NOW + delta).replace(tzinfo=None)


def test_or_so_after_a_clock_keeps_the_clock() -> None:
    assert at("tomorrow at 5pm or so") == datetime(2026, 11, 24, 17, 0)
    assert at("friday around 3pm or so") == datetime(2026, 11, 27, 15, 0)


# ---------------------------------------------------------------- "this coming", "following"


@pytest.mark.parametrize(
    ("text", "want"),
    [
        # "this coming X" is the next X to come, as "coming X" is.
        ("this coming friday", datetime(2026, 11, 27, 9, 0)),
        ("this coming wednesday at 3pm", datetime(2026, 11, 25, 15, 0)),
        ("this upcoming sunday", datetime(2026, 11, 29, 9, 0)),
        # "the following X" is read like "next X" (the X of next week: README's convention).
        ("the following friday", datetime(2026, 12, 4, 9, 0)),
        ("on the following tuesday at 8", datetime(2026, 12, 1, 8, 0)),
    ],
)
def test_this_coming_and_following_weekday(text: str, want: datetime) -> None:
    assert at(text) == want
    if text.startswith("the following"):
        assert at(text) == at(text.replace("the following", "next"))


# ---------------------------------------------------------------- "<weekday> closest to <date>"


@pytest.mark.parametrize(
    ("text", "want"),
    [
        # Christmas 2026 is a Friday: Monday 28 Dec is 3 days away, Monday 21 Dec 4.
        ("the monday closest to christmas", datetime(2026, 12, 28, 9, 0)),
        ("the friday nearest to jan 5", datetime(2027, 1, 8, 9, 0)),
        ("the wednesday nearest dec 13", datetime(2026, 12, 16, 9, 0)),
        ("the sunday closest to march 3", datetime(2027, 2, 28, 9, 0)),
    ],
)
def test_weekday_closest_to_a_date(text: str, want: datetime) -> None:
    assert at(text) == want


# ---------------------------------------------------------------- month + 'yy


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("mar '27", datetime(2027, 3, 1, 9, 0)),
        ("march '28", datetime(2028, 3, 1, 9, 0)),
        ("in sept '27", datetime(2027, 9, 1, 9, 0)),
        ("dec '26", datetime(2026, 12, 1, 9, 0)),
    ],
)
def test_month_with_apostrophe_year(text: str, want: datetime) -> None:
    assert at(text) == want


# ---------------------------------------------------------------- weekday vs a full date


@pytest.mark.parametrize(
    ("text", "want"),
    [
        # A full date (day, month, year) wins over a weekday that does not match it, as a
        # date without a year already does: 3 Dec 2026 is a Thursday, 9 Jan 2027 a Saturday.
        ("monday, 3 december 2026", datetime(2026, 12, 3, 9, 0)),
        ("tue 9th jan 2027", datetime(2027, 1, 9, 9, 0)),
        ("friday 12/03/2026 at 5pm", datetime(2026, 12, 3, 17, 0)),
    ],
)
def test_full_date_wins_over_a_mismatched_weekday(text: str, want: datetime) -> None:
    assert at(text) == want


def test_matching_weekday_and_full_date_still_agree() -> None:
    assert at("thursday, 3 december 2026") == datetime(2026, 12, 3, 9, 0)


# ---------------------------------------------------------------- "early" / "late" after a day


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("tomorrow early", datetime(2026, 11, 24, 6, 0)),
        ("friday late", datetime(2026, 11, 27, 21, 0)),
        ("dec 6 late", datetime(2026, 12, 6, 21, 0)),
        ("the 30th early", datetime(2026, 11, 30, 6, 0)),
    ],
)
def test_early_and_late_after_a_day(text: str, want: datetime) -> None:
    assert at(text) == want


@pytest.mark.parametrize("text", ["early", "late", "very late", "too late", "late again"])
def test_early_and_late_alone_are_not_times(text: str) -> None:
    assert at(text) is None


# ---------------------------------------------------------------- approximately <clock>


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("thursday approximately 17:30", datetime(2026, 11, 26, 17, 30)),
        ("tomorrow approx 8am", datetime(2026, 11, 24, 8, 0)),
        ("dec 14 roughly at 16:00", datetime(2026, 12, 14, 16, 0)),
    ],
)
def test_approximately_before_a_clock(text: str, want: datetime) -> None:
    assert at(text) == want


# ---------------------------------------------------------------- recurrences


@pytest.mark.parametrize(
    ("text", "first", "gap_months"),
    [
        ("every quarter", datetime(2027, 2, 1, 9, 0), 3),
        ("each quarter on the 15th", datetime(2027, 2, 15, 9, 0), 3),
        ("once a quarter at 10am", datetime(2027, 2, 1, 10, 0), 3),
    ],
)
def test_every_quarter(text: str, first: datetime, gap_months: int) -> None:
    got = runs(text, 3)
    assert got[0] == first
    assert [(g.year * 12 + g.month) - (first.year * 12 + first.month) for g in got] == [
        0,
        gap_months,
        2 * gap_months,
    ]


@pytest.mark.parametrize("text", ["every fortnight", "each fortnight", "once a fortnight"])
def test_every_fortnight_is_every_two_weeks(text: str) -> None:
    got = runs(text, 3)
    assert got[1] - got[0] == timedelta(weeks=2)
    assert got[2] - got[1] == timedelta(weeks=2)


def test_every_fortnight_on_a_weekday() -> None:
    got = runs("every fortnight on thursday at 6pm", 3)
    assert [g.weekday() for g in got] == [3, 3, 3]
    assert got[1] - got[0] == timedelta(weeks=2)
    assert got[0].hour == 18


@pytest.mark.parametrize(
    ("text", "n", "last"),
    [
        # An end condition may come first: "for the next 5 days every day at 8".
        ("for the next 5 days every day at 8", 5, datetime(2026, 11, 28, 8, 0)),
        ("for 3 weeks, every monday", 3, datetime(2026, 12, 14, 9, 0)),
        ("until christmas every day at 9", 32, datetime(2026, 12, 25, 9, 0)),
        ("until friday, daily at 7pm", 5, datetime(2026, 11, 27, 19, 0)),
    ],
)
def test_end_condition_first(text: str, n: int, last: datetime) -> None:
    got = runs(text, 60)
    assert len(got) == n
    assert got[-1] == last


@pytest.mark.parametrize(
    "text", ["every hour on the hour", "hourly on the hour", "each hour on the hour"]
)
def test_on_the_hour(text: str) -> None:
    got = runs(text, 3)
    assert got[0] == datetime(2026, 11, 23, 11, 0)
    assert all(g.minute == 0 for g in got)
    assert got[1] - got[0] == timedelta(hours=1)


@pytest.mark.parametrize("text", ["every quarter hour", "every quarter of an hour"])
def test_quarter_of_an_hour_is_not_a_quarter_year(text: str) -> None:
    got = runs(text, 2)
    assert got[1] - got[0] == timedelta(minutes=15)


# ---------------------------------------------------------------- a lone part of day


@pytest.mark.parametrize("text", ["morning", "night", "evening", "Afternoon"])
def test_a_lone_part_of_day_is_not_a_time(text: str) -> None:
    # A greeting ("morning!", "night all") more often than a time; Duckling marks it latent.
    assert at(text) is None


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("this evening", datetime(2026, 11, 23, 18, 0)),
        ("at night", datetime(2026, 11, 23, 18, 0)),
        ("in the morning", datetime(2026, 11, 24, 9, 0)),
        ("friday night", datetime(2026, 11, 27, 18, 0)),
    ],
)
def test_a_part_of_day_with_more_words_is_a_time(text: str, want: datetime) -> None:
    assert at(text) == want


# ---------------------------------------------------------------- weekday said on that weekday


def test_this_weekday_said_on_that_weekday_is_today() -> None:
    # NOW is Monday 10:00: "this monday" is today; a bare "monday" stays the next one.
    assert at("this monday") == datetime(2026, 11, 23, 10, 0)  # 09:00 passed: now
    assert at("this monday at 5pm") == datetime(2026, 11, 23, 17, 0)
    assert at("monday") == datetime(2026, 11, 30, 9, 0)
    assert at("this tuesday") == datetime(2026, 11, 24, 9, 0)


@pytest.mark.parametrize(
    ("text", "want"),
    [
        # A part of day still ahead today, on today's weekday, is today's.
        ("monday evening", datetime(2026, 11, 23, 18, 0)),
        ("monday afternoon", datetime(2026, 11, 23, 12, 0)),
        ("monday night", datetime(2026, 11, 23, 18, 0)),
        # … and a passed one is next week's.
        ("monday morning", datetime(2026, 11, 30, 9, 0)),
    ],
)
def test_weekday_and_part_of_day_on_that_weekday(text: str, want: datetime) -> None:
    assert at(text) == want


@pytest.mark.parametrize(
    "text", ["tomorrow in the small hours", "tomorrow in the wee hours", "tomorrow early hours"]
)
def test_small_and_wee_hours(text: str) -> None:
    got = at(text)
    # read like "in the early hours": early morning (06:00)
    assert got == datetime(2026, 11, 24, 6, 0)


# ---------------------------------------------------------------- working-day words


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("first thing tomorrow", datetime(2026, 11, 24, 9, 0)),
        ("tomorrow first thing", datetime(2026, 11, 24, 9, 0)),
        ("first thing in the morning", datetime(2026, 11, 24, 9, 0)),
        ("first thing friday", datetime(2026, 11, 27, 9, 0)),
        ("by end of day", datetime(2026, 11, 23, 17, 0)),
        ("end of day tomorrow", datetime(2026, 11, 24, 17, 0)),
        ("by the end of the day on friday", datetime(2026, 11, 27, 17, 0)),
        ("eod friday", datetime(2026, 11, 27, 17, 0)),
        ("cob tomorrow", datetime(2026, 11, 24, 17, 0)),
        ("close of business thursday", datetime(2026, 11, 26, 17, 0)),
        ("tomorrow as early as possible", datetime(2026, 11, 24, 6, 0)),
        ("as late as possible on friday", datetime(2026, 11, 27, 21, 0)),
    ],
)
def test_working_day_words(text: str, want: datetime) -> None:
    assert at(text) == want


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("early tomorrow", datetime(2026, 11, 24, 6, 0)),
        ("early friday", datetime(2026, 11, 27, 6, 0)),
        ("late friday", datetime(2026, 11, 27, 21, 0)),
        ("late on the 30th", datetime(2026, 11, 30, 21, 0)),
    ],
)
def test_early_and_late_before_a_day(text: str, want: datetime) -> None:
    assert at(text) == want


@pytest.mark.parametrize(
    ("text", "want"),
    [
        # A bound said after the time does not move it.
        ("tomorrow at 5pm at the latest", datetime(2026, 11, 24, 17, 0)),
        ("friday 9am at the earliest", datetime(2026, 11, 27, 9, 0)),
        ("dec 3 17:00 the earliest", datetime(2026, 12, 3, 17, 0)),
    ],
)
def test_at_the_earliest_or_latest(text: str, want: datetime) -> None:
    assert at(text) == want


def test_a_weekday_beside_a_far_off_full_date_is_still_a_conflict() -> None:
    # The full date wins only for a plausible reminder year, as a bare year does.
    assert at("friday 08.12.1707") is None


def test_a_past_full_date_still_wins_over_its_weekday() -> None:
    # 13 Nov 2016 was a Sunday: the date is what was meant (the caller refuses the past).
    assert at("mon, nov 13 2016 at 1:30 pm") == datetime(2016, 11, 13, 13, 30)


@pytest.mark.parametrize(
    ("text", "hours"),
    [
        ("3 times a day", [9, 15, 21]),
        ("three times a day", [9, 15, 21]),
        ("4 times per day", [9, 13, 17, 21]),
        ("once a day", [9]),
    ],
)
def test_n_times_a_day(text: str, hours: list[int]) -> None:
    got = runs(text, 12)
    assert sorted({g.hour for g in got}) == hours


@pytest.mark.parametrize(
    ("text", "gap"),
    [
        ("every second week", timedelta(weeks=2)),
        ("every second week on monday", timedelta(weeks=2)),
        ("every second day", timedelta(days=2)),
    ],
)
def test_every_second_unit(text: str, gap: timedelta) -> None:
    got = runs(text, 3)
    assert got[1] - got[0] == gap
    assert got[2] - got[1] == gap


@pytest.mark.parametrize(
    ("text", "delta"),
    [
        ("10 minutes out", timedelta(minutes=10)),
        ("a week out", timedelta(weeks=1)),
        ("2 hours out", timedelta(hours=2)),
    ],
)
def test_units_out_is_from_now(text: str, delta: timedelta) -> None:
    assert at(text) == (NOW + delta).replace(tzinfo=None)


@pytest.mark.parametrize("text", ["out", "10 out", "get out"])
def test_out_alone_is_not_a_time(text: str) -> None:
    assert at(text) is None


# ---------------------------------------------------------------- spelled "ten to five"


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("ten to five", datetime(2026, 11, 23, 16, 50)),
        ("at twenty to six", datetime(2026, 11, 23, 17, 40)),
        ("five to nine tomorrow", datetime(2026, 11, 24, 8, 55)),
        ("tomorrow at twenty-five to 4", datetime(2026, 11, 24, 15, 35)),
        ("quarter to five", datetime(2026, 11, 23, 16, 45)),
    ],
)
def test_spelled_minutes_to_an_hour_are_a_clock(text: str, want: datetime) -> None:
    assert at(text) == want


def test_digits_to_digits_stay_a_range() -> None:
    # "10 to 5" is opening hours: its start (10:00; passed today, so tomorrow).
    assert at("10 to 5") == datetime(2026, 11, 24, 10, 0)
    assert at("from 10 to 5") == datetime(2026, 11, 24, 10, 0)


@pytest.mark.parametrize(
    ("text", "want"),
    [
        # Beside a day, "half past 4" is a waking hour, as "friday at 4" is (README).
        ("half past 4 on friday", datetime(2026, 11, 27, 16, 30)),
        ("tomorrow at quarter past 7", datetime(2026, 11, 24, 19, 15)),
        ("tomorrow at half past 9", datetime(2026, 11, 24, 9, 30)),
        ("friday at quarter to 8", datetime(2026, 11, 27, 7, 45)),
        ("half past 4am on friday", datetime(2026, 11, 27, 4, 30)),
    ],
)
def test_past_and_to_beside_a_day_are_waking_hours(text: str, want: datetime) -> None:
    assert at(text) == want


# ---------------------------------------------------------------- early/mid/late <period>


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("early next month", datetime(2026, 12, 1, 9, 0)),
        ("mid next month", datetime(2026, 12, 11, 9, 0)),
        ("late next month", datetime(2026, 12, 21, 9, 0)),
        ("mid-next month", datetime(2026, 12, 11, 9, 0)),
        ("early next week", datetime(2026, 11, 30, 9, 0)),
        ("late next week", datetime(2026, 12, 4, 9, 0)),
        ("early next year", datetime(2027, 1, 1, 9, 0)),
        ("late next year", datetime(2027, 9, 1, 9, 0)),
    ],
)
def test_early_mid_late_of_a_relative_period(text: str, want: datetime) -> None:
    # As "mid march" is the 11th: the start of the period's first/second/last third.
    assert at(text) == want


@pytest.mark.parametrize(
    ("text", "want"),
    [
        # A sentence's final dot after a dotted clock that is no day.month.
        ("friday at 17.30.", datetime(2026, 11, 27, 17, 30)),
        ("dec 3 17.45.", datetime(2026, 12, 3, 17, 45)),
        ("thursday 3rd december approximately 17.30.", datetime(2026, 12, 3, 17, 30)),
        # … while "11.9." stays a dotted date.
        ("on 11.9.", datetime(2027, 9, 11, 9, 0)),
        ("next week's friday", datetime(2026, 12, 4, 9, 0)),
        ("this week's thursday", datetime(2026, 11, 26, 9, 0)),
    ],
)
def test_sentence_dot_and_weeks_weekday(text: str, want: datetime) -> None:
    assert at(text) == want


@pytest.mark.parametrize(
    ("text", "n", "first", "last"),
    [
        # A span as end condition, with the times said after it.
        ("every day for the next week at 7am", 7, datetime(2026, 11, 24, 7), None),
        ("daily for 3 days at 6pm", 3, datetime(2026, 11, 23, 18), datetime(2026, 11, 25, 18)),
        # The whole "from … until …" clause said first.
        (
            "from december until february every month",
            2,
            datetime(2026, 12, 1, 9),
            datetime(2027, 1, 1, 9),
        ),
        ("starting tomorrow, every day at 8 for 2 days", 2, datetime(2026, 11, 24, 8), None),
    ],
)
def test_spans_and_starts_around_the_rhythm(
    text: str, n: int, first: datetime, last: datetime | None
) -> None:
    got = runs(text, 60)
    assert len(got) == n
    assert got[0] == first
    if last is not None:
        assert got[-1] == last


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("2moro at 9", datetime(2026, 11, 24, 9, 0)),
        ("2morrow 5pm", datetime(2026, 11, 24, 17, 0)),
        ("tommorrow at noon", datetime(2026, 11, 24, 12, 0)),
        ("nxt friday", datetime(2026, 12, 4, 9, 0)),
        ("tomorrow arvo", datetime(2026, 11, 24, 12, 0)),
        ("this arvo at 3", datetime(2026, 11, 23, 15, 0)),
    ],
)
def test_chat_spellings(text: str, want: datetime) -> None:
    assert at(text) == want


@pytest.mark.parametrize("text", ["in a bit", "later today", "sometime", "soon"])
def test_vague_times_are_asked_not_guessed(text: str) -> None:
    assert at(text) is None


# "N times a day" with the times listed: the listed times are the schedule; a list that
# doesn't match the count is a contradiction to ask about, not a spread to guess.
@pytest.mark.parametrize(
    ("text", "hours"),
    [
        ("twice a day at 8 and 20", [(8, 0), (20, 0)]),
        ("twice a day at 8am and 8pm", [(8, 0), (20, 0)]),
        ("2 times a day at 7:30 and 19:45", [(7, 30), (19, 45)]),
        ("three times a day at 8, 13 and 19", [(8, 0), (13, 0), (19, 0)]),
        ("once a day at 6pm", [(18, 0)]),
        ("twice a day", [(9, 0), (21, 0)]),  # nothing listed: the waking-day spread
    ],
)
def test_times_a_day_with_the_times_listed(text: str, hours: list[tuple[int, int]]) -> None:
    sched = parse_recurrence(text, now=NOW, tz="Europe/Berlin")
    assert sched is not None, text
    runs = sched.next_runs(NOW, 2 * len(hours))
    got = sorted({(r.astimezone(Z).hour, r.astimezone(Z).minute) for r in runs})
    assert got == hours, text


@pytest.mark.parametrize(
    "text", ["twice a day at 8", "three times a day at 8 and 20", "2 times a day at 6"]
)
def test_times_a_day_with_a_different_number_of_times_is_refused(text: str) -> None:
    assert parse_recurrence(text, now=NOW, tz="Europe/Berlin") is None, text


# Times at different minutes: each said time runs, and no pairing of one's hour with
# another's minute ("7:30 and 19:45" never runs at 7:45 or 19:30).
@pytest.mark.parametrize(
    ("text", "per_day"),
    [
        ("every day at 7:30 and 19:45", {(7, 30), (19, 45)}),
        ("mondays and fridays at 7:30 and 19:45", {(7, 30), (19, 45)}),
        ("every month on the 1st and 15th at 7:30 and 19:45", {(7, 30), (19, 45)}),
        ("every christmas at 7:30 and 19:45", {(7, 30), (19, 45)}),
        ("every 2 days at 6:10, 12:20 and 18:40", {(6, 10), (12, 20), (18, 40)}),
    ],
)
def test_times_at_different_minutes_are_not_crossed(
    text: str, per_day: set[tuple[int, int]]
) -> None:
    sched = parse_recurrence(text, now=NOW, tz="Europe/Berlin")
    assert sched is not None, text
    runs = [r.astimezone(Z) for r in sched.next_runs(NOW, 12)]
    assert {(r.hour, r.minute) for r in runs} == per_day, text
    by_day: dict[object, int] = {}
    for r in runs:
        by_day[r.date()] = by_day.get(r.date(), 0) + 1
    assert max(by_day.values()) == len(per_day), text


@pytest.mark.parametrize(
    ("text", "want"),
    [
        # a clock to the second is a timestamp's, read as written: a model copying the
        # reference time "Mon 23 Nov 2026 10:30:20" meant 10:30, not 22:30
        ("Mon 23 Nov 2026 9:30:20 Europe/Berlin", datetime(2026, 11, 23, 9, 30, 20)),
        ("23 Nov 2026 9:45:00", datetime(2026, 11, 23, 9, 45)),
        ("5:00:00 pm", datetime(2026, 11, 23, 17)),
        # without the seconds, a morning clock already past today is still the evening's
        ("9:45", datetime(2026, 11, 23, 21, 45)),
    ],
)
def test_a_clock_to_the_second_is_read_as_written(text: str, want: datetime) -> None:
    assert at(text) == want


@pytest.mark.parametrize(
    ("text", "want"),
    [
        # a small-hours clock said with tonight or a night is after that evening
        ("at 02:30 tonight", datetime(2026, 11, 24, 2, 30)),
        ("tonight at 1am", datetime(2026, 11, 24, 1)),
        ("3am tonight", datetime(2026, 11, 24, 3)),
        ("friday night at 2am", datetime(2026, 11, 28, 2)),
        ("late tonight at 12:30am", datetime(2026, 11, 24, 0, 30)),
        ("last night at 3am", datetime(2026, 11, 23, 3)),
        # ... and no other clock moves
        ("tonight at 11", datetime(2026, 11, 23, 23)),
        ("friday night at 11pm", datetime(2026, 11, 27, 23)),
        ("midnight tonight", datetime(2026, 11, 24)),
        ("friday night at midnight", datetime(2026, 11, 28)),
    ],
)
def test_small_hours_after_an_evening_are_the_next_day(text: str, want: datetime) -> None:
    assert at(text) == want


@pytest.mark.parametrize(
    ("text", "want", "rest"),
    [
        ("end of day remind me to send the contract", datetime(2026, 11, 23, 17), "send the"),
        ("send the invoice end of the day", datetime(2026, 11, 23, 17), "send the invoice"),
        ("end of day", datetime(2026, 11, 23, 17), ""),
    ],
)
def test_end_of_day_is_a_time_without_a_preposition(text: str, want: datetime, rest: str) -> None:
    from tools.timeparse import split_when

    got = split_when(text, now=NOW, tz="Europe/Berlin")
    assert got is not None and got.schedule == want.replace(tzinfo=Z)
    assert got.rest.startswith(rest)


@pytest.mark.parametrize(
    "text", ["buy flowers mother's day", "boxing day sale", "take the day off"]
)
def test_a_day_named_as_a_thing_is_still_no_time(text: str) -> None:
    from tools.timeparse import split_when

    assert split_when(text, now=NOW, tz="Europe/Berlin") is None


@pytest.mark.parametrize(
    ("text", "first", "rest"),
    [
        # a rhythm of months or weeks said before the task, its day after it
        ("remind me every month to pay rent on the 1st at 9am", datetime(2026, 12, 1, 9), "pay"),
        ("remind me monthly to pay rent, on the 1st at 9am", datetime(2026, 12, 1, 9), "pay"),
        ("remind me weekly to call mum on sunday at 6pm", datetime(2026, 11, 29, 18), "call"),
    ],
)
def test_a_rhythm_and_its_day_said_apart_are_one_repeat(
    text: str, first: datetime, rest: str
) -> None:
    from tools.schedule import Schedule
    from tools.timeparse import split_when

    got = split_when(text, now=NOW, tz="Europe/Berlin")
    assert got is not None and isinstance(got.schedule, Schedule), got
    assert got.schedule.next_runs(NOW, 2)[0] == first.replace(tzinfo=Z)
    assert got.rest.startswith(rest)


def test_a_daily_rhythm_keeps_a_day_told_in_the_task() -> None:
    from tools.timeparse import split_when

    got = split_when("remind me every day to study for the exam on friday", now=NOW, tz=TZ)
    assert got is not None and "on friday" in got.rest


@pytest.mark.parametrize(
    ("text", "want"),
    [
        # a courtesy after a date is no thing the date describes ("the 3pm call")
        ("monday the 7th please", datetime(2026, 12, 7, 9)),
        ("the 7th pls", datetime(2026, 12, 7, 9)),
    ],
)
def test_a_courtesy_after_a_date_leaves_it_a_time(text: str, want: datetime) -> None:
    from tools.timeparse import split_when

    got = split_when(text, now=NOW, tz=TZ)
    assert got is not None and not got.thing and got.schedule == want.replace(tzinfo=Z)


@pytest.mark.parametrize(
    ("text", "want"),
    [
        # teatime: afternoon tea, as people in Britain say it
        ("at teatime on thursday", datetime(2026, 11, 26, 16)),
        ("tomorrow at tea time", datetime(2026, 11, 24, 16)),
        # a clock in words after a day counted in weeks ("a fortnight today")
        ("a fortnight today at half past ten", datetime(2026, 12, 7, 10, 30)),
        ("a week tomorrow, quarter to 3", datetime(2026, 12, 1, 14, 45)),
    ],
)
def test_teatime_and_a_worded_clock_after_a_counted_day(text: str, want: datetime) -> None:
    from tools.timeparse import parse_instant

    assert parse_instant(text, now=NOW, tz=TZ) == want.replace(tzinfo=Z)


@pytest.mark.parametrize(
    ("text", "expr"),
    [
        # "10 in the morning" is a clock, not a second day of the month ("1,10")
        ("first of each month, 10 in the morning", "0 10 1 * *"),
        ("on the 15th of every month 7 in the evening", "0 19 15 * *"),
        ("every sunday at teatime", "0 16 * * 0"),
        # a day list stays one
        ("on the 1st and 10th of each month", "0 9 1,10 * *"),
    ],
)
def test_an_hour_with_its_part_of_the_day_in_a_repeat(text: str, expr: str) -> None:
    from tools.schedule import Cron
    from tools.timeparse import parse_recurrence

    got = parse_recurrence(text, now=NOW, tz=TZ)
    assert got is not None and got.spec == Cron(expr), got


# ---------------------------------------------------------------- clocks as people write them


@pytest.mark.parametrize(
    ("text", "want"),
    [
        # four digits after "at" with a day: a 24-hour clock, not a year
        ("tmrw at 2030", datetime(2026, 11, 24, 20, 30)),
        ("friday at 2045", datetime(2026, 11, 27, 20, 45)),
        ("dec 3 at 1915", datetime(2026, 12, 3, 19, 15)),
        # a leading zero is a 24-hour clock: 08:00 (tomorrow, 8am has passed), never 20:00
        ("at 0800", datetime(2026, 11, 24, 8, 0)),
        ("at 0630", datetime(2026, 11, 24, 6, 30)),
    ],
)
def test_four_digit_clocks(text: str, want: datetime) -> None:
    assert at(text) == want


@pytest.mark.parametrize("text", ["in 2030", "march 3 2030", "2027-14"])
def test_four_digits_that_are_years_stay_years(text: str) -> None:
    got = at(text)
    assert got is None or got.year >= 2027, got


@pytest.mark.parametrize(
    ("text", "first"),
    [
        ("every saturday at 10 o clock", datetime(2026, 11, 28, 10, 0)),
        ("each saturday 10 oclock", datetime(2026, 11, 28, 10, 0)),
        ("every weekday at 1730", datetime(2026, 11, 23, 17, 30)),
        ("every day at 8.15", datetime(2026, 11, 24, 8, 15)),
        ("every month on the 5. at 10:00", datetime(2026, 12, 5, 10, 0)),
        ("every month on the 21. at 9am", datetime(2026, 12, 21, 9, 0)),
    ],
)
def test_a_repeats_clock_and_day_as_people_write_them(text: str, first: datetime) -> None:
    assert runs(text, 1) == [first]


@pytest.mark.parametrize(
    "text",
    [
        "mon-fri at 9",
        "from monday to friday at 9",
        "monday through friday at 9am",
        "Mon – Fri at 09:00",
    ],
)
def test_a_range_of_weekdays_with_a_clock_repeats_on_those_days(text: str) -> None:
    sched = parse_recurrence(text, now=NOW, tz=TZ)
    assert sched is not None and sched.spec == Cron("0 9 * * 1-5"), sched


@pytest.mark.parametrize(
    "text", ["from monday to friday", "away from monday to friday", "monday to friday"]
)
def test_a_range_of_weekdays_without_a_clock_is_no_repeat(text: str) -> None:
    assert parse_recurrence(text, now=NOW, tz=TZ) is None


@pytest.mark.parametrize(("text", "days"), [("every 3 days", 3), ("every other day", 2)])
def test_every_n_days_without_a_time_counts_from_now(text: str, days: int) -> None:
    # as "every 3 hours" does; a whole number of days keeps the wall clock
    assert runs(text, 3) == [
        (NOW + timedelta(days=days * k)).replace(tzinfo=None) for k in (1, 2, 3)
    ]


def test_every_n_days_from_now_keeps_the_wall_clock_across_summer_time() -> None:
    now = datetime(2027, 3, 26, 10, 0, tzinfo=Z)  # DST starts on Sunday 28 March
    got = runs("every 2 days", 2, now)
    assert got == [datetime(2027, 3, 28, 10, 0), datetime(2027, 3, 30, 10, 0)]


@pytest.mark.parametrize(
    ("text", "first"),
    [
        ("every 2 days at 6pm", datetime(2026, 11, 23, 18, 0)),
        ("every 3 days starting tomorrow", datetime(2026, 11, 24, 9, 0)),
    ],
)
def test_every_n_days_with_a_time_or_a_start_keeps_it(text: str, first: datetime) -> None:
    assert runs(text, 1) == [first]


@pytest.mark.parametrize(
    ("text", "first", "second"),
    [
        # with a start, "every second thursday" is every other one from that day
        (
            "every second thursday, starting this thursday, at 3pm",
            datetime(2026, 11, 26, 15, 0),
            datetime(2026, 12, 10, 15, 0),
        ),
        (
            "every second friday starting next friday at 9",
            datetime(2026, 12, 4, 9, 0),
            datetime(2026, 12, 18, 9, 0),
        ),
        # without one, the second thursday of each month, as before
        (
            "every second thursday at 3pm",
            datetime(2026, 12, 10, 15, 0),
            datetime(2027, 1, 14, 15, 0),
        ),
    ],
)
def test_every_second_weekday_with_and_without_a_start(
    text: str, first: datetime, second: datetime
) -> None:
    assert runs(text, 2) == [first, second]
