"""Word lists shared by the parsers: numbers, ordinals, months, weekdays, zones.

Also `normalize`, which lower-cases a phrase and rewrites number words as digits
so that every later rule only has to understand digits.
"""

from __future__ import annotations

import re
from datetime import timedelta, timezone, tzinfo
from zoneinfo import ZoneInfo

from .spelling import respell

UNITS: dict[str, int] = {
    "zero": 0,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "thirteen": 13,
    "fourteen": 14,
    "fifteen": 15,
    "sixteen": 16,
    "seventeen": 17,
    "eighteen": 18,
    "nineteen": 19,
}
TENS: dict[str, int] = {
    "twenty": 20,
    "thirty": 30,
    "forty": 40,
    "fourty": 40,
    "fifty": 50,
    "sixty": 60,
    "seventy": 70,
    "eighty": 80,
    "ninety": 90,
}
ORDINAL_UNITS: dict[str, int] = {
    "first": 1,
    "third": 3,
    "fourth": 4,
    "fifth": 5,
    "sixth": 6,
    "seventh": 7,
    "eighth": 8,
    "ninth": 9,
    "tenth": 10,
    "eleventh": 11,
    "twelfth": 12,
    "thirteenth": 13,
    "fourteenth": 14,
    "fifteenth": 15,
    "sixteenth": 16,
    "seventeenth": 17,
    "eighteenth": 18,
    "nineteenth": 19,
}
ORDINAL_TENS: dict[str, int] = {"twentieth": 20, "thirtieth": 30}

MONTHS: dict[str, int] = {}
for _i, _names in enumerate(
    [
        ("january", "jan"),
        ("february", "feb", "febr"),
        ("march", "mar"),
        ("april", "apr"),
        ("may",),
        ("june", "jun"),
        ("july", "jul"),
        ("august", "aug"),
        ("september", "sep", "sept"),
        ("october", "oct"),
        ("november", "nov"),
        ("december", "dec"),
    ],
    start=1,
):
    for _n in _names:
        MONTHS[_n] = _i

# Full month names (a bare abbreviation such as "mar" or "sep" is too often another word).
MONTH_NAMES_LOWER = tuple(n for n in MONTHS if len(n) > 4 or n in ("may", "june", "july"))

# Monday = 0, as datetime.weekday().
WEEKDAYS: dict[str, int] = {}
for _i, _names in enumerate(
    [
        ("monday", "mon", "mondays"),
        ("tuesday", "tue", "tues", "tu", "tuesdays", "thurs."),
        ("wednesday", "wed", "wednsday", "wednesdays", "weds"),
        ("thursday", "thu", "thur", "thurs", "thursdays"),
        ("friday", "fri", "fridays"),
        ("saturday", "sat", "saturdays"),
        ("sunday", "sun", "sundays"),
    ]
):
    for _n in _names:
        WEEKDAYS[_n] = _i
WEEKDAYS.pop("thurs.", None)

MONTH_RE = (
    r"(?:january|february|march|april|may|june|july|august|september|october|november|"
    r"december|jan|febr|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)\.?"
)
WEEKDAY_RE = (
    r"(?:mondays?|tuesdays?|wednesdays?|wednsday|thursdays?|fridays?|saturdays?|sundays?|"
    r"mon|tues|tue|weds|wed|thurs|thur|thu|fri|sat|sun)\.?"
)


def month_of(word: str) -> int:
    """Month number for a month name or abbreviation (with or without a dot)."""
    return MONTHS[word.rstrip(".")]


def weekday_of(word: str) -> int:
    """Weekday number (Monday = 0) for a weekday name or abbreviation."""
    return WEEKDAYS[word.rstrip(".")]


# Zone abbreviations. Ambiguous ones take their most common English-language reading
# ("IST" = India, "CST" = US Central). Daylight variants are fixed offsets, standard
# names that people use all year map to the IANA zone so "PT" follows DST.
_FIXED = {
    "utc": 0,
    "gmt": 0,
    "z": 0,
    "zulu": 0,
    "wet": 0,
    "bst": 60,
    "cet": 60,
    "cest": 120,
    "eet": 120,
    "eest": 180,
    "msk": 180,
    "ist": 330,
    "pkt": 300,
    "sgt": 480,
    "hkt": 480,
    "jst": 540,
    "kst": 540,
    "aest": 600,
    "aedt": 660,
    "acst": 570,
    "awst": 480,
    "nzst": 720,
    "nzdt": 780,
    "est": -300,
    "edt": -240,
    "cst": -360,
    "cdt": -300,
    "mst": -420,
    "mdt": -360,
    "pst": -480,
    "pdt": -420,
    "akst": -540,
    "akdt": -480,
    "hst": -600,
    "ast": -240,
    "adt": -180,
    "nst": -210,
    "ndt": -150,
}
_GENERIC = {
    "et": "America/New_York",
    "ct": "America/Chicago",
    "mt": "America/Denver",
    "pt": "America/Los_Angeles",
    "eastern": "America/New_York",
    "central": "America/Chicago",
    "mountain": "America/Denver",
    "pacific": "America/Los_Angeles",
}
ZONE_ABBR_RE = "|".join(sorted(list(_FIXED) + list(_GENERIC), key=len, reverse=True))


