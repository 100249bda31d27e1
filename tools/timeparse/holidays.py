"""Named days: fixed-date and rule-based holidays, Easter by the computus, the ides, and
the days of the Hebrew, Islamic, Hindu and Chinese calendars.

`HOLIDAY_RE` matches a holiday's name in normalised text; `holiday_rule(name)` gives the
rule for its day in a year (`holiday_days` every such day: a Hijri day can fall twice).
Every day is computed, never listed per year, so any year works: rule-based days
(Thanksgiving = 4th Thursday of November) by their rule, the moon calendars' days from
their own arithmetic (Hebrew) or from the Moon and the Sun (`lunar`, `hindu`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, date, datetime, time, timedelta, timezone, tzinfo

from . import hindu
from .lunar import new_moons, sun_reaches
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


def orthodox_easter(year: int) -> date:
    """Eastern Orthodox Easter Sunday: the Julian computus (Meeus), as a Gregorian date."""
    a, b, c = year % 4, year % 7, year % 19
    d = (19 * c + 15) % 30
    e = (2 * a + 4 * b - d + 34) % 7
    month, day = divmod(d + e + 114, 31)
    julian_to_gregorian = year // 100 - year // 400 - 2
    return date(year, month, day + 1) + timedelta(days=julian_to_gregorian)


def _fixed(month: int, day: int) -> Callable[[int], date | None]:
    return lambda y: date(y, month, day)


def _weekday_nearest(month: int, day: int) -> Callable[[int], date | None]:
    """A fixed day kept on a working day: a Saturday's moves to the Friday before, a
    Sunday's to the Monday after (Boss's Day)."""

    def rule(y: int) -> date | None:
        d = date(y, month, day)
        return d + timedelta(days={5: -1, 6: 1}.get(d.weekday(), 0))

    return rule


def _not_sunday(month: int, day: int) -> Callable[[int], date | None]:
    """A fixed day that moves to the Saturday before when it is a Sunday (King's Day)."""

    def rule(y: int) -> date | None:
        d = date(y, month, day)
        return d - timedelta(days=1) if d.weekday() == 6 else d

    return rule


def _weekday_after(month: int, day: int, weekday: int) -> Callable[[int], date | None]:
    """The first `weekday` on or after a fixed day (Advent Sunday, Election Day)."""

    def rule(y: int) -> date | None:
        d = date(y, month, day)
        return d + timedelta(days=(weekday - d.weekday()) % 7)

    return rule


def _weekday_before(month: int, day: int, weekday: int) -> Callable[[int], date | None]:
    """The last `weekday` strictly before a fixed day (Victoria Day: the Monday before
    25 May)."""

    def rule(y: int) -> date | None:
        d = date(y, month, day) - timedelta(days=1)
        return d - timedelta(days=(d.weekday() - weekday) % 7)

    return rule


def _after_labor_day(days: int) -> Callable[[int], date | None]:
    def rule(y: int) -> date | None:
        labor = nth_weekday(y, 9, 0, 1)
        return labor + timedelta(days=days) if labor else None

    return rule


def _admin_professionals(y: int) -> date | None:
    """The Wednesday of the last full week (Sunday to Saturday) of April."""
    saturday = date(y, 4, 30) - timedelta(days=(date(y, 4, 30).weekday() - 5) % 7)
    return saturday - timedelta(days=3)


def _from_orthodox_easter(days: int) -> Callable[[int], date | None]:
    return lambda y: orthodox_easter(y) + timedelta(days=days)


def _nth(month: int, weekday: int, n: int) -> Callable[[int], date | None]:
    return lambda y: nth_weekday(y, month, weekday, n)


def _from_easter(days: int) -> Callable[[int], date | None]:
    return lambda y: easter(y) + timedelta(days=days)


def _after_thanksgiving(days: int) -> Callable[[int], date | None]:
    def rule(y: int) -> date | None:
        tg = nth_weekday(y, 11, 3, 4)
        return tg + timedelta(days=days) if tg else None

    return rule


# ---------------------------------------------------------------- the Hebrew calendar
# The arithmetic calendar (molad and postponements, as in Dershowitz & Reingold,
# "Calendrical Calculations"): days are proleptic Gregorian ordinals (`date.toordinal`).
# Months are numbered from Nisan (1) to Adar (12) or Adar II (13), the year starts in
# Tishrei (7).
_HEBREW_EPOCH = -1373427  # 1 Tishrei AM 1


def _hebrew_leap(year: int) -> bool:
    return (7 * year + 1) % 19 < 7


def _hebrew_elapsed_days(year: int) -> int:
    months = (235 * year - 234) // 19
    parts = 12084 + 13753 * months
    days = 29 * months + parts // 25920
    return days + 1 if (3 * (days + 1)) % 7 < 3 else days


def _hebrew_new_year(year: int) -> int:
    ny0, ny1, ny2 = (_hebrew_elapsed_days(y) for y in (year - 1, year, year + 1))
    delay = 2 if ny2 - ny1 == 356 else 1 if ny1 - ny0 == 382 else 0
    return _HEBREW_EPOCH + ny1 + delay


def _hebrew_month_days(year: int, month: int) -> int:
    length = _hebrew_new_year(year + 1) - _hebrew_new_year(year)
    if month in (2, 4, 6, 10, 13) or (month == 12 and not _hebrew_leap(year)):
        return 29
    if month == 8:  # Marheshvan: long in a complete year
        return 30 if length % 10 == 5 else 29
    if month == 9:  # Kislev: short in a deficient year
        return 29 if length % 10 == 3 else 30
    return 30


def hebrew_date(year: int, month: int, day: int) -> date:
    """The Gregorian day of a Hebrew calendar date (Adar in a leap year is Adar II, 13)."""
    last = 13 if _hebrew_leap(year) else 12
    before = range(7, month) if month >= 7 else [*range(7, last + 1), *range(1, month)]
    days = sum(_hebrew_month_days(year, m) for m in before)
    return date.fromordinal(_hebrew_new_year(year) + days + day - 1)


def _hebrew(
    month: int,
    day: int,
    *,
    autumn: bool,
    moves: Callable[[date], int] | None = None,
    eve: bool = True,
) -> Callable[[int], date | None]:
    """A Hebrew-calendar holiday in a Gregorian year, from its eve: a Hebrew day begins at
    sunset, so the holiday begins on the evening of the day before (erev), which is the
    day this gives. The Hebrew year begins in the autumn: a day from Tishrei on (`autumn`)
    is in the Hebrew year 3761 after the Gregorian one, the rest in the year 3760 after.
    Adar (12) is Adar II in a leap year, as Purim is. `moves`: days the observance moves
    for the weekday the date falls on (a fast postponed from the Sabbath). A minor fast
    begins at dawn, not at sunset (`eve=False`): the day itself."""

    def rule(y: int) -> date | None:
        year = y + (3761 if autumn else 3760)
        m = 13 if month == 12 and _hebrew_leap(year) else month
        d = hebrew_date(year, m, day)
        if moves is not None:
            d += timedelta(days=moves(d))
        return d - timedelta(days=1) if eve else d

    return rule


def _after_sabbath(d: date) -> int:
    return 1 if d.weekday() == 5 else 0


def _independence_day_moves(d: date) -> int:
    """Yom Ha'atzmaut (5 Iyar) keeps clear of the Sabbath: from a Friday or Saturday to
    the Thursday before, from a Monday to the Tuesday."""
    return {4: -1, 5: -2, 0: 1}.get(d.weekday(), 0)


# ---------------------------------------------------------------- the Islamic calendar
# A Hijri month begins the day after the conjunction (new moon) when that comes before
# sunset in Mecca, else a day later: the Umm al-Qura calendar's rule, with sunset taken
# as 18:30 local time (its second condition, the moon setting after the sun, is left
# out). The arithmetic (tabular) calendar only says which conjunction begins which month.
_ISLAMIC_EPOCH = 227015  # 1 Muharram AH 1 (16 July 622, Julian)
_MECCA = timezone(timedelta(hours=3))


def _tabular_islamic(year: int, month: int, day: int) -> date:
    """A date in the arithmetic Hijri calendar: 30-year cycles, leap years 2, 5, 7, 10,
    13, 16, 18, 21, 24, 26 and 29."""
    days = (year - 1) * 354 + (3 + 11 * year) // 30 + 29 * (month - 1) + month // 2 + day
    return date.fromordinal(_ISLAMIC_EPOCH - 1 + days)


def islamic_date(year: int, month: int, day: int) -> date:
    """The Gregorian day of a Hijri date (the month from the moon, as above)."""
    tabular = datetime.combine(_tabular_islamic(year, month, 1), time(0), UTC)
    moons = new_moons(tabular - timedelta(days=17), tabular + timedelta(days=15))
    conjunction = min(moons, key=lambda m: abs(m - (tabular - timedelta(days=1))))
    local = conjunction.astimezone(_MECCA)
    first = local.date() + timedelta(days=1 if local.time() < time(18, 30) else 2)
    return first + timedelta(days=day - 1)


class _Islamic:
    """A Hijri-calendar day (month, day) in Gregorian years. A Hijri year is 11 days
    shorter, so some Gregorian years hold the day twice: `days(y)` lists both, and the
    rule itself gives the first. `weekday`: the last such weekday on or before the day
    ("the last Friday of Ramadan")."""

    def __init__(self, month: int, day: int, weekday: int | None = None) -> None:
        self.month, self.day, self.weekday = month, day, weekday

    def _on(self, hijri_year: int) -> date:
        d = islamic_date(hijri_year, self.month, self.day)
        if self.weekday is not None:
            d -= timedelta(days=(d.weekday() - self.weekday) % 7)
        return d

    def days(self, y: int) -> list[date]:
        first = (y - 622) * 33 // 32 - 1  # a Hijri year a little before y's start
        found = (self._on(h) for h in range(first, first + 4))
        return [d for d in found if d.year == y]

    def __call__(self, y: int) -> date | None:
        days = self.days(y)
        return days[0] if days else None


def _lunar(month: str, tithi: int, hour: float, shift: int = 0) -> Callable[[int], date | None]:
    """A Hindu lunisolar day: lunar day `tithi` (1–15 waxing, 16–30 waning) of the lunar
    month named `month`, observed at `hour` in India (see `hindu`), `shift` days after it."""
    index = hindu.MONTHS.index(month)

    def rule(y: int) -> date | None:
        d = hindu.lunar_day(y, index, tithi, hour)
        return d + timedelta(days=shift) if d is not None else None

    return rule


def _sankranti(
    sign: int, shift: int = 0, *, by_sunset: bool = True
) -> Callable[[int], date | None]:
    """The day the Sun enters a sidereal sign (0 = Aries), `shift` days after it; an entry
    after sunset counts for the next day, except where a calendar keeps the day of the
    entry itself (`by_sunset=False`: Vaisakhi, the Bengali year)."""
    return lambda y: hindu.sankranti(y, sign, by_sunset=by_sunset) + timedelta(days=shift)


_CHINA = timezone(timedelta(hours=8))


def chinese_new_year(year: int) -> date | None:
    """The Chinese (lunar) New Year: the new moon's day in China between 21 January and
    20 February."""
    moons = new_moons(datetime(year, 1, 19, tzinfo=UTC), datetime(year, 2, 22, tzinfo=UTC))
    days = [m.astimezone(_CHINA).date() for m in moons]
    return next((d for d in days if date(year, 1, 21) <= d <= date(year, 2, 20)), None)


def _chinese_day(month: int, day: int) -> Callable[[int], date | None]:
    """A day of the Chinese lunisolar calendar: month `month` is the one (new moon to new
    moon, in China) that holds the Sun's entry into longitude 30·(month − 2)°: the winter
    solstice falls in the 11th, the autumn equinox in the 8th. A leap month holds no such
    entry, so it is never taken for the month. (In the rare years where the leap month
    sits next to the 11th, as in 2033, this can name the wrong month: the New Year and the
    Lantern Festival are found another way, `chinese_new_year`.)"""
    longitude = (30 * (month - 2)) % 360

    def rule(y: int) -> date | None:
        # The entry in year y (or, for the 11th and 12th months' days early in y, the one
        # in December before it).
        for base in (datetime(y, 1, 1, tzinfo=UTC), datetime(y - 1, 11, 1, tzinfo=UTC)):
            entry = sun_reaches(longitude, base)
            moons = new_moons(entry - timedelta(days=31), entry + timedelta(days=1))
            begins = max(
                (
                    m
                    for m in moons
                    if m.astimezone(_CHINA).date() <= entry.astimezone(_CHINA).date()
                ),
                default=None,
            )
            if begins is None:
                continue
            d = begins.astimezone(_CHINA).date() + timedelta(days=day - 1)
            if d.year == y:
                return d
        return None

    return rule


def _solar_term(longitude: float) -> Callable[[int], date | None]:
    """The day (in China) the Sun reaches a longitude: Qingming at 15°."""
    return lambda y: sun_reaches(longitude, datetime(y, 1, 1, tzinfo=UTC)).astimezone(_CHINA).date()


def season_start(longitude: float, year: int, tz: tzinfo) -> date:
    """The day, in `tz`, of the year's equinox or solstice at the Sun's `longitude` (0°
    the March equinox … 270° the December solstice)."""
    # A month before it (the March equinox is about day 79 of the year): the next one.
    start = datetime(year, 1, 1, tzinfo=UTC) + timedelta(days=longitude / 0.9856 + 49)
    return sun_reaches(longitude, start).astimezone(tz).date()


def _days_after(d: date | None, days: int) -> date | None:
    return d + timedelta(days=days) if d is not None else None


def _parsi_new_year(year: int) -> date | None:
    """Navroz of the Shahenshahi calendar: years of exactly 365 days, so it comes a day
    earlier every fourth year (17 August 2018)."""
    return date.fromordinal(date(2018, 8, 17).toordinal() + 365 * (year - 2018))


_H = hindu  # observance hours
_INDIAN: list[tuple[str, Callable[[int], date | None]]] = [
    (
        r"ugadi|yugadi|gudi\s+padwa|chaitra\s+sh?ukh?la?adi|(?:hindu|telugu|kannada|marathi)\s+"
        r"new\s+year",
        _lunar("chaitra", 1, _H.SUNRISE),
    ),
    (r"ram(?:a)?\s+navami", _lunar("chaitra", 9, _H.NOON)),
    (
        r"(?:mahavira?|mahaveer|mahaweer)\s+(?:jayanti|janma\s+kalyanak)",
        _lunar("chaitra", 13, _H.SUNRISE),
    ),
    (r"hanuman\s+jayanti", _lunar("chaitra", 15, _H.SUNRISE)),
    (r"buddha\s+(?:purnima|jayanti|day)|vesak|wesak|vaisakha", _lunar("vaishakha", 15, _H.SUNRISE)),
    (r"ratha?[- ]?yatra", _lunar("ashadha", 2, _H.SUNRISE)),
    (r"guru\s+purnima", _lunar("ashadha", 15, _H.SUNRISE)),
    # "Rakhi" alone is also a name: the day is "raksha bandhan", "rakhi purnima", "rakhi day".
    (r"raksha\s+bandhan|rakhi\s+(?:purnima|day)", _lunar("shravana", 15, _H.SUNRISE)),
    (r"(?:krishna\s+)?janmashtami|gokulashtami", _lunar("shravana", 23, _H.MIDNIGHT)),
    (r"ganesh(?:a)?\s+chaturthi|vinayaka\s+chaturthi", _lunar("bhadrapada", 4, _H.NOON)),
    (r"navaratri|navratri|durga\s+puja", _lunar("ashvin", 1, _H.SUNRISE)),
    (r"vijayadashami|dussehra|dasara|dussera", _lunar("ashvin", 10, _H.SUNRISE)),
    (
        r"sharad\s+purnima|(?:maharishi\s+)?valmiki\s+jayanti|pargat\s+diwas",
        _lunar("ashvin", 15, _H.SUNRISE),
    ),
    (r"kar[vw]a\s+chauth", _lunar("ashvin", 19, _H.MOONRISE)),
    (r"dhanteras|dhana?trayodashi", _lunar("ashvin", 28, _H.EVENING)),
    # Kali Chaudas is a night's worship: the day whose night is in the 14th.
    (
        r"narak(?:a)?\s+chaturdashi|kali\s+chaudas|cho?ti\s+diwali",
        _lunar("ashvin", 29, _H.MIDNIGHT),
    ),
    (r"diwali|deepavali|divali|lakshmi\s+puja", _lunar("ashvin", 30, _H.EVENING)),
    (r"govardhan\s+puja|annakut", _lunar("kartika", 1, _H.SUNRISE)),
    (r"bhai(?:ya)?\s+dooj|bhau[- ]beej|bhai\s+(?:tika|phonta)", _lunar("kartika", 2, _H.SUNRISE)),
    (r"chhath(?:\s+puja)?", _lunar("kartika", 6, _H.EVENING)),
    (
        r"guru\s+nanak(?:\s+dev)?(?:\s+(?:jayanti|gurpurab|birthday))?|kartik(?:a)?\s+purnima",
        _lunar("kartika", 15, _H.SUNRISE),
    ),
    (
        r"guru\s+(?:gobind|govind)\s+singh(?:\s+ji)?\s+(?:jayanti|birthday)",
        _lunar("pausha", 7, _H.SUNRISE),
    ),
    (r"(?:vasant|basant)\s+panchami|saraswati\s+puja", _lunar("magha", 5, _H.SUNRISE)),
    (
        r"guru\s+(?:ravidas|ravidass)(?:\s+ji)?\s+(?:jayanti|birthday)|magha\s+purnima",
        _lunar("magha", 15, _H.SUNRISE),
    ),
    (r"(?:maharishi\s+)?(?:dayananda?\s+)?saraswati\s+jayanti", _lunar("magha", 25, _H.SUNRISE)),
    (r"maha\s*shivaratri|shivaratri|shivratri", _lunar("magha", 29, _H.MIDNIGHT)),
    (r"holika\s+dahan|kamudu\s+pyre|chhoti\s+holi", _lunar("phalguna", 15, _H.EVENING)),
    (r"holi|dhulandi|dhuleti|phagwah|rangwali\s+holi", _lunar("phalguna", 15, _H.EVENING, shift=1)),
    (r"bhogi(?:\s+pongal)?", _sankranti(9, -1)),
    (r"(?:mattu|maattu)\s+pongal", _sankranti(9, 1)),
    (r"(?:kaa?num|kanni)\s+pongal", _sankranti(9, 2)),
    (r"makara?\s+sankranti|thai\s+pongal|pongal\s+(?:day|festival)|maghi|uttarayan", _sankranti(9)),
    (r"[vb]ai?sh?akhi|mesha\s+sankranti", _sankranti(0, by_sunset=False)),
    (r"vishu\s+(?:day|festival)|puthandu|tamil\s+new\s+year", _sankranti(0)),  # "Vishu": a name too
    (r"pohela\s+boishakh|poila\s+baisakh|bengali\s+new\s+year", _sankranti(0, 1, by_sunset=False)),
    (r"lohri", _sankranti(9, -1)),
    (r"akshaya\s+tritiya|akha\s+teej", _lunar("vaishakha", 3, _H.SUNRISE)),
    (r"durga\s+ashtami|maha\s+ashtami", _lunar("ashvin", 8, _H.SUNRISE)),
    (r"maha\s+navami", _lunar("ashvin", 9, _H.SUNRISE)),
    # 25 Boishakh: the Bengali solar year begins the day after the Sun enters Aries.
    (r"rabindra(?:nath)?\s+jayanti", _sankranti(0, 25, by_sunset=False)),
    (r"(?:thiru\s*)?onam|thiruvonam", hindu.onam),
    (r"parsi\s+new\s+year|jamshedi\s+navroz|shahenshahi\s+new\s+year", _parsi_new_year),
    (
        r"(?:chinese\s+(?:lunar\s+)?|lunar\s+)new\s+year'?s?(?:\s+day)?|chinese\s+spring\s+festival",
        chinese_new_year,
    ),
    (r"(?:the\s+)?lantern\s+festival|yuanxiao", lambda y: _days_after(chinese_new_year(y), 14)),
    (r"(?:the\s+)?dragon\s+boat\s+festival|duanwu(?:\s+festival)?", _chinese_day(5, 5)),
    (r"qixi(?:\s+festival)?|(?:the\s+)?double\s+seventh(?:\s+festival)?", _chinese_day(7, 7)),
    (
        r"(?:the\s+)?(?:mid[- ]?autumn|moon(?:cake)?)\s+festival|zhongqiu(?:\s+festival)?",
        _chinese_day(8, 15),
    ),
    (r"(?:the\s+)?double\s+ninth(?:\s+festival)?|chongyang(?:\s+festival)?", _chinese_day(9, 9)),
    (r"qingming(?:\s+festival)?|tomb[- ]sweeping\s+day", _solar_term(15)),
]


def holiday_days(rule: Callable[[int], date | None], year: int) -> list[date]:
    """Every day the holiday falls on in `year` (a Hijri-calendar day may fall twice)."""
    days = getattr(rule, "days", None)
    if days is not None:
        return list(days(year))
    d = rule(year)
    return [d] if d is not None else []


# Days the world observes on a fixed date (UN and other international days).
_OBSERVANCES: list[tuple[str, int, int]] = [
    (r"world\s+braille\s+day", 1, 4),
    (r"orthodox\s+christmas(?:\s+day)?", 1, 7),
    (r"orthodox\s+new\s+year(?:'?s)?(?:\s+day)?", 1, 14),
    (r"world\s+cancer\s+day", 2, 4),
    (r"zero\s+discrimination\s+day", 3, 1),
    (r"world\s+wildlife\s+day", 3, 3),
    (r"(?:international\s+)?day\s+of\s+happiness", 3, 20),
    (r"world\s+(?:down\s+syndrome|poetry)\s+day|(?:international\s+)?day\s+of\s+forests", 3, 21),
    (r"world\s+water\s+day", 3, 22),
    (r"world\s+meteorological\s+day", 3, 23),
    (r"world\s+tuberculosis\s+day", 3, 24),
    (r"world\s+autism\s+(?:awareness\s+)?day", 4, 2),
    (r"siblings'?\s+day", 4, 10),
    (r"chinese\s+language\s+day", 4, 20),
    (r"english\s+language\s+day|st\.?\s+george'?s\s+day|saint\s+george'?s\s+day", 4, 23),
    (r"world\s+malaria\s+day", 4, 25),
    (r"world\s+intellectual\s+property\s+day", 4, 26),
    (r"world\s+press\s+freedom\s+day", 5, 3),
    (r"africa\s+day", 5, 25),
    (r"world\s+no\s+tobacco\s+day", 5, 31),
    (r"global\s+day\s+of\s+parents", 6, 1),
    (r"world\s+oceans?\s+day", 6, 8),
    (r"world\s+blood\s+donor\s+day", 6, 14),
    (r"world\s+refugee\s+day", 6, 20),
    (r"(?:international\s+)?(?:day\s+of\s+yoga|yoga\s+day)", 6, 21),
    (r"public\s+service\s+day", 6, 23),
    (r"day\s+of\s+the\s+seafarer", 6, 25),
    (r"(?:international\s+)?asteroid\s+day", 6, 30),
    (r"world\s+population\s+day", 7, 11),
    (r"(?:nelson\s+)?mandela\s+day", 7, 18),
    (r"world\s+hepatitis\s+day", 7, 28),
    (r"world\s+humanitarian\s+day", 8, 19),
    (r"(?:international\s+)?literacy\s+day", 9, 8),
    (r"(?:international\s+)?day\s+of\s+peace|(?:world\s+)?peace\s+day", 9, 21),
    (r"world\s+tourism\s+day", 9, 27),
    (r"world\s+vegetarian\s+day", 10, 1),
    (r"world\s+mental\s+health\s+day", 10, 10),
    (r"world\s+food\s+day", 10, 16),
    (r"world\s+cities\s+day", 10, 31),
    (r"world\s+vegan\s+day", 11, 1),
    (r"world\s+diabetes\s+day", 11, 14),
    (r"world\s+toilet\s+day", 11, 19),
    (r"world\s+television\s+day", 11, 21),
    (r"(?:international\s+)?anti[- ]corruption\s+day", 12, 9),
    (r"day\s+of\s+reconciliation", 12, 16),
    (r"arabic\s+language\s+day|(?:international\s+)?migrants'?\s+day", 12, 18),
    (r"st\.?\s+stephen'?s\s+day|saint\s+stephen'?s\s+day", 12, 26),
]


# Regex for the name (normalised text: lower case, straight apostrophe) → rule.
_RULES: list[tuple[str, Callable[[int], date | None]]] = [
    (r"christmas\s+eve|xmas\s+eve", _fixed(12, 24)),
    (r"(?:christmas|xmas)(?:\s+day)?", _fixed(12, 25)),
    (r"boxing\s+day", _fixed(12, 26)),
    (r"new\s+year'?s?\s+eve|nye", _fixed(12, 31)),
    (r"new\s+year'?s?(?:\s+day)?", _fixed(1, 1)),
    (r"hall?owe'?en", _fixed(10, 31)),
    (r"valentine'?s?(?:\s+day)?", _fixed(2, 14)),
    (r"(?:st\.?|saint)\s+(?:patrick|paddy|patty)'?s?(?:\s+day)?", _fixed(3, 17)),
    (r"april\s+fool'?s?'?(?:\s+day)?", _fixed(4, 1)),
    (r"earth\s+day", _fixed(4, 22)),
    (r"groundhog\s+day", _fixed(2, 2)),
    (r"cinco\s+de\s+mayo", _fixed(5, 5)),
    (r"juneteenth", _fixed(6, 19)),
    (r"independence\s+day", _fixed(7, 4)),
    (r"veteran'?s'?\s+day|armistice\s+day|remembrance\s+day", _fixed(11, 11)),
    (r"all\s+saints'?\s+day", _fixed(11, 1)),
    (r"thanksgiving(?:\s+day)?", _after_thanksgiving(0)),
    (r"black\s+friday", _after_thanksgiving(1)),
    (r"cyber\s+monday", _after_thanksgiving(4)),
    (r"(?:martin\s+luther\s+king(?:,?\s+jr\.?)?(?:'?s)?|mlk)(?:\s+jr\.?)?\s+day", _nth(1, 0, 3)),
    (r"boss'?s?'?\s+day", _weekday_nearest(10, 16)),
    *((name, _fixed(month, day)) for name, month, day in _OBSERVANCES),
    # Ordinary words ("an epiphany", "my assumption", "I lent", "an advent calendar") are
    # the day only in the day's own phrase.
    (
        r"(?:the\s+)?feast\s+of\s+(?:the\s+)?epiphany|epiphany\s+day|three\s+kings'?\s+day|"
        r"twelfth\s+night",
        _fixed(1, 6),
    ),
    (
        r"(?:the\s+)?(?:feast\s+of\s+the\s+)?assumption\s+(?:of\s+(?:the\s+virgin\s+)?mary|day)|"
        r"(?:the\s+)?feast\s+of\s+the\s+assumption",
        _fixed(8, 15),
    ),
    (r"all\s+souls'?\s+day", _fixed(11, 2)),
    (r"(?:the\s+)?(?:feast\s+of\s+the\s+)?immaculate\s+conception", _fixed(12, 8)),
    (r"(?:the\s+)?feast\s+of\s+st\.?\s+francis(?:\s+of\s+assisi)?", _fixed(10, 4)),
    (
        r"advent\s+sunday|(?:the\s+)?(?:1st|first)\s+sunday\s+of\s+advent|"
        r"(?:the\s+)?(?:start|beginning)\s+of\s+advent",
        _weekday_after(11, 27, 6),
    ),
    (r"(?:international\s+)?women'?s'?\s+day", _fixed(3, 8)),
    (r"(?:international\s+)?workers'?\s+day|may\s+day", _fixed(5, 1)),
    (r"world\s+health\s+day", _fixed(4, 7)),
    (r"world\s+environment\s+day", _fixed(6, 5)),
    (r"(?:international\s+)?youth\s+day", _fixed(8, 12)),
    (r"parents'?\s+day", _nth(7, 6, 4)),
    (r"world\s+aids\s+day", _fixed(12, 1)),
    (r"human\s+rights\s+day", _fixed(12, 10)),
    (r"(?:united\s+nations|un)\s+day", _fixed(10, 24)),
    (r"world\s+book\s+day", _fixed(4, 23)),
    (r"pi\s+day", _fixed(3, 14)),
    (r"flag\s+day", _fixed(6, 14)),
    (r"patriot\s+day", _fixed(9, 11)),
    (r"tax\s+day", _fixed(4, 15)),
    (r"(?:abraham\s+)?lincoln'?s\s+birthday", _fixed(2, 12)),
    (r"emancipation\s+day", _fixed(4, 16)),
    (r"arbor\s+day", _nth(4, 4, -1)),
    (r"(?:administrative\s+professionals|secretaries)'?\s+day", _admin_professionals),
    (r"(?:national\s+)?grandparents'?\s+day", _after_labor_day(6)),
    (r"election\s+day", _weekday_after(11, 2, 1)),
    (r"canada\s+day", _fixed(7, 1)),
    (r"australia\s+day", _fixed(1, 26)),
    (r"anzac\s+day", _fixed(4, 25)),
    (r"bastille\s+day", _fixed(7, 14)),
    (r"guy\s+fawkes(?:'?\s+(?:day|night))?|bonfire\s+night", _fixed(11, 5)),
    (r"burns'?\s+night", _fixed(1, 25)),
    (r"victoria\s+day", _weekday_before(5, 25, 0)),
    (r"remembrance\s+sunday", _nth(11, 6, 2)),
    (r"king'?s'?\s+day|koningsdag", _not_sunday(4, 27)),
    (r"earth\s+hour", _nth(3, 5, -1)),
    (r"presidents?'?s?\s+day|washington'?s\s+birthday", _nth(2, 0, 3)),
    (r"mother'?s'?\s+day", _nth(5, 6, 2)),
    (r"father'?s'?\s+day", _nth(6, 6, 3)),
    (r"memorial\s+day", _nth(5, 0, -1)),
    (r"labou?r\s+day", _nth(9, 0, 1)),
    (r"columbus\s+day|indigenous\s+peoples'?\s+day", _nth(10, 0, 2)),
    (r"easter\s+mon(?:day)?", _from_easter(1)),
    (r"easter(?:\s+sunday)?", _from_easter(0)),
    (r"holy\s+saturday|easter\s+saturday", _from_easter(-1)),
    (r"good\s+friday", _from_easter(-2)),
    (r"(?:maundy|holy)\s+thursday|thu(?:rsday)?\s+of\s+(?:the\s+)?mysteries", _from_easter(-3)),
    (r"palm\s+sunday", _from_easter(-7)),
    (
        r"ash\s+wednesday|(?:the\s+)?(?:start|beginning|1st\s+day|first\s+day)\s+of\s+lent",
        _from_easter(-46),
    ),
    (r"mothering\s+sunday", _from_easter(-21)),
    (r"shrove\s+tuesday|mardi\s+gras|pancake\s+day", _from_easter(-47)),
    (
        r"isra'?\s+(?:and|&)\s+mi'?raj|lailat\s+al[- ]mi'?raj|(?:the\s+)?prophet'?s'?\s+"
        r"ascension|ascension\s+to\s+heaven|night\s+journey",
        _Islamic(7, 27),
    ),
    (r"ascension(?:\s+day)?", _from_easter(39)),
    (r"pentecost|whit\s*sunday|white\s+sunday", _from_easter(49)),
    (r"whit\s*monday|pentecost\s+monday|monday\s+of\s+the\s+holy\s+spirit", _from_easter(50)),
    (r"trinity\s+sunday", _from_easter(56)),
    (r"corpus\s+christi", _from_easter(60)),
    (r"orthodox\s+easter(?:\s+sunday)?", _from_orthodox_easter(0)),
    (
        r"clean\s+monday|(?:orthodox\s+)?ash\s+monday|(?:the\s+)?(?:start\s+of\s+)?great\s+lent",
        _from_orthodox_easter(-48),
    ),
    (r"orthodox\s+good\s+friday", _from_orthodox_easter(-2)),
    (r"orthodox\s+holy\s+saturday", _from_orthodox_easter(-1)),
    (r"lazarus\s+saturday", _from_orthodox_easter(-8)),
    (r"rosh\s+hashan?n?ah?", _hebrew(7, 1, autumn=True)),
    (r"yom\s+kippur", _hebrew(7, 10, autumn=True)),
    (
        r"sukkot|succot|sukkos|succos|feast\s+of\s+(?:the\s+)?(?:ingathering|tabernacles|booths)",
        _hebrew(7, 15, autumn=True),
    ),
    (r"shemini\s+atzeret", _hebrew(7, 22, autumn=True)),
    (r"simchat\s+torah", _hebrew(7, 23, autumn=True)),
    (r"(?:the\s+first\s+day\s+of\s+)?(?:c?hanukk?ah?|chanukah)", _hebrew(9, 25, autumn=True)),
    (r"tu\s+b'?i?\s*shvat", _hebrew(11, 15, autumn=False)),
    (r"shushan\s+purim", _hebrew(12, 15, autumn=False)),
    (r"purim", _hebrew(12, 14, autumn=False)),
    (r"passover|pesach", _hebrew(1, 15, autumn=False)),
    (r"lag\s+b'?a?\s*'?omer", _hebrew(2, 18, autumn=False)),
    (r"shavu'?ot|shavuos", _hebrew(3, 6, autumn=False)),
    *_INDIAN,
    (r"(?:the\s+)?(?:first\s+day\s+of\s+)?ramadh?an", _Islamic(9, 1)),
    (r"eid\s+(?:al|ul|el)[- ]?fitr", _Islamic(10, 1)),
    (
        r"eid\s+(?:al|ul|el)[- ]?(?:adha|ada)|bakr[- ]?e?id|bakrid|(?:the\s+)?(?:sacrifice\s+feast|"
        r"feast\s+of\s+(?:the\s+)?sacrifice)|kurban\s+bayram",
        _Islamic(12, 10),
    ),
    (r"eid", _Islamic(10, 1)),
    (r"(?:the\s+)?day\s+of\s+arafah?|arafah?\s+day", _Islamic(12, 9)),
    (
        r"mawlid(?:\s+(?:al|an)[- ]nab(?:awi|i))?|milad[- ]?(?:un|an)[- ]?nabi|"
        r"(?:the\s+)?prophet'?s'?\s+birthday",
        _Islamic(3, 12),
    ),
    (
        r"laylat\s+al[- ]qadr|lailat\s+al[- ]qadr|(?:the\s+)?night\s+of\s+(?:power|measures|"
        r"destiny|decree)",
        _Islamic(9, 27),
    ),
    (r"(?:the\s+)?(?:day\s+of\s+)?ashura", _Islamic(1, 10)),
    (r"(?:islamic|hijri|muslim|arabic)\s+new\s+year(?:'?s)?(?:\s+day)?|muharram", _Islamic(1, 1)),
    (r"shab[- ]e[- ]barat|mid[- ]sha'?ban", _Islamic(8, 15)),
    (r"jumu'?atul[- ]wida|jamat[- ]ul[- ]vida|jumu'?ah\s+al[- ]wida", _Islamic(9, 29, weekday=4)),
    (r"tisha\s+(?:b'?av|bav|b\s+av)", _hebrew(5, 9, autumn=False, moves=_after_sabbath)),
    (
        r"yom\s+ha'?atzmaut|israel(?:i)?\s+independence\s+day",
        _hebrew(2, 5, autumn=False, moves=_independence_day_moves),
    ),
    (r"yom\s+hashoah|holocaust\s+remembrance\s+day", _hebrew(1, 27, autumn=False)),
    # The Memorial Day is the day before Independence Day, wherever that moved to.
    (
        r"yom\s+hazikaron",
        _hebrew(2, 4, autumn=False, moves=lambda d: _independence_day_moves(d + timedelta(days=1))),
    ),
    (r"yom\s+yerushalayim|jerusalem\s+day", _hebrew(2, 28, autumn=False)),
    (r"tu\s+b'?\s*av|tu\s+bav", _hebrew(5, 15, autumn=False)),
    (r"(?:tzom|fast\s+of)\s+gedaliah", _hebrew(7, 3, autumn=True, moves=_after_sabbath, eve=False)),
    (
        r"ta'?anit\s+esther|(?:the\s+)?fast\s+of\s+esther",
        _hebrew(12, 13, autumn=False, moves=lambda d: -2 if d.weekday() == 5 else 0, eve=False),
    ),
    (
        r"(?:the\s+)?(?:17th\s+of\s+tammuz|seventeenth\s+of\s+tammuz|shiva\s+asar\s+b'?\s*tammuz)",
        _hebrew(4, 17, autumn=False, moves=_after_sabbath, eve=False),
    ),
    (r"pesach\s+sheni", _hebrew(2, 14, autumn=False)),
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
        later = [d for d in holiday_days(rule, year) if d >= start]
        if later:
            return min(later)
    return None


def holiday_before(rule: Callable[[int], date | None], end: date) -> date | None:
    """The last day the holiday fell on strictly before `end`."""
    for year in (end.year, end.year - 1, end.year - 2):
        earlier = [d for d in holiday_days(rule, year) if d < end]
        if earlier:
            return max(earlier)
    return None
