"""Easter-relative yearly rules (RFC 5545's BYEASTER, as dateutil reads it): issue 16."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from tools.schedule import RRule, Schedule, ScheduleError

BERLIN = "Europe/Berlin"
Z = ZoneInfo(BERLIN)


def _runs(rule: str, n: int = 3) -> list[datetime]:
    sched = Schedule(RRule(rule, datetime(2026, 11, 23)), BERLIN)
    now = datetime(2026, 11, 23, 10, tzinfo=Z)
    return [r.astimezone(Z).replace(tzinfo=None) for r in sched.next_runs(now, n)]


@pytest.mark.parametrize(
    ("offset", "days"),
    [
        # Easter Sunday 2027-03-28, 2028-04-16, 2029-04-01 (the computus).
        (0, [datetime(2027, 3, 28, 9), datetime(2028, 4, 16, 9), datetime(2029, 4, 1, 9)]),
        (-2, [datetime(2027, 3, 26, 9), datetime(2028, 4, 14, 9), datetime(2029, 3, 30, 9)]),
        (1, [datetime(2027, 3, 29, 9), datetime(2028, 4, 17, 9), datetime(2029, 4, 2, 9)]),
        (49, [datetime(2027, 5, 16, 9), datetime(2028, 6, 4, 9), datetime(2029, 5, 20, 9)]),
    ],
)
def test_byeaster_runs_on_the_feast_each_year(offset: int, days: list[datetime]) -> None:
    rule = f"FREQ=YEARLY;BYEASTER={offset};BYHOUR=9;BYMINUTE=0;BYSECOND=0"
    assert _runs(rule) == days


@pytest.mark.parametrize(
    ("offset", "words"),
    [
        (0, "every year on Easter Sunday at 18:30"),
        (-2, "every year 2 days before Easter Sunday at 18:30"),
        (1, "every year on the day after Easter Sunday at 18:30"),
    ],
)
def test_byeaster_is_described(offset: int, words: str) -> None:
    rule = f"FREQ=YEARLY;BYEASTER={offset};BYHOUR=18;BYMINUTE=30;BYSECOND=0"
    assert Schedule(RRule(rule, datetime(2026, 11, 23)), BERLIN).describe() == (
        f"{words} (Europe/Berlin)"
    )


def test_byeaster_needs_a_number() -> None:
    with pytest.raises(ScheduleError):
        RRule("FREQ=YEARLY;BYEASTER=soon", datetime(2026, 1, 1))
