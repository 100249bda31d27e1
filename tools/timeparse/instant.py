"""One-off times: "tomorrow at 9", "next Monday 3pm", "in 2 hours", "Thursday 8:00 GMT".

A phrase is read left to right as a sequence of small pieces (a date, a time of day, a
part of day, a zone, a relative offset) joined by filler words ("at", "on", ","). Each
piece fills a slot of a `Frame`; `resolve` then turns the frame into an instant relative
to `now`. Intervals ("from 3 to 5pm") are split first and their start is returned.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta, timezone, tzinfo

from .duration import Duration, match_duration
from .firstchar import Dispatch, Memo
from .foreign import looks_foreign, parse_foreign
from .holidays import (
    HOLIDAY_RE,
    holiday_before,
    holiday_days,
    holiday_on_or_after,
    holiday_rule,
    ides_day,
    season_start,
)
from .lexicon import (
    MONTH_NAMES_LOWER,
    MONTH_RE,
    WEEKDAY_RE,
    ZONE_ABBR_RE,
    month_of,
    weekday_of,
    zone_for,
)
from .resolve import (
    add_months,
    days_in_month,
    month_weeks,
    nth_weekday,
    valid_date,
    wall,
    week_start,
)

DEFAULT_HOUR = 9  # a date without a time of day means 09:00 (a sane reminder time)
WAKING_FROM = 8  # a bare hour beside a day below this is an afternoon one ("friday at 3")

# Part of day → (start hour used for the result, whether an hour inside it is pm).
PODS: dict[str, tuple[int, bool]] = {
    "morning": (9, False),
    "early morning": (6, False),
    "late morning": (10, False),
    "afternoon": (12, True),
    "early afternoon": (12, True),
    "late afternoon": (15, True),
    "evening": (18, True),
    "early evening": (18, True),
    "late evening": (21, True),
    "night": (18, True),
    "late night": (21, True),
    "tonight": (18, True),
    "late tonight": (21, True),
    "breakfast": (8, False),
    "after breakfast": (9, False),
    "brunch": (11, False),
    "lunch": (12, True),
    "after lunch": (13, True),
    "tea": (16, True),  # "teatime", "tea time": afternoon tea
    "dinner": (19, True),  # "supper" too
    "after dinner": (20, True),
    "bedtime": (22, True),  # "before bed", "at bedtime"
    "after school": (15, True),
    "after work": (17, True),
    "end of day": (17, True),  # "eod", "close of business": the end of a working day
}


# Parts of a day that run on past midnight: a clock in the small hours said with one is
# after that evening (the next calendar day).
_NIGHTS = frozenset({"night", "late night", "tonight", "late tonight"})
SMALL_HOURS_END = 6


HolidayRule = Callable[[int], date | None]


class Conflict(Exception):
    """Two pieces of one phrase fill the same slot differently."""


@dataclass
class Frame:
    """What the pieces of a phrase said, before it is placed in time."""

    date: date | None = None  # a resolved calendar day (or first day of a week/month/year)
    grain: str = ""
    year: int | None = None
    month: int | None = None
    day: int | None = None
    weekday: int | None = None
    wd_mode: str = "bare"
    month_mode: str = ""
    hour: int | None = None
    minute: int = 0
    second: int = 0
    ampm: str | None = None
    h24: bool = False
    bare_hour: bool = False
    pod: str | None = None
    zone: tzinfo | None = None
    instant: datetime | None = None
    rel: Duration | None = None
    exact_now: bool = False
    at_ctx: bool = False
    pieces: int = 0
    weak: bool = True
    holiday: HolidayRule | None = None
    extra: dict[str, int] = field(default_factory=dict)

    def set(self, **kw: object) -> None:
        # A slot is filled once: two pieces saying the same thing ("at 9 at 9", "tomorrow
        # tomorrow") are a slip or two times, never silently one of them.
        for k, v in kw.items():
            if getattr(self, k) is not None and k not in ("minute", "second", "grain"):
                raise Conflict(k)
            setattr(self, k, v)


class WorkLimit(Exception):
    """A phrase needed more grammar steps than any real time phrase does."""


# Grammar steps (a piece or a filler word read by `read_frame`) one call may take. The
# longest phrases of the development corpora take about 55 (ranges with dates and
# clocks at both ends: "12.09.17 - 14.09.17 18:00 - 20:00"); a step costs a few dozen
# microseconds, so this caps the worst case near a millisecond whatever the input.
STEP_BUDGET = 64
# What a call's fixed work (normalising, the whole-phrase patterns) costs in steps: it
# matters when many short spans of one message are tried (`split.WORK_BUDGET`).
ENTRY_STEPS = 4


@dataclass
class Budget:
    """Grammar steps left for one call (shared by every frame the call reads)."""

    left: int = STEP_BUDGET

    def spend(self, steps: int = 1) -> None:
        self.left -= steps
        if self.left < 0:
            raise WorkLimit


@dataclass
class Ctx:
    """The reference point: `now` in the zone the phrase is read in, and the work left."""

    now: datetime
    tz: tzinfo
    budget: Budget = field(default_factory=Budget)
    # Frames already read in this call: ranges read the same ends several ways.
    frames: dict[str, Frame | None] = field(default_factory=dict)
    # Which pieces match where (`Dispatch.longest_first`), shared like `frames`.
    matches: Memo = field(default_factory=dict)

    @property
    def today(self) -> date:
        return self.now.date()


AMPM = r"(?P<ap>a\.?\s?m\.?|p\.?\s?m\.?|(?<=\d)a(?![a-z])|(?<=\d)p(?![a-z])\.?|a(?=$)|p(?=$))"
END = r"(?=$|[\s,;!?)]|\.(?:\s|$))"
ORD = r"(?P<ord>\d{1,2}(?:st|nd|rd|th)|second)"
YEAR = r"(?P<year>\d{4})"


def _ord(text: str) -> int:
    return 2 if text == "second" else int(re.sub(r"\D", "", text))


def _ampm(text: str | None) -> str | None:
    if not text:
        return None
    return "am" if text.strip()[0] == "a" else "pm"


Handler = Callable[[re.Match[str], Frame, Ctx], None]
_PIECES: list[tuple[re.Pattern[str], Handler]] = []


def piece(pattern: str) -> Callable[[Handler], Handler]:
    """Register a handler for a piece pattern (tried in registration order)."""

    def deco(fn: Handler) -> Handler:
        _PIECES.append((re.compile(pattern + END), fn))
        return fn

    return deco


# ---------------------------------------------------------------- dates


@piece(
    r"(?P<y>\d{4})(?P<sep>[-/.])(?P<m>\d{1,2})(?P=sep)(?P<d>\d{1,2})"
    # A clock followed by a meridiem ("2:26 pm") is left to the clock pieces.
    r"(?:[t ](?P<H>\d{1,2}):(?P<M>\d{2})(?::(?P<S>\d{2})(?:\.\d+)?)?(?!\s*[ap]\.?\s?m\b))?"
    r"(?P<z>z|[+-]\d{2}:?\d{2})?"
)
def _iso(m: re.Match[str], f: Frame, c: Ctx) -> None:
    y, mo, d = int(m["y"]), int(m["m"]), int(m["d"])
    if not valid_date(y, mo, d) and m["sep"] != "-" and valid_date(y, d, mo):
        mo, d = d, mo  # "2022/30/11": only one reading is a date
    if not valid_date(y, mo, d):
        raise Conflict("date")
    f.set(date=date(y, mo, d), grain="day")
    if m["H"]:
        _set_time(f, int(m["H"]), int(m["M"]), int(m["S"] or 0), None, h24=True)
    if m["z"]:
        z = m["z"]
        if z == "z":
            f.set(zone=UTC)
        else:
            sign = -1 if z[0] == "-" else 1
            digits = z[1:].replace(":", "")
            f.set(zone=timezone(sign * timedelta(hours=int(digits[:2]), minutes=int(digits[2:]))))
    f.weak = False


def two_digit_year(yy: int, c: Ctx) -> int:
    """The year a two-digit one means, in every notation ("3/4/50", "4.3.50", "march 4,
    '50"): the nearest century that keeps it within 30 years ahead of today."""
    century = c.today.year // 100 * 100
    return century + yy if century + yy <= c.today.year + 30 else century - 100 + yy


@piece(r"(?P<m>\d{1,2})(?P<sep>[/-])(?P<d>\d{1,2})(?P=sep)(?P<y>\d{4}|\d{2})(?!\d)")
def _mdy(m: re.Match[str], f: Frame, c: Ctx) -> None:
    y = int(m["y"])
    if len(m["y"]) == 2:
        y = two_digit_year(y, c)
    mo, d = int(m["m"]), int(m["d"])
    if mo > 12 and valid_date(y, d, mo):
        mo, d = d, mo  # "20/10/2017": day first is the only reading
    if not valid_date(y, mo, d):
        raise Conflict("date")
    f.set(date=date(y, mo, d), grain="day")
    f.extra["full_date"] = 1
    f.weak = False


@piece(r"(?P<y>\d{4})[-/.](?P<m>\d{1,2})(?![\d/.:-])|(?P<m2>\d{1,2})[-.](?P<y2>\d{4})")
def _ym(m: re.Match[str], f: Frame, c: Ctx) -> None:
    """Year and month: "2027-03", "2027/3", "03-2027", "3.2027"."""
    mo, y = int(m["m"] or m["m2"]), int(m["y"] or m["y2"])
    if not (1 <= mo <= 12 and 1900 <= y <= 2200):
        raise Conflict("date")
    f.set(year=y, month=mo)
    f.weak = False


@piece(r"(?P<m>\d{1,2})/(?P<y>\d{4})")
def _my(m: re.Match[str], f: Frame, c: Ctx) -> None:
    mo = int(m["m"])
    if not 1 <= mo <= 12:
        raise Conflict("date")
    f.set(year=int(m["y"]), month=mo)
    f.weak = False


@piece(r"(?P<d>\d{1,2})\.(?P<m>\d{1,2})\.(?P<y>\d{4})")
def _dmy(m: re.Match[str], f: Frame, c: Ctx) -> None:
    y, mo, d = int(m["y"]), int(m["m"]), int(m["d"])
    if mo > 12 and valid_date(y, d, mo):
        mo, d = d, mo  # "10.31.1974": month first is the only reading
    if not valid_date(y, mo, d):
        raise Conflict("date")
    f.set(date=date(y, mo, d), grain="day")
    f.extra["full_date"] = 1
    f.weak = False


@piece(
    r"(?P<y>\d{4})(?P<s>[/-])(?P<mon>" + MONTH_RE + r")\.?(?P=s)(?P<d>\d{1,2})"
    r"|(?P<mon2>" + MONTH_RE + r")\.?(?P<s2>[/-])(?P<d2>\d{1,2})(?P=s2)(?P<y2>\d{4})"
)
def _numeric_named_month(m: re.Match[str], f: Frame, c: Ctx) -> None:
    """ "2027/aug/10", "aug-10-2027": a month name between the numbers of a date."""
    y, mo, d = int(m["y"] or m["y2"]), month_of(m["mon"] or m["mon2"]), int(m["d"] or m["d2"])
    if not valid_date(y, mo, d):
        raise Conflict("date")
    f.set(date=date(y, mo, d), grain="day")
    f.extra["full_date"] = 1
    f.weak = False


@piece(r"(?P<d>\d{1,2})\.(?P<m>\d{1,2})(?:\.(?P<y>\d{4}|\d{2}(?!\d))?)?")
def _dm_dot(m: re.Match[str], f: Frame, c: Ctx) -> None:
    """ "16.12", "11.9.", "24.11.17": a dotted date is day first. After "at" (or with a
    date already read) "9.30" is a clock time instead — `_hm` takes it."""
    d, mo = int(m["d"]), int(m["m"])
    if f.at_ctx and not m.group(0).endswith(".") and m["y"] is None:
        raise Conflict("date")
    if m["y"] is None and not m.group(0).endswith(".") and (f.date or f.day or f.month):
        raise Conflict("date")  # "29.12.2026 13.12": the day is named; this is its clock
    # "6.5" is more often a number than 6 May: without a year or a closing dot a dotted
    # date needs a day above 12, a leading zero ("06.05") or a weekday beside it.
    looks_dated = d > 12 or m["d"].startswith("0") or m["m"].startswith("0")
    if not (m["y"] or m.group(0).endswith(".") or looks_dated or f.weekday is not None):
        raise Conflict("date")
    if m["y"]:
        y = int(m["y"])
        y = two_digit_year(y, c) if len(m["y"]) == 2 else y
        if not valid_date(y, mo, d):
            raise Conflict("date")
        f.set(date=date(y, mo, d), grain="day")
    else:
        if not (1 <= mo <= 12 and 1 <= d <= days_in_month(2000, mo)):
            raise Conflict("date")
        f.set(month=mo, day=d)
    f.weak = False


@piece(r"(?P<m>\d{1,2})\s?[/-]\s?(?P<d>\d{1,2})(?![\d/:-])")
def _md(m: re.Match[str], f: Frame, c: Ctx) -> None:
    if f.month is not None and f.day is None:
        raise Conflict("date")  # "march 3-5": a range of days in a named month, not 5 March
    mo, d = int(m["m"]), int(m["d"])
    if 12 < mo <= 31 and 1 <= d <= 12:
        mo, d = d, mo  # "21/09": day first is the only reading
    if not (1 <= mo <= 12 and 1 <= d <= 31):
        raise Conflict("date")
    f.set(month=mo, day=d)
    if "-" in m.group(0):
        f.extra["dash_date"] = 1
    f.weak = False


# A year after a date: four digits, or two with an apostrophe, after a comma, or too big
# for an hour ("aug 9 '96", "aug 9, 96", "3 aug 96"; "aug 9 10" keeps 10 as an hour).
_YEAR_AFTER_DATE = (
    r"(?:(?:,|[/-](?=\d))?\s*(?P<y>(?<![\d][/-])\d{4}|'\d{2}|(?<=,)\s*\d{2}|(?<=[a-z.][/-])\d{2}|"
    r"(?<=\s)(?:2[5-9]|[3-9]\d))"
    r"(?![\d:]|\s*(?:am|pm|a\.m|p\.m|h\b|o'clock)))?"
)
_NOT_TIME = r"(?!\s*(?:[:.]\d|h\d|h\b|am\b|pm\b|a\.m|p\.m|'(?!\d\d)|o'?clock|ish))"


@piece(
    r"(?P<mon>"
    + MONTH_RE
    + r")(?:\s*/\s*|\s*)(?:the\s+)?(?P<d>\d{1,2})(?:st|nd|rd|th)?"
    + _NOT_TIME
    + _YEAR_AFTER_DATE
)
def _month_day(m: re.Match[str], f: Frame, c: Ctx) -> None:
    f.set(month=month_of(m["mon"]), day=int(m["d"]))
    if m["y"]:
        _year_or_clock(m["y"], f, c)
    f.weak = False


def _year_or_clock(text: str, f: Frame, c: Ctx) -> None:
    """Four digits after a date: a year, or a 24-hour clock time ("12 Nov 1115") when no
    reminder would name that year (more than 30 years ahead or before 1900)."""
    text = text.strip(" '")
    if len(text) == 2:
        f.set(year=two_digit_year(int(text), c))
        return
    y = int(text)
    hh, mm = divmod(y, 100)
    if (y < 1900 or y > c.today.year + 30) and hh < 24 and mm < 60:
        _set_time(f, hh, mm, 0, None, h24=True)
    else:
        f.set(year=y)


@piece(
    r"(?:the\s+)?(?P<d>\d{1,2})(?:st|nd|rd|th|\.)?(?:\s*[/-]\s*|\s*)(?:day\s+)?(?:of\s+)?(?P<mon>"
    + MONTH_RE
    + r")"
    + _YEAR_AFTER_DATE
)
def _day_month(m: re.Match[str], f: Frame, c: Ctx) -> None:
    f.set(month=month_of(m["mon"]), day=int(m["d"]))
    if m["y"]:
        _year_or_clock(m["y"], f, c)
    f.weak = False


@piece(r"(?:the\s+)?second\s+(?:day\s+)?of\s+(?P<mon>" + MONTH_RE + r")(?:,?\s*(?P<y>\d{4}))?")
def _second_of_month(m: re.Match[str], f: Frame, c: Ctx) -> None:
    f.set(month=month_of(m["mon"]), day=2)
    if m["y"]:
        f.set(year=int(m["y"]))
    f.weak = False


# "the 20th of next month", "20 of next month": a plain number before "of <month>" is a day.
@piece(
    r"(?:the\s+)?(?P<ord>\d{1,2}(?:st|nd|rd|th)?|second)\s+(?:day\s+)?of\s+(?:the\s+)?"
    r"(?P<which>next|this|last|current|previous|following|coming|upcoming)\s+month"
)
def _day_of_rel_month(m: re.Match[str], f: Frame, c: Ctx) -> None:
    shift = {"next": 1, "following": 1, "coming": 1, "upcoming": 1, "last": -1, "previous": -1}.get(
        m["which"], 0
    )
    base = add_months(c.today.replace(day=1), shift)
    d = _ord(m["ord"])
    if not valid_date(base.year, base.month, d):
        raise Conflict("date")
    f.set(date=base.replace(day=d), grain="day")
    f.weak = False


_REL_WORDS = r"this|next|last|coming|upcoming|following|past|previous|current"


@piece(r"(?P<mod>" + _REL_WORDS + r")\s+(?P<mon>" + MONTH_RE + r")")
def _mod_month(m: re.Match[str], f: Frame, c: Ctx) -> None:
    mode = m["mod"]
    f.set(month=month_of(m["mon"]))
    f.month_mode = (
        "last"
        if mode in ("last", "past", "previous")
        else ("this" if mode in ("this", "current") else "next")
    )
    f.weak = False


@piece(r"(?P<mon>" + MONTH_RE + r")\s+after\s+next")
def _month_after_next(m: re.Match[str], f: Frame, c: Ctx) -> None:
    f.set(month=month_of(m["mon"]))
    f.month_mode = "after_next"
    f.weak = False


@piece(r"(?P<mon>" + MONTH_RE + r")(?:,?\s*(?P<y>\d{4})|,?\s*'(?P<yy>\d{2}))")
def _month_year(m: re.Match[str], f: Frame, c: Ctx) -> None:
    # "march 2027", "mar '27": a two-digit year after an apostrophe is a year, as in dates.
    year = int(m["y"]) if m["y"] else two_digit_year(int(m["yy"]), c)
    f.set(month=month_of(m["mon"]), year=year)
    f.weak = False


_FULL_MONTHS = frozenset(MONTH_NAMES_LOWER)


@piece(r"(?P<mon>" + MONTH_RE + r")")
def _month(m: re.Match[str], f: Frame, c: Ctx) -> None:
    # A bare month name ("may", "march") is only a time after "in"/"during"/"of"... or
    # next to other date material; the check happens when the frame is complete.
    f.set(month=month_of(m["mon"]))
    f.extra["bare_month"] = 1
    if m["mon"] in _FULL_MONTHS:
        f.extra["full_month"] = 1


@piece(r"(?:on\s+)?(?:the\s+)?" + r"(?P<ord>\d{1,2}(?:st|nd|rd|th))")
def _ordinal_day(m: re.Match[str], f: Frame, c: Ctx) -> None:
    f.set(day=_ord(m["ord"]))
    if not m.group(0).startswith(("on", "the")):
        f.extra["bare_day"] = 1


# A year on its own: four digits, or two after an apostrophe ("christmas '19").
_A_YEAR = r"(?:" + YEAR + r"|'(?P<yy>\d{2}))"


def _year_of(m: re.Match[str], c: Ctx) -> int:
    return int(m["year"]) if m["year"] else two_digit_year(int(m["yy"]), c)


@piece(r"(?:in|of)\s+(?:the\s+year\s+)?" + _A_YEAR + r"(?:\s*a\.?d\.?)?")
def _in_year(m: re.Match[str], f: Frame, c: Ctx) -> None:
    f.set(year=_year_of(m, c))
    f.weak = False


@piece(_A_YEAR)
def _year(m: re.Match[str], f: Frame, c: Ctx) -> None:
    y = _year_of(m, c)
    if not 1900 <= y <= 2200:
        raise Conflict("year")
    dated = f.date is not None or f.day is not None or f.weekday is not None
    if f.at_ctx and dated and m["year"] and y % 100 < 60 and y // 100 < 24:
        raise Conflict("year")  # "tmrw at 2030", "friday at 2045": a 24-hour clock
    if _weekday_only(f) and not c.today.year <= y <= c.today.year + 30:
        raise Conflict("year")  # "sunday 1925": no reminder names that year; a clock time
    f.set(year=y)
    f.extra["bare_year"] = 1


def _rel_shift(mod: str) -> int:
    if mod in ("next", "following", "coming", "upcoming"):
        return 1
    if mod in ("last", "past", "previous"):
        return -1
    return 0


@piece(
    r"(?:(?P<mod>this|next|last|coming|upcoming|following|past|previous)\s+)?(?P<wd>"
    + WEEKDAY_RE
    + r")(?:\s+(?P<post>after next|of next week|next week|of this week|this week|"
    r"of last week|last week|from last week|before last|of the following week|"
    r"of the week after next))?"
)
def _weekday(m: re.Match[str], f: Frame, c: Ctx) -> None:
    f.set(weekday=weekday_of(m["wd"]))
    mod, post = m["mod"], m["post"]
    if post:
        if "after next" in post and "week" not in post:
            f.wd_mode = "after_next"
        elif "week after next" in post:
            f.wd_mode = "week+2"
        elif "next" in post or "following" in post:
            f.wd_mode = "week+1"
        elif "last" in post:
            f.wd_mode = "before_last" if "before" in post else "week-1"
        else:
            f.wd_mode = "week+0"
    elif mod:
        # "the following friday" is read like "next friday" (README's convention).
        f.wd_mode = {
            "next": "week+1",
            "following": "week+1",
            "last": "last",
            "past": "last",
            "previous": "last",
            "this": "this",
        }.get(mod, "bare")
    if m["wd"].rstrip(".") in ("sat", "sun", "wed", "mon") and not (mod or post):
        f.extra["weak_wd"] = 1
    else:
        f.weak = False


@piece(r"(?:the\s+)?(?:day\s+after\s+(?:tomorrow|next)|day\s+before\s+(?:yesterday|last))")
def _day_after(m: re.Match[str], f: Frame, c: Ctx) -> None:
    shift = 2 if "after" in m.group(0) else -2
    f.set(date=c.today + timedelta(days=shift), grain="day")
    f.weak = False


@piece(
    r"(?P<w>today|todays|tomorrows?|tmrw|tmr|tommorow|tomorow|tommorrow|tomorro|tomoro|"
    r"2moro|2morrow|2mrw|yesterday)"
)
def _today(m: re.Match[str], f: Frame, c: Ctx) -> None:
    w = m["w"]
    shift = 0 if w.startswith("today") else (-1 if w == "yesterday" else 1)
    f.set(date=c.today + timedelta(days=shift), grain="day")
    f.weak = False


@piece(r"(?:right\s+now|just\s+now|now|atm|at the moment|immediately|at this time|asap)")
def _now(m: re.Match[str], f: Frame, c: Ctx) -> None:
    f.set(instant=c.now)
    f.exact_now = True
    f.weak = False


@piece(r"(?P<late>late\s+)?last\s+night")
def _last_night(m: re.Match[str], f: Frame, c: Ctx) -> None:
    f.set(date=c.today - timedelta(days=1), grain="day")
    f.set(pod="late night" if m["late"] else "night")
    f.weak = False


@piece(r"(?P<late>late\s+)?(?P<w>tonight|tonite)")
def _tonight(m: re.Match[str], f: Frame, c: Ctx) -> None:
    f.set(date=c.today, grain="day")
    f.set(pod="late tonight" if m["late"] else "tonight")
    f.weak = False


# Years in the units longer than a year.
_LONG_UNITS = {"decade": 10, "century": 100}


def _period_start(unit: str, d: date, shift: int) -> tuple[date, str]:
    if unit == "week":
        return week_start(d) + timedelta(weeks=shift), "week"
    if unit == "fortnight":
        return week_start(d) + timedelta(weeks=2 * shift), "week"
    if unit in _LONG_UNITS:
        # No decade grain: "next decade" is the year ten on, like "next year" one on.
        return date(d.year + _LONG_UNITS[unit] * shift, 1, 1), "year"
    if unit == "month":
        return add_months(d.replace(day=1), shift), "month"
    if unit == "quarter":
        q0 = date(d.year, (d.month - 1) // 3 * 3 + 1, 1)
        return add_months(q0, 3 * shift), "quarter"
    return date(d.year + shift, 1, 1), "year"


@piece(
    r"(?:the\s+)?(?:calendar\s+|iso\s+)?(?:week|wk)\s*(?:no\.?\s*|number\s+|#\s*)?"
    r"(?P<w>\d{1,2})(?:\s*(?:of\s+|in\s+|,\s*)?(?P<y>\d{4}))?"
)
def _week_number(m: re.Match[str], f: Frame, c: Ctx) -> None:
    """ "week 36", "calendar week 2 of 2027": the Monday of that ISO week; without a year
    the coming one (this year's unless it has ended)."""
    w = int(m["w"])
    years = [int(m["y"])] if m["y"] else [c.today.year, c.today.year + 1]
    for y in years:
        try:
            monday = date.fromisocalendar(y, w, 1)
        except ValueError:
            continue  # no such week that year (week 53 of a 52-week year)
        if m["y"] or monday + timedelta(days=6) >= c.today:
            f.set(date=monday, grain="week")
            f.weak = False
            return
    raise Conflict("week")


@piece(
    r"(?:the\s+)?(?P<mod>" + _REL_WORDS + r")\s+"
    r"(?P<u>week|month|year|quarter|qtr|fortnight|decade|century)"
)
def _rel_period(m: re.Match[str], f: Frame, c: Ctx) -> None:
    u = "quarter" if m["u"] == "qtr" else m["u"]
    shift = _rel_shift(m["mod"])
    if u in _LONG_UNITS and not shift:
        raise Conflict("period")  # "this decade": the 2020s, or ten years from now?
    d, grain = _period_start(u, c.today, shift)
    f.set(date=d, grain=grain)
    f.weak = False


# Seasons (northern hemisphere) begin at an equinox or solstice: the Sun's longitude.
_SEASONS = {"spring": 0.0, "summer": 90.0, "fall": 180.0, "autumn": 180.0, "winter": 270.0}


@piece(
    r"(?:(?:the\s+)?(?P<mod>"
    + _REL_WORDS
    + r"|in\s+the)\s+)?(?P<s>spring|summer|fall|autumn|winter)"
    r"(?:\s+(?:of\s+)?(?P<y>\d{4}))?"
)
def _season(m: re.Match[str], f: Frame, c: Ctx) -> None:
    """ "this summer", "in the fall", "next winter", "spring 2027": the season's first day,
    the day of its equinox or solstice where the phrase is read (the 2012 summer solstice,
    23:09 UTC on 20 June, is the 20th in New York and the 21st in Berlin)."""
    if not (m["mod"] or m["y"]):
        raise Conflict("season")  # a bare "fall" or "spring" is too often another word
    longitude = _SEASONS[m["s"]]

    def start(year: int) -> date:
        if not 1 <= year < 9999:
            raise Conflict("season year")
        return season_start(longitude, year, c.tz)

    if m["y"]:
        day = start(int(m["y"]))
    else:
        # The season we are in (winter spans new year) or, after "next", the following one.
        cur = start(c.today.year)
        if cur > c.today:
            cur = start(c.today.year - 1)
        # "in the spring" is this one, as "this spring" is.
        shift = 0 if m["mod"].startswith("in") else _rel_shift(m["mod"])
        if shift == 0 and (c.today - cur).days >= 92:
            shift = 1  # "this summer" in February: the coming one
        day = start(cur.year + shift)
    f.set(date=day, grain="day")
    f.weak = False


@piece(
    r"(?:the\s+)?(?:(?P<q>[1-4])(?:st|nd|rd|th)\s+(?:quarter|qtr)|q(?P<q2>[1-4])|"
    r"(?P<yq>\d{4}|\d{2})\s*q(?P<q3>[1-4]))"
    r"(?:\s+(?:of\s+)?(?P<y>\d{4})|\s+(?:of\s+)?(?P<mod>" + _REL_WORDS + r")\s+year)?"
)
def _quarter(m: re.Match[str], f: Frame, c: Ctx) -> None:
    """ "Q3 2013", "the third quarter", "4th quarter of next year"."""
    q = int(m["q"] or m["q2"] or m["q3"])
    if m["yq"]:
        yq = int(m["yq"])
        year = yq if yq > 99 else c.today.year // 100 * 100 + yq  # "18q4", "2018Q4"
    elif m["y"]:
        year = int(m["y"])
    elif m["mod"]:
        year = c.today.year + _rel_shift(m["mod"])
    else:
        # A bare "Q1" or "the first quarter": this year's unless it is over, then next.
        year = c.today.year + (1 if 3 * q < c.today.month else 0)
    f.set(date=date(year, 3 * q - 2, 1), grain="quarter")
    f.weak = False


@piece(
    r"(?:the\s+|at\s+the\s+)?(?P<edge>early|mid|late|middle\s+of|end\s+of|beginning\s+of|"
    r"start\s+of)(?:\s*-\s*|\s+)(?P<mon>" + MONTH_RE + r")(?:,?\s*(?P<y>\d{4}))?"
)
def _month_part(m: re.Match[str], f: Frame, c: Ctx) -> None:
    """ "early march" (from the 1st), "mid march" (11th), "late march" (21st), "the end
    of march" (its last day), as calendar thirds of the month."""
    edge = m["edge"].split()[0]
    mo = month_of(m["mon"])
    year = int(m["y"]) if m["y"] else None
    day = {"early": 1, "beginning": 1, "start": 1, "mid": 11, "middle": 11, "late": 21}.get(edge)
    f.set(month=mo)
    if year is not None:
        f.set(year=year)
    if day is None:  # "end of": the last day of that month
        y = (
            year
            if year is not None
            else (c.today.year if mo >= c.today.month else c.today.year + 1)
        )
        day = days_in_month(y, mo)
    f.set(day=day)
    f.weak = False


@piece(
    r"(?P<dir>next|coming|following|last|past|previous)\s+(?P<n>\d{1,3})\s+(?P<u>days|weeks|months|years)"
)
def _next_n_periods(m: re.Match[str], f: Frame, c: Ctx) -> None:
    """ "the next 3 weeks" starts with the next week; "the past 2 days" two days ago."""
    n, unit = int(m["n"]), m["u"][:-1]
    forward = m["dir"] in ("next", "coming", "following")
    if unit == "day":
        day = c.today + timedelta(days=1 if forward else -n)
        f.set(date=day, grain="day")
    else:
        day, grain = _period_start(unit, c.today, 1 if forward else -n)
        f.set(date=day, grain=grain)
    f.set(hour=0)
    f.h24 = True
    f.weak = False


@piece(r"(?:the\s+)?(?P<u>week|month|year)\s+after\s+next")
def _after_next_period(m: re.Match[str], f: Frame, c: Ctx) -> None:
    d, grain = _period_start(m["u"], c.today, 2)
    f.set(date=d, grain=grain)
    f.weak = False


@piece(
    r"(?:over\s+)?(?:the\s+)?(?P<mod>this|next|last|coming|upcoming|following|past|this past)?"
    r"\s*(?:week-?end|wkend)"
)
def _weekend(m: re.Match[str], f: Frame, c: Ctx) -> None:
    mod = m["mod"] or "this"
    shift = -1 if mod in ("last", "past", "this past") else (0 if mod == "this" else 1)
    fri = week_start(c.today) + timedelta(days=4 + 7 * shift)
    f.set(date=fri, grain="day")
    f.extra["weekend"] = 1  # placed by `_weekend_clock`: Friday 18:00, or a time on Saturday
    f.weak = False


def _weekend_clock(f: Frame) -> Frame:
    """A weekend said alone starts Friday at 18:00 (its span's start, as Duckling reads
    it); with a time of day or a part of the day ("this weekend at 11", "next weekend in
    the morning") it is that time on its Saturday."""
    f = _copy(f)
    del f.extra["weekend"]
    if f.hour is None and f.pod is None:
        f.hour, f.ampm, f.h24 = 18, None, True
    elif f.date is not None:
        f.date += timedelta(days=1)
    return f


_CONTAINER = (
    r"(?:(?P<mon>" + MONTH_RE + r")(?:\s+(?P<y>\d{4}))?|(?P<relm>next|this|last|"
    r"the|current|the following)\s+month|(?P<yy>\d{4})"
    # "the first monday in 2 months": of the month that many months on
    r"|(?P<inm>\d{1,2}|an?)\s+months?(?:\s+(?:from\s+now|later|time))?)"
)


@piece(
    r"(?:on\s+)?(?:the\s+)?(?P<n>\d{1,2}(?:st|nd|rd|th)|second|last)(?:\s+(?P<last>last|to\s+last|"
    r"to\s+the\s+last))?\s+(?P<what>"
    + WEEKDAY_RE
    + r"|(?:week|work)day|(?:business|working)\s+day|day|week|weekend|wkend)\s+(?:of|in)\s+"
    + _CONTAINER
)
def _nth_in_month(m: re.Match[str], f: Frame, c: Ctx) -> None:
    n = -1 if m["n"] == "last" else _ord(m["n"])
    if m["last"]:
        n = -n
    if m["mon"]:
        mo = month_of(m["mon"])
        y = int(m["y"]) if m["y"] else c.today.year
    elif m["yy"]:
        mo, y = 1, int(m["yy"])
    else:
        shift = {"next": 1, "last": -1, "the following": 1}.get(m["relm"], 0)
        if m["inm"]:
            shift = int(m["inm"]) if m["inm"].isdigit() else 1
        base = add_months(c.today.replace(day=1), shift)
        y, mo = base.year, base.month

    def pick(year: int) -> tuple[date, str, int | None] | None:
        what = _WORKDAY_WORDS.sub("workday", m["what"])
        if m["yy"]:
            return _nth_in_year(year, what, n)
        if what == "workday":
            month = (date(year, mo, d) for d in range(1, days_in_month(year, mo) + 1))
            got = _nth_of([d for d in month if d.weekday() < 5], n)
            return (got, "day", None) if got else None
        if what == "day":
            last = days_in_month(year, mo)
            d = n if n > 0 else last + 1 + n
            return (date(year, mo, d), "day", None) if 1 <= d <= last else None
        if what == "week":
            weeks = month_weeks(year, mo)
            idx = n - 1 if n > 0 else n
            return (weeks[idx], "week", None) if -len(weeks) <= idx < len(weeks) else None
        if what in ("weekend", "wkend"):
            fris = [
                d for d in range(1, days_in_month(year, mo) - 1) if date(year, mo, d).weekday() == 4
            ]
            idx = n - 1 if n > 0 else n
            if -len(fris) <= idx < len(fris):
                return date(year, mo, fris[idx]), "day", 18
            return None
        got = nth_weekday(year, mo, weekday_of(what), n)
        return (got, "day", None) if got else None

    found = pick(y)
    if found and m["mon"] and not m["y"] and found[0] < c.today:
        found = pick(y + 1)
    if not found:
        raise Conflict("date")
    f.set(date=found[0], grain=found[1])
    if found[2] is not None:
        f.set(hour=found[2])
        f.h24 = True
    f.weak = False


@piece(r"(?:on\s+)?(?:the\s+)?(?P<n>[1-5](?:st|nd|rd|th)|second)\s+(?P<wd>" + WEEKDAY_RE + r")")
def _nth_weekday_ahead(m: re.Match[str], f: Frame, c: Ctx) -> None:
    """ "the 1st monday", "second friday": that weekday of this month, or of the next month
    that has one still ahead ("monday the 1st" is a day of the month, read elsewhere)."""
    n, wd = _ord(m["n"]), weekday_of(m["wd"])
    month = c.today.replace(day=1)
    for _ in range(3):  # a fifth weekday is in at least one of any three months
        got = nth_weekday(month.year, month.month, wd, n)
        if got is not None and got >= c.today:
            f.set(date=got, grain="day")
            f.weak = False
            return
        month = add_months(month, 1)
    raise Conflict("date")


# A working day: Monday to Friday (holidays differ by country and are not guessed).
_WORKDAY_WORDS = re.compile(r"(?:week|work)day|(?:business|working)\s+day")


def _nth_of(days: list[date], n: int) -> date | None:
    """The n-th (negative: from the end) of `days`, if there are that many."""
    idx = n - 1 if n > 0 else n
    return days[idx] if -len(days) <= idx < len(days) else None


def _nth_in_year(year: int, what: str, n: int) -> tuple[date, str, int | None] | None:
    """The n-th (negative: from the end) day, week or weekday of a whole year.

    Weeks are those lying wholly inside the year, as for months ("the third last week of
    2018" is the Monday three whole weeks before its end).
    """
    first, last = date(year, 1, 1), date(year, 12, 31)
    span = [first + timedelta(days=k) for k in range((last - first).days + 1)]
    if what == "day":
        days, grain, hour = span, "day", None
    elif what == "week":
        days = [d for d in span if d.weekday() == 0 and d + timedelta(days=6) <= last]
        grain, hour = "week", None
    elif what in ("weekend", "wkend"):
        days = [d for d in span if d.weekday() == 4 and d + timedelta(days=2) <= last]
        grain, hour = "day", 18
    elif what == "workday":
        days, grain, hour = [d for d in span if d.weekday() < 5], "day", None
    else:
        wd = weekday_of(what)
        days, grain, hour = [d for d in span if d.weekday() == wd], "day", None
    got = _nth_of(days, n)
    return (got, grain, hour) if got else None


@piece(
    r"(?P<n>\d+|an?)\s+(?P<wd>"
    + WEEKDAY_RE
    + r")\s+(?:from\s+(?:now|today)|hence|(?P<ago>ago|back))"
)
def _n_weekdays_from_now(m: re.Match[str], f: Frame, c: Ctx) -> None:
    """ "3 fridays from now": the third Friday after today; "2 thursdays ago" the second
    one before it."""
    n = 1 if m["n"] in ("a", "an") else int(m["n"])
    wd = weekday_of(m["wd"])
    if m["ago"]:
        behind = (c.today.weekday() - wd - 1) % 7 + 1
        f.set(date=c.today - timedelta(days=behind + 7 * (n - 1)), grain="day")
    else:
        ahead = (wd - c.today.weekday() - 1) % 7 + 1
        f.set(date=c.today + timedelta(days=ahead + 7 * (n - 1)), grain="day")
    f.weak = False


@piece(
    r"(?P<in>in\s+|after\s+)?(?P<n>\d{1,3}|an?|one)\s+(?:(?:business|working|work)\s+days?|"
    r"weekdays?)(?P<tail>\s+(?:from\s+(?:now|today)|hence|later|(?:'s\s+|')?time))?"
)
def _business_days(m: re.Match[str], f: Frame, c: Ctx) -> None:
    """ "in 3 business days", "5 working days from now": that many Mondays to Fridays
    ahead (public holidays are not known here), at this time of day as "in 3 days" is."""
    if not (m["in"] or m["tail"]):
        raise Conflict("rel")  # "3 working days" alone is a length, not a time
    n = 1 if m["n"] in ("a", "an", "one") else int(m["n"])
    day, left = c.today, n
    while left:
        day += timedelta(days=1)
        left -= day.weekday() < 5
    _rel_piece(f, c, Duration(days=(day - c.today).days), 1)


@piece(
    r"(?:the\s+)?(?:(?P<mod>" + _REL_WORDS + r")\s+)?(?P<h>" + HOLIDAY_RE + r")"
    r"(?:,?\s+(?:of\s+)?(?P<y>\d{4}))?"
)
def _holiday(m: re.Match[str], f: Frame, c: Ctx) -> None:
    # The day is placed in `resolve`: a year or a relative offset elsewhere in the phrase
    # ("thanksgiving of next year", "christmas in 2 years") picks which occurrence.
    rule = holiday_rule(m["h"])
    if rule is None or f.holiday is not None:
        raise Conflict("holiday")
    f.holiday = rule
    if m["y"]:
        f.set(year=int(m["y"]))
    f.extra["holiday_shift"] = _rel_shift(m["mod"] or "this")
    f.weak = False


ONE_DAY = timedelta(days=1)


@piece(r"(?P<n>\d{1,2})\s+(?P<h>" + HOLIDAY_RE + r")(?:e?s)?\s+(?P<dir>from\s+now|hence|ago|back)")
def _holidays_counted(m: re.Match[str], f: Frame, c: Ctx) -> None:
    """ "2 black fridays from now", "three memorial days ago": the n-th one on from today."""
    rule = holiday_rule(m["h"])
    n = int(m["n"])
    if rule is None or f.holiday is not None or not 1 <= n <= 50:
        raise Conflict("holiday")
    day = c.today
    for _ in range(n):
        back = m["dir"] in ("ago", "back")
        found = holiday_before(rule, day) if back else holiday_on_or_after(rule, day + ONE_DAY)
        if found is None:
            raise Conflict("holiday")
        day = found
    f.set(date=day, grain="day")
    f.weak = False


@piece(r"(?:the\s+)?ides\s+of\s+(?P<mon>" + MONTH_RE + r")(?:,?\s*(?P<y>\d{4}))?")
def _ides(m: re.Match[str], f: Frame, c: Ctx) -> None:
    mo = month_of(m["mon"])
    f.set(month=mo, day=ides_day(mo))
    if m["y"]:
        f.set(year=int(m["y"]))
    f.weak = False


@piece(
    r"(?:the\s+|at\s+the\s+)?(?P<edge>end|start|beginning|begin|middle)\s+of\s+(?:the\s+)?"
    r"(?:(?P<mod>" + _REL_WORDS + r")\s+)?(?P<u>week|month|year)|(?P<abbr>eom|eoy|eow)"
    r"|(?P<third>early|mid|late)(?:\s*-\s*|\s+)(?P<mod2>" + _REL_WORDS + r")\s+"
    r"(?P<u2>week|month|year)"
)
def _period_edge(m: re.Match[str], f: Frame, c: Ctx) -> None:
    """ "end of the month" → its last day, "beginning of next year" → its first day;
    "early/mid/late next month" → the start of its first/second/last third (as "mid
    march" is the 11th), "late next week" → its Friday."""
    if m["abbr"]:
        edge, u, shift = "end", {"eom": "month", "eoy": "year", "eow": "week"}[m["abbr"]], 0
    elif m["third"]:
        edge, u, shift = m["third"], m["u2"], _rel_shift(m["mod2"])
    else:
        edge, u, shift = m["edge"], m["u"], _rel_shift(m["mod"] or "this")
    first, _ = _period_start(u, c.today, shift)
    nxt, _ = _period_start(u, first, 1)
    if edge in ("mid", "late") and u != "week":
        # Calendar thirds: a month's start on the 11th and 21st, a year's on May 1st and
        # September 1st.
        if u == "month":
            day = first.replace(day=11 if edge == "mid" else 21)
        else:
            day = first.replace(month=5 if edge == "mid" else 9)
        f.set(date=day, grain="day")
        f.weak = False
        return
    if edge == "late":
        edge = "end"
    elif edge == "mid":
        edge = "middle"
    if edge == "end":
        day = nxt - timedelta(days=1 if u != "week" else 3)  # a week "ends" on Friday
    elif edge == "middle":
        day = first + (nxt - first) // 2
    else:
        day = first
    f.set(date=day, grain="day")
    f.weak = False


# ---------------------------------------------------------------- relative offsets


def _rel_piece(f: Frame, c: Ctx, dur: Duration, sign: int) -> None:
    if sign < 0:
        dur = Duration(-dur.years, -dur.months, -dur.days, -dur.seconds)
    try:
        naive = dur.add_to(c.now.replace(tzinfo=None))
    except (OverflowError, ValueError):
        raise Conflict("rel") from None
    # Calendar units step the wall clock; then place it back in the zone.
    base = wall(naive.date(), naive.hour, naive.minute, naive.second, c.tz)
    if not (dur.years or dur.months or dur.days):
        # Elapsed time: add in UTC (aware arithmetic in one ZoneInfo is wall-clock
        # arithmetic and would be an hour off across a DST change).
        base = (c.now.astimezone(UTC) + timedelta(seconds=dur.seconds)).astimezone(c.tz)
    f.set(instant=base)
    f.rel = dur
    f.weak = False


def match_relative(s: str, pos: int, f: Frame, c: Ctx) -> int | None:
    """ "in 2 hours", "2 hours from now", "3 days ago", "a week hence" at `pos`."""
    m = _SIGNED.match(s, pos) if pos == 0 else None
    if m:
        # "+2 weeks", "-3 days": a signed offset from now (only as the whole phrase's
        # start: inside "9h30 - 11h" the dash is a range).
        got = match_duration(s, m.end())
        if got and _ended(s, got[1]):
            _rel_piece(f, c, got[0], -1 if m["sign"] == "-" else 1)
            return got[1]
        return None
    m = _REL_HEAD.match(s, pos)
    if m:
        got = match_duration(s, m.end())
        if got and _ended(s, got[1]):
            _rel_piece(f, c, got[0], 1)
            return got[1]
        return None
    bound = _BOUND_HEAD.match(s, pos)
    got = match_duration(s, bound.end() if bound else pos)
    if not got:
        return None
    tail = _REL_TAIL.match(s, got[1])
    if not tail or not _ended(s, tail.end()):
        return None
    _rel_piece(f, c, got[0], -1 if tail["ago"] else 1)
    return tail.end()


_SIGNED = re.compile(r"(?P<sign>[+-])\s?(?=\d)")
# A bound said on a quantity ("over", "just under", "a bit more than", "at least"): the
# quantity itself is the time, as "within 2 hours" is.
_BOUND = (
    r"(?:(?:a\s+(?:little|bit|tad)\s+|just\s+|slightly\s+|no\s+|not\s+)?"
    r"(?:over|under|more\s+than|less\s+than)|at\s+(?:least|most))\s+"
)
_REL_HEAD = re.compile(
    r"(?:in|within|after)\s+(?:" + _BOUND + r"|(?:about|around|roughly|approximately|approx\.?|"
    r"like|just|another|only|maybe|some)\s+)?"
)
_BOUND_HEAD = re.compile(_BOUND)
_REL_TAIL = re.compile(
    r"\s*(?:(?P<ago>ago|before now|back|(?:before|earlier)(?=\s*$))|"
    r"from\s+(?:right\s+)?(?:now|today)|hence|later|"
    r"after\s+now|from\s+this\s+moment|"
    # "10 minutes out", "a week out": that far ahead, at a phrase's end only.
    r"out(?=\s*$))"
)


def _ended(s: str, pos: int) -> bool:
    return re.compile(END).match(s, pos) is not None


# ---------------------------------------------------------------- times of day


def _weekday_only(f: Frame) -> bool:
    """A weekday named without a day of the month ("sunday", not "sunday the 29th")."""
    return f.weekday is not None and f.day is None and f.month is None and f.date is None


def _set_time(f: Frame, h: int, mi: int, sec: int, ap: str | None, *, h24: bool = False) -> None:
    if f.bare_hour and _weekday_only(f) and 1 <= f.extra.get("bare_number", 0) <= 31:
        # "tuesday 19 at 5pm": the clock comes later, so the lone number was the day.
        f.day = f.extra.pop("bare_number")
        f.hour, f.ampm, f.h24, f.bare_hour, f.minute = None, None, False, False, 0
    if ap == "pm" and 13 <= h <= 23:
        ap, h24 = None, True  # "20pm": a 24-hour clock with a redundant meridiem
    if ap and not 1 <= h <= 12:
        if h == 0 and ap == "am":
            ap = None
        else:
            raise Conflict("hour")
    if not (0 <= h <= 24 and 0 <= mi <= 59 and 0 <= sec <= 59) or (h == 24 and (mi or sec)):
        raise Conflict("hour")
    if h == 24:
        h = 0
    f.set(hour=h, ampm=ap)
    f.minute, f.second = mi, sec
    f.h24 = f.h24 or h24 or h == 0 or h > 12
    f.weak = False


@piece(
    r"(?P<h>\d{1,2})[:.](?P<m>\d{2})(?::(?P<s>\d{2})(?:\.\d{1,6})?)?(?:\s*"
    + AMPM
    + r"|(?P<hs>\s*h))?"
)
def _hm(m: re.Match[str], f: Frame, c: Ctx) -> None:
    dated = f.date is not None or f.day is not None or f.weekday is not None
    if "." in m.group(0)[:3] and not (m["ap"] or m["hs"] or f.at_ctx or dated or f.pod):
        raise Conflict("hour")  # "3.15" alone is more likely a number (or a date)
    _set_time(
        f,
        int(m["h"]),
        int(m["m"]),
        int(m["s"] or 0),
        _ampm(m["ap"]),
        # "07:30", and a clock to the second ("10:30:20", a timestamp's): as written
        h24=(m["h"].startswith("0") and len(m["h"]) == 2) or (m["s"] is not None and not m["ap"]),
    )


@piece(r"(?P<h>\d{1,2})\s*" + AMPM)
def _h_ampm(m: re.Match[str], f: Frame, c: Ctx) -> None:
    ap = m["ap"]
    dated = f.date is not None or f.day is not None or f.weekday is not None
    if len(ap.rstrip(".")) == 1 and not (f.at_ctx or dated):
        # "4a" is not a time unless "at" or a day goes with it ("fri 3p", "8p tomorrow")
        f.extra["lone_ap"] = 1
    _set_time(f, int(m["h"]), 0, 0, _ampm(ap))


@piece(r"(?P<h>\d{1,2})(?P<m>\d{2})\s*" + AMPM)
def _hhmm_ampm(m: re.Match[str], f: Frame, c: Ctx) -> None:
    _set_time(f, int(m["h"]), int(m["m"]), 0, _ampm(m["ap"]))


@piece(r"(?P<h>\d{1,2})\s+(?P<m>[0-5]\d)\s*" + AMPM + "?")
def _h_space_m(m: re.Match[str], f: Frame, c: Ctx) -> None:
    if not (f.at_ctx or m["ap"]):
        raise Conflict("hour")  # "3 30" alone is two numbers
    _set_time(f, int(m["h"]), int(m["m"]), 0, _ampm(m["ap"]))


@piece(r"(?P<h>\d{1,2})h(?P<m>\d{2})?")
def _h_h(m: re.Match[str], f: Frame, c: Ctx) -> None:
    _set_time(f, int(m["h"]), int(m["m"] or 0), 0, None, h24=True)


@piece(r"(?P<h>[01]\d|2[0-3])(?P<m>[0-5]\d)\s*(?:h|hrs|hours)" + END)
def _military(m: re.Match[str], f: Frame, c: Ctx) -> None:
    """ "1630 hours", "0800h": a 24-hour clock said the military way."""
    _set_time(f, int(m["h"]), int(m["m"]), 0, None, h24=True)


@piece(r"(?P<h>[01]?\d|2[0-3])\s*hundred(?P<hrs>\s*(?:hours|hrs|h))?" + END)
def _hundred(m: re.Match[str], f: Frame, c: Ctx) -> None:
    """ "seventeen hundred hours", "at 19 hundred"; "17 hundred" alone is a number."""
    if not (m["hrs"] or f.at_ctx):
        raise Conflict("hour")
    _set_time(f, int(m["h"]), 0, 0, None, h24=True)


@piece(r"(?P<h>[01]?\d|2[0-4])(?P<m>[0-5]\d)(?![\d-])")
def _hhmm(m: re.Match[str], f: Frame, c: Ctx) -> None:
    # "1115" is a clock time after "at", beside a part of day or after a date ("19/12 1510",
    # "sunday 1925").
    dated = f.date is not None or f.day is not None or f.weekday is not None
    if not (f.at_ctx or f.pod or dated):
        raise Conflict("hour")
    # Four digits are a 24-hour clock ("at 0800" is 08:00, never 20:00).
    _set_time(f, int(m["h"]), int(m["m"]), 0, None, h24=len(m["h"]) == 2)


@piece(
    r"(?P<h>\d{1,2})\s*o'?\s?clock(?:\s*(?P<mer>a\.?m\.?|p\.?m\.?)(?![a-z])|"
    r"\s+(?P<ap>in the morning|in the afternoon|in the evening|at night))?"
)
def _oclock(m: re.Match[str], f: Frame, c: Ctx) -> None:
    h = int(m["h"])
    if not m["mer"] and not m["ap"] and h <= 12:
        f.extra["waking_hour"] = h  # "wednesday at 3 o'clock": a waking hour, as "at 3"
    _set_time(f, h, 0, 0, _ampm(m["mer"]))
    if m["ap"]:
        f.set(pod=m["ap"].split()[-1])


@piece(
    r"(?P<h>[01]?\d|2[0-3])\s+(?:hours?|hrs?)"
    r"(?!\s+(?:and|ago|later|before|after|from|earlier|long)\b)"
)
def _hours_clock(m: re.Match[str], f: Frame, c: Ctx) -> None:
    """ "at 17 hours", "at 8 hours": a clock as many languages say one; only after "at"
    (else "8 hours" is a span)."""
    if not f.at_ctx:
        raise Conflict("hours")
    _set_time(f, int(m["h"]), 0, 0, None, h24=True)


@piece(r"(?:12\s+)?(?P<w>noon|midday|mid\s?-?day|midnight)")
def _noon(m: re.Match[str], f: Frame, c: Ctx) -> None:
    if m["w"] == "midnight":
        _set_time(f, 0, 0, 0, None, h24=True)
        f.extra["midnight"] = 1
    else:
        _set_time(f, 12, 0, 0, None, h24=True)


_BASE = (
    r"(?P<base>noon|midnight|midday|(?P<bh>\d{1,2})(?:\s*(?P<bap>a\.?m\.?|p\.?m\.?)|"
    r"(?P<bhh>h))?)"
)


@piece(
    r"(?:(?:a|an)\s+)?(?P<q>quarter|half|\d{1,2})(?:\s+(?:minutes?|mins?))?\s+"
    r"(?P<dir>past|after|to|till|til|before|of)\s+" + _BASE
)
def _past_to(m: re.Match[str], f: Frame, c: Ctx) -> None:
    q = m["q"]
    mins = 15 if q == "quarter" else (30 if q == "half" else int(q))
    named_base = m["base"] in ("noon", "midnight", "midday")
    if (
        q.isdigit()
        and not named_base
        and "min" not in m.group(0)
        and m["dir"] not in ("past", "after")
    ):
        raise Conflict("minute")  # "13 to 15" is a range of numbers, not 14:47
    if mins >= 60:
        raise Conflict("minute")
    if m["base"] == "midnight":
        h, ap, h24 = 0, None, True
    elif m["base"] in ("noon", "midday"):
        h, ap, h24 = 12, None, True
    else:
        h, ap, h24 = int(m["bh"]), _ampm(m["bap"]), bool(m["bhh"])
        if ap is None and not h24:
            # "half past 4 on friday", "tomorrow at 25 to 4": a waking hour beside a
            # day, as "friday at 4" is (`resolve`).
            f.extra["waking_hour"] = h  # the hour said: "quarter to 8" is a morning one
    if m["dir"] in ("to", "till", "til", "before", "of"):
        total = (h * 60 - mins) % (24 * 60)
        if ap == "pm" and h != 12:
            total += 12 * 60
            ap = None
            h24 = True
        elif ap == "am" and h == 12:
            total = (total + 12 * 60) % (24 * 60)
            ap = None
            h24 = True
        h24 = h24 or h == 0 or (h == 12 and not ap)
        h2, m2 = divmod(total, 60)
        if ap:
            _set_time(f, h2 if h2 else 12, m2, 0, ap)
        else:
            _set_time(f, h2, m2, 0, None, h24=h24 and h2 != 11)
            if h == 12 and m["base"] in ("noon", "midday"):
                f.h24 = True
    else:
        _set_time(f, h, mins, 0, ap, h24=h24)


@piece(r"half\s+(?P<h>\d{1,2})")
def _half_h(m: re.Match[str], f: Frame, c: Ctx) -> None:
    h = int(m["h"])
    if h <= 12:
        f.extra["waking_hour"] = h  # "friday at half six": a waking hour, as "friday at 6"
    _set_time(f, h, 30, 0, None)


@piece(r"(?P<h>\d{1,2})(?![\d/:.-]\d)")
def _bare_hour(m: re.Match[str], f: Frame, c: Ctx) -> None:
    h = int(m["h"])
    if _weekday_only(f) and 1 <= h <= 31 and (f.hour is not None or h > 24):
        # "at 3pm on sunday 29": the clock is given, or no hour is that big: a day.
        f.set(day=h)
        f.weak = False
        return
    if h > 24:
        raise Conflict("hour")
    _set_time(f, h, 0, 0, None)
    f.extra["bare_number"] = h
    # A lone number is an hour only after "at"/"around" or next to a part of day.
    f.bare_hour = not f.at_ctx


# ---------------------------------------------------------------- parts of day


@piece(r"(?P<ap>a\.?m\.?|p\.?m\.?)\s*(?P<h>\d{1,2}):(?P<m>\d{2})(?::(?P<s>\d{2}))?(?![\d:])")
def _meridiem_first(m: re.Match[str], f: Frame, c: Ctx) -> None:
    """ "PM 2:26": the meridiem before the clock, the order East Asian dates use. Only
    with a colon clock: "am 10.10" is German for "on 10 October"."""
    _set_time(f, int(m["h"]), int(m["m"]), int(m["s"] or 0), m["ap"][0] + "m")


@piece(r"(?:in\s+the\s+|this\s+|the\s+)?(?P<ap>a\.?m\.?|p\.?m\.?)")
def _in_the_pm(m: re.Match[str], f: Frame, c: Ctx) -> None:
    if not m.group(0).startswith(("in", "this", "the")):
        raise Conflict("ampm")
    f.set(pod="afternoon" if m["ap"][0] == "p" else "morning")
    f.weak = False


@piece(
    r"(?P<this>this\s+|today\s+|in\s+the\s+|the\s+|at\s+)?(?:very\s+)?(?P<el>early\s+|late\s+)?"
    r"(?:in\s+the\s+|in\s+the\s+early\s+hours\s+of\s+the\s+)?"
    r"(?P<p>morning|afternoon|evening|night|lunchtime|lunch time|lunch|breakfast(?:\s*time)?|"
    r"brunch|dinner(?:\s*time)?|supper(?:\s*time)?|tea\s*time)"
    r"|(?P<hours>(?:in\s+)?(?:the\s+)?(?:early|small|wee)\s+hours)"
)
def _pod(m: re.Match[str], f: Frame, c: Ctx) -> None:
    if m["hours"] or "early hours" in m.group(0):
        # "in the early/small/wee hours": the hours after midnight
        f.set(pod="early morning")  # "in the early hours (of the morning)"
        f.weak = False
        return
    p = m["p"]
    if m.group(0) == m.string.strip() == p and p in ("morning", "afternoon", "evening", "night"):
        # "morning", "night" alone are greetings more often than times (Duckling's
        # corpus marks them latent); "this morning", "at night", "friday night" are times.
        raise Conflict("pod")
    p = pod_key(p)
    key = (m["el"] or "") + p
    key = " ".join(key.split())
    if key not in PODS:
        key = p
    f.set(pod=key)
    if m["this"] and m["this"].strip() in ("this", "today"):
        f.set(date=c.today, grain="day")
    f.weak = False


@piece(r"(?:as\s+)?(?P<el>early|late)(?:\s+as\s+possible)?")
def _early_late(m: re.Match[str], f: Frame, c: Ctx) -> None:
    # "tomorrow early", "late friday", "as early as possible on monday": early morning /
    # late evening of a day named too; alone ("late", "too late") the word says nothing
    # about when (`resolve` checks a day was named).
    if m.group(0).startswith("as") != m.group(0).endswith("possible"):
        raise Conflict("pod")
    f.set(pod="early morning" if m["el"] == "early" else "late evening")
    f.extra["needs_day"] = 1
    f.weak = False


@piece(r"1st\s+thing(?P<m>\s+in\s+the\s+morning)?")
def _first_thing(m: re.Match[str], f: Frame, c: Ctx) -> None:
    # "first thing tomorrow", "first thing in the morning" (`normalize` wrote "1st"): the
    # start of the morning; "first thing" alone names no day.
    if m.group(0) == m.string.strip() and not m["m"]:
        raise Conflict("pod")
    f.set(pod="morning")
    f.weak = False


@piece(
    r"(?:the\s+)?(?:end\s+of\s+(?:the\s+)?(?:business\s+|work(?:ing)?\s+)?day|eod|"
    r"close\s+of\s+(?:business|play)|cob)"
)
def _end_of_day(m: re.Match[str], f: Frame, c: Ctx) -> None:
    f.set(pod="end of day")
    f.weak = False


@piece(r"after\s+(?P<p>lunch|school|work|breakfast|dinner|supper)")
def _after_pod(m: re.Match[str], f: Frame, c: Ctx) -> None:
    f.set(pod=pod_key("after " + m["p"]))
    f.weak = False


@piece(r"before\s+(?:going\s+to\s+)?bed|(?:at\s+)?bed\s*time")
def _bedtime(m: re.Match[str], f: Frame, c: Ctx) -> None:
    f.set(pod="bedtime")
    f.weak = False


def pod_key(words: str) -> str:
    """The `PODS` key of a meal or bedtime phrase, as the recurrence grammar reads it too:
    "lunch time"/"lunchtime" → "lunch", "after supper" → "after dinner", "before going to
    bed"/"bed time" → "bedtime"; other words as they are."""
    w = " ".join(words.split()).replace("supper", "dinner").replace(" time", "")
    if "bed" in w:
        return "bedtime"
    return w.removesuffix("time")


# ---------------------------------------------------------------- zones


@piece(
    r"(?:\(\s*)?(?P<z>(?:utc|gmt)\s*[+-]\s*\d{1,2}(?::?\d{2})?|"
    + ZONE_ABBR_RE
    + r"|[a-z]+/[a-z_]+(?:/[a-z_]+)?)(?:\s*time)?\)?"
)
def _zone(m: re.Match[str], f: Frame, c: Ctx) -> None:
    if f.hour is None:
        raise Conflict("zone")  # a zone word only means something after a time of day
    z = zone_for(m["z"])
    if z is None:
        raise Conflict("zone")
    f.set(zone=z)


# ---------------------------------------------------------------- reading a phrase

_FILLER = re.compile(
    r"(?:,|@|at|on|of|for|the|during|in|around|about|approximately|approx\.?|roughly|"
    r"exactly|sharp|by|from|starting|beginning|until|till|before|after|later than|"
    r"no later than|sometime|some time|circa|ca\.?|-)" + END
)
_AT_WORDS = frozenset(
    {
        "@",
        "at",
        "around",
        "about",
        "approximately",
        "approx",
        "approx.",
        "roughly",
        "exactly",
        "by",
        "from",
        "until",
        "till",
        "before",
        "after",
        "later than",
        "no later than",
        "sometime",
        "some time",
        "circa",
        "for",
    }
)
_POINTING = frozenset({"after", "before", "from", "until", "till", "later than", "no later than"})
_SPACE = re.compile(r"\s+")
# Every piece is registered by now: which of them can start at a given character.
_PATTERNS = [p for p, _ in _PIECES]
_DISPATCH = Dispatch([p.pattern for p in _PATTERNS])


def read_frame(s: str, c: Ctx) -> Frame | None:
    """Read a whole normalised phrase into a Frame, or None if any part is not a time piece.

    The caller owns the frame it gets (a copy of the one remembered for this call).
    """
    if s not in c.frames:
        c.frames[s] = _read_frame(s, c)
    got = c.frames[s]
    return _copy(got) if got is not None else None


def _read_frame(s: str, c: Ctx) -> Frame | None:
    f = Frame()
    pos = 0
    n = len(s)
    filler_only = True
    word_before_nothing = False
    while True:
        c.budget.spend()
        sp = _SPACE.match(s, pos)
        if sp:
            pos = sp.end()
        if pos >= n:
            break
        end = None
        try:
            end = match_relative(s, pos, f, c)
        except Conflict:
            return None
        if end is None:
            # Longest piece wins ("last sunday of march" over "last sunday").
            for i, m in _DISPATCH.longest_first(_PATTERNS, s, pos, c.matches):
                snapshot = _copy(f)
                try:
                    _PIECES[i][1](m, f, c)
                except Conflict:
                    f = snapshot
                    continue
                end = m.end()
                break
        if end is not None:
            f.pieces += 1
            f.at_ctx = False
            filler_only = False
            word_before_nothing = False
            pos = end
            continue
        fm = _FILLER.match(s, pos)
        if fm is None:
            return None
        word = fm.group(0).strip()
        # "the morning after", "friday before": a last word that points at a time the
        # phrase does not name leaves it incomplete, not a time.
        word_before_nothing = word in _POINTING
        if word in _AT_WORDS:
            f.at_ctx = True
        if word in ("in", "of", "during", "for", "by", "until", "from", "after", "before"):
            f.extra["month_ok"] = 1
        pos = fm.end()
    if filler_only or not f.pieces or word_before_nothing:
        return None
    if f.extra.get("lone_ap") and not (f.at_ctx or f.date or f.day or f.weekday is not None):
        return None
    return f


def _copy(f: Frame) -> Frame:
    # Taken before every piece is tried, so it must be cheap: a shallow copy of the
    # slots (all immutable values) and a fresh `extra`.
    g = object.__new__(Frame)
    g.__dict__.update(f.__dict__)
    g.extra = dict(f.extra)
    return g


# ---------------------------------------------------------------- placing a frame in time


def _hours(f: Frame) -> list[int]:
    """Candidate 24h hours for the frame's hour, earliest-first preference left to caller."""
    assert f.hour is not None
    h = f.hour
    if f.ampm == "pm":
        return [h % 12 + 12]
    if f.ampm == "am":
        return [h % 12]
    if f.h24:
        return [h]
    if f.pod:
        pm = PODS[f.pod][1]
        if pm and h < 12:
            return [h + 12]
        if not pm and h == 12:
            return [0]
        return [h]
    if h == 12:
        return [12]
    return [h, h + 12]


def _solve_date(f: Frame, c: Ctx, strictly_after: bool) -> date | None:
    """First day on/after today matching the year/month/day/weekday constraints."""
    today = c.today
    if f.instant is not None:
        today = f.instant.astimezone(c.tz).date()
    y, mo, d, wd = f.year, f.month, f.day, f.weekday
    if mo is None and d is None:
        if y is not None:
            return date(y, 1, 1)
        if wd is None:
            return None
        return _weekday_date(f, today, strictly_after)
    if d is None:
        assert mo is not None
        if y is not None:
            return date(y, mo, 1)
        year = today.year if mo >= today.month else today.year + 1
        if f.month_mode == "next" and mo == today.month:
            year += 1
        if f.month_mode == "after_next":
            year += 1
        if f.month_mode == "last":
            year = today.year if mo < today.month else today.year - 1
        return date(year, mo, 1)
    # a day of month, maybe with month/year/weekday
    if y is not None and mo is not None:
        if not valid_date(y, mo, d):
            return None
        # A full date wins over a weekday that does not match it ("Tue 9 Jan 2027", a
        # Saturday), as a date without a year does (`_dated_weekday`): the date is the
        # more specific piece, and the confirmation shows the day read. Only for a year
        # a reminder can mean, as for a bare year beside a weekday (`_year`).
        got = date(y, mo, d)
        if wd is not None and got.weekday() != wd and not _reminder_year(y, c):
            return None
        return got
    start = today + timedelta(days=1) if strictly_after and wd is None and mo is None else today
    if mo is not None:
        if wd is not None and not f.extra.get("dash_date"):
            return _dated_weekday(start, mo, d, wd)
        # "monday 9-5" must name a real Monday 5 Sept to be a date (else it is hours).
        for year in range(start.year, start.year + 29):
            if valid_date(year, mo, d):
                got = date(year, mo, d)
                if got >= start and (wd is None or got.weekday() == wd):
                    return got
        return None
    cur = start.replace(day=1)
    for _ in range(12 * 29):
        if valid_date(cur.year, cur.month, d):
            got = date(cur.year, cur.month, d)
            if got >= start and (wd is None or got.weekday() == wd):
                return got
        cur = add_months(cur, 1)
    return None


def _reminder_year(year: int, c: Ctx) -> bool:
    """A year a dated message can name: from 1900 (a past date is still a date, "Mon, Nov
    13 2016") to 30 years ahead; "friday 08.12.1707" is a slip, not a date."""
    return 1900 <= year <= c.today.year + 30


def _dated_weekday(start: date, mo: int, d: int, wd: int) -> date | None:
    """ "Sunday, Feb 10": the coming Feb 10 if it is a Sunday; this year's if that one
    was, in the last week (a date named with its weekday is that very date); else the
    date wins over a mismatched weekday ("Tuesday, Jan 10" when Jan 10 is a Thursday)
    rather than a Feb 10 years away."""
    ahead = [date(y, mo, d) for y in (start.year, start.year + 1) if valid_date(y, mo, d)]
    ahead = [x for x in ahead if x >= start]
    for got in ahead:
        if got.weekday() == wd:
            return got
    if valid_date(start.year, mo, d):
        past = date(start.year, mo, d)
        if past.weekday() == wd and (start - past).days <= 7:
            return past
    return ahead[0] if ahead else None


def _weekday_date(f: Frame, today: date, strictly_after: bool) -> date:
    wd = f.weekday
    assert wd is not None
    mode = f.wd_mode
    if mode.startswith("week"):
        shift = int(mode[4:])
        return week_start(today) + timedelta(weeks=shift, days=wd)
    if mode in ("last", "before_last"):
        back = (today.weekday() - wd - 1) % 7 + 1
        return today - timedelta(days=back + (7 if mode == "before_last" else 0))
    ahead = (wd - today.weekday()) % 7
    if mode == "this":
        return today + timedelta(days=ahead)  # "this monday" said on a Monday: today
    if ahead == 0 and strictly_after:
        ahead = 7
    if mode == "after_next":
        ahead += 7
    return today + timedelta(days=ahead)


def _place_holiday(f: Frame, c: Ctx) -> bool:
    """Turn a holiday into the frame's day: the occurrence in a named year, in the year a
    relative offset lands in, else the next one (or the previous, after "last")."""
    rule = f.holiday
    assert rule is not None
    shift = f.extra.get("holiday_shift", 0)
    if f.year is not None:
        day = rule(f.year)
        f.year = None
    elif f.date is not None and f.grain == "year":
        day = rule(f.date.year)
        f.date = None
    elif f.instant is not None and f.rel is not None:
        day = rule(f.instant.astimezone(c.tz).year)
        f.instant, f.rel = None, None
    elif shift < 0:
        day = holiday_before(rule, c.today)
    elif shift > 0:
        day = holiday_on_or_after(rule, c.today + timedelta(days=1))
    else:
        day = holiday_on_or_after(rule, c.today)
    if day is None or f.date is not None:
        return False
    f.holiday = None
    f.date, f.grain = day, "day"
    return True


def _is_whole_phrase_date(f: Frame) -> bool:
    """A frame made of one date piece and nothing else ("march", "the 25th")."""
    return f.pieces == 1 and f.hour is None and f.pod is None and f.instant is None


def resolve(f: Frame, c: Ctx) -> datetime | None:
    """The instant a frame means, in the frame's zone (or the user's)."""
    if "weekend" in f.extra:
        f = _weekend_clock(f)
    if f.extra.get("needs_day") and all(
        v is None for v in (f.date, f.weekday, f.day, f.month, f.holiday)
    ):
        return None  # "early", "as late as possible" alone
    if f.holiday is not None:
        f = _copy(f)
        if not _place_holiday(f, c):
            return None
    if f.rel is not None and f.rel.seconds and (f.hour is not None or f.pod is not None):
        return None  # "in 2 hours in the morning": the offset already fixes the clock
    # "9 tomorrow", "friday 7": a lone number beside a named day is its hour.
    if (
        f.bare_hour
        and not f.pod
        and ((f.date is None and f.weekday is None) or f.month is not None or f.day is not None)
    ):
        return None
    if f.extra.get("bare_month") and not (
        f.extra.get("month_ok")
        or f.day is not None
        or f.year is not None
        or f.rel
        or f.month_mode
        or (f.extra.get("full_month") and _is_whole_phrase_date(f))
    ):
        return None
    if f.extra.get("bare_year") and f.month is None and f.day is None and f.date is None:
        return None
    if (
        f.extra.get("bare_day")
        and f.month is None
        and f.weekday is None
        and f.date is None
        and not f.extra.get("month_ok")
        and f.hour is None
        and not _is_whole_phrase_date(f)
    ):
        return None
    if (
        f.date is not None
        and f.grain in ("month", "year")
        and f.year is None
        and (f.day is not None or (f.month is not None and f.grain == "year"))
    ):
        # "the 3rd of next month", "march 3 next year": a day inside that period.
        base = f.date
        mo = f.month if f.month is not None else base.month
        dd = f.day if f.day is not None else 1
        if f.grain == "month" and f.month is not None and f.month != base.month:
            return None
        if not valid_date(base.year, mo, dd):
            return None
        f = _copy(f)
        f.date, f.grain = date(base.year, mo, dd), "day"
        f.month = f.day = None
    if f.date is not None and (f.month is not None or f.day is not None or f.year is not None):
        # "tomorrow 16 Nov": both name the day; they must agree.
        if f.grain not in ("", "day") or any(
            v is not None and v != w
            for v, w in ((f.year, f.date.year), (f.month, f.date.month), (f.day, f.date.day))
        ):
            return None
        f = _copy(f)
        f.year = f.month = f.day = None
    if f.zone is not None:
        inner = Ctx(c.now.astimezone(f.zone), f.zone, c.budget)
        g = _copy(f)
        g.zone = None
        if g.instant is not None:
            g.instant = g.instant.astimezone(f.zone)
        got = resolve(g, inner)
        return got.astimezone(c.tz) if got else None
    if f.exact_now and f.hour is None and f.date is None:
        return c.now
    has_constraints = any(v is not None for v in (f.year, f.month, f.day, f.weekday))
    day: date | None = f.date
    if f.instant is not None and not f.exact_now:
        if f.hour is None and not has_constraints and f.pod is None:
            return f.instant
        if not has_constraints:
            day = f.instant.date()
    if day is not None and f.weekday is not None:
        if f.date is None:
            pass
        elif f.grain in ("week",):
            day = day + timedelta(days=f.weekday)
        elif day.weekday() != f.weekday and not (
            f.extra.get("full_date") and _reminder_year(day.year, c)
        ):
            return None  # "tomorrow friday" on a Monday; a full date wins (`_solve_date`)
    elif has_constraints:
        # "monday evening" said on a Monday afternoon is this evening, when it is still
        # ahead (the bare-weekday rule below moves a passed time a week on).
        day = _solve_date(f, c, strictly_after=f.hour is None and f.pod is None)
        if day is None:
            return None
        # "monday 9-5" names no Monday 5 Sept within a year: it is a range of hours.
        if (
            f.extra.get("dash_date")
            and f.weekday is not None
            and f.year is None
            and (day - c.today).days > 366
        ):
            return None
    if day is not None and f.extra.get("midnight") and f.hour == 0 and not f.minute:
        # "today at midnight", "friday midnight": the midnight that ends that day.
        day = day + timedelta(days=1)
    hours: list[int] | None = None
    if f.hour is not None:
        hours = _hours(f)
        if (
            not f.pod
            and len(hours) == 2
            and (
                f.bare_hour
                or (day is not None and ("bare_number" in f.extra or "waking_hour" in f.extra))
            )
        ):
            # A bare hour beside a day is read as a waking hour, with or without "at":
            # "9 tomorrow" is 09:00, "friday 5" and "friday at 5" are 17:00 (hours
            # before 8 are afternoon ones).
            said = f.extra.get("waking_hour", f.hour)
            hours = [f.hour + 12 if said < WAKING_FROM else f.hour]
    elif f.pod is not None:
        hours = [PODS[f.pod][0]]
        f.minute = f.second = 0
    if (
        day is not None
        and hours
        and f.pod in _NIGHTS
        and not f.extra.get("midnight")
        and all(h < SMALL_HOURS_END for h in hours)
    ):
        # "tonight at 1am", "02:30 tonight", "friday night at 2am": the small hours after
        # that evening, on the next calendar day ("last night at 3am" was this morning)
        day = day + timedelta(days=1)
    if hours is None:
        if day is None:
            return None
        if day == c.today and (f.grain in ("", "day")):
            at = wall(day, DEFAULT_HOUR, 0, 0, c.tz)
            return at if at > c.now else c.now.replace(microsecond=0)
        return wall(day, DEFAULT_HOUR, 0, 0, c.tz)
    if day is not None:
        options = sorted(wall(day, h, f.minute, f.second, c.tz) for h in hours)
        if (
            f.weekday is not None
            and f.date is None
            and f.wd_mode in ("bare",)
            and (f.day is None and f.month is None)
        ):
            later = [o for o in options if o > c.now]
            if not later:
                nxt = day + timedelta(days=7)
                options = sorted(wall(nxt, h, f.minute, f.second, c.tz) for h in hours)
                return options[0]
        later = [o for o in options if o > c.now]
        return later[0] if later else options[0]
    # no day: the next time the clock shows it
    best: datetime | None = None
    for shift in (0, 1):
        d = c.today + timedelta(days=shift)
        for h in hours:
            at = wall(d, h, f.minute, f.second, c.tz)
            if at > c.now and (best is None or at < best):
                best = at
        if best is not None:
            break
    return best


# ---------------------------------------------------------------- whole phrases

# Each rewrite with the substrings one of which any text it changes contains: most
# phrases contain none, and skipping the pattern then (a substring test costs a fraction
# of a regex scan) matters because a message's spans are each preprocessed.
_PRE: list[tuple[re.Pattern[str], str, tuple[str, ...]]] = [
    # A comma glued to the next word still separates ("10:00:00,2021", "friday,27 nov"),
    # but not inside a number ("1,000").
    (re.compile(r",(?=[a-z]|\d{4}\b|\d{1,2}\s+[a-z])(?<!\d,)|(?<=\d),(?=\d{4}\b)"), ", ", (",",)),
    # "6pm-ish", "noonish", "10ish": around that time (a lone number with "ish" is a clock
    # as surely as one after "around").
    (
        re.compile(r"\b(\d{1,2}(?:[:.]\d{2})?(?:\s*[ap]\.?m\.?)?|noon|midnight)\s*-?ish\b"),
        r"around \1",
        ("ish",),
    ),
    (re.compile(r"\b(\d{1,2}) (st|nd|rd|th)\b"), r"\1\2", (" st", " nd", " rd", " th")),  # "7 th"
    # "26. 10.21", "30 . 09 . 22": a spaced day.month.year triple is one dotted date.
    (
        re.compile(
            r"(?<![\d.])(\d{1,2})\s*\.\s*(\d{1,2})\s*\.\s*((?:19|20)\d{2}|\d{2})(?![\d.:-])"
        ),
        r"\1.\2.\3",
        (".",),
    ),
    # "at 17.30.": a dot after a dotted pair that is no day.month ("17.30") ends the
    # sentence, not a date.
    (re.compile(r"(?<![\d.])(\d{1,2}\.(?:1[3-9]|[2-5]\d))\.$"), r"\1", (".",)),
    # "next week's friday" is "next week friday".
    (re.compile(r"\b(next|this|last|the following)\s+week's\b"), r"\1 week", ("week's",)),
    # Final punctuation goes, but not the dot closing a dotted date ("11.9.").
    (re.compile(r"(?<!\d\.\d)(?<!\d\.\d\d)\s*[.!?]+$"), "", (".", "!", "?")),
    # Round and square brackets are punctuation: "(9am) friday", "[sept] 2027".
    (re.compile(r"\s*[()\[\]]+\s*"), " ", ("(", ")", "[", "]")),
    (re.compile(r"\b(?:a\.m\.|am\.)(?=\s|$)"), "am", (".",)),
    (re.compile(r"\b(?:p\.m\.|pm\.)(?=\s|$)"), "pm", (".",)),
    (re.compile(r"\b(?:a m)(?=\s|$)"), "am", ("a m",)),
    (re.compile(r"\b(?:p m)(?=\s|$)"), "pm", ("p m",)),
    (re.compile(r"\b(\d+)(?:-|\s)(\d{2})\b(?=\s*(?:am|pm))"), r"\1:\2", ("am", "pm")),
    (re.compile(r"^(?:remind me|remember|reminder)\b\s*"), "", ("remind", "remember")),
    (re.compile(r"\b(?:approximately|approx)$"), "", ("approx",)),
    # "in 3 weeks' time", "in an hour's time": the same offset without "time".
    (
        re.compile(
            r"\b((?:sec(?:ond)?|min(?:ute)?|hour|hr|day|week|fortnight|month|year)s?)"
            r"(?:'s|')?\s+time$"
        ),
        r"\1",
        (" time",),
    ),
    # "at 5pm at the latest", "17:00 the earliest": a bound said after the time.
    (
        re.compile(r"\s*,?\s*(?:at\s+)?the\s+(?:earliest|latest)$"),
        "",
        ("the earliest", "the latest"),
    ),
    # "in an hour or so", "at 5 or so": the approximation says nothing more.
    (re.compile(r"\s+or\s+so$"), "", ("or so",)),
    # Chat spellings: "nxt friday", "tomorrow arvo" (Australian afternoon).
    (re.compile(r"\bnxt\b"), "next", ("nxt",)),
    (re.compile(r"\bweek-end"), "weekend", ("week-end",)),
    (re.compile(r"\barvo\b"), "afternoon", ("arvo",)),
    (re.compile(r"\bwknd\b"), "weekend", ("wknd",)),
    # "tomorrow eve", "friday eve": the evening ("christmas eve" is the day before).
    (
        re.compile(r"\b(this|today|tomorrow|" + WEEKDAY_RE + r")\s+eve\b"),
        r"\1 evening",
        (" eve",),
    ),
    # "this coming friday": the coming one.
    (re.compile(r"\bthis\s+(coming|upcoming)\b"), r"\1", ("coming",)),
    (re.compile(r"\bo[- ]clock\b"), "o'clock", ("clock",)),
    (re.compile(r"\bmid[- ]night\b"), "midnight", ("mid",)),
    (re.compile(r"\b(?:in the|the|this)\s+pm\b"), "in the pm", ("pm",)),
]
_SEP = re.compile(
    r"\s*(?:-|–|—|\bto\b|\btill\b|\btil\b|\buntil\b|\buntill\b|\bthrough\b|"
    r"\bthru\b|\band\b)\s*"
)
_FOR_DUR = re.compile(r"^(?P<a>.+?)\s+for\s+(?P<d>.+)$")
_DUR_START = re.compile(
    r"^for\s+(?P<d>.+?)\s+(?:starting|beginning|from)\s+(?:from\s+|at\s+|on\s+)?(?P<a>.+)$"
)
# "between" may follow the shared day ("tomorrow between 3 and 5").
_INTERVAL_HEAD = re.compile(r"^(?:from|between|starting|beginning)\s+|(?<=\s)between\s+")
_DAYNUM = re.compile(r"^(?:the\s+)?(?:0?[1-9]|[12]\d|3[01])(?:st|nd|rd|th)?$")  # a day of a month


# A year with its era: AD/CE years as written, Buddhist-era (BE) years 543 ahead. Written
# back as four digits so the date pieces read it as a year, never as an hour.
_ERA = re.compile(r"\b(?P<y>\d{1,4})\s*(?P<era>a\.?d\.?|c\.?e\.?|b\.?e\.?)(?=\s|,|$)")


def _era_year(m: re.Match[str]) -> str:
    y = int(m["y"])
    if m["era"].startswith("b"):
        if len(m["y"]) < 4:
            return m.group(0)  # "at 9 be there": a verb, not an era
        y -= 543
    return f"{y:04d}" if 1 <= y <= 9998 else m.group(0)


def preprocess(s: str) -> str:
    for pat, rep, needs in _PRE:
        if any(n in s for n in needs):
            s = pat.sub(rep, s)
    s = _ERA.sub(_era_year, s)
    return s.strip()


def _single(s: str, c: Ctx) -> datetime | None:
    f = read_frame(s, c)
    if f is None:
        return None
    try:
        return resolve(f, c)
    except (ValueError, OverflowError):
        return None


# ---------------------------------------------------------------- phrases built on a time

_ANCHOR_DIR = r"(?P<dir>after|from|before|past|prior\s+to|following|preceding|later\s+than)"
_OFFSET = re.compile(r"(?:the\s+)?(?P<d>.{1,60}?)\s+" + _ANCHOR_DIR + r"\s+(?P<t>.{1,200})")
_NTH_WD_FROM = re.compile(
    # "the third monday after may 25", "3 mondays after may 25"
    r"(?:the\s+)?(?:(?P<n>\d{1,2}(?:st|nd|rd|th)|second|\d{1,2}(?=\s+[a-z]+s\s))\s+)?(?P<wd>"
    + WEEKDAY_RE
    + r")\s+"
    + _ANCHOR_DIR
    + r"\s+(?P<t>.{1,200})"
)
_CLOSEST = re.compile(
    r"(?:the\s+)?(?:(?P<n>\d{1,2}(?:st|nd|rd|th)|second)\s+)?(?:closest|nearest)\s+"
    r"(?:(?P<wd>" + WEEKDAY_RE + r")|(?P<h>" + HOLIDAY_RE + r"))\s+to\s+(?P<t>.{1,200})"
    # "the monday closest to christmas", "the friday nearest jan 5"
    r"|(?:the\s+)?(?P<wd2>" + WEEKDAY_RE + r")\s+(?:closest|nearest)\s+(?:to\s+)?"
    r"(?P<t2>.{1,200})"
)
_SAME_TIME = re.compile(
    r"(?:at\s+)?(?:this|the\s+same|same)\s+time\s+(?P<t>.{1,100})|(?P<t2>.{1,100}?)\s+"
    r"(?:at\s+)?(?:this|the\s+same|same)\s+time"
)
_WEEK_OF = re.compile(r"(?:the\s+)?week\s+of\s+(?P<t>.{1,200})")
_BOUNDED = re.compile(
    r"(?:(?:at\s+the\s+)?earliest\s+|not\s+(?:earlier|sooner)\s+than\s+|no\s+(?:earlier|sooner)"
    r"\s+than\s+|later\s+than\s+|after\s+|not\s+before\s+|from\s+)(?P<a>.{1,120}?),?\s+"
    r"(?:but|and)\s+(?:(?:still|also)\s+)?(?:before|not\s+later\s+than|no\s+later\s+than|"
    r"by|earlier\s+than|not\s+after|sooner\s+than)\s+(?P<b>.{1,120})"
)
# British "friday week", "a week tomorrow", "a fortnight on saturday".
_DAY_WEEK = re.compile(
    r"(?P<t>[a-z]{3,12}\.?)\s+(?P<u>week|fortnight)"
    r"|an?\s+(?P<u2>week|fortnight)\s+(?:on\s+)?(?P<t2>[a-z]{3,12}\.?)"
)
_UNIT_ONE = re.compile(r"(?:an?\s+|the\s+)?(?P<u>day|week|month|year|fortnight|hour|minute)")


def _anchor(text: str, c: Ctx) -> tuple[datetime, Frame] | None:
    f = read_frame(text, c)
    if f is None:
        return None
    try:
        got = resolve(f, c)
    except (ValueError, OverflowError):
        return None
    return (got, f) if got is not None else None


def offset_duration(text: str) -> Duration | None:
    """A duration before "after"/"before": "3 days", "a year", "the day"."""
    got = match_duration(text, 0)
    if got is not None and got[1] == len(text):
        return got[0]
    m = _UNIT_ONE.fullmatch(text)
    if m:
        got = match_duration("1 " + m["u"], 0)
        return got[0] if got else None
    return None


_CLOCK_WORDS = (
    r"(?:(?:\d{1,2}(?:[:.]\d{2})?(?:\s*(?:am|pm|a\.m\.?|p\.m\.?))?"
    # "half past 10", "quarter to 9", "20 past 2" (as `normalize` writes them)
    r"|(?:half|quarter|\d{1,2}(?:\s+minutes)?)\s+(?:past|after|to|till)\s+\d{1,2})"
    r"(?:\s+(?:in\s+the\s+(?:morning|afternoon|evening)|at\s+night))?|noon|midnight|midday)"
)
_CLOCK_FIRST = re.compile(
    r"(?:at\s+)?(?P<clk>" + _CLOCK_WORDS + r"),?\s+(?:on\s+)?(?P<day>.{1,200})"
)
_CLOCK_LAST = re.compile(r"(?P<day>.{1,200}?),?\s+(?:at\s+|@\s*)?(?P<clk>" + _CLOCK_WORDS + r")")


def _composite_at(s: str, c: Ctx) -> datetime | None:
    """A day defined from another, with a clock before or after it: "the friday after
    christmas at 5pm", "8pm on the sunday after next wed" (the anchor's own clock, as in
    "monday after 3pm", is no clock for the day)."""
    for pattern in (_CLOCK_LAST, _CLOCK_FIRST):
        m = pattern.fullmatch(s)
        if m is None:
            continue
        day = _composite(m["day"], c)
        clock = read_frame(m["clk"] if m["clk"][0].isalpha() else "at " + m["clk"], c)
        if day is None or clock is None or clock.hour is None or clock.date or clock.day:
            continue
        clock.set(date=day.astimezone(c.tz).date(), grain="minute")
        try:
            return resolve(clock, c)
        except (ValueError, OverflowError):
            return None
    return None


def _composite(s: str, c: Ctx) -> datetime | None:
    """Times defined from another time: "3 days after easter", "20 minutes from 3pm",
    "the third tuesday after christmas", "the closest monday to oct 5", "the week of
    march 3", "later than 3 but before 5" (→ its earliest moment)."""
    m = _BOUNDED.fullmatch(s)
    if m:
        # As a range, so words after the end belong to both ("… before 11 on thursday").
        got = _interval(f"{m['a']} to {m['b']}", c)
        if got is not None:
            return got
        a, b = _anchor(m["a"], c), _anchor(m["b"], c)
        if a is not None and b is not None:
            return a[0]
    m = _SAME_TIME.fullmatch(s)
    if m:
        return _same_time(m["t"] or m["t2"], c)
    m = _WEEK_OF.fullmatch(s)
    if m:
        a = _anchor(m["t"], c)
        if a is not None:
            return wall(week_start(a[0].astimezone(c.tz).date()), DEFAULT_HOUR, 0, 0, c.tz)
    m = _CLOSEST.fullmatch(s)
    if m:
        return _closest(m, c)
    m = _NTH_WD_FROM.fullmatch(s)
    if m and m["dir"] not in ("past", "later than"):
        a = _anchor(m["t"], c)
        if a is None or a[1].hour is not None or a[1].pod is not None:
            return None  # "monday after 3pm" is Monday at 3pm, read as a single time
        n = _ord(m["n"]) if m["n"] else 1
        base = a[0].astimezone(c.tz).date()
        wd = weekday_of(m["wd"])
        if m["dir"] in ("before", "prior to", "preceding"):
            back = (base.weekday() - wd - 1) % 7 + 1
            day = base - timedelta(days=back + 7 * (n - 1))
        else:
            ahead = (wd - base.weekday() - 1) % 7 + 1
            day = base + timedelta(days=ahead + 7 * (n - 1))
        return wall(day, DEFAULT_HOUR, 0, 0, c.tz)
    m = _DAY_WEEK.fullmatch(s)
    if m:
        # "tomorrow week": that day (a weekday or tomorrow, no clock) a week later.
        a = _anchor(m["t"] or m["t2"], c)
        if a is not None and a[1].hour is None and (a[1].weekday is not None or a[1].date):
            weeks = 2 if "fortnight" in (m["u"] or m["u2"]) else 1
            day = a[0].astimezone(c.tz).date() + timedelta(weeks=weeks)
            return wall(day, DEFAULT_HOUR, 0, 0, c.tz)
        return None
    m = _OFFSET.fullmatch(s)
    if m and m["t"] not in ("now", "today", "right now", "this moment"):
        dur = offset_duration(m["d"])
        if dur is None:
            return None
        a = _anchor(m["t"], c)
        if a is None:
            return None
        back = m["dir"] in ("before", "prior to", "preceding")
        return moved_by(a[0], dur, -1 if back else 1, c.tz)
    return None


def moved_by(at: datetime, dur: Duration, sign: int, tz: tzinfo) -> datetime | None:
    """`at` moved `sign` × `dur`: calendar parts on the wall clock of `tz` (a day before
    10:00 is 10:00), elapsed time in UTC (an hour is an hour across a DST change)."""
    if sign < 0:
        dur = Duration(-dur.years, -dur.months, -dur.days, -dur.seconds)
    local = at.astimezone(tz).replace(tzinfo=None)
    try:
        moved = dur.add_to(local)
    except (OverflowError, ValueError):
        return None
    if dur.years or dur.months or dur.days:
        return wall(moved.date(), moved.hour, moved.minute, moved.second, tz)
    return (at.astimezone(UTC) + timedelta(seconds=dur.seconds)).astimezone(tz)


_POD_BESIDE = re.compile(
    r"(?:on\s+)?the\s+(?P<p>morning|afternoon|evening|night)\s+"
    r"(?P<dir>before|after|following|preceding|prior\s+to)\s+(?P<t>.{1,200})"
)


def _pod_beside(m: re.Match[str], c: Ctx) -> datetime | None:
    """ "the night before christmas", "the morning after next friday": that part of the
    day before or after a day named without a time of day. Anything else after the word
    ("the morning after 3pm", "the evening before my birthday") is no time: the words
    around it are not fillers to skip."""
    a = _anchor(m["t"], c)
    if a is None or a[1].hour is not None or a[1].pod is not None:
        return None
    step = -1 if m["dir"] in ("before", "preceding", "prior to") else 1
    f = read_frame("in the " + m["p"], c)
    if f is None:
        return None
    f.set(date=a[0].astimezone(c.tz).date() + timedelta(days=step), grain="day")
    try:
        return resolve(f, c)
    except (ValueError, OverflowError):
        return None


def _same_time(text: str, c: Ctx) -> datetime | None:
    """ "this time tomorrow", "same time next week": now's clock time on that day (a week,
    month or year later for "next week/month/year")."""
    a = _anchor(text, c)
    if a is None or a[1].hour is not None:
        return None
    f = a[1]
    day = a[0].astimezone(c.tz).date()
    if f.grain in ("week", "month", "year") and f.date is not None:
        shift = (f.date - _period_start(f.grain, c.today, 0)[0]).days
        if f.grain == "week":
            day = c.today + timedelta(days=shift)
        else:
            months = 12 if f.grain == "year" else 1
            day = add_months(c.today, months if shift > 0 else -months)
    return wall(day, c.now.hour, c.now.minute, 0, c.tz)


def _closest(m: re.Match[str], c: Ctx) -> datetime | None:
    a = _anchor(m["t"] or m["t2"], c)
    if a is None:
        return None
    base = a[0].astimezone(c.tz).date()
    n = _ord(m["n"]) if m["n"] else 1
    if not 1 <= n <= 10:
        return None
    if m["wd"] or m["wd2"]:
        wd = weekday_of(m["wd"] or m["wd2"])
        cands = [base + timedelta(days=k) for k in range(-7 * n - 7, 7 * n + 8)]
        days = [d for d in cands if d.weekday() == wd]
    else:
        rule = holiday_rule(m["h"])
        if rule is None:
            return None
        years = range(base.year - n - 1, base.year + n + 2)
        days = [d for y in years for d in holiday_days(rule, y)]
    days.sort(key=lambda d: (abs((d - base).days), d))
    return wall(days[n - 1], DEFAULT_HOUR, 0, 0, c.tz) if len(days) >= n else None


def parse_normalized(s: str, c: Ctx) -> datetime | None:
    """Parse a preprocessed, normalised phrase: a single time or the start of an interval."""
    m = _POD_BESIDE.fullmatch(s) if "the" in s else None
    if m:
        return _pod_beside(m, c)
    # Built-on phrases first: in "the friday before christmas" the "before" is no filler.
    if " " in s and any(w in s for w in _COMPOSITE_WORDS):
        got = _composite(s, c) or _composite_at(s, c)
        if got is not None:
            return got
    got = _single(s, c)
    if got is not None:
        return got
    # "for 2 hours starting at 3" / "at 3 for 2 hours": the length must be all duration,
    # or any words after it would be silently dropped.
    for m in (_DUR_START.match(s), _FOR_DUR.match(s)):
        if m and _is_duration(m["d"]):
            return _single(m["a"], c)
    if _NUMBER_CHAIN.fullmatch(s):
        return None  # "1-2-3", "20-30-12": a code or a score, not a range of times
    return _interval(s, c)


_NUMBER_CHAIN = re.compile(r"\d{1,4}(?:\s*-\s*\d{1,4}){2,}")
_COMPOSITE_WORDS = (
    "time",
    "after",
    "from",
    "before",
    "past",
    "prior",
    "follow",
    "preced",
    "later",
    "closest",
    "nearest",
    "week",
    "fortnight",
    "earliest",
    "earlier",
    "sooner",
)


def _is_duration(text: str) -> bool:
    d = match_duration(text, 0)
    return d is not None and d[1] == len(text)


_MAX_SEPARATORS = 4
_MAX_END_WORDS = 8


_DIGIT_CLOCK = re.compile(r"\d{3,4}")


def _phone_like(left: str, right: str) -> bool:
    """ "555-1234": digit groups joined by a dash whose minutes are not in the steps of five
    minutes people write times in ("930-1130", "0900-1700" are ranges): a phone number or
    a code, not 5:55 to 12:34."""
    ends = [left, right.split(" ", 1)[0]]
    return all(_DIGIT_CLOCK.fullmatch(e) for e in ends) and any(int(e[-2:]) % 5 for e in ends)


def _interval(s: str, c: Ctx) -> datetime | None:
    """The start of "from 3 to 5pm", "Dec 3-5", "between the 3rd and 5th of March".

    Every word of the far end must be read: it is either a time on its own ("5pm",
    "the 5th") or such a time followed by words shared with the start ("5th of March",
    "5 tomorrow"). Words that are no time ("3 and 5 start the oven") make the phrase not
    a time at all.
    """
    body = _INTERVAL_HEAD.sub("", s, count=1)
    # "and" joins a range's ends only after "between" ("between 9 and 11"); else "at 9
    # and 5" names two times, and only days may be listed ("on the 2nd and 3rd").
    between = re.search(r"\bbetween\b", s) is not None
    # Bounded work: a range's ends are short ("the 3rd of march at 3pm"), so only the
    # first few separators and far-end splits are tried, whatever the input's length.
    for n_sep, sep in enumerate(_SEP.finditer(body)):
        if n_sep >= _MAX_SEPARATORS:
            break
        left, right = body[: sep.start()].strip(), body[sep.end() :].strip()
        if not left or not right or left.count(" ") >= _MAX_END_WORDS:
            continue
        if sep.group(0).strip() in ("-", "–", "—") and _phone_like(left, right):
            return None
        clocks_only = sep.group(0).strip() == "and" and not between
        rtoks = right.split(" ")
        whole = len(rtoks) <= 2 * _MAX_END_WORDS and _end_point(right, c)
        if not (whole or _end_point(rtoks[0], c) or _DAYNUM.match(" ".join(rtoks[:2]))):
            continue  # the far end does not even start like a time (cheap, most messages)
        for k in range(1, min(len(rtoks), _MAX_END_WORDS)):
            end, shared = " ".join(rtoks[:k]), " ".join(rtoks[k:])
            if _end_point(end, c):
                got = _range_start(left, end, shared, c, days_only=clocks_only)
                if got is not None:
                    return got
        if whole:
            got = _range_start(left, right, "", c, days_only=clocks_only)
            if got is not None:
                return got
    return None


def _range_start(
    left: str, end: str, shared: str, c: Ctx, *, days_only: bool = False
) -> datetime | None:
    """The start of the range `left`–`end`, both followed by the `shared` words.

    The shared words ("tomorrow", "on Friday") give both ends their day; a clock time
    at the far end makes a lone number at the start a clock time too ("9 to 5"), and
    lends it its meridiem and zone (see `_carry_clock`). With `days_only` (ends joined
    by a bare "and") neither end may hold a clock time. A range whose far end shows
    the start's clock on no other day ("between 9 and 9", "3pm to 3pm") is no range.
    """
    far = _range_end(end, shared, c)
    if days_only and far is not None and far.hour is not None:
        return None
    lone_day = _DAY_START.fullmatch(left)
    if lone_day and far is not None and far.hour is None and far.pod is None:
        got = _day_before_far_end(int(lone_day[1]), far, c)
        if got is not None:
            return got
    for text in (left, "at " + left):  # "at" lets "930" or "9 30" read as clock times
        f = read_frame(" ".join(filter(None, (text, shared))), c)
        if f is None:
            continue
        if days_only and f.hour is not None:
            return None
        if far is not None and far.hour is not None and f.hour is not None:
            if _same_clock(f, far) and not _explicit_day(_range_end(end, "", c) or Frame()):
                return None
            f.bare_hour = False
            _carry_clock(f, far, c)
        try:
            got = resolve(f, c)
        except (ValueError, OverflowError):
            got = None
        if got is not None:
            return got
    return None


_DAY_START = re.compile(r"(?:the\s+)?(\d{1,2})(?:st|nd|rd|th|\.)?")


def _day_before_far_end(day: int, far: Frame, c: Ctx) -> datetime | None:
    """ "14-15.11.2027", "between 21 and 22.11.": a lone number starting a range that
    ends on a date is a day of that date's month (not after it), not a clock time."""
    if far.date is not None and far.grain == "day":
        y, mo = far.date.year, far.date.month
        if valid_date(y, mo, day) and date(y, mo, day) <= far.date:
            return wall(date(y, mo, day), DEFAULT_HOUR, 0, 0, c.tz)
        return None
    if far.month is None or far.day is None or far.date is not None or day > far.day:
        return None
    g = _copy(far)
    g.day = day
    try:
        return resolve(g, c)
    except (ValueError, OverflowError):
        return None


def _range_end(end: str, shared: str, c: Ctx) -> Frame | None:
    """The far end of a range as a frame, a lone number read as a clock time."""
    for text in (end, "at " + end):
        f = read_frame(" ".join(filter(None, (text, shared))), c)
        if f is not None:
            f.bare_hour = False
            return f
    return None


def _same_clock(a: Frame, b: Frame) -> bool:
    """Whether two frames can show the same clock time ("9" and "9am")."""
    return a.minute == b.minute and bool(set(_hours(a)) & set(_hours(b)))


def _explicit_day(f: Frame) -> bool:
    slots = (f.date, f.year, f.month, f.day, f.weekday, f.instant)
    return any(v is not None for v in slots)


def _carry_clock(start: Frame, far: Frame, c: Ctx) -> None:
    """Give a range's start the meridiem (and zone) its far end implies.

    A start without am/pm ("3" in "3 to 5pm") takes the latest reading that still lies
    before the end (15:00; "9 to 5pm" stays 09:00); a range whose start cannot precede
    its end crosses midnight and takes the latest reading. An end without am/pm is read
    first: on a named day as working hours (hours before 8 are pm: "9 to 5" is
    09:00-17:00), otherwise as the next time the clock shows it.
    """
    if start.zone is None and far.zone is not None:
        start.zone = far.zone
    starts = _hours(start)
    if len(starts) == 1:
        return
    ends = _hours(far)
    if len(ends) > 1:
        ends = [_usual_end_hour(start, far, c)]
    end_minute = ends[0] * 60 + far.minute
    before = [h for h in starts if h * 60 + start.minute < end_minute]
    start.hour = max(before or starts)
    start.ampm = None
    start.h24 = True


def _usual_end_hour(start: Frame, far: Frame, c: Ctx) -> int:
    """The 24h hour of a range end given without am/pm ("5" in "3 to 5")."""
    assert far.hour is not None
    h = far.hour % 12
    if not (_explicit_day(start) or _explicit_day(far)):
        g = _copy(far)
        try:
            got = resolve(g, c)
        except (ValueError, OverflowError):
            got = None
        if got is not None:
            return got.astimezone(far.zone or c.tz).hour
    return h + 12 if h < 8 else h


def _end_point(text: str, c: Ctx) -> bool:
    """Whether `text` alone can be the far end of a range: "5pm", "5", "the 5th"."""
    return bool(_DAYNUM.match(text) or _single(text, c) or _single("at " + text, c))


_ZONES: dict[str, tzinfo] = {}


def zone_named(tz: str) -> tzinfo:
    """ZoneInfo for an IANA name, cached."""
    z = _ZONES.get(tz)
    if z is None:
        from zoneinfo import ZoneInfo

        z = ZoneInfo(tz)
        _ZONES[tz] = z
    return z


MAX_LEN = 300


def parse_instant(text: str, *, now: datetime, tz: str, foreign: bool = True) -> datetime | None:
    """The instant a time phrase means, aware in zone `tz`, or None.

    The whole text must be a time phrase ("tomorrow at 9", "in 2 hours", "next Monday
    3pm"); use `split_when` to find a time inside a longer message. Intervals give
    their start. English is read by this grammar; when it reads nothing and `foreign`
    is true, a German/Spanish/French/Portuguese/Polish phrase is read by the fallback
    (`foreign.parse_foreign`), whose result is an `Understood` saying how it was read.
    "next friday" is the Friday of next week (on a Monday: 11 days ahead), "this
    friday"/"friday" the coming one. Never raises for bad text; `now` must be aware.
    """
    if not isinstance(text, str) or not text.strip() or len(text) > MAX_LEN:
        return None
    try:
        zone = zone_named(tz)
    except (ValueError, OSError, KeyError):
        return None
    got = read_instant(text, Ctx(now.astimezone(zone), zone))
    if got is None and foreign and looks_foreign(text):
        return parse_foreign(text, now=now, zone=zone)
    return got


# "ten to five", "twenty to six": minutes spelled out before "to" and an hour are a clock
# (16:50), where "10 to 5" in digits is a range. `normalize` writes both as digits, so the
# words are told apart first.
_SPELLED_TO = re.compile(
    r"\b(five|ten|twenty|twenty[- ]five)\s+(to|till|til|before)\s+(?=(?:one|two|three|four|"
    r"five|six|seven|eight|nine|ten|eleven|twelve|noon|midnight|\d{1,2})\b)",
    re.IGNORECASE,
)


def _spelled_clock(text: str) -> str:
    low = text.lower()
    if " to " not in low and " til" not in low and " before " not in low:
        return text
    return _SPELLED_TO.sub(r"\1 minutes \2 ", text)


def time_parts(
    text: str, *, now: datetime, tz: str, budget: Budget | None = None
) -> tuple[bool, bool] | None:
    """Whether one plain time phrase names a day and whether it names a time of day:
    "tomorrow" (True, False), "at 5" (False, True), "friday at 5", "tonight", "in 2 hours"
    (True, True). None for what is no single time (a range, an offset from a time)."""
    try:
        zone = zone_named(tz)
        c = Ctx(now.astimezone(zone), zone, budget or Budget())
        s = _prepared(text)
        f = read_frame(s, c) if s else None
    except (ValueError, OverflowError, OSError, KeyError, Conflict, IndexError, WorkLimit):
        return None
    if f is None:
        return None
    if f.instant is not None:
        return True, True
    day = any(v is not None for v in (f.date, f.day, f.weekday, f.month, f.year, f.holiday))
    return day, f.hour is not None or f.pod is not None


def _prepared(text: str) -> str:
    """A phrase as the grammar reads it: clocks in words spelled, normalised, preprocessed."""
    from .lexicon import normalize

    return preprocess(normalize(_spelled_clock(text)))


def read_instant(text: str, c: Ctx) -> datetime | None:
    """`parse_instant`'s English grammar on a checked text, within `c`'s budget."""
    try:
        c.budget.spend(ENTRY_STEPS)
        s = _prepared(text)
        if not s:
            return None
        return parse_normalized(s, c)
    except (ValueError, OverflowError, Conflict, IndexError, WorkLimit):
        return None
