"""Recurring schedules: "every weekday at 8", "every other Friday", "daily at 8am and 8pm".

The phrase is cut into end conditions ("until Dec 1", "5 times", "for 2 weeks"), times
of day ("at 6:30am and 6:30pm") and a day pattern (weekdays, days of month, months,
"every N units"); the pieces become a `tools.schedule.Schedule` holding a Cron spec
when cron can say it, an RRule when it needs intervals or n-th weekdays, and an Every
for sub-daily intervals.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta, tzinfo

from tools.schedule import Cron, Every, RRule, Schedule, ScheduleError

from .duration import match_duration
from .holidays import HOLIDAY_RE, holiday_rrule
from .instant import (
    DEFAULT_HOUR,
    PODS,
    WAKING_FROM,
    Ctx,
    Frame,
    WorkLimit,
    pod_key,
    preprocess,
    read_frame,
    resolve,
    zone_named,
)
from .lexicon import MONTH_RE, WEEKDAY_RE, month_of, normalize, weekday_of
from .resolve import add_months, week_start

_RR = ["MO", "TU", "WE", "TH", "FR", "SA", "SU"]
_KEYWORD = re.compile(
    r"\b(?:every|each|everyday|daily|weekly|monthly|yearly|annually|hourly|nightly|minutely|"
    r"fortnightly|bi-?weekly|quarterly|birthdays?|bdays?|anniversary|anniversaries|"
    r"weekdays|weekends|week-?nights|workdays|(?:working|business|school) days|school nights|"
    r"twice|thrice|once a|per (?:day|week|month|year)|times a (?:day|week)|semi-?annually|"
    r"half-?yearly|"
    r"(?:mon|tues|wednes|thurs|fri|satur|sun)days|"
    r"(?<!in\sthe\s)(?<!within\sthe\s)(?<!in\s)(?<!within\s)"
    r"(?:next|coming|following|upcoming)\s+\w+\s+(?:days|mornings|evenings|nights))\b"
)
POD_HOURS = {
    "morning": 9,
    "afternoon": 14,
    "evening": 18,
    "night": 21,
    "noon": 12,
    "lunch": 12,
    "midnight": 0,
} | {  # meals, bedtime, after work: the hours the instant grammar gives them
    key: PODS[key][0]
    for key in (
        "breakfast",
        "after breakfast",
        "brunch",
        "tea",
        "after lunch",
        "dinner",
        "after dinner",
        "bedtime",
        "after school",
        "after work",
    )
}


@dataclass
class Pattern:
    """The day pattern and times of a recurring phrase, before it becomes a spec."""

    freq: str | None = None  # DAILY WEEKLY MONTHLY YEARLY HOURLY MINUTELY SECONDLY
    interval: int = 1
    byday: list[str] = field(default_factory=list)
    monthdays: list[int] = field(default_factory=list)
    months: list[int] = field(default_factory=list)
    weekno: int | None = None
    times: list[tuple[int, int]] = field(default_factory=list)
    pod: str | None = None
    start: date | None = None
    start_clock: tuple[int, int] | None = None  # "starting tomorrow at 8am": its time of day
    start_bare: bool = False  # that time was a bare hour ("from 7"): a part of day places it
    until: datetime | None = None
    count: int | None = None
    nth_day_of_week: int | None = None
    setpos: list[int] = field(default_factory=list)  # "first and last instance of tue and fri"
    exclude: list[str] = field(default_factory=list)  # RRule exceptions: EXDATE:…, EXRULE:…
    minute_mark: int | None = None  # "every hour at minute 30", "on the half hour"
    holiday: str | None = None  # RRULE parts of a holiday: "every christmas"
    # "every 15 minutes between 9am and 5pm": first and last minute of the day, inclusive
    window: tuple[int, int] | None = None


# ---------------------------------------------------------------- times of day

_T = (
    r"(?:(?P<h>\d{1,2})(?::(?P<m>\d{2}))?\s*(?P<ap>am|pm|a|p)(?![a-z])"
    r"|(?P<h2>\d{1,2}):(?P<m2>\d{2})|(?P<w>noon|midnight|midday)"
    r"|(?P<h3>\d{1,2})\s*o'?\s?clock|(?<=at )(?P<h4>\d{1,2})(?![\d:.]|h\b|h\d)"
    # "at 1730", "at 8.15": a 24-hour clock in four digits, and one written with a dot
    r"|(?<=at )(?P<h7>[01]\d|2[0-3])(?P<m7>[0-5]\d)(?![\d:.])"
    r"|(?<=at )(?P<h8>[01]?\d|2[0-3])\.(?P<m8>[0-5]\d)(?![\d:.])"
    # "19h", "7h30" (as many languages write a clock); "every 2h" is a rhythm, not a time
    r"|(?<!every )(?<!each )(?<!for )(?<![\d.])(?P<h5>[01]?\d|2[0-3])h(?P<m3>[0-5]\d)?(?![a-z\d])"
    # "10 in the morning", "7 at night": a bare hour its part of the day makes a clock
    r"|(?<![\d.:])(?P<h6>\d{1,2})(?=\s+(?:in\s+the\s+(?:morning|afternoon|evening)|at\s+night)\b))"
)


def _strip_groups(p: str) -> str:
    return re.sub(r"\?P<\w+>", "", p)


_TIME_LIST = re.compile(
    r"(?<![\w'])(?:(?:at|@)\s+)?"  # a whole word: "noon" is no time inside "afternoon"
    + _strip_groups(_T)
    + r"(?:\s*(?:,|and|&)\s*(?:(?:at|@)\s+)?"
    + _strip_groups(_T).replace("(?<=at )", "")
    + r")*(?![\w'])"
)


def _times(s: str, pod: str | None) -> tuple[list[tuple[int, int]], str] | None:
    """Pull the times of day out of `s`; None when one of them is not a valid time."""
    out: list[tuple[int, int]] = []
    m = _TIME_LIST.search(s)
    if not m:
        return out, s
    chunk = m.group(0)
    bare = []
    for t in re.finditer(
        r"(?:(?:at|@)\s+)?" + _T.replace("(?<=at )", ""),
        "at " + chunk if not chunk.startswith(("at", "@")) else chunk,
    ):
        bare.append(bool(t["h4"]))
        if t["w"]:
            out.append((POD_HOURS[t["w"]] if t["w"] != "midday" else 12, 0))
            continue
        h = int(t["h"] or t["h2"] or t["h3"] or t["h4"] or t["h5"] or t["h6"] or t["h7"] or t["h8"])
        mi = int(t["m"] or t["m2"] or t["m3"] or t["m7"] or t["m8"] or 0)
        ap = t["ap"]
        if ap:
            if not 1 <= h <= 12:
                return None
            pm = ap.startswith("p")
            if (pod == "morning" and pm) or (pod in ("afternoon", "evening") and not pm):
                return None  # "every morning at 9pm": which of the two was meant?
            h = h % 12 + (12 if pm else 0)
        elif pod in ("afternoon", "evening", "night") and h < 12:
            h += 12
        elif out and h < out[-1][0] < h + 12:
            # Times are listed in the day's order: a bare hour after a later one is in the
            # afternoon ("at 9 and 5": 09:00 and 17:00; "at 8, 12 and 4": 16:00 last).
            h += 12
        if not (0 <= h <= 23 and 0 <= mi <= 59) or (h, mi) in out:
            return None  # not a clock time, or one listed twice ("at 9 and 9": a slip)
        out.append((h, mi))
    if bare == [True] and pod is None and 1 <= out[0][0] < WAKING_FROM:
        # One bare hour is a waking hour, as beside a day in `instant` ("friday at 3" and
        # "every friday at 3" are both 15:00; hours before 8 are afternoon ones). A list
        # keeps its own order ("at 5 and 9": 05:00 and 09:00).
        out = [(out[0][0] + 12, out[0][1])]
    return out, (s[: m.start()] + " " + s[m.end() :]).strip()


# ---------------------------------------------------------------- end conditions

_COUNT = re.compile(
    r"(?:\s*,)?\s*(?:for\s+)?(?:up\s+to\s+)?(?:(?P<n>\d+)\s*(?:x|times|occurrences|runs)(?!\w)"
    r"|(?P<w>once|twice|thrice)(?!\s+(?:a|an|per|every|each|daily|weekly|monthly|yearly)\b))"
    r"(?!\s+(?:a|an|per|every|each)\s)"
    # "4 times total then stop", "6 times in total and then stop": the same count
    r"(?:\s+(?:in\s+)?total|\s+altogether)?(?:\s*,?\s*(?:and\s+)?then\s+(?:stop|end|quit))?"
)
_COUNT_WORDS = {"once": 1, "twice": 2, "thrice": 3}
_FOR = re.compile(r"(?:\s*,)?\s+for\s+(?:up\s+to\s+)?(?:the\s+next\s+|next\s+)?(?P<d>.+)$")
# A daily window for a sub-daily rhythm: "between 9am and 5pm", "from 9 to 17".
_WINDOW = re.compile(
    r"(?:\s*,)?\s+(?:between|from)\s+(?P<a>(?:\d{1,2}(?::\d{2})?\s*(?:am|pm)?|noon|midnight))"
    r"\s+(?:and|to|until|till|-)\s+(?P<b>(?:\d{1,2}(?::\d{2})?\s*(?:am|pm)?|noon|midnight))"
    r"(?![\w:])"
)
_SUB_DAILY = re.compile(
    r"\b(?:every|each)\s+(?:\d+\s*|other\s+|half\s+(?:an\s+)?|quarter\s+(?:of\s+an\s+)?)?"
    r"(?:min(?:ute)?s?|hours?|hrs?|h)\b|\b(?:hourly|minutely)\b"
)
_MINUTE_MARK = re.compile(
    r"(?:\s*,)?\s+(?:at|on)\s+(?:the\s+)?(?:minute\s+(?P<mm>\d{1,2})|half\s+hour|hour|"
    r"quarter\s+(?:past|after)(?:\s+the\s+hour)?|(?P<mm2>\d{1,2})\s+(?:minutes?\s+)?"
    r"(?:past|after)(?:\s+the\s+hour)?|:(?P<mm3>\d{2}))(?!\w)"
)
# A clock said in words, after `normalize` wrote its numbers as digits: "quarter to 9",
# "half past 4", "half 6" (6:30, as said in Britain and Ireland), "10 past 3", "at 20 to
# 6", "6 30 in the morning". A bare "N to H" is a range ("from 9 to 5") unless after "at".
_SPELLED_CLOCK = re.compile(
    r"\b(?:(?P<q>quarter|half)\s+(?P<qd>past|after|to|till|before)\s+(?P<qh>\d{1,2})"
    r"|(?P<n>\d{1,2})\s+(?:minutes?\s+)?(?:past|after)\s+(?P<nh>\d{1,2})"
    r"|(?<=\bat )(?P<t>\d{1,2})\s+(?:minutes?\s+)?(?:to|till|before)\s+(?P<th>\d{1,2})"
    r"|half\s+(?P<hh>\d{1,2})"
    r"|(?P<h>\d{1,2})(?:\s+|:)(?P<m>[0-5]\d)\s+(?P<part>morning|afternoon|evening|night)"
    r"|(?P<h2>\d{1,2})\s+(?P<m2>[0-5]\d)(?=\s*(?:[ap]\.?m\b|o'?clock|in\s+the\s+))"
    r")(?![\d:]|\s*(?:minutes?|mins?|hours?|hrs?|days?|weeks?)\b)"
)


def _clock_digits(m: re.Match[str]) -> str:
    # A clock in words is a waking hour, as a bare hour is ("every friday at half past 4"
    # is 16:30, as "every friday at 4" is 16:00; "quarter to 8" is a morning one, by the
    # hour said), unless am/pm or a part of the day is said after it.
    said_when = _HALF_SAID.match(m.string, m.end()) is not None

    def clock(h: int, mi: int, said: int) -> str:
        if not 0 <= h <= 24 or not 0 <= mi <= 59:
            return m.group(0)
        if not said_when and 1 <= said < WAKING_FROM:
            h += 12
        return f"{h % 24}:{mi:02d}"

    if m["q"]:
        h, mi = int(m["qh"]), 15 if m["q"] == "quarter" else 30
        if m["qd"] in ("to", "till", "before"):
            return clock(h - 1, 60 - mi, h)
        return clock(h, mi, h)
    if m["n"]:
        return clock(int(m["nh"]), int(m["n"]), int(m["nh"]))
    if m["t"]:
        n, h = int(m["t"]), int(m["th"])
        return clock(h - 1, 60 - n, h) if 0 < n < 60 else m.group(0)
    if m["hh"]:
        return clock(int(m["hh"]), 30, int(m["hh"]))
    if m["h2"]:
        return f"{m['h2']}:{m['m2']}"
    # "6 30 morning", "6:30 evening": the part of the day says which half of it
    h, mi = int(m["h"]), int(m["m"])
    if h > 12:
        return m.group(0)
    return f"{h}:{mi:02d}{'am' if m['part'] == 'morning' else 'pm'}"


_HALF_SAID = re.compile(
    r"\s*(?:[ap]\.?m\b|in\s+the\s+(?:morning|afternoon|evening)|morning|evening|night|tonight"
    # "at half past 7 every morning": the rhythm's part of the day says which half
    r"|(?:every|each|on)\s+(?:(?:week)?day\s+)?(?:morning|afternoon|evening|night)s?\b)"
)


# The minute mark said before the rhythm: "on the hour every hour", "at quarter past every
# hour" (read as "every hour on the hour").
_MARK_FIRST = re.compile(
    r"^(?P<mark>(?:at|on)\s+(?:the\s+)?(?:half\s+hour|hour|quarter\s+(?:past|after)"
    r"(?:\s+the\s+hour)?))\s*,?\s+(?P<rule>(?:every|each)\s+(?:\d+\s+)?hours?\b.*|hourly\b.*)$"
)
# "every quarter", "once a fortnight": the adverb of that period ("quarterly").
_PERIOD_NOUN = re.compile(
    r"\b(?:every|each|once\s+(?:a|per|every)|per)\s+(?P<u>quarter|fortnight)\b"
    r"(?!\s+(?:of|past|to|after|an?\s+hour|hours?|hrs?|h|min(?:ute)?s?)\b)"
)
_EVERY_SECOND_DAY = re.compile(r"\b(every|each)\s+second\s+(?=" + WEEKDAY_RE + r"\b)")
_EVERY_SECOND = re.compile(r"\b(every|each)\s+second\s+(?=(?:day|week|weekend|month|year)s?\b)")
# An end condition said first: "for the next 5 days, every day at 8", "until friday daily".
_LEAD_END = re.compile(
    r"(?P<lead>(?:for|until|till|til|from|starting|beginning)\s+.{1,80}?)\s*,?\s+(?P<rest>(?:every|each|everyday|"
    r"daily|weekly|monthly|yearly|annually|hourly|nightly|minutely|fortnightly|quarterly)\b.*)"
)
_AFTER_SPAN = re.compile(r"\s+(?:at|on|from|between)\s")
_BARE_UNIT = re.compile(r"(?:minute|hour|day|week|fortnight|month|year)")
_UNTIL = re.compile(r"(?:\s*,)?\s+(?:until|till|til|up to|ending)\s+(?P<x>.+)$")
_START = re.compile(
    r"(?:^|\s+|,\s*)(?:starting|beginning(?!\s+of)|from|effective)\s+"
    r"(?:on\s+|from\s+)?(?P<x>.+?)(?=,|\s+(?:for|until|till|to|except|excluding|skipping|but|"
    r"every|each|daily|weekly|monthly|yearly|annually|hourly|fortnightly|once|twice)\b|$)"
)
_EXCEPT_WORD = (
    r"(?:except|excluding|but\s+not|other\s+than|apart\s+from|skipping|"
    r"but\s+skip)"
)
_EXCEPT = re.compile(r"(?:\s*,)?\s+" + _EXCEPT_WORD + r"\s+(?:for\s+|on\s+)?(?P<x>.+)$")


def _end_of(text: str, c: Ctx) -> datetime | None:
    """The last instant a "until X" bound allows: X itself, or the end of X's day."""
    f, got = _read(text, c)
    if f is None or got is None:
        return None
    if f.hour is None and f.pod is None and f.rel is None:
        day = got.date()
        if f.grain == "month" or (f.month is not None and f.day is None and f.date is None):
            # "until march": up to the start of that month, as rrule libraries read it
            return datetime.combine(day, time(0), tzinfo=c.tz)
        return datetime.combine(day, time(23, 59, 59), tzinfo=c.tz)
    return got


