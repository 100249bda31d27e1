"""Schedule math: what a job's schedule is, when it runs next, and how to say it.

A `Schedule` is plain data (a spec plus zone and end conditions). Wall-clock
schedules (cron, rrule, whole-day intervals) are evaluated on naive local
times and then placed in the zone, so a daily job fires once per local day
whatever DST does; sub-daily intervals are elapsed time.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

from dateutil.rrule import rrule, rrulestr

from tools.errors import UserError

__all__ = [
    "Cron",
    "Every",
    "Once",
    "RRule",
    "Schedule",
    "ScheduleError",
    "Spec",
    "localize",
    "spec_from_json",
    "spec_to_json",
    "zone",
]


class ScheduleError(UserError):
    """A schedule a user asked for cannot work; the message says what to type instead."""


_ZONE_CACHE: dict[str, ZoneInfo] = {}


def zone(name: str) -> ZoneInfo:
    """The IANA zone called `name`, or a ScheduleError saying how to name one."""
    cached = _ZONE_CACHE.get(name)
    if cached is not None:
        return cached
    if not name or name != name.strip() or "\x00" in name or len(name) > 64:
        raise ScheduleError(f"Unknown time zone {name!r}; use an IANA name like Europe/Berlin.")
    try:
        found = ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError):
        raise ScheduleError(
            f"Unknown time zone {name!r}; use an IANA name like Europe/Berlin or America/New_York."
        ) from None
    _ZONE_CACHE[name] = found
    return found


def is_known_zone(name: str) -> bool:
    return name in _ZONE_CACHE or name in available_timezones()


def localize(wall: datetime, tz: ZoneInfo) -> datetime:
    """Place a naive wall-clock time in `tz`.

    A wall time that does not exist (spring forward) moves forward by the gap
    (02:30 → 03:30); an ambiguous one (fall back) takes its first occurrence.
    """
    aware = wall.replace(tzinfo=tz, fold=0)
    return aware.astimezone(UTC).astimezone(tz)


# ---------------------------------------------------------------- specs


@dataclass(frozen=True)
class Once:
    """One instant."""

    at: datetime

    def __post_init__(self) -> None:
        if self.at.tzinfo is None:
            raise ScheduleError("A one-off time needs a time zone.")


@dataclass(frozen=True)
class Every:
    """Every `seconds`, first at `anchor`. Whole days step the local calendar."""

    seconds: int
    anchor: datetime

    def __post_init__(self) -> None:
        if self.anchor.tzinfo is None:
            raise ScheduleError("An interval needs a time zone for its start.")
        if not isinstance(self.seconds, int) or self.seconds <= 0:
            raise ScheduleError("An interval must be longer than zero, e.g. every 30 minutes.")

    @property
    def whole_days(self) -> int:
        return self.seconds // 86400 if self.seconds % 86400 == 0 else 0


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
        raise ScheduleError(f"{token!r} is not a valid {name} in cron `{expr}`.")
    return int(token)


def _cron_field(text: str, index: int, expr: str) -> frozenset[int]:
    """The values one cron field allows."""
    name, lo, hi, names = _FIELDS[index]
    values: set[int] = set()
    for part in text.split(","):
        if not part:
            raise ScheduleError(f"Empty list item in the {name} field of cron `{expr}`.")
        step = 1
        if "/" in part:
            part, _, step_text = part.partition("/")
            if not step_text.isdigit() or int(step_text) == 0:
                raise ScheduleError(
                    f"Step {step_text!r} in the {name} field of cron `{expr}` must be 1 or more."
                )
            step = int(step_text)
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
            raise ScheduleError(f"Range {start}-{end} runs backwards in cron `{expr}`.")
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
            raise ScheduleError(f"Cron `{self.expr}` never matches a real date.")

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


_RRULE_KEYS = {
    "FREQ",
    "INTERVAL",
    "BYDAY",
    "BYMONTHDAY",
    "BYMONTH",
    "BYHOUR",
    "BYMINUTE",
    "BYSECOND",
    "BYSETPOS",
    "BYYEARDAY",
    "BYWEEKNO",
    "WKST",
    "COUNT",
    "UNTIL",
}


@dataclass(frozen=True)
class RRule:
    """An RFC 5545 recurrence rule over naive local wall-clock times starting at `start`."""

    rule: str
    start: datetime

    def __post_init__(self) -> None:
        body = self.rule.strip()
        if body.upper().startswith("RRULE:"):
            body = body[6:]
        object.__setattr__(self, "rule", body.upper())
        if self.start.tzinfo is not None:
            object.__setattr__(self, "start", self.start.replace(tzinfo=None))
        keys = {p.partition("=")[0] for p in self.rule.split(";") if p}
        if "FREQ" not in keys or not keys <= _RRULE_KEYS:
            raise ScheduleError(f"Recurrence rule {self.rule!r} is not valid.")
        try:
            self.build()
        except (ValueError, TypeError) as exc:
            raise ScheduleError(f"Recurrence rule {self.rule!r} is not valid: {exc}") from None

    def build(self) -> rrule:
        built = rrulestr(self.rule, dtstart=self.start)
        assert isinstance(built, rrule)
        return built

    def parts(self) -> dict[str, str]:
        return dict(p.split("=", 1) for p in self.rule.split(";") if "=" in p)


Spec = Once | Every | Cron | RRule


def spec_to_json(spec: Spec) -> dict[str, Any]:
    """Plain JSON for the `jobs.schedule` column."""
    if isinstance(spec, Once):
        return {"type": "once", "at": spec.at.isoformat()}
    if isinstance(spec, Every):
        return {"type": "every", "seconds": spec.seconds, "anchor": spec.anchor.isoformat()}
    if isinstance(spec, Cron):
        return {"type": "cron", "expr": spec.expr}
    return {"type": "rrule", "rule": spec.rule, "start": spec.start.isoformat()}


def spec_from_json(data: dict[str, Any]) -> Spec:
    kind = data.get("type")
    if kind == "once":
        return Once(datetime.fromisoformat(data["at"]))
    if kind == "every":
        return Every(int(data["seconds"]), datetime.fromisoformat(data["anchor"]))
    if kind == "cron":
        return Cron(str(data["expr"]))
    if kind == "rrule":
        return RRule(str(data["rule"]), datetime.fromisoformat(data["start"]))
    raise ScheduleError(f"Unknown schedule type {kind!r}.")


# ---------------------------------------------------------------- schedule


@dataclass(frozen=True)
class Schedule:
    """When a job runs: a spec read in an IANA zone, with optional end conditions."""

    spec: Spec
    tz: str = "UTC"
    until: datetime | None = None
    max_runs: int | None = None

    def __post_init__(self) -> None:
        zone(self.tz)
        if self.until is not None and self.until.tzinfo is None:
            object.__setattr__(self, "until", localize(self.until, zone(self.tz)))
        if self.max_runs is not None and self.max_runs < 1:
            raise ScheduleError("The number of runs must be at least 1, e.g. `5 times`.")

    @property
    def zone(self) -> ZoneInfo:
        return zone(self.tz)

    @property
    def is_recurring(self) -> bool:
        return not isinstance(self.spec, Once)

    @property
    def kind(self) -> str:
        return spec_to_json(self.spec)["type"]

    def next_runs(self, after: datetime, n: int, *, runs_done: int = 0) -> list[datetime]:
        """Up to `n` run times strictly after `after`, in the schedule's zone."""
        if after.tzinfo is None:
            raise ValueError("after must be timezone-aware")
        limit = n
        if self.max_runs is not None:
            limit = min(n, max(0, self.max_runs - runs_done))
        out: list[datetime] = []
        if limit <= 0:
            return out
        for at in self._occurrences(after):
            if self.until is not None and at > self.until:
                break
            out.append(at)
            if len(out) >= limit:
                break
        return out

    def next_after(self, after: datetime, *, runs_done: int = 0) -> datetime | None:
        runs = self.next_runs(after, 1, runs_done=runs_done)
        return runs[0] if runs else None

    def first_run(self, now: datetime) -> datetime | None:
        """The first run at or after `now` (a one-off at `now` exactly still counts)."""
        return self.next_after(now - timedelta(microseconds=1))

    def _occurrences(self, after: datetime) -> Iterator[datetime]:
        tz = self.zone
        spec = self.spec
        if isinstance(spec, Once):
            if spec.at > after:
                yield spec.at.astimezone(tz)
            return
        if isinstance(spec, Every):
            yield from _every(spec, after, tz)
            return
        if isinstance(spec, Cron):
            source: Iterator[datetime] = _cron_walls(spec, after.astimezone(tz))
        else:
            source = _rrule_walls(spec, after.astimezone(tz))
        last: datetime | None = None
        for wall in source:
            at = localize(wall, tz)
            # Two walls can land on one instant across a DST gap; keep runs strictly increasing.
            if at <= after or (last is not None and at <= last):
                continue
            last = at
            yield at

    def describe(self) -> str:
        """Plain words: "every weekday at 08:00 (Europe/Berlin)"."""
        text = describe_spec(self.spec, self.zone)
        text += f" ({self.tz})"
        if self.until is not None:
            text += f", until {_fmt_day(self.until.astimezone(self.zone))}"
        if self.max_runs is not None:
            text += ", once" if self.max_runs == 1 else f", {self.max_runs} times"
        return text

    def min_gap(self, after: datetime, samples: int = 50) -> timedelta | None:
        """The shortest gap between the next `samples` runs (None for fewer than two)."""
        if isinstance(self.spec, Every):
            return timedelta(seconds=self.spec.seconds)
        runs = Schedule(self.spec, self.tz).next_runs(after, samples)
        gaps = [b - a for a, b in zip(runs, runs[1:], strict=False)]
        return min(gaps) if gaps else None


