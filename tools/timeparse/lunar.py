"""New moons and the Sun's and Moon's longitudes, for holidays that follow the moon.

New moons by Meeus ("Astronomical Algorithms", ch. 49: mean phase plus the periodic
terms; within about a minute over centuries), the Sun's apparent longitude (ch. 25, low
accuracy: about 0.01°) and the Moon's (ch. 47, its largest terms). Times are UTC (the
~1 minute between TT and UTC is left out: below what any holiday rule here can tell).
"""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta

_J2000 = datetime(2000, 1, 1, 12, tzinfo=UTC)  # JD 2451545.0
_SYNODIC = 29.530588861


def _jd(at: datetime) -> float:
    return 2451545.0 + (at - _J2000).total_seconds() / 86400


def _from_jd(jd: float) -> datetime:
    return _J2000 + timedelta(days=jd - 2451545.0)


def _sin(deg: float) -> float:
    return math.sin(math.radians(deg))


def _new_moon(k: int) -> datetime:
    """The new moon numbered `k` from January 2000."""
    t = k / 1236.85
    jde = (
        2451550.09766 + _SYNODIC * k + 0.00015437 * t**2 - 0.000000150 * t**3 + 0.00000000073 * t**4
    )
    e = 1 - 0.002516 * t - 0.0000074 * t**2
    m = 2.5534 + 29.10535670 * k - 0.0000014 * t**2 - 0.00000011 * t**3
    mp = 201.5643 + 385.81693528 * k + 0.0107582 * t**2 + 0.00001238 * t**3
    f = 160.7108 + 390.67050284 * k - 0.0016118 * t**2 - 0.00000227 * t**3
    om = 124.7746 - 1.56375588 * k + 0.0020672 * t**2 + 0.00000215 * t**3
    c = (-0.40720, 0.17241, 0.01608, 0.01039, 0.00739, -0.00514, 0.00208)
    jde += (
        c[0] * _sin(mp)
        + c[1] * e * _sin(m)
        + c[2] * _sin(2 * mp)
        + c[3] * _sin(2 * f)
        + c[4] * e * _sin(mp - m)
        + c[5] * e * _sin(mp + m)
        + c[6] * e * e * _sin(2 * m)
        - 0.00111 * _sin(mp - 2 * f)
        - 0.00057 * _sin(mp + 2 * f)
        + 0.00056 * e * _sin(2 * mp + m)
        - 0.00042 * _sin(3 * mp)
        + 0.00042 * e * _sin(m + 2 * f)
        + 0.00038 * e * _sin(m - 2 * f)
        - 0.00024 * e * _sin(2 * mp - m)
        - 0.00017 * _sin(om)
        - 0.00007 * _sin(mp + 2 * m)
        + 0.00004 * _sin(2 * mp - 2 * f)
        + 0.00004 * _sin(3 * m)
        + 0.00003 * _sin(mp + m - 2 * f)
        + 0.00003 * _sin(2 * mp + 2 * f)
        - 0.00003 * _sin(mp + m + 2 * f)
        + 0.00003 * _sin(mp - m + 2 * f)
        - 0.00002 * _sin(mp - m - 2 * f)
        - 0.00002 * _sin(3 * mp + m)
        + 0.00002 * _sin(4 * mp)
    )
    # The planetary arguments' terms.
    a = (
        (299.77 + 0.107408 * k - 0.009173 * t**2, 0.000325),
        (251.88 + 0.016321 * k, 0.000165),
        (251.83 + 26.651886 * k, 0.000164),
        (349.42 + 36.412478 * k, 0.000126),
        (84.66 + 18.206239 * k, 0.000110),
        (141.74 + 53.303771 * k, 0.000062),
        (207.14 + 2.453732 * k, 0.000060),
        (154.84 + 7.306860 * k, 0.000056),
        (34.52 + 27.261239 * k, 0.000047),
        (207.19 + 0.121824 * k, 0.000042),
        (291.34 + 1.844379 * k, 0.000040),
        (161.72 + 24.198154 * k, 0.000037),
        (239.56 + 25.513099 * k, 0.000035),
        (331.55 + 3.592518 * k, 0.000023),
    )
    jde += sum(coef * _sin(arg) for arg, coef in a)
    return _from_jd(jde)


def new_moons(after: datetime, before: datetime) -> list[datetime]:
    """The new moons (conjunctions) between two instants, in order."""
    k0 = math.floor((_jd(after) - 2451550.09766) / _SYNODIC) - 1
    found = (_new_moon(k) for k in range(k0, k0 + int((before - after).days / _SYNODIC) + 4))
    return [at for at in found if after <= at < before]


