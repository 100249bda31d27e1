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
from itertools import pairwise
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

from dateutil.rrule import rrule, rrulestr

from tools.errors import UserError, quoted

__all__ = [
    "Cron",
    "Every",
    "Exclusion",
    "Once",
    "RRule",
    "Schedule",
    "ScheduleError",
    "Spec",
    "localize",
    "parse_at_form",
    "spec_from_json",
    "spec_to_json",
    "zone",
]


class ScheduleError(UserError):
    """A schedule a user asked for cannot work; the message says what to type instead."""


MAX_RUNS = 1_000_000
_ZONE_CACHE: dict[str, ZoneInfo] = {}


def zone(name: str) -> ZoneInfo:
    """The IANA zone called `name`, or a ScheduleError saying how to name one."""
    cached = _ZONE_CACHE.get(name)
    if cached is not None:
        return cached
    if not name or name != name.strip() or "\x00" in name or len(name) > 64:
        raise ScheduleError(
            f"Unknown time zone {quoted(name)}; use an IANA name like Europe/Berlin."
        )
    try:
        found = ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError):
        raise ScheduleError(
            f"Unknown time zone {quoted(name)}; "
            "use an IANA name like Europe/Berlin or America/New_York."
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


_SUB_DAILY = {"HOURLY": 3600, "MINUTELY": 60, "SECONDLY": 1}
_EXCLUSION_HELP = (
    "use EXDATE:YYYYMMDD (a whole day), EXDATE:YYYYMMDDTHHMMSS (one local time) "
    "or EXRULE:FREQ=… (a repeating exception)"
)
MAX_EXCLUSIONS = 100


@dataclass(frozen=True)
class Exclusion:
    """One parsed exception of an RRule: a local day, a local wall time, or a rule."""

    text: str
    day: date | None = None
    wall: datetime | None = None
    rule: str | None = None

    @property
    def timed_rule(self) -> bool:
        """A rule naming times of day excludes those walls; one without excludes days."""
        if self.rule is None:
            return False
        parts = dict(p.split("=", 1) for p in self.rule.split(";") if "=" in p)
        return parts.get("FREQ") in _SUB_DAILY or bool(
            {"BYHOUR", "BYMINUTE", "BYSECOND"} & parts.keys()
        )


def _exdate(value: str, original: str) -> Exclusion:
    compact = value.strip().replace("-", "").replace(":", "")
    m = re.fullmatch(r"(\d{4})(\d{2})(\d{2})(?:T(\d{2})(\d{2})(\d{2})?)?", compact)
    if not m:
        raise ScheduleError(f"Exception {quoted(original)} is not valid; {_EXCLUSION_HELP}.")
    y, mo, d = int(m[1]), int(m[2]), int(m[3])
    try:
        if m[4] is None:
            day = date(y, mo, d)
            return Exclusion(f"EXDATE:{day:%Y%m%d}", day=day)
        wall = datetime(y, mo, d, int(m[4]), int(m[5]), int(m[6] or 0))
    except ValueError:
        raise ScheduleError(f"Exception {quoted(original)} is not a real date or time.") from None
    return Exclusion(f"EXDATE:{wall:%Y%m%dT%H%M%S}", wall=wall)


def _exrule(body: str, original: str, start: datetime) -> Exclusion:
    body = body.strip().strip(";")
    keys = {p.partition("=")[0] for p in body.split(";") if p}
    if "FREQ" not in keys or not keys <= _RRULE_KEYS:
        raise ScheduleError(f"Exception {quoted(original)} is not valid; {_EXCLUSION_HELP}.")
    try:
        rrulestr(body, dtstart=_exclusion_anchor(start))
    except (ValueError, TypeError) as exc:
        raise ScheduleError(f"Exception {quoted(original)} is not a valid rule: {exc}") from None
    return Exclusion(f"EXRULE:{body}", rule=body)


def _exclusion_anchor(start: datetime) -> datetime:
    # Exception rules count from the start's day at midnight, so a rule without a time
    # names whole days and one with BYHOUR defaults its minutes and seconds to zero.
    return datetime.combine(start.date(), time(0))


def parse_exclusions(items: tuple[str, ...] | list[str], start: datetime) -> list[Exclusion]:
    """Validate and normalise RRule exceptions (a ScheduleError says what to type)."""
    out: dict[str, Exclusion] = {}
    for item in items:
        if not isinstance(item, str):
            raise ScheduleError(f"Exception {quoted(item)} is not valid; {_EXCLUSION_HELP}.")
        head, sep, body = item.strip().upper().partition(":")
        head = head.strip()
        if not sep or not body.strip():
            raise ScheduleError(f"Exception {quoted(item)} is not valid; {_EXCLUSION_HELP}.")
        if head in ("EXDATE", "EXDATE;VALUE=DATE", "EXDATE;VALUE=DATE-TIME"):
            found = [_exdate(v, item) for v in body.split(",") if v.strip()]
        elif head == "EXRULE":
            found = [_exrule(body, item, start)]
        else:
            raise ScheduleError(f"Exception {quoted(item)} is not valid; {_EXCLUSION_HELP}.")
        for exc in found:
            out.setdefault(exc.text, exc)
    if len(out) > MAX_EXCLUSIONS:
        raise ScheduleError(f"A schedule can have at most {MAX_EXCLUSIONS} exceptions.")
    return list(out.values())


@dataclass(frozen=True)
class RRule:
    """An RFC 5545 recurrence rule over naive local wall-clock times starting at `start`.

    `exclude` holds exceptions, all read as local wall clock: ``EXDATE:YYYYMMDD`` skips a
    whole day, ``EXDATE:YYYYMMDDTHHMMSS`` skips runs in that minute, and ``EXRULE:<rule>``
    skips what a rule names (whole days, or exact walls when it has BYHOUR/BYMINUTE or a
    sub-daily FREQ). Sub-daily rules (FREQ=HOURLY…) step the wall clock too.
    """

    rule: str
    start: datetime
    exclude: tuple[str, ...] = ()
    exclusions: tuple[Exclusion, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        body = self.rule.strip()
        if body.upper().startswith("RRULE:"):
            body = body[6:]
        object.__setattr__(self, "rule", body.upper())
        if self.start.tzinfo is not None:
            object.__setattr__(self, "start", self.start.replace(tzinfo=None))
        keys = {p.partition("=")[0] for p in self.rule.split(";") if p}
        if "FREQ" not in keys or not keys <= _RRULE_KEYS:
            raise ScheduleError(f"Recurrence rule {quoted(self.rule)} is not valid.")
        try:
            self.build()
        except (ValueError, TypeError) as exc:
            raise ScheduleError(
                f"Recurrence rule {quoted(self.rule)} is not valid: {exc}"
            ) from None
        raw = (self.exclude,) if isinstance(self.exclude, str) else tuple(self.exclude or ())
        parsed = parse_exclusions(raw, self.start)
        object.__setattr__(self, "exclude", tuple(e.text for e in parsed))
        object.__setattr__(self, "exclusions", tuple(parsed))
        if parsed and not self._survives_exclusions():
            raise ScheduleError(
                "Those exceptions leave no runs at all; "
                "drop some of them, e.g. `every day except weekends`."
            )

    def build(self) -> rrule:
        built = rrulestr(self.rule, dtstart=self.start)
        assert isinstance(built, rrule)
        return built

    def parts(self) -> dict[str, str]:
        return dict(p.split("=", 1) for p in self.rule.split(";") if "=" in p)

    def _survives_exclusions(self) -> bool:
        """Whether some run escapes the exceptions within eight years of the start.

        Probes at most 20,000 runs; a rule that dense gets the benefit of the doubt.
        """
        horizon = self.start + timedelta(days=366 * 8)
        seen = 0

        def walls() -> Iterator[datetime]:
            nonlocal seen
            for wall in self.build().xafter(self.start, count=None, inc=True):
                if wall > horizon or seen >= 20_000:
                    return
                seen += 1
                yield wall

        for _ in _excluding(self, walls()):
            return True
        return seen >= 20_000


Spec = Once | Every | Cron | RRule


def spec_to_json(spec: Spec) -> dict[str, Any]:
    """Plain JSON for the `jobs.schedule` column."""
    if isinstance(spec, Once):
        return {"type": "once", "at": spec.at.isoformat()}
    if isinstance(spec, Every):
        return {"type": "every", "seconds": spec.seconds, "anchor": spec.anchor.isoformat()}
    if isinstance(spec, Cron):
        return {"type": "cron", "expr": spec.expr}
    out: dict[str, Any] = {"type": "rrule", "rule": spec.rule, "start": spec.start.isoformat()}
    if spec.exclude:
        out["exclude"] = list(spec.exclude)
    return out


def spec_from_json(data: dict[str, Any]) -> Spec:
    kind = data.get("type")
    if kind == "once":
        return Once(datetime.fromisoformat(data["at"]))
    if kind == "every":
        return Every(int(data["seconds"]), datetime.fromisoformat(data["anchor"]))
    if kind == "cron":
        return Cron(str(data["expr"]))
    if kind == "rrule":
        exclude = data.get("exclude") or ()
        if not isinstance(exclude, (list, tuple)):
            raise ScheduleError("A schedule's exceptions must be a list of EXDATE/EXRULE strings.")
        return RRule(
            str(data["rule"]),
            datetime.fromisoformat(data["start"]),
            tuple(str(x) for x in exclude),
        )
    raise ScheduleError(f"Unknown schedule type {quoted(str(kind))}.")


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
        if self.max_runs is not None and self.max_runs > MAX_RUNS:
            raise ScheduleError(f"That's too many runs; give at most {MAX_RUNS:,}.")

    @property
    def zone(self) -> ZoneInfo:
        return zone(self.tz)

    @property
    def is_recurring(self) -> bool:
        return not isinstance(self.spec, Once)

    @property
    def kind(self) -> str:
        return spec_to_json(self.spec)["type"]

    def next_runs(
        self, after: datetime, n: int, *, runs_done: int = 0, end: datetime | None = None
    ) -> list[datetime]:
        """Up to `n` run times strictly after `after` (and not after `end`), in the zone."""
        if after.tzinfo is None:
            raise ValueError("after must be timezone-aware")
        limit = n
        if self.max_runs is not None:
            limit = min(n, max(0, self.max_runs - runs_done))
        out: list[datetime] = []
        if limit <= 0:
            return out
        try:
            for at in self._occurrences(after):
                if self.until is not None and at > self.until:
                    break
                if end is not None and at > end:
                    break
                out.append(at)
                if len(out) >= limit:
                    break
        except (OverflowError, ValueError):
            pass  # the next run would lie past the calendar's end (year 9999): there is none
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
            if spec.exclusions:
                source = _excluding(spec, source)
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
        # In UTC: times in one zone subtract as wall clocks, which is wrong across DST.
        runs = [r.astimezone(UTC) for r in Schedule(self.spec, self.tz).next_runs(after, samples)]
        gaps = [b - a for a, b in pairwise(runs)]
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
    # Real elapsed time, whatever zone the anchor came in: aware arithmetic in a ZoneInfo
    # steps the wall clock, which across a DST change is an hour off the stored job's series.
    step = timedelta(seconds=spec.seconds)
    anchor = spec.anchor.astimezone(UTC)
    k = 0 if after < anchor else int((after - anchor) // step) + 1
    while True:
        yield (anchor + k * step).astimezone(tz)
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
    rule = _rebased(spec, start)
    if start < spec.start:
        start = spec.start - timedelta(seconds=1)
    yield from rule.xafter(start, count=None, inc=False)


def _rebased(spec: RRule, start: datetime) -> rrule:
    """The rule, with a plain sub-daily interval's start moved up close to `start`.

    FREQ=HOURLY;INTERVAL=8 from years ago would otherwise be replayed from its first
    run on every call; stepping whole intervals on the naive wall clock keeps the phase.
    """
    parts = spec.parts()
    unit = _SUB_DAILY.get(parts.get("FREQ", ""))
    if unit is None or not set(parts) <= {"FREQ", "INTERVAL", "UNTIL"} or start <= spec.start:
        return spec.build()
    step = unit * max(1, int(parts.get("INTERVAL", "1") or 1))
    k = int((start - spec.start).total_seconds()) // step
    moved = spec.start + timedelta(seconds=k * step)
    built = rrulestr(spec.rule, dtstart=moved)
    assert isinstance(built, rrule)
    return built


MAX_SKIPPED = 100_000


def _excluding(spec: RRule, walls: Iterator[datetime]) -> Iterator[datetime]:
    """`walls` (increasing naive local times) minus the rule's exceptions.

    Gives up after MAX_SKIPPED excluded runs in a row, so exceptions that swallow
    everything end the schedule instead of looping forever.
    """
    days = {e.day for e in spec.exclusions if e.day is not None}
    minutes = {e.wall.replace(second=0) for e in spec.exclusions if e.wall is not None}
    rules = [e for e in spec.exclusions if e.rule is not None]
    streams: list[tuple[bool, Iterator[datetime], list[datetime | None]]] = []
    skipped = 0
    for wall in walls:
        minute = wall.replace(second=0, microsecond=0)
        if not streams and rules:
            since = datetime.combine(wall.date(), time(0))
            for e in rules:
                assert e.rule is not None
                r = rrulestr(e.rule, dtstart=_exclusion_anchor(spec.start))
                assert isinstance(r, rrule)
                stream: Iterator[datetime] = r.xafter(since, count=None, inc=True)
                streams.append((e.timed_rule, stream, [next(stream, None)]))
        hit = wall.date() in days or minute in minutes
        for timed, it, head in streams:
            if hit:
                break
            lo = minute if timed else datetime.combine(wall.date(), time(0))
            hi = lo + (timedelta(minutes=1) if timed else timedelta(days=1))
            while head[0] is not None and head[0] < lo:
                head[0] = next(it, None)
            hit = head[0] is not None and head[0] < hi
        if hit:
            skipped += 1
            if skipped >= MAX_SKIPPED:
                return
            continue
        skipped = 0
        yield wall


# ---------------------------------------------------------------- words

_DAY_NAMES = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]
MONTH_NAMES = [
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
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _fmt_day(at: datetime) -> str:
    return f"{at.day} {MONTH_NAMES[at.month - 1][:3]} {at.year}"


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
    text = _describe_rrule(spec)
    if spec.exclusions:
        text += " except " + _join([_describe_exclusion(e, spec.start) for e in spec.exclusions])
    return text


def _describe_minutes(field: str, minutes: list[int], expr: str) -> str:
    """An hourly pattern, as it fires: a step that doesn't divide the hour restarts at
    the top of each hour (`*/45` fires at :00 and :45), so it is not "every 45 minutes"."""
    if len(minutes) == 1:
        return f"every hour at :{minutes[0]:02d}"
    step = re.fullmatch(r"\*/(\d+)", field)
    if step and 60 % int(step.group(1)) == 0:
        return f"every {_plural(int(step.group(1)), 'minute')}"
    if len(minutes) <= 6:
        return f"at {_join([f':{m:02d}' for m in minutes])} past each hour"
    stepped = re.fullmatch(r"(?:\*|\d+)/(\d+)", field)
    if stepped:
        first, last = minutes[0], minutes[-1]
        return (
            f"every {_plural(int(stepped.group(1)), 'minute')} from :{first:02d} to "
            f":{last:02d} past each hour, then again from :{first:02d}"
        )
    return f"on the cron schedule `{expr}`"


def _describe_cron(c: Cron) -> str:
    fields = c.expr.split(" ")
    minutes, hours = sorted(c.minutes), sorted(c.hours)
    if fields[1:] == ["*", "*", "*", "*"]:
        return _describe_minutes(fields[0], minutes, c.expr)
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
            month = MONTH_NAMES[min(c.months) - 1]
            return f"every year on {month} {ordinal(min(c.days))} {at}"
        months = _join([MONTH_NAMES[m - 1] for m in sorted(c.months)])
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
        small = {"HOURLY": "hour", "MINUTELY": "minute", "SECONDLY": "second"}
        return f"every {_plural(interval, small.get(freq, 'period'))}"
    every = (
        f"every {unit}"
        if interval == 1
        else (f"every other {unit}" if interval == 2 else f"every {interval} {unit}s")
    )
    byday = [d for d in p.get("BYDAY", "").split(",") if d]
    if byday and freq in ("WEEKLY", "DAILY"):
        names = [_DAY_NAMES[_RR_DAYS[d[-2:]]] for d in byday if d[-2:] in _RR_DAYS]
        if interval == 1:
            return f"{_weekday_phrase({_RR_DAYS[d[-2:]] for d in byday})} {at}"
        if interval == 2 and len(names) == 1:
            return f"every other {names[0]} {at}"
        return f"{every} on {_join(names)} {at}"
    if (
        byday
        and freq in ("MONTHLY", "YEARLY")
        and "BYSETPOS" in p
        and all(d in _RR_DAYS for d in byday)
    ):
        # BYSETPOS picks among the named days: "the first and last Tuesday or Friday".
        setpos = [int(x) for x in p["BYSETPOS"].split(",") if x]
        weekdays = {_RR_DAYS[d] for d in byday}
        named = (
            "weekday"
            if weekdays == {1, 2, 3, 4, 5}
            else " or ".join(_DAY_NAMES[d] for d in sorted(weekdays, key=lambda d: (d + 6) % 7))
        )
        which = _join([_ORDINAL_WORDS.get(x, ordinal(x)) for x in setpos])
        if "BYMONTH" in p and freq == "YEARLY":
            scope = _join([MONTH_NAMES[int(m) - 1] for m in p["BYMONTH"].split(",")])
            return f"on the {which} {named} of {scope} every year {at}"
        scope = (
            "every month"
            if freq == "MONTHLY" and interval == 1
            else ("every year" if interval == 1 else every)
        )
        return f"on the {which} {named} of {scope} {at}"
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
            scope = _join([MONTH_NAMES[int(m) - 1] for m in p["BYMONTH"].split(",")])
            return f"on the {_join(words)} of {scope} every year {at}"
        of = f"every {scope}" if interval == 1 else f"{every}"
        return f"on the {_join(words)} of {of} {at}"
    if "BYMONTHDAY" in p and freq == "MONTHLY":
        days = _join(
            [ordinal(int(d)) if int(d) > 0 else "last day" for d in p["BYMONTHDAY"].split(",")]
        )
        of = every if interval > 1 else "every month"
        return f"on the {days} of {of} {at}"
    if freq == "YEARLY":
        month = int(p.get("BYMONTH", r.start.month))
        day = int(p.get("BYMONTHDAY", r.start.day))
        return f"{every} on {MONTH_NAMES[month - 1]} {ordinal(day)} {at}"
    if freq == "WEEKLY":
        return f"{every} on {_DAY_NAMES[r.start.isoweekday() % 7]} {at}"
    if freq == "MONTHLY":
        return f"{every} on the {ordinal(r.start.day)} {at}"
    return f"{every} {at}"


def _short_day(d: date, start: datetime) -> str:
    text = f"{d.day} {MONTH_NAMES[d.month - 1][:3]}"
    return text if d.year == start.year else f"{text} {d.year}"


def _describe_exclusion(e: Exclusion, start: datetime) -> str:
    """Plain words for one exception: "6 Mar", "2 Jan at 08:00", "the second Monday of March"."""
    if e.day is not None:
        return _short_day(e.day, start)
    if e.wall is not None:
        return f"{_short_day(e.wall.date(), start)} at {e.wall:%H:%M}"
    assert e.rule is not None
    p = dict(x.split("=", 1) for x in e.rule.split(";") if "=" in x)
    freq = p.get("FREQ", "")
    interval = int(p.get("INTERVAL", "1") or 1)
    plain = interval == 1 and not {"BYSETPOS", "BYWEEKNO", "BYYEARDAY", "COUNT", "UNTIL"} & p.keys()
    byday = [d for d in p.get("BYDAY", "").split(",") if d]
    months = [int(m) for m in p.get("BYMONTH", "").split(",") if m]
    monthdays = [int(d) for d in p.get("BYMONTHDAY", "").split(",") if d]
    month_words = _join([MONTH_NAMES[m - 1] for m in months])
    at = ""
    if e.timed_rule and freq not in _SUB_DAILY:
        hours = [int(h) for h in p.get("BYHOUR", "0").split(",")]
        minutes = [int(m) for m in p.get("BYMINUTE", "0").split(",")]
        at = " at " + _times(sorted(hours), sorted(minutes))
    if plain and freq not in _SUB_DAILY:
        nth = [re.fullmatch(r"([+-]?\d+)(MO|TU|WE|TH|FR|SA|SU)", d) for d in byday]
        if byday and all(nth):
            words = [
                f"the {_ORDINAL_WORDS.get(int(m[1]), ordinal(int(m[1])))} "
                f"{_DAY_NAMES[_RR_DAYS[m[2]]]}"
                for m in nth
                if m
            ]
            scope = month_words or "every month"
            if freq in ("MONTHLY", "YEARLY") and not monthdays:
                return f"{_join(words)} of {scope}{at}"
        if byday and all(d in _RR_DAYS for d in byday) and not monthdays:
            days = {_RR_DAYS[d] for d in byday}
            names = (
                "weekdays"
                if days == {1, 2, 3, 4, 5}
                else (
                    "weekends"
                    if days == {0, 6}
                    else _join(
                        [_DAY_NAMES[d] + "s" for d in sorted(days, key=lambda d: (d + 6) % 7)]
                    )
                )
            )
            return f"{names}{' in ' + month_words if months else ''}{at}"
        if monthdays and not byday:
            days_text = _join([ordinal(d) if d > 0 else "last day" for d in monthdays])
            if months:
                return f"the {days_text} of {month_words}{at}"
            return f"the {days_text} of every month{at}"
        if months and not byday and freq == "DAILY":
            return f"in {month_words}{at}"
        if not byday and not months and freq == "DAILY" and at:
            return f"daily{at}"
    rule_text = _describe_rrule(RRule(e.rule, _exclusion_anchor(start)))
    if not e.timed_rule:
        rule_text = re.sub(r" at 00:00$", "", rule_text)
    return rule_text
