"""A time of day said alone (`timeparse.clock_of`) and a schedule moved to a new time of
day (`Schedule.at_time_of_day`): what "push the standup to 9:30" is made of."""

from __future__ import annotations

from datetime import datetime, time
from zoneinfo import ZoneInfo

import pytest

from tools.schedule import Cron, Every, Once, RRule, Schedule
from tools.timeparse import ClockSaid, clock_of

BERLIN = ZoneInfo("Europe/Berlin")


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("9:30", ClockSaid(9, 30, False)),
        ("to 9:30", ClockSaid(9, 30, False)),
        ("at 10", ClockSaid(10, 0, False)),
        ("9.30", ClockSaid(9, 30, False)),
        ("930", ClockSaid(9, 30, False)),
        ("half past 4", ClockSaid(4, 30, False)),
        ("quarter to 10", ClockSaid(9, 45, False)),
        ("5pm", ClockSaid(17, 0, True)),
        ("12am", ClockSaid(0, 0, True)),
        ("1730", ClockSaid(17, 30, True)),
        ("17h30", ClockSaid(17, 30, True)),
        ("noon", ClockSaid(12, 0, True)),
        ("midnight", ClockSaid(0, 0, True)),
        ("9:30 in the morning", ClockSaid(9, 30, True)),
        ("8 in the evening", ClockSaid(20, 0, True)),
        # anything that names a day, an offset or a zone is not a time of day alone
        ("friday", None),
        ("friday at 9", None),
        ("9:30 tomorrow", None),
        ("in an hour", None),
        ("every day at 9", None),
        ("9:30 tokyo time", None),
        ("25:00", None),
        ("the morning", None),
        ("", None),
        ("at", None),
    ],
)
def test_a_time_of_day_said_alone(text: str, said: ClockSaid | None) -> None:
    assert clock_of(text) == said


@pytest.mark.parametrize(
    ("said", "job_at", "meant"),
    [
        (ClockSaid(9, 30, False), time(9), time(9, 30)),
        (ClockSaid(8, 30, False), time(20), time(20, 30)),
        (ClockSaid(7, 0, False), time(8), time(7)),
        (ClockSaid(11, 0, False), time(23, 30), time(23)),
        (ClockSaid(1, 0, False), time(23, 30), time(1)),  # across midnight
        (ClockSaid(3, 0, False), time(9), time(15)),  # a tie: the afternoon
        (ClockSaid(21, 0, True), time(9), time(21)),  # said: as said
    ],
)
def test_the_half_of_the_day_not_said_is_the_one_nearer_the_jobs_time(
    said: ClockSaid, job_at: time, meant: time
) -> None:
    assert said.nearest(job_at) == meant


def test_a_schedule_moved_to_a_new_time_of_day_keeps_its_days_and_ends() -> None:
    until = datetime(2027, 1, 1, tzinfo=BERLIN)
    weekdays = Schedule(Cron("0 9 * * 1-5"), "Europe/Berlin", until=until, max_runs=50)
    moved = weekdays.at_time_of_day(time(9, 30))
    assert moved == Schedule(Cron("30 9 * * 1-5"), "Europe/Berlin", until=until, max_runs=50)
    start = datetime(2026, 11, 23, 8, 0)
    rule = Schedule(RRule("FREQ=WEEKLY;BYDAY=MO,TH", start, ("EXDATE:20261126",)), "UTC")
    got = rule.at_time_of_day(time(18, 15))
    assert got is not None and isinstance(got.spec, RRule)
    assert got.spec.start == datetime(2026, 11, 23, 18, 15) and got.spec.exclude == (
        "EXDATE:20261126",
    )
    ruled = Schedule(RRule("FREQ=MONTHLY;BYMONTHDAY=1;BYHOUR=9;BYMINUTE=0", start), "UTC")
    got = ruled.at_time_of_day(time(7, 45))
    assert got is not None and isinstance(got.spec, RRule)
    assert got.spec.parts()["BYHOUR"] == "7" and got.spec.parts()["BYMINUTE"] == "45"
    after = datetime(2026, 11, 23, tzinfo=BERLIN)
    assert [r.hour for r in got.next_runs(after, 2)] == [7, 7]


@pytest.mark.parametrize(
    "schedule",
    [
        Schedule(Cron("0 9,17 * * *")),  # two times a day: which one?
        Schedule(Cron("*/15 * * * *")),
        Schedule(Every(2700, datetime(2026, 11, 23, 9, tzinfo=BERLIN))),
        Schedule(Once(datetime(2026, 11, 24, 9, tzinfo=BERLIN))),
        Schedule(RRule("FREQ=DAILY;BYHOUR=9,17", datetime(2026, 11, 23, 9))),
        Schedule(RRule("FREQ=HOURLY", datetime(2026, 11, 23, 9))),
        Schedule(RRule("FREQ=DAILY", datetime(2026, 11, 23, 9), ("EXDATE:20261125T090000",))),
    ],
)
def test_no_one_time_of_day_to_move(schedule: Schedule) -> None:
    assert schedule.at_time_of_day(time(10)) is None
