"""Friendly explanations for time phrases refused on purpose: dates that do not exist
("Feb 30") and repeats the schedule engine cannot say ("every easter")."""

from __future__ import annotations

import re
from datetime import date, timedelta

from tools.schedule import MONTH_NAMES

from .holidays import HOLIDAY_RE, holiday_rrule
from .lexicon import MONTH_RE, month_of, normalize
from .resolve import days_in_month

_NAMES = MONTH_NAMES
_MD = re.compile(r"\b(?P<mon>" + MONTH_RE + r")\s*(?:the\s+)?(?P<d>\d{1,2})(?:st|nd|rd|th)?\b")
_DM = re.compile(r"\b(?P<d>\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<mon>" + MONTH_RE + r")")


_REPEATED_HOLIDAY = re.compile(
    r"\b(?:every|each)\s+(?:year\s+(?:on|at)\s+)?(?P<h>" + HOLIDAY_RE + r")(?![\w'])"
)


def _ordinal(n: int) -> str:
    if 10 <= n % 100 <= 20:
        return f"{n}th"
    return f"{n}" + {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")


def explain_invalid_date(text: str, *, year: int = 2001) -> str | None:
    """A user-facing note when `text` names a day its month does not have, or repeats on
    a holiday with no fixed rule ("every easter"), else None.

    "Feb 30" → "February has no 30th — did you mean March 2nd?" (counted in a non-leap
    year unless `year` says otherwise).
    """
    if not isinstance(text, str) or len(text) > 300:
        return None
    s = normalize(text)
    rep = _REPEATED_HOLIDAY.search(s)
    if rep is not None and holiday_rrule(rep["h"]) is None:
        # Easter-based days move by the computus; RRULE has no way to say them.
        name = " ".join(w.capitalize() for w in rep["h"].split())
        return (
            f"{name} falls on a different date every year, so I can't repeat a reminder on "
            f'it — set one for the next one ("on {rep["h"]}") or a fixed date ("every '
            'year on April 5").'
        )
    m = _MD.search(s) or _DM.search(s)
    if not m:
        return None
    month, day = month_of(m["mon"]), int(m["d"])
    last = days_in_month(year, month)
    if day <= last or day > 31:
        return None
    spill = date(year, month, last) + timedelta(days=day - last)
    return (
        f"{_NAMES[month - 1]} has no {_ordinal(day)} — did you mean "
        f"{_NAMES[spill.month - 1]} {_ordinal(spill.day)}?"
    )
