"""Durations: "30 minutes", "1h30m", "an hour and a half", "a couple of hours", "2d".

`match_duration` finds a duration at a position inside a normalised phrase (used by the
relative-time and recurrence rules); `parse_duration` is the public whole-text form.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta

from dateutil.relativedelta import relativedelta

from .lexicon import normalize

# Unit words → canonical unit. Months and years are calendar units (relativedelta).
_UNIT_WORDS: dict[str, str] = {}
for _unit, _words in {
    "seconds": "seconds second secs sec s",
    "minutes": "minutes minute mins min m '",
    "hours": "hours hour hrs hr h",
    "days": "days day d",
    "weeks": "weeks week wks wk w",
    "fortnights": "fortnights fortnight",
    "months": "months month mos mo",
    "years": "years year yrs yr y",
    "decades": "decades decade",
    "centuries": "centuries century",
}.items():
    for _w in _words.split():
        _UNIT_WORDS[_w] = _unit

UNIT_RE = (
    r"(?:seconds?|secs?|minutes?|mins?|hours?|hrs?|days?|weeks?|wks?|fortnights?|"
    r"months?|mos?|years?|yrs?|decades?|century|centuries)"
)
_SHORT_UNIT_RE = r"(?:s|m|h|d|w|y|mo|min|hr|sec|')"
_FRACTION = {"half": 0.5, "quarter": 0.25, "3-quarters": 0.75, "3 quarters": 0.75}
QTY_RE = (
    r"(?:\d+(?:\.\d+)?|\d+/\d+|an?|1|a couple of|a couple|couple of|couple|a pair of|"
    r"pair of|a few|few|several|"
    r"half an?|half a|a half|an? quarter of an?|quarter of an?|an? quarter|"
    r"3[- ]quarters of an?|3/4 of an?)"
)
_TERM = re.compile(
    r"(?P<q>" + QTY_RE + r")\s*(?:more\s+|extra\s+)?(?P<u>" + UNIT_RE + r")(?![a-z])"
    # "an hour and half", as often written; "an hour and a quarter", "… and 3 quarters"
    r"(?P<half>\s+and\s+(?:a\s+)?(?:half|quarter|3[- ]quarters))?"
)
_TERM_HALF = re.compile(r"(?P<q>\d+)\s+and\s+(?:a\s+)?half\s+(?P<u>" + UNIT_RE + r")(?![a-z])")
# Glued forms such as "1h30m", "1h30", "90s", "2d", "15'", "1/4h".
_COMPACT = re.compile(
    r"(?P<a>\d+(?:\.\d+)?|\d/\d)\s?(?P<ua>" + _SHORT_UNIT_RE + r")"
    r"(?:(?P<b>\d+)(?P<ub>" + _SHORT_UNIT_RE + r")?)?(?![\w'])"
)
_JOIN = re.compile(r"\s*(?:,\s*(?:and\s+)?|\s+(?P<and>and|&)\s+|\s+)")
# "an hour and 30": a bare number joined by "and" counts the next smaller unit, as in
# "1h30" — unless it is a count or a clock time ("and 5 times", "and 5pm").
_SMALLER = {"hours": "minutes", "minutes": "seconds"}
_TRAILING = re.compile(r"(?P<n>[0-5]?\d)(?![\w'.:/-])(?!\s*(?:times|x|am|pm|o'?clock)\b)")


@dataclass(frozen=True)
class Duration:
    """A length of time split into calendar parts (months/years) and exact seconds."""

    years: float = 0
    months: float = 0
    days: float = 0
    seconds: float = 0

    def add_to(self, when: datetime) -> datetime:
        """`when` moved by this duration: calendar parts on the wall clock, then elapsed time."""
        out = when
        if self.years or self.months:
            whole = int(self.years * 12 + self.months)
            extra_days = (self.years * 12 + self.months - whole) * 30
            out = out + relativedelta(months=whole) + timedelta(days=extra_days)
        if self.days:
            out = out + timedelta(days=self.days)
        return out + timedelta(seconds=self.seconds)

    def total(self) -> timedelta:
        """Approximate length (months = 30 days, years = 365 days)."""
        days = self.years * 365 + self.months * 30 + self.days
        return timedelta(days=days, seconds=self.seconds)

    @property
    def coarse_unit(self) -> str:
        """The biggest unit present, to choose a rounding grain."""
        if self.years or self.months:
            return "month"
        if self.days:
            return "day"
        return "second"


def _qty(q: str) -> float | None:
    q = q.strip()
    if re.fullmatch(r"\d+(?:\.\d+)?", q):
        return float(q)
    if re.fullmatch(r"\d+/\d+", q):
        a, b = q.split("/")
        return int(a) / int(b) if int(b) else None
    if q in ("a", "an", "1"):
        return 1.0
    if "couple" in q or "pair" in q:
        return 2.0
    if "few" in q:
        return 3.0
    if "several" in q:
        return 3.0
    if "3" in q:
        return 0.75
    if "quarter" in q:
        return 0.25
    if "half" in q:
        return 0.5
    return None


def _add(parts: dict[str, float], unit: str, n: float) -> None:
    if unit == "fortnights":
        unit, n = "weeks", n * 2
    if unit in ("decades", "centuries"):
        unit, n = "years", n * (10 if unit == "decades" else 100)
    if unit == "weeks":
        unit, n = "days", n * 7
    parts[unit] = parts.get(unit, 0.0) + n


def match_duration(s: str, pos: int = 0) -> tuple[Duration, int] | None:
    """The longest duration starting exactly at `pos` in normalised text, and its end."""
    parts: dict[str, float] = {}
    end = pos
    i = pos
    last = ""  # the unit of the term just read
    j: re.Match[str] | None = None
    while True:
        m = _TERM_HALF.match(s, i)
        if m:
            last = _UNIT_WORDS[m.group("u")]
            _add(parts, last, float(m.group("q")) + 0.5)
        else:
            m = _TERM.match(s, i)
            if m:
                n = _qty(m.group("q"))
                if n is None:
                    break
                if m.group("half"):
                    said = m.group("half")
                    n += 0.75 if "3" in said else 0.25 if "quarter" in said else 0.5
                last = _UNIT_WORDS[m.group("u")]
                _add(parts, last, n)
            else:
                m = _COMPACT.match(s, i)
                if not m:
                    t = _TRAILING.match(s, i) if j and j["and"] and last in _SMALLER else None
                    if t:
                        _add(parts, _SMALLER[last], float(t["n"]))
                        end = t.end()
                    break
                n = _qty(m.group("a"))
                if n is None:
                    break
                ua = last = _UNIT_WORDS[m.group("ua")]
                _add(parts, ua, n)
                if m.group("b"):
                    ub = m.group("ub")
                    # "1h30" means 1h30m: the unit after a bare number is the next smaller one.
                    nxt = {"hours": "minutes", "minutes": "seconds", "days": "hours"}
                    unit_b = _UNIT_WORDS[ub] if ub else nxt.get(ua)
                    if unit_b is None:
                        break
                    _add(parts, unit_b, float(m.group("b")))
                    last = unit_b
        end = m.end()
        j = _JOIN.match(s, end)
        if not j:
            break
        i = j.end()
    if not parts:
        return None
    secs = parts.get("seconds", 0) + parts.get("minutes", 0) * 60 + parts.get("hours", 0) * 3600
    days = parts.get("days", 0)
    return Duration(parts.get("years", 0), parts.get("months", 0), days, secs), end


def parse_duration(text: str) -> timedelta | None:
    """A duration typed by a user as a timedelta, or None when the text is not one.

    "30 minutes", "1h30m", "an hour and a half", "2d", "90 secs", "a couple of hours",
    "1.5 hours"; "for"/"in" in front is allowed. Months count 30 days, years 365.
    """
    if not isinstance(text, str) or len(text) > 200:
        return None
    s = normalize(text).rstrip(".!?")
    s = re.sub(r"^(?:for|in|after|about|around|roughly)\s+", "", s)
    if not s:
        return None
    found = match_duration(s, 0)
    if not found or found[1] != len(s):
        return None
    try:
        return found[0].total()
    except OverflowError:
        return None
