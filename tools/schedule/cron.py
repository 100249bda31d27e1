"""Cron: standard 5-field expressions, seed 003's `daily@HH:MM` forms, and their wall times."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta

from tools.errors import ScheduleError, quoted

_MONTHS = ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"]
_DAYS = ["SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"]
_MACROS = {
    "@yearly": "0 0 1 1 *",
    "@annually": "0 0 1 1 *",
    "@monthly": "0 0 1 * *",
    "@weekly": "0 0 * * 0",
    "@daily": "0 0 * * *",
    "@midnight": "0 0 * * *",
    "@hourly": "0 * * * *",
}
_FIELDS = (
    ("minute", 0, 59, None),
    ("hour", 0, 23, None),
    ("day of month", 1, 31, None),
    ("month", 1, 12, _MONTHS),
    ("day of week", 0, 7, _DAYS),
)


def _cron_value(token: str, name: str, lo: int, names: list[str] | None, expr: str) -> int:
    if names is not None and token.upper() in names:
        return names.index(token.upper()) + (1 if name == "month" else 0)
    if not token.isdigit():
        raise ScheduleError(f"{quoted(token)} is not a valid {name} in cron {quoted(expr)}.")
    return int(token)


def _cron_field(text: str, index: int, expr: str) -> frozenset[int]:
    """The values one cron field allows."""
    name, lo, hi, names = _FIELDS[index]
    values: set[int] = set()
    for part in text.split(","):
        if not part:
            raise ScheduleError(f"Empty list item in the {name} field of cron {quoted(expr)}.")
        step = 1
        if "/" in part:
            part, _, step_text = part.partition("/")
            if not step_text.isdigit() or int(step_text) == 0:
                raise ScheduleError(
                    f"Step {quoted(step_text)} in the {name} field of cron {quoted(expr)} "
                    "must be 1 or more."
                )
            step = int(step_text)
            span = 7 if index == 4 else hi - lo + 1
            if step > span:
                # `*/90` in minutes would fire hourly: a step can't reach past its field.
                raise ScheduleError(
                    f"Step {step} in the {name} field of cron `{expr}` is larger than the "
                    f"field ({lo}–{hi if index != 4 else 6}); for a longer gap use an interval "
                    "like `every 90 minutes`."
                )
        if part == "*":
            start, end = lo, hi
        elif "-" in part:
            a, _, b = part.partition("-")
            start = _cron_value(a, name, lo, names, expr)
            end = _cron_value(b, name, lo, names, expr)
        else:
            start = _cron_value(part, name, lo, names, expr)
            end = hi if step > 1 else start
        for v in (start, end):
            if not lo <= v <= hi:
                raise ScheduleError(
                    f"{name.capitalize()} {v} is out of range {lo}–{hi} in cron `{expr}`."
                )
        if start > end:
            raise ScheduleError(f"Range {start}-{end} runs backwards in cron {quoted(expr)}.")
        values.update(range(start, end + 1, step))
    if index == 4 and 7 in values:
        values.discard(7)
        values.add(0)
    return frozenset(values)


@dataclass(frozen=True)
class Cron:
    """A standard 5-field cron expression (0 and 7 = Sunday), read in the schedule's zone."""

    expr: str
    minutes: frozenset[int] = field(init=False, repr=False, compare=False)
    hours: frozenset[int] = field(init=False, repr=False, compare=False)
    days: frozenset[int] = field(init=False, repr=False, compare=False)
    months: frozenset[int] = field(init=False, repr=False, compare=False)
    weekdays: frozenset[int] = field(init=False, repr=False, compare=False)
    any_day: bool = field(init=False, repr=False, compare=False)
    any_weekday: bool = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        text = " ".join(self.expr.split())
        text = _MACROS.get(text.lower(), text)
        parts = text.split(" ")
        if len(parts) != 5:
            raise ScheduleError(
                f"A cron expression has 5 fields (minute hour day month weekday), "
                f"e.g. `0 9 * * 1-5`; `{self.expr}` has {len(parts)}."
            )
        parsed = [_cron_field(p, i, self.expr) for i, p in enumerate(parts)]
        object.__setattr__(self, "expr", text)
        for attr, values in zip(
            ("minutes", "hours", "days", "months", "weekdays"), parsed, strict=True
        ):
            object.__setattr__(self, attr, values)
        object.__setattr__(self, "any_day", parts[2] == "*")
        object.__setattr__(self, "any_weekday", parts[4] == "*")
        if not any(self._day_matches(d) for d in _probe_days()):
            raise ScheduleError(f"Cron {quoted(self.expr)} never matches a real date.")

    def matches(self, wall: datetime) -> bool:
        """Whether the expression names this wall-clock minute (seconds are ignored)."""
        return (
            wall.minute in self.minutes
            and wall.hour in self.hours
            and self._day_matches(wall.date())
        )

    def _day_matches(self, d: date) -> bool:
        if d.month not in self.months:
            return False
        dom = d.day in self.days
        dow = (d.isoweekday() % 7) in self.weekdays
        if self.any_day and self.any_weekday:
            return True
        if self.any_day:
            return dow
        if self.any_weekday:
            return dom
        return dom or dow  # Vixie cron: both restricted → either matches


