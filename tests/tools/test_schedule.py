"""Schedule math: cron semantics, intervals, end conditions and DST rules."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from tools.errors import UserError
from tools.schedule import (
    Cron,
    Every,
    Once,
    RRule,
    Schedule,
    ScheduleError,
    localize,
    spec_from_json,
    spec_to_json,
)

BERLIN = "Europe/Berlin"
NEW_YORK = "America/New_York"


def utc(*args: int) -> datetime:
    return datetime(*args, tzinfo=UTC)  # type: ignore[misc]


def local_strings(runs: list[datetime], tz: str) -> list[str]:
    return [r.astimezone(ZoneInfo(tz)).strftime("%a %Y-%m-%d %H:%M %Z") for r in runs]


# ---------------------------------------------------------------- basic specs


def test_once_runs_once_and_only_in_the_future() -> None:
    at = utc(2026, 12, 1, 9)
    s = Schedule(Once(at))
    assert s.next_runs(utc(2026, 11, 1), 5) == [at]
    assert s.next_runs(at, 5) == []
    assert s.first_run(at) == at
    assert not s.is_recurring


def test_sub_daily_interval_is_elapsed_time() -> None:
    anchor = utc(2026, 11, 23, 8)
    s = Schedule(Every(90 * 60, anchor), "Europe/Berlin")
    runs = s.next_runs(utc(2026, 11, 23, 7), 3)
    assert runs == [anchor, anchor + timedelta(minutes=90), anchor + timedelta(minutes=180)]
    # strictly after: an `after` on a slot skips it
    assert s.next_runs(anchor, 1) == [anchor + timedelta(minutes=90)]


def test_next_runs_are_aware_and_in_the_schedule_zone() -> None:
    s = Schedule(Cron("0 9 * * *"), BERLIN)
    run = s.next_runs(utc(2026, 11, 23), 1)[0]
    assert run.utcoffset() == timedelta(hours=1)
    assert run == utc(2026, 11, 23, 8)


def test_next_runs_requires_aware_after() -> None:
    with pytest.raises(ValueError):
        Schedule(Cron("0 9 * * *")).next_runs(datetime(2026, 1, 1), 1)


# ---------------------------------------------------------------- cron


@pytest.mark.parametrize("expr", ["0 9 * * 0", "0 9 * * 7", "0 9 * * SUN", "0 9 * * sun"])
def test_cron_sunday_is_0_7_or_name(expr: str) -> None:
    runs = Schedule(Cron(expr), "UTC").next_runs(utc(2026, 11, 23), 3)  # a Monday
    assert [r.strftime("%a %d %H:%M") for r in runs] == [
        "Sun 29 09:00",
        "Sun 06 09:00",
        "Sun 13 09:00",
    ]


def test_cron_weekdays_mon_fri_in_job_zone() -> None:
    s = Schedule(Cron("30 8 * * MON-FRI"), NEW_YORK)
    runs = s.next_runs(utc(2026, 11, 27, 12), 5)  # Friday 07:00 New York
    assert local_strings(runs, NEW_YORK) == [
        "Fri 2026-11-27 08:30 EST",
        "Mon 2026-11-30 08:30 EST",
        "Tue 2026-12-01 08:30 EST",
        "Wed 2026-12-02 08:30 EST",
        "Thu 2026-12-03 08:30 EST",
    ]
    # 1-5 means Monday to Friday (not APScheduler's Tue–Sat)
    assert Cron("30 8 * * 1-5").weekdays == Cron("30 8 * * MON-FRI").weekdays == {1, 2, 3, 4, 5}


def test_cron_lists_ranges_steps_and_month_names() -> None:
    c = Cron("0,30 */6 1-3 JAN,jul *")
    assert c.minutes == {0, 30}
    assert c.hours == {0, 6, 12, 18}
    assert c.days == {1, 2, 3}
    assert c.months == {1, 7}
    assert Cron("5/20 * * * *").minutes == {5, 25, 45}
    assert Cron("0 0 * * 5-7").weekdays == {5, 6, 0}


def test_cron_macros_and_whitespace() -> None:
    assert Cron("@daily").expr == "0 0 * * *"
    assert Cron("  0   9 * *  1 ").expr == "0 9 * * 1"


def test_cron_day_of_month_or_weekday() -> None:
    # Vixie semantics: both fields restricted → either matches
    s = Schedule(Cron("0 12 13 * FRI"), "UTC")
    runs = s.next_runs(utc(2026, 11, 1), 4)
    assert [r.strftime("%a %d") for r in runs] == ["Fri 06", "Fri 13", "Fri 20", "Fri 27"]


def test_cron_leap_day() -> None:
    runs = Schedule(Cron("0 0 29 2 *"), "UTC").next_runs(utc(2026, 1, 1), 2)
    assert runs == [utc(2028, 2, 29), utc(2032, 2, 29)]


@pytest.mark.parametrize(
    ("expr", "fragment"),
    [
        ("61 * * * *", "out of range"),
        ("* 24 * * *", "out of range"),
        ("0 9 * * 8", "out of range"),
        ("0 9 0 * *", "out of range"),
        ("0 9 * 13 *", "out of range"),
        ("0 9 * *", "5 fields"),
        ("0 9 * * * *", "5 fields"),
        ("*/0 * * * *", "must be 1 or more"),
        ("*/90 * * * *", "larger than"),
        ("*/61 * * * *", "larger than"),
        ("0 */25 * * *", "larger than"),
        ("0 9 */32 * *", "larger than"),
        ("0 9 * */13 *", "larger than"),
        ("0 9 * * */8", "larger than"),
        ("10/90 * * * *", "larger than"),
        ("0 9 * * FOO", "not a valid"),
        ("5-1 * * * *", "backwards"),
        ("0 9 30 2 *", "never matches"),
        ("0,,5 * * * *", "Empty"),
    ],
)
def test_bad_cron_raises_user_error(expr: str, fragment: str) -> None:
    with pytest.raises(UserError) as info:
        Cron(expr)
    assert isinstance(info.value, ScheduleError)
    assert fragment in info.value.message


# ---------------------------------------------------------------- validation


def test_interval_zero_or_negative_is_a_user_error() -> None:
    for seconds in (0, -60):
        with pytest.raises(UserError, match="longer than zero"):
            Every(seconds, utc(2026, 1, 1))


@pytest.mark.parametrize("name", ["Mars/Olympus", "", " Europe/Berlin", "../etc/passwd", "X" * 80])
def test_unknown_zone_is_a_user_error(name: str) -> None:
    with pytest.raises(UserError, match="IANA"):
        Schedule(Cron("0 9 * * *"), name)


def test_naive_instants_are_refused_and_max_runs_checked() -> None:
    with pytest.raises(UserError):
        Once(datetime(2026, 12, 1, 9))
    with pytest.raises(UserError):
        Every(60, datetime(2026, 12, 1, 9))
    with pytest.raises(UserError, match="at least 1"):
        Schedule(Cron("0 9 * * *"), max_runs=0)


def test_bad_rrule_is_a_user_error() -> None:
    with pytest.raises(UserError):
        RRule("FREQ=SOMETIMES", datetime(2026, 1, 1))
    with pytest.raises(UserError):
        RRule("BYDAY=MO", datetime(2026, 1, 1))


# ---------------------------------------------------------------- end conditions


def test_until_stops_runs() -> None:
    s = Schedule(Cron("0 9 * * *"), "UTC", until=utc(2026, 11, 25, 9))
    assert s.next_runs(utc(2026, 11, 23), 10) == [
        utc(2026, 11, 23, 9),
        utc(2026, 11, 24, 9),
        utc(2026, 11, 25, 9),
    ]
    assert s.next_after(utc(2026, 11, 25, 9)) is None


def test_naive_until_is_read_in_the_schedule_zone() -> None:
    s = Schedule(Cron("0 9 * * *"), BERLIN, until=datetime(2026, 11, 24, 9, 0))
    assert s.until == utc(2026, 11, 24, 8)
    assert len(s.next_runs(utc(2026, 11, 23), 10)) == 2


def test_max_runs_counts_runs_done() -> None:
    s = Schedule(Every(3600, utc(2026, 11, 23)), "UTC", max_runs=3)
    assert len(s.next_runs(utc(2026, 11, 22), 10)) == 3
    assert len(s.next_runs(utc(2026, 11, 22), 10, runs_done=2)) == 1
    assert s.next_runs(utc(2026, 11, 22), 10, runs_done=3) == []


# ---------------------------------------------------------------- DST: Europe/Berlin


def test_berlin_spring_gap_daily_cron_fires_at_first_valid_instant() -> None:
    s = Schedule(Cron("30 2 * * *"), BERLIN)
    runs = s.next_runs(utc(2026, 3, 27, 12), 4)
    assert local_strings(runs, BERLIN) == [
        "Sat 2026-03-28 02:30 CET",
        "Sun 2026-03-29 03:30 CEST",  # 02:30 does not exist that night
        "Mon 2026-03-30 02:30 CEST",
        "Tue 2026-03-31 02:30 CEST",
    ]
    assert runs[1] == utc(2026, 3, 29, 1, 30)


def test_berlin_autumn_overlap_daily_cron_fires_once_at_first_occurrence() -> None:
    s = Schedule(Cron("30 2 * * *"), BERLIN)
    runs = s.next_runs(utc(2026, 10, 23, 12), 4)
    assert local_strings(runs, BERLIN) == [
        "Sat 2026-10-24 02:30 CEST",
        "Sun 2026-10-25 02:30 CEST",  # the first of the two 02:30s, and only that one
        "Mon 2026-10-26 02:30 CET",
        "Tue 2026-10-27 02:30 CET",
    ]
    # (compare in UTC: an aware time in the repeated hour never equals one in another zone)
    assert runs[1].astimezone(UTC) == utc(2026, 10, 25, 0, 30)
    # asked from between the two 02:30s, the repeat is not a new run
    assert s.next_after(utc(2026, 10, 25, 0, 45)) == utc(2026, 10, 26, 1, 30)


@pytest.mark.parametrize(
    ("after", "dst_day"),
    [(utc(2026, 3, 20), "2026-03-29"), (utc(2026, 10, 18), "2026-10-25")],
)
def test_berlin_daily_jobs_fire_exactly_once_per_local_day(after: datetime, dst_day: str) -> None:
    for spec in (
        Cron("30 2 * * *"),
        Cron("0 2 * * *"),
        Every(86400, localize(datetime(2026, 1, 1, 2, 30), ZoneInfo(BERLIN))),
        RRule("FREQ=DAILY", datetime(2026, 1, 1, 2, 30)),
    ):
        runs = Schedule(spec, BERLIN).next_runs(after, 14)
        days = [r.astimezone(ZoneInfo(BERLIN)).date().isoformat() for r in runs]
        assert len(days) == len(set(days)) == 14, spec
        assert dst_day in days, spec
        assert all(b > a for a, b in itertools.pairwise(runs))


def test_berlin_weekly_and_monthly_on_the_change_days() -> None:
    weekly = Schedule(Cron("30 2 * * SUN"), BERLIN).next_runs(utc(2026, 3, 23), 2)
    assert local_strings(weekly, BERLIN) == [
        "Sun 2026-03-29 03:30 CEST",
        "Sun 2026-04-05 02:30 CEST",
    ]
    monthly = Schedule(Cron("30 2 25 * *"), BERLIN).next_runs(utc(2026, 10, 1), 2)
    assert local_strings(monthly, BERLIN) == [
        "Sun 2026-10-25 02:30 CEST",
        "Wed 2026-11-25 02:30 CET",
    ]
    monthly_rr = Schedule(RRule("FREQ=MONTHLY;BYMONTHDAY=29", datetime(2026, 1, 29, 2, 30)), BERLIN)
    runs = monthly_rr.next_runs(utc(2026, 3, 1), 2)
    assert local_strings(runs, BERLIN) == ["Sun 2026-03-29 03:30 CEST", "Wed 2026-04-29 02:30 CEST"]


def test_berlin_hourly_interval_is_elapsed_across_both_changes() -> None:
    for start in (utc(2026, 3, 28, 23), utc(2026, 10, 24, 23)):
        runs = Schedule(Every(3600, start), BERLIN).next_runs(start - timedelta(seconds=1), 6)
        # subtract in UTC: Python subtracts same-zone datetimes as naive wall times
        in_utc = [r.astimezone(UTC) for r in runs]
        assert [b - a for a, b in itertools.pairwise(in_utc)] == [timedelta(hours=1)] * 5
        assert in_utc == [start + timedelta(hours=i) for i in range(6)]


def test_berlin_hourly_cron_skips_missing_hour_and_repeated_hour() -> None:
    spring = Schedule(Cron("0 * * * *"), BERLIN).next_runs(utc(2026, 3, 28, 23, 30), 4)
    assert local_strings(spring, BERLIN) == [
        "Sun 2026-03-29 01:00 CET",
        "Sun 2026-03-29 03:00 CEST",
        "Sun 2026-03-29 04:00 CEST",
        "Sun 2026-03-29 05:00 CEST",
    ]
    autumn = Schedule(Cron("0 * * * *"), BERLIN).next_runs(utc(2026, 10, 24, 23, 30), 3)
    assert local_strings(autumn, BERLIN) == [
        "Sun 2026-10-25 02:00 CEST",
        "Sun 2026-10-25 03:00 CET",
        "Sun 2026-10-25 04:00 CET",
    ]


# ---------------------------------------------------------------- DST: America/New_York


def test_new_york_spring_and_autumn() -> None:
    s = Schedule(Cron("30 2 * * *"), NEW_YORK)
    spring = s.next_runs(utc(2026, 3, 7, 12), 3)
    assert local_strings(spring, NEW_YORK) == [
        "Sun 2026-03-08 03:30 EDT",
        "Mon 2026-03-09 02:30 EDT",
        "Tue 2026-03-10 02:30 EDT",
    ]
    s1 = Schedule(Cron("30 1 * * *"), NEW_YORK)
    autumn = s1.next_runs(utc(2026, 10, 31, 12), 3)
    assert local_strings(autumn, NEW_YORK) == [
        "Sun 2026-11-01 01:30 EDT",
        "Mon 2026-11-02 01:30 EST",
        "Tue 2026-11-03 01:30 EST",
    ]
    assert autumn[0].astimezone(UTC) == utc(2026, 11, 1, 5, 30)


def test_new_york_every_day_interval_keeps_wall_time() -> None:
    anchor = localize(datetime(2026, 3, 6, 9, 0), ZoneInfo(NEW_YORK))
    runs = Schedule(Every(86400, anchor), NEW_YORK).next_runs(anchor, 3)
    assert local_strings(runs, NEW_YORK) == [
        "Sat 2026-03-07 09:00 EST",
        "Sun 2026-03-08 09:00 EDT",
        "Mon 2026-03-09 09:00 EDT",
    ]
    weekly = Schedule(Every(7 * 86400, anchor), NEW_YORK).next_runs(anchor, 1)
    assert local_strings(weekly, NEW_YORK) == ["Fri 2026-03-13 09:00 EDT"]


def test_localize_gap_and_fold() -> None:
    tz = ZoneInfo(BERLIN)
    assert localize(datetime(2026, 3, 29, 2, 30), tz) == utc(2026, 3, 29, 1, 30)
    first = localize(datetime(2026, 10, 25, 2, 30), tz)
    assert first.astimezone(UTC) == utc(2026, 10, 25, 0, 30)
    assert first.fold == 0


# ---------------------------------------------------------------- JSON and words


@pytest.mark.parametrize(
    "spec",
    [
        Once(utc(2026, 12, 1, 9)),
        Every(3600, utc(2026, 12, 1, 9)),
        Cron("0 9 * * MON-FRI"),
        RRule("FREQ=WEEKLY;BYDAY=MO,WE", datetime(2026, 12, 1, 9)),
    ],
)
def test_spec_json_round_trip(spec: object) -> None:
    data = spec_to_json(spec)  # type: ignore[arg-type]
    again = spec_from_json(data)
    assert spec_to_json(again) == data
    after = utc(2026, 11, 23)
    assert Schedule(again, BERLIN).next_runs(after, 3) == Schedule(spec, BERLIN).next_runs(  # type: ignore[arg-type]
        after, 3
    )


def test_unknown_spec_type() -> None:
    with pytest.raises(UserError):
        spec_from_json({"type": "sometimes"})


@pytest.mark.parametrize(
    ("expr", "words"),
    [
        ("*/45 * * * *", "at :00 and :45 past each hour"),
        ("*/40 * * * *", "at :00 and :40 past each hour"),
        ("*/50 * * * *", "at :00 and :50 past each hour"),
        ("5/45 * * * *", "at :05 and :50 past each hour"),
        ("*/25 * * * *", "at :00, :25 and :50 past each hour"),
        ("*/15 * * * *", "every 15 minutes"),
        ("*/30 * * * *", "every 30 minutes"),
        ("*/60 * * * *", "every hour at :00"),
        ("*/7 * * * *", "every 7 minutes from :00 to :56 past each hour, then again from :00"),
    ],
)
def test_minute_steps_are_described_as_they_fire(expr: str, words: str) -> None:
    """`*/45` fires at :00 and :45, so it is not "every 45 minutes" (issue 14)."""
    assert Schedule(Cron(expr), "UTC").describe() == f"{words} (UTC)"


def test_cron_step_sixty_fits_the_minute_field() -> None:
    assert sorted(Cron("*/60 * * * *").minutes) == [0]
    assert sorted(Cron("0 */24 * * *").hours) == [0]


def test_describe() -> None:
    assert Schedule(Cron("0 8 * * 1-5"), BERLIN).describe() == (
        "every weekday at 08:00 (Europe/Berlin)"
    )
    assert Schedule(Every(1800, utc(2026, 1, 1)), "UTC", max_runs=3).describe() == (
        "every 30 minutes (UTC), 3 times"
    )
    assert (
        "until 1 Dec 2026"
        in Schedule(Cron("0 9 * * *"), "UTC", until=utc(2026, 12, 1, 12)).describe()
    )
