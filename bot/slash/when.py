"""What a slash command's `when`, `repeat` and `until` fields mean, as a schedule.

No Discord here: text in, `Schedule` (or a `UserError` saying what to type) out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from storage.models import JobKind
from tools import timeparse
from tools.agent.scheduling import parse_recurrence
from tools.errors import UserError, quoted
from tools.schedule import Every, Once, RRule, Schedule, zone

WHEN_EXAMPLES = (
    "`in 20 minutes`, `tomorrow 9am`, `friday at 17:30`, `next monday noon`, "
    "`2026-12-24 18:00`, `in 2 hours`"
)
REPEAT_EXAMPLES = (
    "`daily`, `weekly`, `every 2 hours`, `every weekday at 9`, `every monday`, "
    "`monthly`, `every day 5 times`"
)
UNTIL_EXAMPLES = "`friday`, `2026-12-31`, `in 2 weeks`, `5 times`"

# "daily", "every 3 weeks": a plain frequency that should start exactly at `when`.
_PLAIN = re.compile(
    r"(?:(?P<word>hourly|daily|weekly|fortnightly|monthly|yearly|annually)"
    r"|(?:every|each)\s+(?:(?P<n>\d+|other)\s+)?(?P<unit>day|week|fortnight|month|year)s?)",
    re.IGNORECASE,
)
_WORD_FREQ = {
    "hourly": ("HOURLY", 1),
    "daily": ("DAILY", 1),
    "weekly": ("WEEKLY", 1),
    "fortnightly": ("WEEKLY", 2),
    "monthly": ("MONTHLY", 1),
    "yearly": ("YEARLY", 1),
    "annually": ("YEARLY", 1),
}
_UNIT_FREQ = {
    "day": ("DAILY", 1),
    "week": ("WEEKLY", 1),
    "fortnight": ("WEEKLY", 2),
    "month": ("MONTHLY", 1),
    "year": ("YEARLY", 1),
}
MAX_RUNS = 100_000
MAX_PHRASE = 200
_COUNT = re.compile(r"(?:for\s+)?(\d+)\s*(?:x|times?|runs?)|once|twice", re.IGNORECASE)
_HAS_TIME = re.compile(
    r"\d{1,2}:\d{2}|\d\s*(?:am|pm|a\.m\.|p\.m\.)|\bat\s+\d|\b(?:noon|midnight|morning|"
    r"afternoon|evening|night|hourly|hours?|minutes?|mins?)\b",
    re.IGNORECASE,
)
_NEVER = {"never", "no", "none", "once", "off", "-"}


@dataclass(frozen=True)
class Instant:
    """A `when` read in the user's zone."""

    at: datetime
    tz: str
    text: str


@dataclass(frozen=True)
class Plan:
    """A schedule and the job kind it makes."""

    schedule: Schedule
    kind: str


def read_instant(text: str, *, now: datetime, tz: str) -> Instant:
    """`when` → an instant in the future, or a UserError with examples."""
    _short_enough(text, "when")
    try:
        at = timeparse.read_time(text, now=now.astimezone(zone(tz)), tz=tz)
    except UserError as exc:
        raise UserError(f"{exc.message}\nTry for example: {WHEN_EXAMPLES}.") from None
    if at <= now:
        raise UserError(
            f"{text.strip()!r} is already in the past; pick a time in the future, "
            "e.g. `in 20 minutes` or `tomorrow 9am`."
        )
    # "3pm Tokyo time", "9am in Berlin": read in that zone, and the job keeps it.
    named = at.tzinfo.key if isinstance(at.tzinfo, ZoneInfo) else tz
    return Instant(at, named, text.strip())


def wants_repeat(repeat: str | None) -> bool:
    return bool(repeat and repeat.strip().lower() not in _NEVER)


def plan(
    when: Instant,
    *,
    now: datetime,
    repeat: str | None = None,
    until: str | None = None,
    one_off_kind: str = JobKind.REMINDER,
) -> Plan:
    """The schedule for `when` (+ `repeat`, + `until`); a plain frequency starts at `when`."""
    tz = when.tz
    end, count = read_until(until, now=now, tz=tz) if until else (None, None)
    if not wants_repeat(repeat):
        if end is not None or count is not None:
            raise UserError("`until` only applies with `repeat`, e.g. repeat: `daily`.")
        return Plan(Schedule(Once(when.at), tz), one_off_kind)
    assert repeat is not None
    spec_schedule = read_repeat(repeat, when, now=now)
    schedule = Schedule(
        spec_schedule.spec,
        tz,
        end or spec_schedule.until,
        count or spec_schedule.max_runs,
    )
    kind = JobKind.INTERVAL if isinstance(schedule.spec, Every) else JobKind.RECURRING
    if one_off_kind == JobKind.REMINDER and not isinstance(schedule.spec, Every):
        kind = JobKind.RECURRING
    return Plan(schedule, kind)