def _probe_days() -> Iterator[date]:
    # Eight years cover every leap-day and weekday/date combination.
    start = date(2024, 1, 1)
    for i in range(366 * 8):
        yield start + timedelta(days=i)


# ---------------------------------------------------------------- seed 003's schedule strings

AT_FORMS = "daily@HH:MM, weekdays@HH:MM, weekly@DAY@HH:MM or monthly@D@HH:MM"
_AT_FORM = re.compile(r"^\s*([a-z]+)\s*@(.*)$", re.I | re.S)
_AT_ALIASES = {"weekday": "weekdays"}
_WEEKDAY_WORDS = {
    "sun": 0,
    "mon": 1,
    "tue": 2,
    "tues": 2,
    "wed": 3,
    "thu": 4,
    "thur": 4,
    "thurs": 4,
    "fri": 5,
    "sat": 6,
}


def _at_time(text: str, form: str, shape: str) -> tuple[int, int]:
    m = re.fullmatch(r"\s*(\d{1,2}):(\d{2})\s*", text)
    if m is None:
        raise ScheduleError(f"`{form}` needs a time as HH:MM; write `{shape}` ({AT_FORMS}).")
    hour, minute = int(m[1]), int(m[2])
    for name, value, top in (("Hour", hour, 23), ("Minute", minute, 59)):
        if value > top:
            raise ScheduleError(
                f"{name} {value} is out of range 0–{top} in `{form}`; write `{shape}` "
                "with a time from 00:00 to 23:59."
            )
    return hour, minute


def _at_weekday(text: str, form: str) -> int:
    word = text.strip().lower()
    for name, number in _WEEKDAY_WORDS.items():
        full = _DAYS_FULL[number]
        if word in (name, full) or (len(word) >= 3 and full.startswith(word)):
            return number
    raise ScheduleError(
        f"{text.strip()!r} is not a day of the week in `{form}`; e.g. `weekly@MON@09:00`."
    )


_DAYS_FULL = ["sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"]


def parse_at_form(text: str) -> Cron | None:
    """Seed 003's compact schedules as cron, None when `text` isn't one of them.

    `daily@HH:MM`, `weekdays@HH:MM`, `weekly@DAY@HH:MM` (MON or Monday) and
    `monthly@D@HH:MM` (1–31; a day a month lacks is skipped that month). Raises a
    ScheduleError naming the part that is wrong and what to type instead.
    """
    m = _AT_FORM.match(text or "")
    if m is None:
        return None
    form, rest = _AT_ALIASES.get(m[1].lower(), m[1].lower()), m[2]
    original = " ".join(text.split())[:60]
    if form not in _AT_EXAMPLES:
        raise ScheduleError(f"`{original}` is not a schedule I know; write {AT_FORMS}.")
    shapes = {
        "daily": "daily@HH:MM",
        "weekdays": "weekdays@HH:MM",
        "weekly": "weekly@DAY@HH:MM",
        "monthly": "monthly@D@HH:MM",
    }
    parts = rest.split("@")
    wanted = 2 if form in ("weekly", "monthly") else 1
    if len(parts) != wanted or not all(p.strip() for p in parts):
        raise ScheduleError(
            f"`{original}` is not a schedule I can read; write `{shapes[form]}`, "
            f"e.g. `{_AT_EXAMPLES[form]}` ({AT_FORMS})."
        )
    hour, minute = _at_time(parts[-1], original, shapes[form])
    if form == "daily":
        return Cron(f"{minute} {hour} * * *")
    if form == "weekdays":
        return Cron(f"{minute} {hour} * * 1-5")
    if form == "weekly":
        return Cron(f"{minute} {hour} * * {_at_weekday(parts[0], original)}")
    day_text = parts[0].strip()
    if not day_text.isdigit():
        raise ScheduleError(
            f"{day_text!r} is not a day of the month in `{original}`; e.g. `monthly@1@09:00`."
        )
    day = int(day_text)
    if not 1 <= day <= 31:
        raise ScheduleError(
            f"Day {day} is out of range 1–31 in `{original}`; e.g. `monthly@15@09:00`."
        )
    return Cron(f"{minute} {hour} {day} * *")


_AT_EXAMPLES = {
    "daily": "daily@09:00",
    "weekdays": "weekdays@08:30",
    "weekly": "weekly@MON@09:00",
    "monthly": "monthly@1@09:00",
}


def cron_walls(spec: Cron, after_local: datetime) -> Iterator[datetime]:
    # Start a day early: a DST gap can push yesterday's late wall time past `after`.
    day = after_local.date() - timedelta(days=1)
    hours = sorted(spec.hours)
    minutes = sorted(spec.minutes)
    for _ in range(366 * 9):
        if spec._day_matches(day):
            for h in hours:
                for m in minutes:
                    yield datetime.combine(day, time(h, m))
        day += timedelta(days=1)
