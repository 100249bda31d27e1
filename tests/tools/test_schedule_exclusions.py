"""RRule exceptions: EXDATE days and wall times, EXRULE days and walls, JSON, words."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from tools.schedule import RRule, Schedule, ScheduleError, spec_from_json, spec_to_json

BERLIN = "Europe/Berlin"


def utc(*args: int) -> datetime:
    return datetime(*args, tzinfo=UTC)  # type: ignore[misc]


def days(runs: list[datetime]) -> list[str]:
    return [r.date().isoformat() for r in runs]


DAILY_9 = "FREQ=DAILY;BYHOUR=9;BYMINUTE=0;BYSECOND=0"


def test_exdate_skips_whole_local_days() -> None:
    s = Schedule(RRule(DAILY_9, datetime(2010, 3, 3), ("EXDATE:20100306", "EXDATE:20100308")))
    runs = s.next_runs(utc(2010, 1, 1), 5)
    assert days(runs) == ["2010-03-03", "2010-03-04", "2010-03-05", "2010-03-07", "2010-03-09"]


def test_exdate_accepts_lists_iso_and_lowercase_and_normalises() -> None:
    r = RRule(DAILY_9, datetime(2010, 3, 3), ("exdate:2010-03-06,20100308",))
    assert r.exclude == ("EXDATE:20100306", "EXDATE:20100308")
    assert RRule(DAILY_9, datetime(2010, 3, 3), "EXDATE:20100306").exclude == ("EXDATE:20100306",)


def test_exdate_with_time_skips_only_that_wall_minute() -> None:
    r = RRule("FREQ=HOURLY;INTERVAL=8", datetime(2010, 1, 1, 8), ("EXDATE:20100102T080000",))
    runs = Schedule(r).next_runs(utc(2010, 1, 1), 5)
    assert [x.strftime("%d %H") for x in runs] == ["01 08", "01 16", "02 00", "02 16", "03 00"]


def test_exrule_with_time_excludes_walls_and_without_time_excludes_days() -> None:
    timed = RRule(
        "FREQ=HOURLY;INTERVAL=8",
        datetime(2010, 1, 1, 8),
        ("EXRULE:FREQ=DAILY;BYHOUR=0;BYMINUTE=0",),
    )
    runs = Schedule(timed).next_runs(utc(2010, 1, 1), 5)
    assert [x.hour for x in runs] == [8, 16, 8, 16, 8]
    weekends = RRule(
        "FREQ=HOURLY;INTERVAL=12", datetime(2010, 1, 1, 0), ("EXRULE:FREQ=WEEKLY;BYDAY=SA,SU",)
    )
    runs = Schedule(weekends).next_runs(utc(2010, 1, 1, 1), 3)
    assert [x.strftime("%a %H") for x in runs] == ["Fri 12", "Mon 00", "Mon 12"]


def test_exrule_nth_weekday_of_month() -> None:
    r = RRule(
        "FREQ=WEEKLY;BYDAY=MO;BYHOUR=9;BYMINUTE=0",
        datetime(2010, 1, 2),
        ("EXRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=2MO",),
    )
    runs = Schedule(r).next_runs(utc(2010, 2, 25), 4)
    assert days(runs) == ["2010-03-01", "2010-03-15", "2010-03-22", "2010-03-29"]
    # every year, not just the first
    runs = Schedule(r).next_runs(utc(2011, 3, 1), 2)
    assert days(runs) == ["2011-03-07", "2011-03-21"]


def test_exclusions_are_local_wall_clock_across_dst() -> None:
    # Berlin springs forward on 28 Mar 2010; the excluded day is a local day.
    r = RRule(DAILY_9, datetime(2010, 3, 26), ("EXDATE:20100328",))
    runs = Schedule(r, BERLIN).next_runs(utc(2010, 3, 26), 3)
    local = [x.astimezone(ZoneInfo(BERLIN)).strftime("%d %H:%M") for x in runs]
    assert local == ["26 09:00", "27 09:00", "29 09:00"]
    # a timed exception names the local wall, not UTC
    r = RRule(DAILY_9, datetime(2010, 3, 26), ("EXDATE:20100329T090000",))
    runs = Schedule(r, BERLIN).next_runs(utc(2010, 3, 28, 12), 2)
    assert days(runs) == ["2010-03-30", "2010-03-31"]


def test_max_runs_counts_only_runs_that_happen() -> None:
    r = RRule(DAILY_9, datetime(2010, 1, 1), ("EXDATE:20100102",))
    runs = Schedule(r, max_runs=2).next_runs(utc(2010, 1, 1), 5)
    assert days(runs) == ["2010-01-01", "2010-01-03"]


def test_old_sub_daily_start_is_fast_and_keeps_phase() -> None:
    r = RRule("FREQ=MINUTELY;INTERVAL=7", datetime(2000, 1, 1, 0, 3), ("EXDATE:20300101",))
    runs = Schedule(r).next_runs(utc(2029, 12, 31, 23, 50), 3)
    assert all(
        (x.replace(tzinfo=None) - datetime(2000, 1, 1, 0, 3)) % timedelta(minutes=7) == timedelta(0)
        for x in runs
    )
    assert runs[0] > utc(2029, 12, 31, 23, 50) and runs[-1].date().isoformat() == "2030-01-02"


def test_json_round_trip_and_old_json_without_exclude() -> None:
    r = RRule(
        "FREQ=HOURLY;INTERVAL=8",
        datetime(2010, 1, 1, 8),
        ("EXRULE:FREQ=DAILY;BYHOUR=0;BYMINUTE=0", "EXDATE:20100105T160000"),
    )
    data = spec_to_json(r)
    assert data["exclude"] == ["EXRULE:FREQ=DAILY;BYHOUR=0;BYMINUTE=0", "EXDATE:20100105T160000"]
    assert spec_from_json(data) == r
    plain = RRule(DAILY_9, datetime(2010, 1, 1))
    assert "exclude" not in spec_to_json(plain)
    old = {"type": "rrule", "rule": DAILY_9, "start": "2010-01-01T00:00:00"}
    assert spec_from_json(old) == plain
    with pytest.raises(ScheduleError):
        spec_from_json({**old, "exclude": "EXDATE:20100102"})


def test_describe_exceptions() -> None:
    s = Schedule(RRule(DAILY_9, datetime(2010, 3, 3), ("EXDATE:20100306", "EXDATE:20100308")))
    assert s.describe() == "every day at 09:00 except 6 Mar and 8 Mar (UTC)"
    s = Schedule(
        RRule(
            "FREQ=WEEKLY;BYDAY=MO;BYHOUR=9;BYMINUTE=0",
            datetime(2010, 1, 2),
            ("EXRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=2MO",),
        )
    )
    assert s.describe() == "every Monday at 09:00 except the second Monday of March (UTC)"
    s = Schedule(
        RRule(
            "FREQ=HOURLY;INTERVAL=8",
            datetime(2010, 1, 1, 8),
            ("EXRULE:FREQ=DAILY;BYHOUR=0;BYMINUTE=0", "EXDATE:20110102T080000"),
        )
    )
    assert s.describe() == "every 8 hours except daily at 00:00 and 2 Jan 2011 at 08:00 (UTC)"
    s = Schedule(RRule(DAILY_9, datetime(2010, 1, 1), ("EXRULE:FREQ=WEEKLY;BYDAY=SA,SU",)))
    assert s.describe() == "every day at 09:00 except weekends (UTC)"
    s = Schedule(RRule(DAILY_9, datetime(2010, 1, 1), ("EXRULE:FREQ=DAILY;BYMONTH=7,8",)))
    assert s.describe() == "every day at 09:00 except in July and August (UTC)"
    assert days(s.next_runs(utc(2010, 6, 30, 12), 1)) == ["2010-09-01"]


@pytest.mark.parametrize(
    "bad",
    [
        "EXDATE:20101340",
        "EXDATE:2010",
        "EXDATE:",
        "NOPE:20100101",
        "20100101",
        "EXRULE:BYDAY=MO",
        "EXRULE:FREQ=SOMETIMES",
        "EXRULE:FREQ=DAILY;COLOR=RED",
    ],
)
def test_invalid_exclusions_are_friendly_errors(bad: str) -> None:
    with pytest.raises(ScheduleError) as info:
        RRule(DAILY_9, datetime(2010, 1, 1), (bad,))
    assert "Exception" in str(info.value)


def test_exclusions_that_leave_nothing_are_refused() -> None:
    with pytest.raises(ScheduleError, match="no runs"):
        RRule(DAILY_9, datetime(2010, 1, 1), ("EXRULE:FREQ=DAILY",))
    with pytest.raises(ScheduleError, match="no runs"):
        RRule("FREQ=DAILY;COUNT=2", datetime(2010, 1, 1), ("EXDATE:20100101", "EXDATE:20100102"))
    with pytest.raises(ScheduleError, match="at most"):
        RRule(
            DAILY_9,
            datetime(2010, 1, 1),
            tuple(f"EXDATE:2011{m:02d}{d:02d}" for m in range(1, 6) for d in range(1, 28)),
        )