def _every(spec: Every, after: datetime, tz: ZoneInfo) -> Iterator[datetime]:
    days = spec.whole_days
    if days:
        wall0 = spec.anchor.astimezone(tz).replace(tzinfo=None)
        delta_days = (after.astimezone(tz).date() - wall0.date()).days
        k = max(0, delta_days // days - 1)
        while True:
            at = localize(wall0 + timedelta(days=k * days), tz)
            if at > after:
                yield at
            k += 1
        return
    step = timedelta(seconds=spec.seconds)
    if after < spec.anchor:
        k = 0
    else:
        k = int((after - spec.anchor) // step) + 1
    while True:
        yield (spec.anchor + k * step).astimezone(tz)
        k += 1


def _cron_walls(spec: Cron, after_local: datetime) -> Iterator[datetime]:
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


def _rrule_walls(spec: RRule, after_local: datetime) -> Iterator[datetime]:
    start = after_local.replace(tzinfo=None) - timedelta(days=1)
    rule = spec.build()
    if start < spec.start:
        start = spec.start - timedelta(seconds=1)
    yield from rule.xafter(start, count=None, inc=False)


# ---------------------------------------------------------------- words

_DAY_NAMES = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]
_MONTH_NAMES = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
]
_RR_DAYS = {"MO": 1, "TU": 2, "WE": 3, "TH": 4, "FR": 5, "SA": 6, "SU": 0}
_ORDINAL_WORDS = {1: "first", 2: "second", 3: "third", 4: "fourth", 5: "fifth", -1: "last"}