def zone_for(text: str) -> tzinfo | None:
    """A tzinfo for a zone word: abbreviation, "utc+2", "gmt-05:30" or an IANA name."""
    t = text.strip().lower()
    m = re.fullmatch(r"(?:utc|gmt)\s*([+-])\s*(\d{1,2})(?::?(\d{2}))?", t)
    if m:
        minutes = int(m.group(2)) * 60 + int(m.group(3) or 0)
        if minutes > 14 * 60:
            return None
        sign = -1 if m.group(1) == "-" else 1
        return timezone(timedelta(minutes=sign * minutes))
    if t in _FIXED:
        return timezone(timedelta(minutes=_FIXED[t]))
    if t in _GENERIC:
        return ZoneInfo(_GENERIC[t])
    if "/" in t:
        return iana_zone(text.strip())
    return None


_IANA_CACHE: dict[str, tzinfo | None] = {}


def iana_zone(name: str) -> tzinfo | None:
    """ZoneInfo for an IANA name typed in any case ("europe/berlin"), or None."""
    key = name.lower()
    if key in _IANA_CACHE:
        return _IANA_CACHE[key]
    found: tzinfo | None = None
    parts = [p[:1].upper() + p[1:] for p in name.split("/")]
    for candidate in (name, "/".join(parts), "/".join(p.title() for p in name.split("/"))):
        if not re.fullmatch(r"[A-Za-z0-9_+\-/]{1,64}", candidate) or ".." in candidate:
            continue
        try:
            found = ZoneInfo(candidate)
            break
        except (ValueError, OSError, KeyError):
            continue
    _IANA_CACHE[key] = found
    return found


_NUMBER_WORDS = "|".join(
    sorted(
        list(UNITS) + list(TENS) + list(ORDINAL_UNITS) + list(ORDINAL_TENS), key=len, reverse=True
    )
)
_TENS_UNIT_RE = re.compile(
    r"\b("
    + "|".join(TENS)
    + r")[\s-]+("
    + "|".join(
        [u for u in UNITS if 1 <= UNITS[u] <= 9]
        + [o for o in ORDINAL_UNITS if ORDINAL_UNITS[o] <= 9]
    )
    + r")\b"
)
_WORD_RE = re.compile(r"\b(" + _NUMBER_WORDS + r")\b")
_SPACES = re.compile(r"\s+")
_APOS = re.compile(r"[\u2018\u2019\u02bc`]")
_TO_LAST = re.compile(r"(?<=[a-z\d])-to-(the-)?last\b")


def _ord_suffix(n: int) -> str:
    if 10 <= n % 100 <= 20:
        return f"{n}th"
    return f"{n}" + {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")


def _tens_unit(m: re.Match[str]) -> str:
    tens = TENS[m.group(1)]
    unit = m.group(2)
    if unit in ORDINAL_UNITS:
        return _ord_suffix(tens + ORDINAL_UNITS[unit])
    return str(tens + UNITS[unit])


def _word(m: re.Match[str]) -> str:
    w = m.group(1)
    if w in UNITS:
        return str(UNITS[w])
    if w in TENS:
        return str(TENS[w])
    if w in ORDINAL_UNITS:
        return _ord_suffix(ORDINAL_UNITS[w])
    return _ord_suffix(ORDINAL_TENS[w])


def normalize(text: str) -> str:
    """Lower-case, unify apostrophes and spaces, and turn number words into digits.

    "Twenty-one" → "21", "third" → "3rd", "three twenty" → "3 20". "second" is kept
    as a word because it is also a unit of time.
    """
    t = _APOS.sub("'", respell(text, whole=False).lower())
    t = _SPACES.sub(" ", t).strip()
    if "-to-" in t:
        # "second-to-last", "third-to-the-last": the words spaced
        t = _TO_LAST.sub(lambda m: " to the last" if m[1] else " to last", t)
    t = _TENS_UNIT_RE.sub(_tens_unit, t)
    t = _WORD_RE.sub(_word, t)
    if "the " in t and "." in t:
        t = _DOTTED_ORDINAL.sub(_dotted_ordinal, t)
    return t


# "on the 5." as German and many other languages write an ordinal: "the 5th".
_DOTTED_ORDINAL = re.compile(r"\bthe (\d{1,2})\.(?![\d.]|[^\W\d_])")


def _dotted_ordinal(m: re.Match[str]) -> str:
    n = int(m[1])
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"the {n}{suffix}"