def _end_after(text: str, start: date | None, c: Ctx) -> datetime | None:
    """`_end_of(text)`, read from the start when there is one: "starting in april, daily
    until march" and "from november until february" end in the March or February after
    the start, not in the one before it."""
    until = _end_of(text, c)
    if until is not None and start is not None and until.date() < start:
        at_start = c.now + timedelta(days=(start - c.now.date()).days)
        until = _end_of(text, Ctx(at_start, c.tz, c.budget))
    return until


# A calendar period as the span: "every day this week", "daily for the rest of the month",
# "every monday next month at 9" (not "for the next month": that is a length, see _FOR).
_PERIOD_SPAN = re.compile(
    r"(?:\s*,)?(?<!\bthe)\s+(?:for\s+|during\s+|through(?:out)?\s+|over\s+)?"
    r"(?:(?:the\s+)?rest\s+of\s+(?:the\s+|this\s+)?(?P<rest>day|week|month|year)"
    r"|(?P<which>this|next)\s+(?P<u>week|month|year)|(?P<today>today))"
    r"(?=$|,|\s+(?:at|@|from|in)\b)"
)


def _period_span(m: re.Match[str], c: Ctx, p: Pattern) -> None:
    """The rest of today, or the days of this or next week (from Monday), month or year,
    to the end of the last day."""
    unit = m["rest"] or m["u"] or "day"
    shift = 1 if m["which"] == "next" else 0
    if unit == "day":
        first, after = c.today, c.today + timedelta(days=1)
    elif unit == "week":
        first = week_start(c.today) + timedelta(weeks=shift)
        after = first + timedelta(weeks=1)
    elif unit == "month":
        first = add_months(c.today.replace(day=1), shift)
        after = add_months(first, 1)
    else:
        first = date(c.today.year + shift, 1, 1)
        after = date(first.year + 1, 1, 1)
    if shift:
        p.start = first
    p.until = datetime.combine(after - timedelta(days=1), time(23, 59, 59), tzinfo=c.tz)


def _start_of(text: str, c: Ctx, p: Pattern) -> bool:
    """Set the pattern's first day, and its time of day when the start names one
    ("starting tomorrow at 8am", "from 7pm"); False if `text` is no time."""
    f, got = _read(text, c)
    if f is None or got is None:
        return False
    p.start = got.date()
    if f.hour is not None:
        p.start_clock = (got.hour, got.minute)
        p.start_bare = f.ampm is None and not f.h24
    return True


