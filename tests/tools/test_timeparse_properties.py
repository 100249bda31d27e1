"""Property tests for the time language (Hypothesis): relative offsets and recurrences."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from itertools import pairwise
from zoneinfo import ZoneInfo

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from tools.timeparse import parse_instant, parse_recurrence

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

nows = st.datetimes(
    min_value=datetime(2000, 1, 1), max_value=datetime(2060, 12, 31), timezones=st.just(UTC)
).map(lambda d: d.replace(microsecond=0))
zones = st.sampled_from(["UTC", "Europe/Berlin", "America/New_York", "Asia/Kolkata"])
EXACT_UNITS = {"second": 1, "minute": 60, "hour": 3600}
TEMPLATES = [
    "in {n} {u}",
    "{n} {u} from now",
    "in about {n} {u}",
    "{n} {u} later",
    "after {n} {u}",
    "in {n} {u} time",
    "in {n} {u} or so",
    "{n} {u} out",
]


def _unit(word: str, n: int) -> str:
    return word if n == 1 else word + "s"


@SETTINGS
@given(
    n=st.integers(min_value=1, max_value=5000),
    unit=st.sampled_from(sorted(EXACT_UNITS)),
    template=st.sampled_from(TEMPLATES),
    now=nows,
    tz=zones,
)
def test_in_n_elapsed_units_is_exactly_that_much_later(
    n: int, unit: str, template: str, now: datetime, tz: str
) -> None:
    text = template.format(n=n, u=_unit(unit, n))
    got = parse_instant(text, now=now, tz=tz)
    assert got is not None, text
    assert got - now == timedelta(seconds=n * EXACT_UNITS[unit]), text


@SETTINGS
@given(
    n=st.integers(min_value=1, max_value=400),
    unit=st.sampled_from(["day", "week"]),
    template=st.sampled_from(TEMPLATES),
    now=nows,
)
def test_in_n_days_or_weeks_keeps_the_wall_clock(
    n: int, unit: str, template: str, now: datetime
) -> None:
    # Calendar units step the wall clock: in UTC that is exactly n days.
    text = template.format(n=n, u=_unit(unit, n))
    got = parse_instant(text, now=now, tz="UTC")
    assert got is not None, text
    assert got - now == timedelta(days=n * (7 if unit == "week" else 1)), text


BASES = [
    "every day",
    "every weekday",
    "every monday and thursday",
    "every other week",
    "every 3 days",
    "every 2 hours",
    "on the 1st and 15th of every month",
    "every last friday of the month",
    "the 2nd to last day of every month",
    "every other weekend",
    "hourly",
    "every month on the 31st",
    "every year on march 3rd",
    "fridays",
]
TIMES = ["", " at 8am", " at 6:30pm", " at noon"]


@st.composite
def recurrences(draw: st.DrawFn) -> tuple[str, str, int | None, datetime | None, str]:
    base = draw(st.sampled_from(BASES))
    time = "" if base in ("every 2 hours", "hourly") else draw(st.sampled_from(TIMES))
    end = draw(st.sampled_from(["none", "count", "until", "for"]))
    count: int | None = None
    weeks = draw(st.integers(min_value=1, max_value=30))
    if end == "count":
        count = draw(st.integers(min_value=1, max_value=12))
        tail = f" {count} times"
    elif end == "until":
        tail = " until {until}"
    elif end == "for":
        tail = f" for {weeks} weeks"
    else:
        tail = ""
    return base + time + tail, end, count, None, str(weeks)


@SETTINGS
@given(case=recurrences(), now=nows, tz=zones, until_days=st.integers(min_value=1, max_value=400))
@example(  # across Berlin's fall-back hour
    case=("hourly", "none", None, None, "1"),
    now=datetime(2000, 10, 28, tzinfo=UTC),
    tz="Europe/Berlin",
    until_days=1,
)
def test_recurrence_runs_increase_and_honour_the_end(
    case: tuple[str, str, int | None, datetime | None, str],
    now: datetime,
    tz: str,
    until_days: int,
) -> None:
    text, end, count, _, weeks = case
    zone = ZoneInfo(tz)
    local = now.astimezone(zone)
    until_day = (local + timedelta(days=until_days)).date()
    text = text.format(until=until_day.strftime("%B %d %Y").replace(" 0", " "))
    sched = parse_recurrence(text, now=now, tz=tz)
    assert sched is not None, text
    runs = sched.next_runs(now, 40)
    assert all(r > now for r in runs), text
    # Compare instants: Python compares two datetimes of one zone by wall time, so the
    # repeated hour of a DST fall-back (02:00+02:00 then 02:00+01:00) would look equal.
    assert all(a.timestamp() < b.timestamp() for a, b in pairwise(runs)), text
    if end == "count":
        assert count is not None and len(runs) <= count, text
    elif end == "until":
        assert all(r.astimezone(zone).date() <= until_day for r in runs), text
    elif end == "for":
        limit = now + timedelta(weeks=int(weeks), days=1)
        assert all(r <= limit for r in runs), text
    else:
        assert len(sched.next_runs(now, 5)) == 5, text  # no end: it keeps going


WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]


@SETTINGS
@given(wd=st.sampled_from(WEEKDAYS), fortnight=st.booleans(), now=nows, tz=zones)
def test_a_day_a_week_later_is_seven_days_after_that_day(
    wd: str, fortnight: bool, now: datetime, tz: str
) -> None:
    unit = "fortnight" if fortnight else "week"
    day = parse_instant(wd, now=now, tz=tz)
    later = parse_instant(f"{wd} {unit}", now=now, tz=tz)
    assert day is not None and later is not None
    zone = ZoneInfo(tz)
    gap = later.astimezone(zone).date() - day.astimezone(zone).date()
    assert gap == timedelta(days=14 if fortnight else 7)


SOUP = [
    "1",
    "9",
    "12",
    "30",
    "2026",
    "at",
    "on",
    "in",
    "the",
    "and",
    "or",
    "to",
    "from",
    "before",
    "after",
    "every",
    "day",
    "week",
    "friday",
    "dec",
    "tomorrow",
    "next",
    "pm",
    "noon",
    "3:30",
    "12/12",
    "hours",
    "christmas",
    "except",
    "until",
    "between",
    "week",
    "fortnight",
    "ad",
]


@SETTINGS
@given(words=st.lists(st.sampled_from(SOUP), min_size=1, max_size=60), now=nows, tz=zones)
def test_any_soup_of_time_words_is_answered_within_the_step_budgets(
    words: list[str], now: datetime, tz: str
) -> None:
    """Never an exception, and never more grammar steps than the budgets allow."""
    from tools.timeparse import instant, recurrence, split_when
    from tools.timeparse import split as split_module

    spent = [0]
    spend = instant.Budget.spend

    def counting(self: instant.Budget, steps: int = 1) -> None:
        spent[0] += steps
        spend(self, steps)

    most = instant.STEP_BUDGET + recurrence.ENTRY_STEPS
    text = " ".join(words)
    original = instant.Budget.spend
    instant.Budget.spend = counting  # type: ignore[method-assign]
    try:
        for call in (parse_instant, parse_recurrence):
            spent[0] = 0
            call(text, now=now, tz=tz)
            assert spent[0] <= most
        spent[0] = 0
        split_when(" ".join(words[:40]), now=now, tz=tz)
        assert spent[0] <= split_module.WORK_BUDGET + most
    finally:
        instant.Budget.spend = original  # type: ignore[method-assign]


@SETTINGS
@given(
    n=st.integers(min_value=1, max_value=60),
    unit=st.sampled_from(["day", "week", "month"]),
    rhythm=st.sampled_from(["every day at 8", "every monday", "daily at 7pm", "every 2 days"]),
    now=nows,
    tz=zones,
)
def test_an_end_said_first_is_the_same_schedule(
    n: int, unit: str, rhythm: str, now: datetime, tz: str
) -> None:
    span = f"for {n} {_unit(unit, n)}"
    first = parse_recurrence(f"{span}, {rhythm}", now=now, tz=tz)
    last = parse_recurrence(f"{rhythm} {span}", now=now, tz=tz)
    assert first is not None and last is not None
    assert first.next_runs(now, 400) == last.next_runs(now, 400)
