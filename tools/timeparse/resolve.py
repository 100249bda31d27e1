"""Calendar helpers: wall-clock placement in a zone and date arithmetic the rules share."""

from __future__ import annotations

import calendar
from datetime import UTC, date, datetime, timedelta, tzinfo


def wall(d: date, hour: int, minute: int, second: int, tz: tzinfo) -> datetime:
    """The instant a wall clock in `tz` shows `d hour:minute:second`.

    A wall time inside a DST gap moves forward by the gap (fold=0 reads it with the
    pre-transition offset, so 02:30 becomes 03:30); an ambiguous one takes its first
    occurrence.
    """
    aware = datetime(d.year, d.month, d.day, hour, minute, second, tzinfo=tz)
    return aware.astimezone(UTC).astimezone(tz)


def add_months(d: date, months: int) -> date:
    """`d` moved by whole months, clamped to the month's last day."""
    idx = d.year * 12 + d.month - 1 + months
    y, m = divmod(idx, 12)
    last = calendar.monthrange(y, m + 1)[1]
    return date(y, m + 1, min(d.day, last))


def month_start(d: date) -> date:
    return d.replace(day=1)


def week_start(d: date) -> date:
    """Monday of the week holding `d` (weeks start on Monday)."""
    return d - timedelta(days=d.weekday())


def days_in_month(year: int, month: int) -> int:
    return calendar.monthrange(year, month)[1]


def nth_weekday(year: int, month: int, weekday: int, n: int) -> date | None:
    """The n-th (1-based; negative counts from the end) `weekday` of a month, or None."""
    last = days_in_month(year, month)
    days = [d for d in range(1, last + 1) if date(year, month, d).weekday() == weekday]
    if n > 0:
        return date(year, month, days[n - 1]) if n <= len(days) else None
    return date(year, month, days[n]) if -n <= len(days) else None


def month_weeks(year: int, month: int) -> list[date]:
    """Mondays of the weeks lying wholly inside a month."""
    last = days_in_month(year, month)
    return [date(year, month, d) for d in range(1, last - 5) if date(year, month, d).weekday() == 0]


def valid_date(year: int, month: int, day: int) -> bool:
    return 1 <= month <= 12 and 1 <= day <= days_in_month(year, month) and 1 <= year <= 9998