def _read(text: str, c: Ctx) -> tuple[Frame | None, datetime | None]:
    s = preprocess(text)
    for variant in (s, "in " + s):
        f = read_frame(variant, c)
        if f is not None:
            got = resolve(f, c)
            if got is not None:
                return f, got
    return None, None


# ---------------------------------------------------------------- day patterns

_WD_LIST = re.compile(
    r"(?P<a>" + WEEKDAY_RE + r")(?:\s*(?:-|to|through|thru)\s*(?P<b>" + WEEKDAY_RE + r"))?"
    r"(?:\s*(?:,|and|&|or|,\s*and)\s*(?:" + WEEKDAY_RE + r"))*"
)
_ORD = r"(?:\d{1,2}(?:st|nd|rd|th)|second|last)"


def _ord_value(o: str) -> int:
    if o == "last":
        return -1
    if o == "second":
        return 2
    return int(re.sub(r"\D", "", o))


def _weekdays(text: str) -> list[int]:
    """Weekday numbers in a list like "monday, wednesday and friday" or "tue-thu"."""
    found: list[int] = []
    for m in re.finditer(
        r"(" + WEEKDAY_RE + r")(?:\s*(?:-|to|through|thru)\s*(" + WEEKDAY_RE + r"))?", text
    ):
        a = weekday_of(m.group(1))
        if m.group(2):
            b = weekday_of(m.group(2))
            span = [(a + i) % 7 for i in range((b - a) % 7 + 1)]
            found.extend(span)
        else:
            found.append(a)
    return sorted(set(found))


_UNIT_FREQ = {
    "second": "SECONDLY",
    "minute": "MINUTELY",
    "hour": "HOURLY",
    "day": "DAILY",
    "week": "WEEKLY",
    "month": "MONTHLY",
    "year": "YEARLY",
}
_UNITS = r"(?P<u>sec(?:ond)?s?|min(?:ute)?s?|hours?|hrs?|days?|weeks?|months?|years?)"
# After a count the unit may be glued or abbreviated to "h" or "m": "every 2h", "every
# 90m" (minutes, as "in 40m" is).
_COUNTED_UNITS = _UNITS.replace("hrs?|", "hrs?|h|").replace("years?)", "years?|m(?![a-z]))")
_EDGE = r"(?:start|beginning|begin|end|1st\s+day|last\s+day|first\s+day)"
_RULES: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"(?:every\s+|each\s+|on\s+)?(?:the\s+)?(?P<h>" + HOLIDAY_RE + r")"), "holiday"),
    (
        # "the 2nd to last day of the month", "the first and last day of each month"
        re.compile(
            r"(?:every\s+|each\s+|on\s+)?(?:the\s+)?(?P<o>"
            + _ORD
            + r"(?:\s*(?:,\s*and|,|and|&)\s*"
            + _ORD
            + r")*)(?:\s+(?P<last>to\s+the\s+last|to\s+last|last))?\s+(?:calendar\s+)?days?"
            r"(?=\s+(?:of|in)\s+(?:the|each|every|a)\s+month|\s+of\s+every\b|\s+monthly\b"
            r"|(?P<bare>$|\s+(?:at|from|until|till|for|starting)\b|,))"
        ),
        "nth_monthday",
    ),
    (
        re.compile(
            r"(?:every|each)\s+(?:(?P<other>other)|(?P<n>\d+)(?:st|nd|rd|th)?)\s+week-?ends?"
        ),
        "n_weekends",
    ),
    (re.compile(r"(?:every|each)\s+other\s+" + _UNITS), "other"),
    (
        re.compile(r"(?:every|each)\s+(?P<f>half|quarter)\s+(?:of\s+)?(?:an?\s+)?hour"),
        "part_hour",
    ),
    (
        # "every 1.5 hours", "every 2 and a half hours", "every hour and a half"
        re.compile(
            r"(?:every|each)\s+(?:(?P<n>\d{1,4}(?:\.\d{1,3})?)(?P<half>\s+and\s+a\s+half)?\s*"
            + _COUNTED_UNITS
            + r"|(?:an?\s+)?(?P<u1>hour|day|week|minute)\s+and\s+a\s+half)"
        ),
        "part_units",
    ),
    (re.compile(r"(?:every|each)\s+(?P<n>\d+)(?:st|nd|rd|th)?\s*" + _COUNTED_UNITS), "n_units"),
    (re.compile(r"(?:every|each|once\s+(?:a|per|every)|per|a)\s+" + _UNITS), "unit"),
    (
        re.compile(
            r"(?P<w>everyday|daily|nightly|weekly|monthly|yearly|annually|hourly|minutely|"
            r"fortnightly|bi-?weekly|quarterly|semi-?annually|half-?yearly)"
        ),
        "adverb",
    ),
    # "twice a week on mon and thu": the count is the days' own, said twice.
    (
        re.compile(
            r"(?P<k>twice|thrice|(?P<n>\d+)\s+times)\s+(?:a|per|every)\s+week\s+(?:on\s+)?"
            r"(?P<wds>" + _WD_LIST.pattern.replace("?P<a>", "").replace("?P<b>", "") + r")"
        ),
        "times_a_week",
    ),
    (re.compile(r"(?P<k>twice|thrice|(?P<n>\d+)\s+times)\s+(?:a|per|every)\s+day"), "times_a_day"),
    (
        re.compile(
            r"(?:every|each)\s+(?P<n>\d+)(?:st|nd|rd|th)\s+(?P<wd>" + WEEKDAY_RE + r")"
            r"(?!\s+(?:of|in)\b)"
        ),
        "nth_week_wd",
    ),
    (re.compile(r"(?:every|each)\s+other\s+(?P<wds>" + WEEKDAY_RE + r")"), "other_wd"),
    (
        re.compile(
            r"(?:every\s+|each\s+|on\s+)?(?:the\s+)?(?P<o>"
            + _ORD
            + r"(?:\s*(?:,\s*and|,|and|&)\s*"
            + _ORD
            + r")*)(?:\s+(?P<last>to\s+the\s+last|to\s+last|last))?(?:\s+instance\s+of)?"
            r"\s+(?P<wds>" + _WD_LIST.pattern.replace("?P<a>", "").replace("?P<b>", "") + r")"
        ),
        "nth_wd",
    ),
    (
        re.compile(
            r"(?:every\s+|each\s+|on\s+)?(?:the\s+)?(?P<o>"
            + _ORD
            + r"(?:\s*(?:,|and)\s*"
            + _ORD
            + r")*)(?:\s+(?P<last>to\s+the\s+last|to\s+last|last))?"
            r"(?:\s+instance\s+of)?\s+(?:the\s+)?(?:weekday|workday|business\s+day|working\s+day)"
        ),
        "nth_wk",
    ),
    (
        re.compile(
            r"(?:every\s+|each\s+|on\s+)?(?:the\s+)?(?P<wk>weekdays?|week-?ends?|workdays?|"
            r"(?:working|business|school)\s+days?|week-?nights?|school\s+nights?)"
        ),
        "wk",
    ),
    (
        re.compile(
            r"(?:every\s+|each\s+|on\s+)?(?P<wds>"
            + _WD_LIST.pattern.replace("?P<a>", "").replace("?P<b>", "")
            + r")"
        ),
        "wds",
    ),
    (
        re.compile(
            r"(?:every\s+|each\s+|in\s+|of\s+)?(?P<mon>" + MONTH_RE + r")\s*(?:the\s+)?"
            r"(?P<d>\d{1,2}(?:st|nd|rd|th)?(?:\s*(?:,|and)\s*\d{1,2}(?:st|nd|rd|th)?)*)"
            r"(?!\s*(?:am|pm|:))"
        ),
        "month_day",
    ),
    (
        re.compile(
            r"(?:every\s+|each\s+|in\s+|on\s+)?(?:the\s+)?(?:day\s+)?(?P<d>\d{1,2}(?:st|nd|rd|th)?"
            r"(?:\s*(?:,|and)\s*\d{1,2}(?:st|nd|rd|th)?)*)(?:\s+day)?\s+of\s+(?P<mon>"
            + MONTH_RE
            + r")"
        ),
        "day_month",
    ),
    (
        re.compile(
            r"(?:every\s+|each\s+|in\s+|of\s+|on\s+)?(?P<mons>"
            + MONTH_RE
            + r"(?:\s*(?:,|and)\s*"
            + MONTH_RE
            + r")*)"
        ),
        "months",
    ),
    (
        # "at the start", "beginning of", "month end" — never a bare "start": that is a verb
        # ("every day at 8 start the dishwasher").
        re.compile(
            r"(?:(?:(?:on|at)\s+)?the\s+|at\s+|(?<=month )|(?=" + _EDGE + r"\s+of\b))"
            r"(?P<se>" + _EDGE + r")(?:\s+of)?"
        ),
        "edge",
    ),
    (
        re.compile(
            r"(?:every\s+|each\s+|on\s+)?(?:the\s+)?(?:day\s+)?(?P<d>\d{1,2}(?:st|nd|rd|th)?"
            r"(?:\s*(?:,|and)\s*\d{1,2}(?:st|nd|rd|th)?)*)(?:\s+day)?"
            # "10 in the morning", "7 at night": an hour, not a day of the month
            r"(?!\s+(?:in\s+the\s+(?:morning|afternoon|evening)|at\s+night|o'?clock)\b)"
        ),
        "days",
    ),
    (re.compile(r"(?:in\s+)?week\s+(?P<n>\d{1,2})"), "weekno"),
    (
        re.compile(
            r"(?:every\s+|each\s+|in\s+the\s+|at\s+)?(?P<pod>morning|afternoon|evening|night|"
            r"(?:after\s+)?(?:breakfast|lunch|dinner|supper)(?:\s*time)?|brunch|bed\s*time|tea\s*time|"
            r"after\s+(?:work|school)|"
            r"before\s+(?:going\s+to\s+)?bed)s?"
        ),
        "pod",
    ),
]
_FILL = re.compile(
    r"(?:,|the|of|on|in|at|only|and|a|per|run|every|each|month|year|week|day|"
    r"time|times|)(?=\s|$|,)"
)


