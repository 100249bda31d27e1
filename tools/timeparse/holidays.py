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
