"""Schedules and times in words: "every weekday at 08:00", and Discord's `<t:…>` timestamps.

`timestamp` is the one place a `<t:…>` token is written; Discord renders it in each
reader's own zone and language, and the terminal renders it (`bot/terminal.py`).
"""

from __future__ import annotations

import re
from datetime import date, datetime
from typing import Literal
from zoneinfo import ZoneInfo

from tools.schedule.cron import Cron
from tools.schedule.rrule import SUB_DAILY, Exclusion, RRule, exclusion_anchor
from tools.schedule.specs import Every, Once, Spec

TimestampStyle = Literal["t", "T", "d", "D", "f", "F", "R"]


def timestamp(at: datetime, style: TimestampStyle = "F") -> str:
    """Discord's timestamp token for `at` (`F`: full date and time, `R`: "in 2 hours")."""
    return f"<t:{int(at.timestamp())}:{style}>"


def stamp(at: datetime) -> str:
    """Full date and time, then relative: what a confirmation shows for a run time."""
    return f"{timestamp(at, 'F')} ({timestamp(at, 'R')})"


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


def format_day(at: datetime) -> str:
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
        return f"once on {_DAY_NAMES[at.isoweekday() % 7][:3]} {format_day(at)} at {at:%H:%M}"
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
    if "BYEASTER" in p and freq == "YEARLY":
        shift = int(p["BYEASTER"])
        side = "after" if shift > 0 else "before"
        feast = (
            "on Easter Sunday"
            if not shift
            else (
                f"on the day {side} Easter Sunday"
                if abs(shift) == 1
                else f"{abs(shift)} days {side} Easter Sunday"
            )
        )
        return f"{every} {feast} {at}"
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
    if e.timed_rule and freq not in SUB_DAILY:
        hours = [int(h) for h in p.get("BYHOUR", "0").split(",")]
        minutes = [int(m) for m in p.get("BYMINUTE", "0").split(",")]
        at = " at " + _times(sorted(hours), sorted(minutes))
    if plain and freq not in SUB_DAILY:
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
    rule_text = _describe_rrule(RRule(e.rule, exclusion_anchor(start)))
    if not e.timed_rule:
        rule_text = re.sub(r" at 00:00$", "", rule_text)
    return rule_text