# A unit's length in the next smaller unit, for rhythms given in parts ("every 1.5 hours").
_SMALLER = {
    "minute": ("second", 60),
    "hour": ("minute", 60),
    "day": ("hour", 24),
    "week": ("day", 7),
}


# Adverbs of a rhythm longer than their unit: (frequency, interval).
_RHYTHM_ADVERBS = {
    "fortnightly": ("WEEKLY", 2),
    "biweekly": ("WEEKLY", 2),
    "bi-weekly": ("WEEKLY", 2),
    "quarterly": ("MONTHLY", 3),
    "semiannually": ("MONTHLY", 6),
    "semi-annually": ("MONTHLY", 6),
    "halfyearly": ("MONTHLY", 6),
    "half-yearly": ("MONTHLY", 6),
}


def _unit_name(word: str) -> str:
    unit = re.sub(r"s$", "", word)
    return {"sec": "second", "min": "minute", "m": "minute", "hr": "hour", "h": "hour"}.get(
        unit, unit
    )


def _apply(kind: str, m: re.Match[str], p: Pattern) -> bool:
    g = m.groupdict()
    if kind == "part_units":
        unit = _unit_name(g["u"] or g["u1"])
        value = (float(g["n"]) if g["n"] else 1.0) + (0.5 if g["half"] or g["u1"] else 0.0)
        while not value.is_integer() and unit in _SMALLER:  # 1.5 weeks → 10.5 days → 252 h
            unit, per = _SMALLER[unit]
            value *= per
        if p.freq or not value.is_integer() or value < 1:
            return False
        p.freq, p.interval = _UNIT_FREQ[unit], int(value)
        return True
    if kind in ("other", "n_units", "unit"):
        unit = _unit_name(g["u"])
        freq = _UNIT_FREQ[unit]
        n = 2 if kind == "other" else int(g["n"]) if kind == "n_units" else 1
        if p.freq and p.freq != freq:
            # "every week on the 4th day": the weekly container wins over the day unit.
            return kind == "unit" and unit == "day" and p.freq in ("WEEKLY", "MONTHLY", "YEARLY")
        p.freq, p.interval = freq, max(n, p.interval if p.freq == freq else 1)
        return n > 0
    if kind == "times_a_week":
        days = _weekdays(g["wds"])
        times = {"twice": 2, "thrice": 3}.get(g["k"]) or int(g["n"] or 0)
        if len(set(days)) != times:
            return False  # "twice a week on monday": which is the other day?
        p.byday.extend(_RR[d] for d in days)
        return True
    if kind == "adverb":
        if g["w"] in _RHYTHM_ADVERBS:
            freq, n = _RHYTHM_ADVERBS[g["w"]]
            if p.freq and p.freq != freq:
                return False
            p.freq, p.interval = freq, n
            return True
        freq = {
            "minutely": "MINUTELY",
            "everyday": "DAILY",
            "daily": "DAILY",
            "nightly": "DAILY",
            "weekly": "WEEKLY",
            "monthly": "MONTHLY",
            "yearly": "YEARLY",
            "annually": "YEARLY",
            "hourly": "HOURLY",
        }[g["w"]]
        if g["w"] == "nightly":
            p.pod = "night"
        if p.freq and p.freq != freq:
            return False
        p.freq = freq
        return True
    if kind == "holiday":
        parts = holiday_rrule(g["h"])
        if parts is None or p.holiday or (p.freq and p.freq != "YEARLY"):
            return False
        p.freq, p.holiday = "YEARLY", parts
        return True
    if kind == "part_hour":
        if p.freq and p.freq != "MINUTELY":
            return False
        p.freq, p.interval = "MINUTELY", 30 if g["f"] == "half" else 15
        return True
    if kind == "n_weekends":
        n = 2 if g["other"] else int(g["n"])
        if n < 1 or (p.freq and p.freq != "WEEKLY"):
            return False
        p.freq, p.interval = "WEEKLY", n
        p.byday.extend(["SA", "SU"])
        return True
    if kind == "nth_monthday":
        if g["bare"] is not None and p.freq != "MONTHLY":
            return False  # "the last day" means a day of the month only inside "every month"
        ords = [_ord_value(o) for o in re.findall(_ORD, g["o"])]
        if g["last"]:
            ords = [-o for o in ords]
        if not all(1 <= abs(o) <= 31 for o in ords):
            return False
        p.monthdays.extend(ords)
        return True
    if kind == "times_a_day":
        k = g["k"]
        n = 2 if k == "twice" else 3 if k == "thrice" else int(g["n"])
        if not 1 <= n <= 24:
            return False
        p.freq = "DAILY"
        if p.times:
            # The times said are the schedule ("twice a day at 8 and 20"); a count they
            # don't match ("twice a day at 8") contradicts itself: asked, not guessed.
            return len(p.times) == n
        if n == 1:
            return True
        # Spread the runs over the waking day: twice → 09:00, 21:00; thrice → 09, 15, 21.
        step = 12 / (n - 1)
        p.times = [(int(9 + step * i), int((step * i % 1) * 60)) for i in range(n)]
        return True
    if kind == "other_wd":
        p.freq, p.interval = "WEEKLY", 2
        p.byday.extend(_RR[d] for d in _weekdays(g["wds"]))
        return True
    if kind == "nth_week_wd":
        p.freq, p.interval = "WEEKLY", int(g["n"])
        p.byday.append(_RR[weekday_of(g["wd"])])
        return True
    if kind == "nth_wd":
        ords = [_ord_value(o) for o in re.findall(_ORD, g["o"])]
        if g["last"]:
            ords = [-o for o in ords]
        if "instance" in m.group(0):
            # "the first and last instance of tue and fri": positions in the month's set.
            p.setpos.extend(o for o in ords if o not in p.setpos)
            p.byday.extend(_RR[wd] for wd in _weekdays(g["wds"]))
            return True
        for wd in _weekdays(g["wds"]):
            for o in ords:
                p.byday.append(f"{o}{_RR[wd]}")
        return True
    if kind == "nth_wk":
        ords = [_ord_value(o) for o in re.findall(_ORD, g["o"])]
        if g["last"]:
            ords = [-o for o in ords]
        p.setpos.extend(o for o in ords if o not in p.setpos)
        p.byday.extend(_RR[d] for d in range(5))
        return True
    if kind == "wk":
        w = g["wk"]
        if "night" in w:
            # A weeknight is the night of a working day, Monday to Friday; a school night
            # is one before a school day, Sunday to Thursday. Both are nights.
            days = [6, 0, 1, 2, 3] if w.startswith("school") else [0, 1, 2, 3, 4]
            p.pod = p.pod or "night"
        else:
            days = [5, 6] if w.startswith("week") and "end" in w else [0, 1, 2, 3, 4]
        p.byday.extend(_RR[d] for d in days)
        return True
    if kind == "wds":
        p.byday.extend(_RR[d] for d in _weekdays(g["wds"]))
        return True
    if kind in ("month_day", "day_month"):
        p.months.append(month_of(g["mon"]))
        p.monthdays.extend(int(re.sub(r"\D", "", d)) for d in re.findall(r"\d{1,2}", g["d"]))
        return True
    if kind == "months":
        p.months.extend(month_of(x) for x in re.findall(MONTH_RE, g["mons"]))
        return True
    if kind == "edge":
        se = g["se"]
        p.monthdays.append(-1 if se in ("end", "last day") else 1)
        return True
    if kind == "days":
        txt = m.group(0)
        nums = [int(x) for x in re.findall(r"\d{1,2}", g["d"])]
        if not nums or not all(1 <= x <= 31 for x in nums):
            return False
        if "day" in txt and p.freq == "WEEKLY":
            p.nth_day_of_week = nums[0]
            return True
        if not re.search(r"st|nd|rd|th|on|day|the", txt) and p.freq not in ("MONTHLY", "YEARLY"):
            return False
        p.monthdays.extend(nums)
        return True
    if kind == "weekno":
        p.weekno = int(g["n"])
        return True
    if kind == "pod":
        p.pod = pod_key(g["pod"])
        p.freq = p.freq or "DAILY"
        return True
    return False


def _read_pattern(s: str, p: Pattern) -> bool:
    pos = 0
    while pos < len(s):
        sp = re.compile(r"\s+").match(s, pos)
        if sp:
            pos = sp.end()
            continue
        # The longest rule wins; among equally long ones the first that applies ("every
        # 2nd day of the month" is a day of the month, "every 2nd day" a rhythm).
        longest: list[tuple[str, re.Match[str]]] = []
        for pat, kind in _RULES:
            m = pat.match(s, pos)
            if m and m.end() > pos and (m.end() == len(s) or not s[m.end()].isalnum()):
                if longest and m.end() > longest[0][1].end():
                    longest = []
                if not longest or m.end() == longest[0][1].end():
                    longest.append((kind, m))
        applied = next((m for kind, m in longest if _apply(kind, m, p)), None)
        if applied is not None:
            pos = applied.end()
            continue
        f = _FILL.match(s, pos)
        if f is None or f.end() == pos:
            return False
        pos = f.end()
    return True


# ---------------------------------------------------------------- building the schedule


