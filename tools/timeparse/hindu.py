"""Days of the Hindu lunisolar calendar (and the other Indian calendars' new years), from
the Moon and the Sun, for holidays such as Diwali, Holi or Raksha Bandhan.

A lunar month runs from one new moon to the next (the amanta reckoning) and is named by
the sidereal sign the Sun is in at the new moon that begins it (Lahiri ayanamsa): the
Sun in Pisces begins Chaitra, in Aries Vaishakha, and so on. When two new moons fall in
one sign the first month is a leap month (adhika) and festivals keep to the second. A
lunar day (tithi) is each 12° the Moon gains on the Sun: 1–15 while it waxes, 16–30
while it wanes (30 = the new moon's day, amavasya). A festival is on the civil day, in
India (UTC+5:30), whose observance hour falls in its tithi: sunrise for most, the
evening (pradosh) for Diwali's Lakshmi Puja, midnight for Maha Shivaratri.
"""

from __future__ import annotations

import itertools
from datetime import UTC, date, datetime, time, timedelta, timezone

from .lunar import (
    elongation,
    lahiri_ayanamsa,
    moon_longitude,
    new_moons,
    sun_longitude,
    sun_reaches,
)

IST = timezone(timedelta(hours=5, minutes=30))
SUNRISE, NOON, EVENING, MOONRISE, MIDNIGHT = 6.0, 12.0, 19.0, 20.5, 24.0

# The lunar months' names, from Chaitra (0).
MONTHS = (
    "chaitra",
    "vaishakha",
    "jyeshtha",
    "ashadha",
    "shravana",
    "bhadrapada",
    "ashvin",
    "kartika",
    "margashirsha",
    "pausha",
    "magha",
    "phalguna",
)


def _sun_sign(at: datetime) -> int:
    """The sidereal sign the Sun is in (0 = Aries)."""
    return int(((sun_longitude(at) - lahiri_ayanamsa(at)) % 360) // 30)


def _month_spans(year: int, month: int) -> list[tuple[datetime, datetime]]:
    """The lunar month `month` (0 = Chaitra; not its leap twin) that begins around the
    Sun's entry into its sign in `year - 1` and in `year`: (first, next new moon)."""
    sign = (month - 1) % 12
    spans = []
    for base in (year - 1, year):
        # The Sun enters sidereal Aries about 14 April, each later sign 30.44 days on.
        enters = datetime(base, 4, 14, tzinfo=UTC) + timedelta(days=30.44 * sign)
        moons = new_moons(enters - timedelta(days=35), enters + timedelta(days=65))
        signs = [_sun_sign(m) for m in moons]
        for (here, after), (at_here, at_after) in zip(
            itertools.pairwise(moons), itertools.pairwise(signs), strict=True
        ):
            if at_here == sign != at_after:  # the second of two in one sign, if a leap
                spans.append((here, after))
    return spans


def _at(day: date, hour: float) -> datetime:
    return datetime.combine(day, time(0), IST) + timedelta(hours=hour)


def lunar_day(year: int, month: int, tithi_no: int, hour: float) -> date | None:
    """The civil day in `year` (India) whose `hour` falls in lunar day `tithi_no` of lunar
    month `month` (0 = Chaitra); if no day's hour does (a lunar day shorter than a civil
    one), the day it begins on."""
    for start, end in _month_spans(year, month):
        # The tithi's bounds: where the elongation crosses (n-1)*12° and n*12°.
        begins = _crossing(start, end, (tithi_no - 1) * 12.0)
        ends = _crossing(start, end, tithi_no * 12.0) if tithi_no < 30 else end
        first = begins.astimezone(IST).date()
        day = first
        while _at(day, hour) < ends:
            if _at(day, hour) >= begins:
                break
            day += timedelta(days=1)
        else:
            day = first
        if day.year == year:
            return day
    return None


def _crossing(start: datetime, end: datetime, angle: float) -> datetime:
    """When, between a new moon and the next, the Moon is `angle` degrees past the Sun:
    Newton's steps on the elongation (about 12.2° a day), to within seconds."""
    if angle <= 0:
        return start
    at = start + (end - start) * (angle / 360)
    for _ in range(6):
        gained = elongation(at)
        if gained < 90 and at - start > timedelta(days=15):
            gained += 360  # just past the next new moon
        step = (angle - gained) / 12.19
        at += timedelta(days=step)
        if abs(step) < 1e-5:
            break
    return at


def sankranti(year: int, sign: int, *, by_sunset: bool = False) -> date:
    """The civil day (India) the Sun enters a sidereal sign (0 = Aries) in `year`; with
    `by_sunset`, an entry after sunset counts for the next day (Makar Sankranti's rule)."""
    local = sun_reaches(sign * 30.0, datetime(year, 1, 1, tzinfo=UTC), sidereal=True)
    local = local.astimezone(IST)
    late = by_sunset and local.hour + local.minute / 60 >= 18
    return local.date() + timedelta(days=1 if late else 0)


def nakshatra(at: datetime) -> int:
    """The Moon's lunar mansion (0–26; 21 = Shravana, Thiruvonam) at `at`."""
    return int(((moon_longitude(at) - lahiri_ayanamsa(at)) % 360) // (360 / 27))


def onam(year: int) -> date | None:
    """Thiruvonam: the day in the solar month Chingam (the Sun in sidereal Leo) when the
    Moon is in the Shravana mansion at sunrise."""
    day = sankranti(year, 4)
    for k in range(32):
        d = day + timedelta(days=k)
        if nakshatra(_at(d, SUNRISE)) == 21:
            return d
    return None
