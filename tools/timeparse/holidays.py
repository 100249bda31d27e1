"""Named days: fixed-date and rule-based holidays, Easter by the computus, the ides.

`HOLIDAY_RE` matches a holiday's name in normalised text; `holiday_date(name, year)`
gives its day in a year. Rule-based days (Thanksgiving = 4th Thursday of November) are
computed, never listed per year, so any year works.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date, timedelta

from .resolve import nth_weekday


def easter(year: int) -> date:
    """Western Easter Sunday (anonymous Gregorian computus, Meeus/Jones/Butcher)."""
    a = year % 19
    b, c = divmod(year, 100)
    d, e = divmod(b, 4)
    f = (b + 8) // 25
    g = (b - f + 1) // 3
    h = (19 * a + b - d - g + 15) % 30
    i, k = divmod(c, 4)
    el = (32 + 2 * e + 2 * i - h - k) % 7
    m = (a + 11 * h + 22 * el) // 451
    month, day = divmod(h + el - 7 * m + 114, 31)
    return date(year, month, day + 1)


def _fixed(month: int, day: int) -> Callable[[int], date | None]:
    return lambda y: date(y, month, day)


def _nth(month: int, weekday: int, n: int) -> Callable[[int], date | None]:
    return lambda y: nth_weekday(y, month, weekday, n)


def _from_easter(days: int) -> Callable[[int], date | None]:
    return lambda y: easter(y) + timedelta(days=days)


def _after_thanksgiving(days: int) -> Callable[[int], date | None]:
    def rule(y: int) -> date | None:
        tg = nth_weekday(y, 11, 3, 4)
        return tg + timedelta(days=days) if tg else None

    return rule


# Regex for the name (normalised text: lower case, straight apostrophe) → rule.
_RULES: list[tuple[str, Callable[[int], date | None]]] = [
    (r"christmas\s+eve|xmas\s+eve", _fixed(12, 24)),
    (r"(?:christmas|xmas)(?:\s+day)?", _fixed(12, 25)),
    (r"boxing\s+day", _fixed(12, 26)),
    (r"new\s+year'?s?\s+eve|nye", _fixed(12, 31)),
    (r"new\s+year'?s?(?:\s+day)?", _fixed(1, 1)),
    (r"hall?owe'?en", _fixed(10, 31)),
    (r"valentine'?s?(?:\s+day)?", _fixed(2, 14)),
    (r"(?:st\.?|saint)\s+patrick'?s?(?:\s+day)?", _fixed(3, 17)),
    (r"april\s+fool'?s?'?(?:\s+day)?", _fixed(4, 1)),
    (r"earth\s+day", _fixed(4, 22)),
    (r"groundhog\s+day", _fixed(2, 2)),
    (r"cinco\s+de\s+mayo", _fixed(5, 5)),
    (r"juneteenth", _fixed(6, 19)),
    (r"independence\s+day", _fixed(7, 4)),
    (r"veterans'?\s+day|armistice\s+day|remembrance\s+day", _fixed(11, 11)),
    (r"all\s+saints'?\s+day", _fixed(11, 1)),
    (r"thanksgiving(?:\s+day)?", _after_thanksgiving(0)),
    (r"black\s+friday", _after_thanksgiving(1)),
    (r"cyber\s+monday", _after_thanksgiving(4)),
    (r"(?:martin\s+luther\s+king(?:,?\s+jr\.?)?(?:'s)?|mlk)(?:\s+jr\.?)?\s+day", _nth(1, 0, 3)),
    (r"presidents?'?\s+day|washington'?s\s+birthday", _nth(2, 0, 3)),
    (r"mother'?s'?\s+day", _nth(5, 6, 2)),
    (r"father'?s'?\s+day", _nth(6, 6, 3)),
    (r"memorial\s+day", _nth(5, 0, -1)),
    (r"labou?r\s+day", _nth(9, 0, 1)),
    (r"columbus\s+day|indigenous\s+peoples'?\s+day", _nth(10, 0, 2)),
    (r"easter\s+mon(?:day)?", _from_easter(1)),
    (r"easter(?:\s+sunday)?", _from_easter(0)),
    (r"holy\s+saturday|easter\s+saturday", _from_easter(-1)),
    (r"good\s+friday", _from_easter(-2)),
    (r"(?:maundy|holy)\s+thursday", _from_easter(-3)),
    (r"palm\s+sunday", _from_easter(-7)),
    (r"ash\s+wednesday", _from_easter(-46)),
    (r"shrove\s+tuesday|mardi\s+gras|pancake\s+day", _from_easter(-47)),
    (r"ascension(?:\s+day)?", _from_easter(39)),
    (r"pentecost|whit\s*sunday", _from_easter(49)),
    (r"whit\s*monday|pentecost\s+monday", _from_easter(50)),
]
_COMPILED = [(re.compile(p + r"(?![\w'])"), rule) for p, rule in _RULES]

# The same days as RRULE parts, for "every christmas", "every thanksgiving at 6pm",
# "each good friday": BYMONTH/BYMONTHDAY, an n-th weekday, or a fixed distance from
# Easter Sunday (BYEASTER). Read off each rule's days, so a rule added later is covered.
_RRULE_PARTS: dict[str, str] = {}


def _register_rrule(pattern: str, parts: str) -> None:
    _RRULE_PARTS[pattern] = parts


for _p, _rule in _RULES:
    _probe = [_rule(y) for y in range(2000, 2029)]  # every weekday layout of a year
    if all(d is not None for d in _probe):
        days = [d for d in _probe if d is not None]
        if len({(d.month, d.day) for d in days}) == 1:
            _register_rrule(_p, f"BYMONTH={days[0].month};BYMONTHDAY={days[0].day}")
        else:
            wd = days[0].weekday()
            nths = {(d.day - 1) // 7 + 1 for d in days}
            lasts = {-1 if (d + timedelta(days=7)).month != d.month else 0 for d in days}
            code = ["MO", "TU", "WE", "TH", "FR", "SA", "SU"][wd]
            if all(d.weekday() == wd for d in days) and len(nths) == 1:
                _register_rrule(_p, f"BYMONTH={days[0].month};BYDAY={nths.pop()}{code}")
            elif all(d.weekday() == wd for d in days) and lasts == {-1}:
                _register_rrule(_p, f"BYMONTH={days[0].month};BYDAY=-1{code}")
            elif len(shifts := {(d - easter(d.year)).days for d in days}) == 1:
                _register_rrule(_p, f"BYEASTER={shifts.pop()}")


def holiday_rrule(name: str) -> str | None:
    """RRULE parts (FREQ=YEARLY implied) for a holiday name, or None if RRULE cannot say it."""
    for p, _ in _RULES:
        if re.fullmatch(p, name) and p in _RRULE_PARTS:
            return _RRULE_PARTS[p]
    return None


HOLIDAY_RE = "(?:" + "|".join(p for p, _ in _RULES) + ")"

# The ides: the 15th of March, May, July and October, the 13th of other months.
IDES_MONTHS = frozenset({3, 5, 7, 10})


def ides_day(month: int) -> int:
    return 15 if month in IDES_MONTHS else 13


def holiday_rule(name: str) -> Callable[[int], date | None] | None:
    """The rule for a holiday name matched by HOLIDAY_RE (first full match wins)."""
    for pat, rule in _COMPILED:
        if pat.fullmatch(name):
            return rule
    return None


def holiday_on_or_after(rule: Callable[[int], date | None], start: date) -> date | None:
    """The first day the holiday falls on at or after `start`."""
    for year in (start.year, start.year + 1, start.year + 2):
        d = rule(year)
        if d is not None and d >= start:
            return d
    return None


def holiday_before(rule: Callable[[int], date | None], end: date) -> date | None:
    """The last day the holiday fell on strictly before `end`."""
    for year in (end.year, end.year - 1, end.year - 2):
        d = rule(year)
        if d is not None and d < end:
            return d
    return None