def _cron_list(values: list[int]) -> str:
    vals = sorted(set(values))
    if len(vals) > 2 and vals == list(range(vals[0], vals[-1] + 1)):
        return f"{vals[0]}-{vals[-1]}"
    return ",".join(str(v) for v in vals)


def _build(p: Pattern, c: Ctx, tz: str) -> Schedule | None:
    now = c.now
    if p.freq in ("MINUTELY", "HOURLY") and (p.window or p.minute_mark is not None):
        return _windowed(p, c, tz)
    if p.freq in ("SECONDLY", "MINUTELY", "HOURLY"):
        secs = {"SECONDLY": 1, "MINUTELY": 60, "HOURLY": 3600}[p.freq] * p.interval
        days = p.byday or p.months or p.monthdays
        later = p.start is not None and p.start > c.today
        if p.times or (later and not (days or p.exclude or p.setpos)):
            # "every 2 hours at 9", "every 36 hours starting tomorrow at 8am": the first run.
            if len(p.times) > 1 or days or p.exclude or p.setpos:
                return None  # which of the times, or days, the rhythm keeps is not said
            return Schedule(Every(secs, _first_run(p, c, secs)), tz, p.until, p.count)
        if p.exclude or p.setpos or later:
            return _sub_daily_rrule(p, c, tz, secs)
        if p.byday or p.months or p.monthdays:
            dow = _cron_list([(_RR.index(d[-2:]) + 1) % 7 for d in p.byday]) if p.byday else "*"
            mon = _cron_list(p.months) if p.months else "*"
            dom = _cron_list(p.monthdays) if p.monthdays else "*"
            if p.freq == "MINUTELY" and 60 % p.interval == 0:
                expr = f"*/{p.interval} * {dom} {mon} {dow}"
            elif p.freq == "HOURLY" and 24 % p.interval == 0:
                expr = f"0 */{p.interval} {dom} {mon} {dow}"
            else:
                return None
            return Schedule(Cron(expr.replace("*/1 ", "* ")), tz, p.until, p.count)
        return Schedule(Every(secs, now + timedelta(seconds=secs)), tz, p.until, p.count)
    if p.holiday is not None:
        return _holiday_schedule(p, c, tz)
    if (
        p.freq == "DAILY"
        and p.interval > 1
        and not (p.times or p.pod or p.start or p.byday or p.monthdays or p.months)
        and not (p.exclude or p.setpos or p.weekno is not None or p.nth_day_of_week)
    ):
        # "every 3 days" with no time of day: counted from now, as "every 3 hours" is (a
        # whole number of days keeps the wall clock across a change of summer time).
        anchor_at = now.astimezone(zone_named(tz)) + timedelta(days=p.interval)
        return Schedule(Every(86400 * p.interval, anchor_at), tz, p.until, p.count)
    # Day-level patterns.
    if p.nth_day_of_week is not None:
        p.byday.append(_RR[(p.nth_day_of_week - 2) % 7])
    freq = p.freq
    if p.setpos and freq is None:
        freq = "YEARLY" if p.months else "MONTHLY"
    if p.setpos and (len(p.times) > 1 or freq not in ("MONTHLY", "YEARLY")):
        return None  # BYSETPOS would pick among times or weeks, not the days meant
    plain_wd = [d for d in p.byday if len(d) == 2]
    nth_wd = [d for d in p.byday if len(d) > 2]
    if freq is None:
        if nth_wd or (p.months and (p.monthdays or p.byday)):
            freq = "YEARLY" if p.months and (nth_wd or p.monthdays) else "MONTHLY"
        elif p.monthdays:
            freq = "MONTHLY"
        elif plain_wd:
            freq = "WEEKLY"
        elif p.months:
            freq = "YEARLY"
        else:
            return None
    if freq == "YEARLY" and p.monthdays and not p.months:
        p.months = [1]
    if freq == "MONTHLY" and p.months and not (p.monthdays or p.byday):
        return None
    times = p.times
    no_time = not times
    if no_time:
        times = [(POD_HOURS.get(p.pod or "", DEFAULT_HOUR), 0)]
    hours = sorted({h for h, _ in times})
    minutes = sorted({m for _, m in times})
    simple = (
        p.interval == 1
        and not nth_wd
        and p.weekno is None
        and p.start is None
        and not p.setpos
        and not p.exclude
        and all(d > 0 for d in p.monthdays)
        and not (p.monthdays and plain_wd)
        and (len(minutes) == 1 or len(hours) == 1)
    )
    # What cron would need to say about the day.
    # A rhythm without named days keeps the start's day: "every 2 weeks starting next
    # friday" runs on Fridays, "every month starting dec 15" on the 15th.
    anchor = p.start or c.today
    if freq == "WEEKLY" and not plain_wd:
        plain_wd = [_RR[anchor.weekday()]]
        if not p.byday:
            simple = simple and False
    if freq == "MONTHLY" and not (p.monthdays or p.byday):
        p.monthdays = [p.start.day if p.start and p.start.day <= 28 else 1]
    if freq == "YEARLY" and not (p.months or p.byday or p.monthdays or p.weekno):
        p.months, p.monthdays = ([p.start.month], [p.start.day]) if p.start else ([1], [1])
    if freq == "YEARLY" and p.months and not (p.monthdays or p.byday):
        p.monthdays = [1]
    if simple:
        dow = _cron_list([(_RR.index(d) + 1) % 7 for d in plain_wd]) if plain_wd else "*"
        dom = _cron_list(p.monthdays) if p.monthdays else "*"
        mon = _cron_list(p.months) if p.months else "*"
        expr = f"{_cron_list(minutes)} {_cron_list(hours)} {dom} {mon} {dow}"
        try:
            sched = Schedule(Cron(expr), tz, p.until, p.count)
        except ScheduleError:
            return None
        first = sched.next_after(now)
        # Without a time of day, a run later today would surprise ("every tuesday" typed on
        # a Tuesday means from next week); start from tomorrow instead.
        if not (no_time and first is not None and first.date() == c.today):
            return sched
    byday = p.byday or (plain_wd if freq == "WEEKLY" else [])
    parts = _date_parts(freq, p, byday)
    parts.append("BYHOUR=" + ",".join(str(h) for h in hours))
    parts.append("BYMINUTE=" + ",".join(str(m) for m in minutes))
    parts.append("BYSECOND=0")
    paired = _paired_times(times, hours, minutes, _days_per_period(freq, p, byday))
    if paired is None:
        return None
    parts.extend(paired)
    start_day = p.start or c.today
    if no_time and p.start is None:
        bare = not (p.byday or p.monthdays or p.months or p.weekno)
        if bare:
            unit = {"DAILY": timedelta(days=p.interval), "WEEKLY": timedelta(weeks=p.interval)}
            start_day = c.today + unit.get(freq, timedelta(days=1))
        else:
            start_day = c.today + timedelta(days=1)
    start = datetime.combine(start_day, time(0))
    try:
        return Schedule(RRule(";".join(parts), start, tuple(p.exclude)), tz, p.until, p.count)
    except ScheduleError:
        return None


def _holiday_schedule(p: Pattern, c: Ctx, tz: str) -> Schedule | None:
    """ "every christmas at 6pm", "every thanksgiving": a yearly rule for the holiday."""
    if p.byday or p.monthdays or p.months or p.weekno is not None or p.interval != 1:
        return None
    times = p.times or [(POD_HOURS.get(p.pod or "", DEFAULT_HOUR), 0)]
    hours = sorted({h for h, _ in times})
    minutes = sorted({m for _, m in times})
    paired = _paired_times(times, hours, minutes, 1)  # one holiday a year
    if paired is None:
        return None
    rule = ";".join(
        [
            f"FREQ=YEARLY;{p.holiday};BYHOUR={','.join(map(str, hours))}",
            f"BYMINUTE={','.join(map(str, minutes))};BYSECOND=0",
            *paired,
        ]
    )
    start = datetime.combine(p.start or c.today, time(0))
    try:
        return Schedule(RRule(rule, start, tuple(p.exclude)), tz, p.until, p.count)
    except ScheduleError:
        return None


def _windowed(p: Pattern, c: Ctx, tz: str) -> Schedule | None:
    """A sub-daily rhythm inside daily hours, or at a fixed minute of the hour.

    "hourly at :30" → "30 * * * *"; "every 2 hours from 9 to 17" → "0 9-17/2 * * *";
    "every 15 minutes between 9am and 5pm on weekdays" runs 09:00, 09:15 … 17:00 and
    no later (an RRULE picking those minutes of each day), not 17:45 as "*/15 9-17" would.
    """
    if p.exclude or p.setpos or p.weekno is not None or p.times:
        return None
    if p.window and p.freq == "MINUTELY":
        return _minute_window(p, c, tz)
    dow = _cron_list([(_RR.index(d[-2:]) + 1) % 7 for d in p.byday]) if p.byday else "*"
    if any(len(d) > 2 for d in p.byday):
        return None
    mon = _cron_list(p.months) if p.months else "*"
    dom = _cron_list(p.monthdays) if p.monthdays else "*"
    if any(d < 1 for d in p.monthdays):
        return None
    if p.freq == "MINUTELY":
        return None  # a minute mark means nothing to a rhythm of minutes
    hours = "*"
    mark = p.minute_mark or 0
    if p.window:
        first, last = p.window
        mark = first % 60 if p.minute_mark is None else p.minute_mark
        h1 = first // 60 + (1 if mark < first % 60 else 0)
        h2 = last // 60 - (1 if mark > last % 60 else 0)
        if h1 > h2:
            return None
        hours = f"{h1}-{h2}"
    elif 24 % p.interval:
        return None
    minute = str(mark)
    if p.interval > 1:
        hours = f"{hours}/{p.interval}" if p.window else f"*/{p.interval}"
    try:
        return Schedule(Cron(f"{minute} {hours} {dom} {mon} {dow}"), tz, p.until, p.count)
    except ScheduleError:
        return None