def sun_longitude(at: datetime) -> float:
    """The Sun's apparent ecliptic longitude (tropical, degrees, 0–360)."""
    t = (_jd(at) - 2451545.0) / 36525
    l0 = 280.46646 + 36000.76983 * t + 0.0003032 * t * t
    m = 357.52911 + 35999.05029 * t - 0.0001537 * t * t
    c = (
        (1.914602 - 0.004817 * t - 0.000014 * t * t) * _sin(m)
        + (0.019993 - 0.000101 * t) * _sin(2 * m)
        + 0.000289 * _sin(3 * m)
    )
    om = 125.04 - 1934.136 * t
    return (l0 + c - 0.00569 - 0.00478 * _sin(om)) % 360


def lahiri_ayanamsa(at: datetime) -> float:
    """The Lahiri ayanamsa (degrees): sidereal = tropical − this (23.853° at J2000,
    50.29″ a year)."""
    return 23.853 + (_jd(at) - 2451545.0) / 365.25 * 50.29 / 3600


def sun_reaches(longitude: float, after: datetime, *, sidereal: bool = False) -> datetime:
    """When the Sun's apparent longitude (tropical, or `sidereal` by Lahiri) next reaches
    `longitude` after `after`: it moves about 0.9856° a day; Newton's steps, to within
    seconds."""

    def off(at: datetime) -> float:
        here = sun_longitude(at) - (lahiri_ayanamsa(at) if sidereal else 0.0)
        return (longitude - here + 180) % 360 - 180

    at = after + timedelta(days=(off(after) % 360) / 0.9856)
    for _ in range(4):
        at += timedelta(days=off(at) / 0.9856)
    return at


# The Moon's longitude: the periodic terms of Meeus ch. 47 above 0.002° (in 1e-6 degrees),
# as (D, M, M', F, coefficient); M's terms are scaled by E per power of M.
_MOON_TERMS = (
    (0, 0, 1, 0, 6288774),
    (2, 0, -1, 0, 1274027),
    (2, 0, 0, 0, 658314),
    (0, 0, 2, 0, 213618),
    (0, 1, 0, 0, -185116),
    (0, 0, 0, 2, -114332),
    (2, 0, -2, 0, 58793),
    (2, -1, -1, 0, 57066),
    (2, 0, 1, 0, 53322),
    (2, -1, 0, 0, 45758),
    (0, 1, -1, 0, -40923),
    (1, 0, 0, 0, -34720),
    (0, 1, 1, 0, -30383),
    (2, 0, 0, -2, 15327),
    (0, 0, 1, 2, -12528),
    (0, 0, 1, -2, 10980),
    (4, 0, -1, 0, 10675),
    (0, 0, 3, 0, 10034),
    (4, 0, -2, 0, 8548),
    (2, 1, -1, 0, -7888),
    (2, 1, 0, 0, -6766),
    (1, 0, -1, 0, -5163),
    (1, 1, 0, 0, 4987),
    (2, -1, 1, 0, 4036),
    (2, 0, 2, 0, 3994),
    (4, 0, 0, 0, 3861),
    (2, 0, -3, 0, 3665),
    (0, 1, -2, 0, -2689),
    (2, 0, -1, 2, -2602),
    (2, -1, -2, 0, 2390),
    (1, 0, 1, 0, -2348),
    (2, -2, 0, 0, 2236),
    (0, 1, 2, 0, -2120),
    (0, 2, 0, 0, -2069),
)


def moon_longitude(at: datetime) -> float:
    """The Moon's geocentric ecliptic longitude (tropical, degrees; about 0.01°)."""
    t = (_jd(at) - 2451545.0) / 36525
    lp = 218.3164477 + 481267.88123421 * t - 0.0015786 * t * t
    d = 297.8501921 + 445267.1114034 * t - 0.0018819 * t * t
    m = 357.5291092 + 35999.0502909 * t - 0.0001536 * t * t
    mp = 134.9633964 + 477198.8675055 * t + 0.0087414 * t * t
    f = 93.2720950 + 483202.0175233 * t - 0.0036539 * t * t
    e = 1 - 0.002516 * t - 0.0000074 * t * t
    a1 = 119.75 + 131.849 * t
    a2 = 53.09 + 479264.290 * t
    total = 3958 * _sin(a1) + 1962 * _sin(lp - f) + 318 * _sin(a2)
    for cd, cm, cmp, cf, coef in _MOON_TERMS:
        total += coef * e ** abs(cm) * _sin(cd * d + cm * m + cmp * mp + cf * f)
    om = 125.04 - 1934.136 * t  # nutation in longitude, as for the Sun
    return (lp + total / 1e6 - 0.00478 * _sin(om)) % 360


def elongation(at: datetime) -> float:
    """The Moon's angle east of the Sun (0–360°): 0 at new moon, 180 at full."""
    return (moon_longitude(at) - sun_longitude(at)) % 360