def ordinal(n: int) -> str:
    if 10 <= n % 100 <= 20:
        suffix = "th"
    else:
        suffix = {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _fmt_day(at: datetime) -> str:
    return f"{at.day} {_MONTH_NAMES[at.month - 1][:3]} {at.year}"


def _join(words: list[str]) -> str:
    if len(words) <= 1:
        return "".join(words)
    return ", ".join(words[:-1]) + " and " + words[-1]


def _times(hours: list[int], minutes: list[int]) -> str:
    return _join([f"{h:02d}:{m:02d}" for h in hours for m in minutes])


def _weekday_phrase(days: set[int]) -> str:
    if days == {1, 2, 3, 4, 5}:
        return "every weekday"
    if days == {0, 6}:
        return "every Saturday and Sunday"
    if len(days) == 7:
        return "every day"
    ordered = sorted(days, key=lambda d: (d + 6) % 7)  # Monday first
    return "every " + _join([_DAY_NAMES[d] for d in ordered])


def _plural(n: int, unit: str) -> str:
    return f"{unit}" if n == 1 else f"{n} {unit}s"


def describe_spec(spec: Spec, tz: ZoneInfo) -> str:
    if isinstance(spec, Once):
        at = spec.at.astimezone(tz)
        return f"once on {_DAY_NAMES[at.isoweekday() % 7][:3]} {_fmt_day(at)} at {at:%H:%M}"
    if isinstance(spec, Every):
        if spec.whole_days:
            at = spec.anchor.astimezone(tz)
            every = "every day" if spec.whole_days == 1 else f"every {spec.whole_days} days"
            return f"{every} at {at:%H:%M}"
        s = spec.seconds
        for unit, size in (("hour", 3600), ("minute", 60)):
            if s % size == 0:
                return f"every {_plural(s // size, unit)}"
        return f"every {_plural(s, 'second')}"
    if isinstance(spec, Cron):
        return _describe_cron(spec)
    return _describe_rrule(spec)


def _describe_cron(c: Cron) -> str:
    fields = c.expr.split(" ")
    minutes, hours = sorted(c.minutes), sorted(c.hours)
    step = re.fullmatch(r"\*/(\d+)", fields[0])
    if step and fields[1:] == ["*", "*", "*", "*"]:
        return f"every {_plural(int(step.group(1)), 'minute')}"
    if len(minutes) == 1 and fields[1] == "*" and fields[2:] == ["*", "*", "*"]:
        return f"every hour at :{minutes[0]:02d}"
    if len(minutes) * len(hours) > 6:
        return f"on the cron schedule `{c.expr}`"
    at = "at " + _times(hours, minutes)
    all_months = fields[3] == "*"
    if c.any_day and c.any_weekday and all_months:
        return f"every day {at}"
    if c.any_day and all_months:
        return f"{_weekday_phrase(set(c.weekdays))} {at}"
    if c.any_weekday and not c.any_day:
        days = _join([ordinal(d) for d in sorted(c.days)])
        if all_months:
            return f"on the {days} of every month {at}"
        if len(c.months) == 1 and len(c.days) == 1:
            month = _MONTH_NAMES[min(c.months) - 1]
            return f"every year on {month} {ordinal(min(c.days))} {at}"
        months = _join([_MONTH_NAMES[m - 1] for m in sorted(c.months)])
        return f"on the {days} of {months} {at}"
    return f"on the cron schedule `{c.expr}`"


def _describe_rrule(r: RRule) -> str:
    p = r.parts()
    freq = p.get("FREQ", "")
    interval = int(p.get("INTERVAL", "1") or 1)
    hours = [int(h) for h in p["BYHOUR"].split(",")] if "BYHOUR" in p else [r.start.hour]
    minutes = [int(m) for m in p["BYMINUTE"].split(",")] if "BYMINUTE" in p else [r.start.minute]
    at = "at " + _times(sorted(hours), sorted(minutes))
    unit = {"DAILY": "day", "WEEKLY": "week", "MONTHLY": "month", "YEARLY": "year"}.get(freq)
    if unit is None:
        names = {"HOURLY": "hour", "MINUTELY": "minute", "SECONDLY": "second"}
        return f"every {_plural(interval, names.get(freq, 'period'))}"
    every = f"every {unit}" if interval == 1 else (
        f"every other {unit}" if interval == 2 else f"every {interval} {unit}s"
    )
    byday = [d for d in p.get("BYDAY", "").split(",") if d]
    if byday and freq == "WEEKLY" or (byday and freq == "DAILY"):
        names = [_DAY_NAMES[_RR_DAYS[d[-2:]]] for d in byday if d[-2:] in _RR_DAYS]
        if interval == 1:
            return f"{_weekday_phrase({_RR_DAYS[d[-2:]] for d in byday})} {at}"
        if interval == 2 and len(names) == 1:
            return f"every other {names[0]} {at}"
        return f"{every} on {_join(names)} {at}"
    if byday and freq in ("MONTHLY", "YEARLY"):
        words = []
        for d in byday:
            m = re.fullmatch(r"([+-]?\d+)?(MO|TU|WE|TH|FR|SA|SU)", d)
            if not m:
                continue
            pos = int(m.group(1)) if m.group(1) else int(p.get("BYSETPOS", "0") or 0)
            name = _DAY_NAMES[_RR_DAYS[m.group(2)]]
            words.append(f"{_ORDINAL_WORDS.get(pos, ordinal(pos))} {name}" if pos else name)
        scope = "month" if freq == "MONTHLY" else "year"
        if "BYMONTH" in p and freq == "YEARLY":
            scope = _join([_MONTH_NAMES[int(m) - 1] for m in p["BYMONTH"].split(",")])
            return f"on the {_join(words)} of {scope} every year {at}"
        of = f"every {scope}" if interval == 1 else f"{every}"
        return f"on the {_join(words)} of {of} {at}"
    if "BYMONTHDAY" in p and freq == "MONTHLY":
        days = _join([ordinal(int(d)) if int(d) > 0 else "last day" for d in p["BYMONTHDAY"].split(",")])
        return f"on the {days} of {every} {at}" if interval > 1 else f"on the {days} of every month {at}"
    if freq == "YEARLY":
        month = int(p.get("BYMONTH", r.start.month))
        day = int(p.get("BYMONTHDAY", r.start.day))
        return f"{every} on {_MONTH_NAMES[month - 1]} {ordinal(day)} {at}"
    if freq == "WEEKLY":
        return f"{every} on {_DAY_NAMES[r.start.isoweekday() % 7]} {at}"
    if freq == "MONTHLY":
        return f"{every} on the {ordinal(r.start.day)} {at}"
    return f"{every} {at}"