def _minute_window(p: Pattern, c: Ctx, tz: str) -> Schedule | None:
    """Every N minutes from the window's first minute to its last, each day it applies."""
    assert p.window is not None
    first, last = p.window
    marks = list(range(first, last + 1, p.interval))
    hours = sorted({m // 60 for m in marks})
    minutes = sorted({m % 60 for m in marks})
    grid = [h * 60 + mi for h in hours for mi in minutes]  # what BYHOUR x BYMINUTE yields
    wanted = set(marks)
    setpos = [i + 1 for i, m in enumerate(grid) if m in wanted]
    q = Pattern(byday=list(p.byday), monthdays=list(p.monthdays), months=list(p.months))
    freq = "DAILY"
    parts = _date_parts(freq, q, q.byday)
    parts.append("BYHOUR=" + ",".join(map(str, hours)))
    parts.append("BYMINUTE=" + ",".join(map(str, minutes)))
    parts.append("BYSECOND=0")
    if len(setpos) != len(grid):
        parts.append("BYSETPOS=" + ",".join(map(str, setpos)))
    start = datetime.combine(c.today, time(0))
    try:
        return Schedule(RRule(";".join(parts), start, ()), tz, p.until, p.count)
    except ScheduleError:
        return None


def _days_per_period(freq: str, p: Pattern, byday: list[str]) -> int | None:
    """How many days each FREQ period of the rule holds, when that number is fixed."""
    if freq == "DAILY":
        return 1
    if freq == "WEEKLY" and byday and all(len(d) == 2 for d in byday):
        return len(set(byday))
    short_days = p.monthdays and all(0 < d <= 28 for d in p.monthdays) and not byday
    if freq == "MONTHLY" and short_days and not p.months:
        return len(set(p.monthdays))
    if freq == "YEARLY" and short_days and p.months and p.weekno is None:
        return len(set(p.months)) * len(set(p.monthdays))
    return None


def _paired_times(
    times: list[tuple[int, int]], hours: list[int], minutes: list[int], days: int | None
) -> list[str] | None:
    """BYHOUR × BYMINUTE names every pairing ("7:30 and 19:45" would also run at 7:45 and
    19:30); BYSETPOS keeps only the times said, by their place in each period's runs.
    None when the times aren't every pairing and a period's day count isn't fixed."""
    grid = [(h, m) for h in hours for m in minutes]
    said = sorted(set(times))
    if len(said) == len(grid):
        return []
    if days is None:
        return None
    places = [day * len(grid) + grid.index(t) + 1 for day in range(days) for t in said]
    return ["BYSETPOS=" + ",".join(map(str, places))]


def _date_parts(freq: str, p: Pattern, byday: list[str]) -> list[str]:
    """The RRULE parts that pick days: FREQ, INTERVAL and the BY* lists of a pattern."""
    parts = [f"FREQ={freq}"]
    if p.interval > 1:
        parts.append(f"INTERVAL={p.interval}")
    if p.months:
        parts.append("BYMONTH=" + ",".join(str(m) for m in sorted(set(p.months))))
    if p.weekno is not None:
        parts.append(f"BYWEEKNO={p.weekno}")
    if p.monthdays:
        parts.append("BYMONTHDAY=" + ",".join(str(d) for d in sorted(set(p.monthdays))))
    if byday:
        parts.append("BYDAY=" + ",".join(dict.fromkeys(byday)))
    if p.setpos:
        parts.append("BYSETPOS=" + ",".join(str(x) for x in p.setpos))
    return parts


def _first_run(p: Pattern, c: Ctx, secs: int) -> datetime:
    """A rhythm's first run when its start is said: that day (today if none) at that time
    (09:00 if none). A time already past today is the next step of the rhythm from it
    ("every 2 hours from 3am" at 4:30 runs at 5:00), or tomorrow's for a rhythm of a day
    or more."""
    clock = time(*p.times[0]) if p.times else time(DEFAULT_HOUR)
    first = datetime.combine(p.start or c.today, clock, tzinfo=c.now.tzinfo)
    if first <= c.now:
        if secs < 86400:
            first += timedelta(seconds=secs * ((c.now - first) // timedelta(seconds=secs) + 1))
        else:
            first = datetime.combine(first.date() + timedelta(days=1), clock, c.now.tzinfo)
    return first


def _sub_daily_rrule(p: Pattern, c: Ctx, tz: str, secs: int) -> Schedule | None:
    """ "every 8 hours except …": FREQ=HOURLY;INTERVAL=8 on the wall clock, so exceptions
    (local days and wall times) line up with the runs.

    A plain interval starts one step after now, like `Every`; one limited to some days
    steps from midnight, like the cron form "0 */8 * * 1-5".
    """
    assert p.freq is not None
    parts = [f"FREQ={p.freq}"]
    if p.interval > 1:
        parts.append(f"INTERVAL={p.interval}")
    wall_now = c.now.replace(tzinfo=None, microsecond=0)
    if p.byday or p.months or p.monthdays:
        if p.months:
            parts.append("BYMONTH=" + ",".join(str(m) for m in sorted(set(p.months))))
        if p.monthdays:
            parts.append("BYMONTHDAY=" + ",".join(str(d) for d in sorted(set(p.monthdays))))
        if p.byday:
            parts.append("BYDAY=" + ",".join(dict.fromkeys(p.byday)))
        if p.setpos:
            return None
        start = datetime.combine(p.start or c.today, time(0))
    else:
        start = wall_now + timedelta(seconds=secs)
    try:
        return Schedule(RRule(";".join(parts), start, tuple(p.exclude)), tz, p.until, p.count)
    except ScheduleError:
        return None


# ---------------------------------------------------------------- exceptions

_EXCEPT_TAIL = re.compile(
    r"(?:\s*,)?\s+(?:until|till|til|ending|starting|beginning(?!\s+of)|effective|from)\b"
    r"|(?:\s*,)?\s*(?:for\s+)?(?:up\s+to\s+)?\d+\s*(?:x|times|occurrences)(?!\w)"
    r"|(?:\s*,)?\s+for\s+(?:up\s+to\s+)?(?:the\s+next\s+|next\s+)?(?:\d+|a|an|one|two|three)\s"
)
_ITEM_SPLIT = re.compile(r"\s*(?:,\s*and|,|\band\b|&|\bor\b|\bnor\b)\s*")
_PLAIN_DAYS = re.compile(
    r"(?:on\s+|in\s+|during\s+)?(?:the\s+)?(?:(?:"
    + WEEKDAY_RE
    + r"|week-?ends?|weekdays?|"
    + MONTH_RE
    + r")s?(?:\s*(?:,|and|&|or|-|to|through|thru)\s*|$))+"
)
_BARE_DAY = re.compile(r"(?:on\s+)?(?:the\s+)?(\d{1,2})(?:st|nd|rd|th)?")
_RANGE_GRAINS = {"week": 7, "month": 31, "year": 366}


def _split_except(text: str) -> tuple[str, str]:
    """Cut "mondays until june" into the exception and the end conditions after it."""
    m = _EXCEPT_TAIL.search(text)
    if m is None or m.start() == 0:
        return text, ""
    return text[: m.start()], text[m.start() :]


def _exception_rule(item: str, c: Ctx) -> str | None:
    """ "each 2nd monday in march", "daily at 12am", "weekends" → EXRULE:…"""
    q = Pattern()
    got = _times(item, None)
    if got is None:
        return None
    q.times, rest = got
    rest = re.sub(r"^(?:on|in|during)\s+", "", rest.strip(" ,"))
    if rest and not _read_pattern(rest, q):
        return None
    if q.nth_day_of_week is not None or q.pod or q.count or (q.interval > 1 and not q.freq):
        return None
    nth = [d for d in q.byday if len(d) > 2]
    freq = q.freq
    if freq in ("SECONDLY", "MINUTELY", "HOURLY"):
        return None
    if freq is None:
        if q.months and (q.monthdays or nth or q.setpos):
            freq = "YEARLY"
        elif nth or q.monthdays or q.setpos:
            freq = "MONTHLY"
        elif q.byday:
            freq = "WEEKLY"
        elif q.months:
            freq = "DAILY"  # every day of those months (YEARLY would mean one day each)
        elif q.times:
            freq = "DAILY"
        else:
            return None
    if freq == "MONTHLY" and q.months:
        freq = "YEARLY"
    if freq == "WEEKLY" and not q.byday:
        return None  # "except weekly" names no particular day
    if freq == "YEARLY" and q.monthdays and not q.months:
        return None
    parts = _date_parts(freq, q, q.byday)
    if q.times:
        parts.append("BYHOUR=" + ",".join(str(h) for h in sorted({h for h, _ in q.times})))
        parts.append("BYMINUTE=" + ",".join(str(m) for m in sorted({m for _, m in q.times})))
    return "EXRULE:" + ";".join(parts)


def _exception_item(item: str, c: Ctx, prev: date | None) -> tuple[list[str], date | None] | None:
    """One exception → (EXDATE/EXRULE strings, the day it names for a following bare time)."""
    item = re.sub(r"^(?:for|on)\s+", "", item.strip(" ,"))
    if not item:
        return None
    timed = _times(item, None)
    if _KEYWORD.search(item) or _PLAIN_DAYS.fullmatch(timed[1] if timed else item):
        rule = _exception_rule(item, c)
        return ([rule], None) if rule else None
    got = _times(item, None)
    if got is not None and got[0] and not got[1].strip(" ,"):
        # A bare time: on the day just named ("tomorrow at 8am and 4pm"), else every day.
        if prev is None:
            rule = _exception_rule(item, c)
            return ([rule], None) if rule else None
        walls = [datetime.combine(prev, time(h, mi)) for h, mi in got[0]]
        return [f"EXDATE:{w:%Y%m%dT%H%M%S}" for w in walls], prev
    bare = _BARE_DAY.fullmatch(item)
    if bare and prev is not None:
        # "march 6th and 8th": the month of the day before.
        day = prev.replace(day=int(bare[1]))
        return [f"EXDATE:{day:%Y%m%d}"], day
    f, at = _read(item, c)
    if f is None or at is None or f.pod is not None:
        return None
    local = at.astimezone(c.tz)
    if f.hour is not None or (f.rel is not None and f.rel.seconds):
        return [f"EXDATE:{local:%Y%m%dT%H%M%S}"], local.date()
    span = _RANGE_GRAINS.get(f.grain, 0)
    if not span and f.month is not None and f.day is None and f.date is None:
        span = 31  # "except june": that whole month
    if span:
        first = local.date()
        days = []
        for i in range(span):
            d = first + timedelta(days=i)
            if (
                (f.grain == "week" and i >= 7)
                or (span == 31 and d.month != first.month)
                or (span == 366 and d.year != first.year)
            ):
                break
            days.append(d)
        if len(days) > 62:
            return None  # a whole year: not an exception a reminder should carry as dates
        return [f"EXDATE:{d:%Y%m%d}" for d in days], None
    return [f"EXDATE:{local:%Y%m%d}"], local.date()


def _exceptions(text: str, c: Ctx) -> list[str] | None:
    """ "tomorrow at 8am and 1/5 at 4pm", "each 2nd monday in march" → exceptions, or None."""
    whole = _exception_item(text, c, None)
    if whole is not None:
        return whole[0]
    out: list[str] = []
    prev: date | None = None
    for item in _ITEM_SPLIT.split(text):
        if not item.strip():
            continue
        got = _exception_item(item, c, prev)
        if got is None:
            return None
        out.extend(got[0])
        prev = got[1]
    return out or None


_DAY_PICKERS = frozenset({"BYMONTH", "BYWEEKNO", "BYMONTHDAY", "BYYEARDAY", "BYSETPOS"})


def _leaves_nothing(p: Pattern, exc: list[str]) -> bool:
    """Whether an exception removes every run ("every day except daily", "mondays except
    on mondays", "at 9 except at 9"): refused here, as no schedule, rather than found
    out by probing thousands of runs."""
    if p.freq in ("SECONDLY", "MINUTELY", "HOURLY") or p.interval != 1:
        return False
    if p.monthdays or p.months or p.setpos or p.weekno is not None:
        return False
    base_days = set(p.byday) if p.byday else set(_RR)
    if any(len(d) > 2 for d in base_days):
        return False
    base_times = set(p.times) or {(DEFAULT_HOUR, 0)}
    for e in exc:
        if not e.startswith("EXRULE:"):
            continue
        parts = dict(x.split("=", 1) for x in e[7:].split(";") if "=" in x)
        if _DAY_PICKERS & parts.keys() or "INTERVAL" in parts:
            continue
        days = set(parts["BYDAY"].split(",")) if "BYDAY" in parts else set(_RR)
        if parts.get("FREQ") not in ("DAILY", "WEEKLY") or not base_days <= days:
            continue
        if "BYHOUR" not in parts:
            return True
        hours = {int(h) for h in parts["BYHOUR"].split(",")}
        minutes = {int(m) for m in parts.get("BYMINUTE", "0").split(",")}
        if all(h in hours and m in minutes for h, m in base_times):
            return True
    return False


def _subtract_days(p: Pattern, exc: list[str]) -> bool:
    """ "daily except weekends" → weekdays, staying a simple day pattern when it can."""
    days: set[str] = set()
    for e in exc:
        m = re.fullmatch(r"EXRULE:FREQ=WEEKLY;BYDAY=((?:MO|TU|WE|TH|FR|SA|SU)(?:,\w\w)*)", e)
        if m is None:
            return False
        days.update(m[1].split(","))
    if p.monthdays or p.months or p.setpos or p.weekno is not None or p.interval != 1:
        return False
    if p.freq in ("DAILY", None) and not p.byday:
        base = list(_RR)
    elif p.freq in ("WEEKLY", "DAILY", None) and p.byday and all(len(d) == 2 for d in p.byday):
        base = list(p.byday)
    else:
        return False
    left = [d for d in base if d not in days]
    if not left:
        return False
    p.byday = left
    p.freq = p.freq or "WEEKLY"
    return True


MAX_LEN = 300


def parse_recurrence(text: str, *, now: datetime, tz: str) -> Schedule | None:
    """A recurring schedule for phrases like "every weekday at 8", or None.

    End conditions: "until Dec 1" (inclusive, to the end of that day), "5 times",
    "twice", "for 2 weeks", "for the next month"; "starting <date>" moves the start.
    Birthdays and anniversaries with a date ("Ana's birthday is on March 3rd") and fixed
    holidays ("every thanksgiving") repeat yearly. A day-level pattern without a time of
    day runs at 09:00 local.
    """
    if not isinstance(text, str) or not text.strip() or len(text) > MAX_LEN:
        return None
    try:
        zone: tzinfo = zone_named(tz)
    except (ValueError, OSError, KeyError):
        return None
    return read_recurrence(text, Ctx(now.astimezone(zone), zone), tz)


def read_recurrence(text: str, c: Ctx, tz: str) -> Schedule | None:
    """`parse_recurrence` on a checked text, within `c`'s budget of grammar steps."""
    try:
        c.budget.spend(ENTRY_STEPS)
        return _parse(normalize(text), c, tz)
    except (ValueError, OverflowError, KeyError, IndexError, ScheduleError, WorkLimit):
        return None


# A recurrence call's fixed work (its end-condition and pattern searches), in grammar
# steps (see `instant.Budget`).
ENTRY_STEPS = 6

# "Ana's birthday is on March 3rd", "our anniversary: june 12": a yearly day.
_OCCASION = re.compile(
    # whose occasion: up to three words, none of the request around it ("remind me of")
    r"^(?P<who>(?:(?!(?:me|us|of|about|for|to|that|on|at|remind\w*|ping|nudge|tell)\s)"
    r"(?:my|our|his|her|their|your|[a-z][\w.-]{0,30}'s?|[a-z][\w.-]{0,30})\s+){0,3})"
    r"(?P<what>(?:wedding\s+|work\s+|dating\s+)?(?:birthday|bday|anniversary)s?)"
    r"(?:\s+(?:is|was|falls|will\s+be))?(?:\s*(?:on|:|,|-))?\s+(?P<rest>.{1,80})$"
)


_REQUEST_LEAD = re.compile(r"^(?:run|repeat|remind me)\s+")
# Whose occasion and which ("his birthday", "Ana's wedding anniversary").
WHOSE = r"(?:my|our|his|her|their|your|[a-z][\w.-]{0,30}'s?)"
OCCASION_NOUN = r"(?:wedding\s+|work\s+)?(?:birthday|bday|b-day|anniversary)"
# "every year on his birthday", "annually on our anniversary": the day is the occasion's.
EVERY_YEAR_ON_OCCASION = (
    rf"\b(?:(?:every|each)\s+year|yearly|annually)(?P<on>\s+on\s+{WHOSE}\s+{OCCASION_NOUN})\b"
)
_ON_OCCASION = re.compile(EVERY_YEAR_ON_OCCASION)


def _each_of_next(m: re.Match[str]) -> str:
    """ "the next 4 sundays" → "every sunday 4 times"; "in the next 2 days" is one time
    somewhere in them, no rhythm, and beside a rhythm said ("every day for the next 5
    days") it is the rhythm's end."""
    if re.search(r"\b(?:in|within|by|after|before)\s*$", m.string[: m.start()]):
        return m.group(0)
    if _KEYWORD.search(m.string[: m.start()] + " " + m.string[m.end() :]):
        return m.group(0)  # "for the next 5 days every day at 8": an end to a rhythm said
    return f"every {m['d'][:-1]} {m['n']} times"


# "on the next 4 sundays", "for the coming 3 mornings": that rhythm, so many times.
_NEXT_N = re.compile(
    r"\b(?:on\s+|for\s+|over\s+|during\s+)?(?:each\s+of\s+|all\s+|every\s+one\s+of\s+)?"
    r"(?:the\s+)?(?:next|coming|following|upcoming)\s+(?P<n>\d{1,2})\s+"
    r"(?P<d>(?:(?:mon|tues|wednes|thurs|fri|satur|sun)day|day|weekday|morning|evening|night)s)\b"
)


def occasion_of(text: str) -> tuple[int, int] | None:
    """Where the occasion words ("Ana's birthday") of a yearly occasion phrase are, as
    (first word, number of words) of `text` ("remind me ana's birthday is on march 3rd" →
    (2, 2)), else None."""
    low = normalize(text).strip()
    lead = _REQUEST_LEAD.match(low)
    m = _OCCASION.match(low[lead.end() :] if lead else low)
    if m is None:
        return None
    return (len(lead.group().split()) if lead else 0), len((m["who"] + m["what"]).split())


def _occasion(s: str, c: Ctx) -> str | None:
    """ "ana's birthday is on march 3rd" → "every year on march 3rd" when the rest is a
    calendar day (a month and a day, nothing else)."""
    m = _OCCASION.match(s)
    if m is None:
        return None
    rest = m["rest"]
    f = read_frame(preprocess(rest), c)
    if f is None or f.month is None or f.day is None or f.weekday is not None:
        return None
    return "every year on " + rest


_WEEKDAY_SLASH = re.compile(r"\b(" + WEEKDAY_RE + r")\s*[/+]\s*(?=" + WEEKDAY_RE + r"\b)")


_DAY_RANGE = re.compile(
    r"\b(?:from\s+)?(?P<a>"
    + WEEKDAY_RE
    + r")\s*(?:-|–|to|through|thru|till|until)\s*(?P<b>"
    + WEEKDAY_RE
    + r")\b"
)


def _clocked_day_range(s: str) -> re.Match[str] | None:
    """A range of weekdays ("mon-fri", "from monday to friday") said with a clock."""
    m = _DAY_RANGE.search(s)
    if m is None or not _TIME_LIST.search(s[: m.start()] + " " + s[m.end() :]):
        return None
    return m


def counts_runs(s: str) -> bool:
    """Whether lowercase `s` says a number of runs ("4 times", "6x"; not "twice", which is
    as often two reminders on one day)."""
    m = _COUNT.search(s)
    return m is not None and m["n"] is not None


def several_days(s: str) -> re.Match[str] | None:
    """Two or more weekdays said together ("tue and thu", "mon, wed & fri")."""
    for m in _WD_LIST.finditer(s):
        if m["b"] is not None or len(re.findall(WEEKDAY_RE, m.group(0))) >= 2:
            return m
    return None


def _counted_days(s: str) -> re.Match[str] | None:
    """Weekdays said with a count of runs ("tue and thu at 19:30, 4 times"): where those
    days are said."""
    return several_days(s) if counts_runs(s) else None


def says_repeat(s: str) -> bool:
    """Whether lowercase `s` says a rhythm: a word of repetition ("every", "daily",
    "mondays"…), a range of weekdays with a clock ("mon-fri at 9"), or weekdays with a count
    of runs ("tue and thu, 4 times")."""
    return (
        _KEYWORD.search(s) is not None
        or _clocked_day_range(s) is not None
        or _counted_days(s) is not None
    )


def _parse(s: str, c: Ctx, tz: str) -> Schedule | None:
    s = re.sub(r"[.!?]+$", "", s).strip()
    s = _REQUEST_LEAD.sub("", s)
    s = _NEXT_N.sub(_each_of_next, s)
    s = _MARK_FIRST.sub(r"\g<rule> \g<mark>", s)  # "on the hour every hour"
    s = _SPELLED_CLOCK.sub(_clock_digits, s)  # "at quarter to 9", "half 5", "6 30 morning"
    if "/" in s or "+" in s:
        s = _WEEKDAY_SLASH.sub(r"\1 and ", s)  # "tue/thu", "tue+thu": "tue and thu"
    if not _KEYWORD.search(s):
        # "mon-fri at 9", "from monday to friday at 8.15": a range of weekdays with a clock
        # is those days every week (a one-off has one day; "away from monday to friday",
        # with no clock, is no rhythm).
        m = _clocked_day_range(s)
        if m is not None:
            s = f"{s[: m.start()]}every {m['a']} to {m['b']}{s[m.end() :]}"
        elif (m := _counted_days(s)) is not None:
            s = f"{s[: m.start()]}every {s[m.start() :]}"
        else:
            return None
    s = _PERIOD_NOUN.sub(lambda m: m["u"] + "ly", s)
    # "every second week": `normalize` keeps "second" a word (it is also a unit).
    s = _EVERY_SECOND.sub(r"\1 2nd ", s)
    if _START.search(s):
        # "every second thursday, starting this thursday": every other week from that day
        # (the second thursday of a month has no start to name)
        s = _EVERY_SECOND_DAY.sub(r"\1 other ", s)
    lead = _LEAD_END.fullmatch(s)
    if lead:
        s = f"{lead['rest']} {lead['lead']}"
    yearly = _occasion(s, c)
    if yearly is not None:
        s = yearly
    m = _ON_OCCASION.search(s)
    if m is not None:
        # "every year on his birthday": the day is the occasion's; said beside it ("…,
        # january 19") it is the rule's day, and not said it is no day at all (not 1 January)
        s = (s[: m.start("on")] + " " + s[m.end() :]).strip(" ,")
        f = read_frame(preprocess(s[m.start("on") :].strip(" ,")), c)
        if f is None or f.month is None or f.day is None:
            return None
    p = Pattern()
    except_text = ""
    m = _EXCEPT.search(s)
    if m:
        except_text, tail = _split_except(m["x"])
        s = (s[: m.start()] + " " + tail).strip()
        # "every day except mondays at 9am": a time after plain days belongs to the base.
        got_t = _times(except_text, None)
        if (
            got_t
            and got_t[0]
            and _PLAIN_DAYS.fullmatch(got_t[1].strip(" ,"))
            and not (_TIME_LIST.search(s))
        ):
            tm = _TIME_LIST.search(except_text)
            assert tm is not None
            s = f"{s} {tm.group(0)}"
            except_text = got_t[1].strip(" ,")
    m = _COUNT.search(s)
    if m:
        p.count = int(m["n"]) if m["n"] else _COUNT_WORDS[m["w"]]
        s = (s[: m.start()] + s[m.end() :]).strip()
    m = _WINDOW.search(s)
    if m and _SUB_DAILY.search(s):
        lo, hi = _times("at " + m["a"], None), _times("at " + m["b"], None)
        if not (lo and hi and len(lo[0]) == 1 and len(hi[0]) == 1):
            return None
        (h1, m1), (h2, m2) = lo[0][0], hi[0][0]
        if h2 < h1 and not re.search(r"[ap]m|:", m["b"]) and h2 + 12 > h1:
            h2 += 12  # "from 9 to 5": the end is in the afternoon
        if not h1 * 60 + m1 < h2 * 60 + m2:
            return None  # a window ends later the same day
        p.window = (h1 * 60 + m1, h2 * 60 + m2)
        s = (s[: m.start()] + " " + s[m.end() :]).strip()
    m = _MINUTE_MARK.search(s)
    if m and _SUB_DAILY.search(s):
        mark = m["mm"] or m["mm2"] or m["mm3"]
        word = m.group(0)
        # "on the hour" is minute 0, "on the half hour" 30, "at quarter past" 15.
        p.minute_mark = (
            int(mark) if mark else 30 if "half" in word else 15 if "quarter" in word else 0
        )
        if not 0 <= p.minute_mark <= 59:
            return None
        s = (s[: m.start()] + " " + s[m.end() :]).strip()
    m = _START.search(s)
    if m:
        rest = m["x"]
        if m.group(0).strip().startswith("from"):
            rest = s[m.start("x") :]
        to = re.match(r"(?P<a>.+?)\s+(?:to|until|till|through)\s+(?P<b>.+)$", rest)
        if to and re.match(r"from", m.group(0).strip()):
            if not _start_of(to["a"], c, p):
                return None
            p.until = _end_after(to["b"], p.start, c)
            if p.until is None:
                return None
            s = s[: m.start()]
        else:
            if not _start_of(m["x"], c, p):
                return None
            s = (s[: m.start()] + s[m.end() :]).strip()
    m = _FOR.search(s)
    if m:
        # "for the next year at 7am": the span, and the times said after it.
        span, tail = m["d"], ""
        cut = _AFTER_SPAN.search(span)
        if cut:
            span, tail = span[: cut.start()], span[cut.start() :]
        # "for the next month": a bare unit is one of it.
        span = span if not _BARE_UNIT.fullmatch(span) else "1 " + span
        d = match_duration(span, 0)
        if d and d[1] == len(span):
            # "starting friday … for 2 days": the span runs from the start of that day.
            base = datetime.combine(p.start, time(0), c.now.tzinfo) if p.start else c.now
            p.until = d[0].add_to(base)
            s = s[: m.start()] + tail
    m = _UNTIL.search(s)
    if m:
        p.until = _end_after(m["x"], p.start, c)
        if p.until is None:
            return None
        s = s[: m.start()]
    m = _PERIOD_SPAN.search(s) if p.start is None and p.until is None else None
    if m:
        _period_span(m, c, p)
        s = (s[: m.start()] + " " + s[m.end() :]).strip()
    pod = None
    pm = re.search(r"\b(?:week-?|school\s+)?(morning|afternoon|evening|night)s?\b", s)
    if pm:
        pod = pm.group(1)
    got = _times(s, pod)
    if got is None:
        return None
    p.times, s = got
    if p.start_clock is not None:
        # "every day starting at 6pm": the start's time is the time of day, unless another
        # one is said ("every day at 9 starting at 6pm": which of the two?).
        h, mi = p.start_clock
        if p.start_bare and pod in POD_HOURS:
            # "every evening starting at 7": 19:00, whatever "at 7" alone would be now.
            h = h % 12 + (12 if pod in ("afternoon", "evening", "night") else 0)
        elif (pod == "morning" and h >= 12) or (pod in ("afternoon", "evening") and h < 12):
            return None  # "every evening starting at 7am": which of the two was meant?
        if p.times and p.times != [(h, mi)]:
            return None
        p.times = [(h, mi)]
    if not _read_pattern(s.strip(" ,"), p):
        return None
    if p.pod and not p.times:
        p.times = [(POD_HOURS[p.pod], 0)] if p.pod in POD_HOURS else []
    if p.freq is None and not (p.byday or p.monthdays or p.months):
        return None
    if except_text:
        exc = _exceptions(except_text, c)
        if exc is None or _leaves_nothing(p, exc):
            return None
        if not _subtract_days(p, exc):
            p.exclude = exc
    return _build(p, c, tz)