def read_repeat(repeat: str, when: Instant, *, now: datetime) -> Schedule:
    """`repeat` anchored at `when`: "daily" runs at when's time, starting at `when`."""
    tz = when.tz
    text = _short_enough(repeat.strip(), "repeat")
    counted = _COUNT.search(text)
    max_runs = _count_of(counted.group(0)) if counted else None
    bare = _COUNT.sub("", text).strip(" ,")
    local = when.at.astimezone(zone(tz))
    plain = _PLAIN.fullmatch(bare)
    if plain is not None:
        if plain.group("word"):
            freq, step = _WORD_FREQ[plain.group("word").lower()]
        else:
            freq, step = _UNIT_FREQ[plain.group("unit").lower()]
            n = plain.group("n")
            step *= 2 if n == "other" else int(n or 1)
        rule = f"FREQ={freq};INTERVAL={step}"
        return Schedule(RRule(rule, local.replace(tzinfo=None)), tz, None, max_runs)
    rec = parse_recurrence(text, now.astimezone(zone(tz)), tz)
    if rec is None:
        raise UserError(
            f"I couldn't read {quoted(text)} as a repeat.\nTry for example: {REPEAT_EXAMPLES}."
        )
    if isinstance(rec.spec, Every):
        # "every 2 hours": first at `when`, then every step after it
        return Schedule(Every(rec.spec.seconds, when.at), tz, rec.until, rec.max_runs or max_runs)
    if not re.search(r"\b(?:starting|from|beginning)\b", text, re.IGNORECASE):
        # Give the pattern `when`'s time of day (unless it named one) and start it on
        # `when`'s day, so "every monday" + "tomorrow 18:00" runs Mondays at 18:00.
        extra = "" if _HAS_TIME.search(text) else f" at {local:%H:%M}"
        again = parse_recurrence(
            f"{text}{extra} starting {local:%Y-%m-%d}", now.astimezone(zone(tz)), tz
        )
        if again is not None:
            rec = again
    return Schedule(rec.spec, tz, rec.until, rec.max_runs or max_runs)


def read_until(text: str, *, now: datetime, tz: str) -> tuple[datetime | None, int | None]:
    """`until`: a time ("friday", "in 2 weeks") or a count ("5 times")."""
    t = _short_enough(text.strip(), "until")
    counted = _COUNT.fullmatch(t)
    if counted is not None:
        return None, _count_of(t)
    span = timeparse.parse_duration(re.sub(r"^for\s+", "", t, flags=re.I))
    if span is not None and span > timedelta(0) and not re.search(r"\bin\b", t, re.I):
        return now + span, None
    local_now = now.astimezone(zone(tz))
    # The time language reads "until friday" as the end of Friday, not Friday 09:00.
    bounded = parse_recurrence(f"every day until {t}", local_now, tz)
    if bounded is not None and bounded.until is not None:
        return bounded.until, None
    try:
        return timeparse.read_time(t, now=local_now, tz=tz), None
    except UserError:
        raise UserError(
            f"I couldn't read {quoted(t)} as an end.\nTry for example: {UNTIL_EXAMPLES}."
        ) from None


def _count_of(text: str) -> int:
    t = text.strip().lower()
    if t == "once":
        return 1
    if t == "twice":
        return 2
    m = re.search(r"\d+", t)
    digits = m.group(0) if m else "1"
    if len(digits) > len(str(MAX_RUNS)) or int(digits) > MAX_RUNS:
        raise UserError(f"That's too many runs; give at most {MAX_RUNS:,}, e.g. `5 times`.")
    n = int(digits)
    if n < 1:
        raise UserError("The number of runs must be at least 1, e.g. `5 times`.")
    return n


def _short_enough(text: str, field: str) -> str:
    """Time fields are short phrases; refuse essays before any pattern has to read them."""
    if len(text) > MAX_PHRASE:
        raise UserError(
            f"`{field}` is too long to be a time; try something like `tomorrow 9am`, "
            "`every weekday at 8` or `5 times`."
        )
    return text
