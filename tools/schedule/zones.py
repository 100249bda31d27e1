"""Time zones: IANA zones by name, wall clocks placed in them, and the names people type.

`zone` is the one way to get a `ZoneInfo` (a friendly error for a bad name). People
type "Berlin", "PST" or "UTC+2" (`resolve_zone`), or name a zone inside a time phrase
("3pm Tokyo time", `split_zone`). A user's zone is stored as an IANA name so daylight
saving follows it: "PST" means "where Pacific time is used" (America/Los_Angeles), not
a fixed UTC-8.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import lru_cache
from importlib import resources
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

from tools.errors import ScheduleError, quoted
from tools.schedule.cities import cities, cities_starting, city_zone

_ZONE_CACHE: dict[str, ZoneInfo] = {}


def zone(name: str) -> ZoneInfo:
    """The IANA zone called `name`, or a ScheduleError saying how to name one."""
    cached = _ZONE_CACHE.get(name)
    if cached is not None:
        return cached
    if not name or name != name.strip() or "\x00" in name or len(name) > 64:
        raise ScheduleError(
            f"Unknown time zone {quoted(name)}; use an IANA name like Europe/Berlin."
        )
    try:
        found = ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError):
        raise ScheduleError(
            f"Unknown time zone {quoted(name)}; "
            "use an IANA name like Europe/Berlin or America/New_York."
        ) from None
    _ZONE_CACHE[name] = found
    return found


def localize(wall: datetime, tz: ZoneInfo) -> datetime:
    """Place a naive wall-clock time in `tz`.

    A wall time that does not exist (spring forward) moves forward by the gap
    (02:30 → 03:30); an ambiguous one (fall back) takes its first occurrence.
    """
    aware = wall.replace(tzinfo=tz, fold=0)
    return aware.astimezone(UTC).astimezone(tz)


# Abbreviations and words people use all year → the zone they usually mean.
ALIASES: dict[str, str] = {
    "utc": "UTC",
    "gmt": "UTC",
    "z": "UTC",
    "zulu": "UTC",
    "pst": "America/Los_Angeles",
    "pdt": "America/Los_Angeles",
    "pt": "America/Los_Angeles",
    "pacific": "America/Los_Angeles",
    "mst": "America/Denver",
    "mdt": "America/Denver",
    "mt": "America/Denver",
    "mountain": "America/Denver",
    "cst": "America/Chicago",
    "cdt": "America/Chicago",
    "ct": "America/Chicago",
    "central": "America/Chicago",
    "est": "America/New_York",
    "edt": "America/New_York",
    "et": "America/New_York",
    "eastern": "America/New_York",
    "akst": "America/Anchorage",
    "akdt": "America/Anchorage",
    "hst": "Pacific/Honolulu",
    "ast": "America/Halifax",
    "adt": "America/Halifax",
    "nst": "America/St_Johns",
    "ndt": "America/St_Johns",
    "brt": "America/Sao_Paulo",
    "art": "America/Argentina/Buenos_Aires",
    "wet": "Europe/Lisbon",
    "west": "Europe/Lisbon",
    "bst": "Europe/London",
    "cet": "Europe/Berlin",
    "cest": "Europe/Berlin",
    "eet": "Europe/Athens",
    "eest": "Europe/Athens",
    "msk": "Europe/Moscow",
    "wat": "Africa/Lagos",
    "cat": "Africa/Maputo",
    "eat": "Africa/Nairobi",
    "sast": "Africa/Johannesburg",
    "ist": "Asia/Kolkata",
    "pkt": "Asia/Karachi",
    "wib": "Asia/Jakarta",
    "sgt": "Asia/Singapore",
    "hkt": "Asia/Hong_Kong",
    "pht": "Asia/Manila",
    "jst": "Asia/Tokyo",
    "kst": "Asia/Seoul",
    "awst": "Australia/Perth",
    "acst": "Australia/Adelaide",
    "acdt": "Australia/Adelaide",
    "aest": "Australia/Sydney",
    "aedt": "Australia/Sydney",
    "nzst": "Pacific/Auckland",
    "nzdt": "Pacific/Auckland",
    # cities people name that are not the city part of their zone
    "new york city": "America/New_York",
    "nyc": "America/New_York",
    "san francisco": "America/Los_Angeles",
    "seattle": "America/Los_Angeles",
    "washington": "America/New_York",
    "boston": "America/New_York",
    "munich": "Europe/Berlin",
    "hamburg": "Europe/Berlin",
    "beijing": "Asia/Shanghai",
    "mumbai": "Asia/Kolkata",
    "delhi": "Asia/Kolkata",
    "new delhi": "Asia/Kolkata",
    "bangalore": "Asia/Kolkata",
    "kyiv": "Europe/Kyiv",
    "kiev": "Europe/Kyiv",
}

# Etc/GMT zones exist for whole hours only; half-hour offsets map to a zone that uses them.
_ODD_OFFSETS: dict[int, str] = {
    -210: "America/St_Johns",
    210: "Asia/Tehran",
    270: "Asia/Kabul",
    330: "Asia/Kolkata",
    345: "Asia/Kathmandu",
    390: "Asia/Yangon",
    570: "Australia/Darwin",
    630: "Australia/Lord_Howe",
    765: "Pacific/Chatham",
}

_OFFSET = re.compile(r"(?:utc|gmt)?\s*([+-])\s*(\d{1,2})(?::?(\d{2}))?")


@lru_cache(maxsize=1)
def all_zones() -> tuple[str, ...]:
    """Every IANA zone name, sorted; legacy aliases like "US/Pacific" included."""
    return tuple(sorted(available_timezones()))


@lru_cache(maxsize=1)
def _by_lower() -> dict[str, str]:
    return {z.lower(): z for z in all_zones()}


@lru_cache(maxsize=1)
def _by_city() -> dict[str, str]:
    """ "berlin" → Europe/Berlin; canonical Area/City names win over legacy ones."""
    found: dict[str, str] = {}
    for name in all_zones():
        if "/" not in name or name.startswith(("Etc/", "SystemV/")):
            continue
        city = name.rsplit("/", 1)[1].replace("_", " ").lower()
        current = found.get(city)
        if current is None or (_is_legacy(current) and not _is_legacy(name)):
            found[city] = name
    return found


def _is_legacy(name: str) -> bool:
    return name.split("/", 1)[0] in ("US", "Canada", "Mexico", "Brazil", "Chile")


def offset_zone(text: str) -> str | None:
    """ "UTC+2" → Etc/GMT-2 (POSIX signs are inverted), "+5:30" → Asia/Kolkata."""
    m = _OFFSET.fullmatch(text.strip().lower())
    if m is None:
        return None
    sign = -1 if m.group(1) == "-" else 1
    hours, minutes = int(m.group(2)), int(m.group(3) or 0)
    total = sign * (hours * 60 + minutes)
    if minutes:
        return _ODD_OFFSETS.get(total)
    if total == 0:
        return "UTC"
    if not -12 <= total // 60 <= 14:
        return None
    # Etc/GMT-2 is two hours *ahead* of UTC: the POSIX sign is the opposite of ISO's.
    return f"Etc/GMT{'-' if sign > 0 else '+'}{hours}"


def resolve_zone(text: str) -> str | None:
    """The IANA name someone means by `text`, or None when nothing fits."""
    t = re.sub(r"\s+", " ", text.strip())
    if not t:
        return None
    key = t.lower()
    # Aliases and offsets first: legacy zones named "CET" or "GMT+0" are not what people mean.
    if key in ALIASES:
        return ALIASES[key]
    by_offset = offset_zone(key)
    if by_offset is not None:
        return by_offset
    if key in _DEMONYMS:  # "Irish time", "switch me to Korean time": the country's
        return resolve_zone(_DEMONYMS[key])
    # A country before the zone names: "Japan" is Asia/Tokyo, not the legacy link "Japan".
    country = country_zone(key)
    if country is not None:
        return country
    if key in _by_lower():
        return _by_lower()[key]
    city = key.replace("_", " ")
    if city in _by_city():
        return _by_city()[city]
    # Any city of >= 15,000 people ("Springfield", "Cologne", "Paris, US").
    found = city_zone(t)
    if found is not None:
        return found.zone
    # "eastern time", "pacific standard time", "Tokyo time": the name before "time".
    named = re.fullmatch(r"(.+?)\s+(?:(?:standard|daylight|summer)\s+)?time(?:\s+zone)?", key)
    if named:
        return resolve_zone(named.group(1))
    # "US Pacific", "Canada Eastern": the North American zone names after the country's.
    region = _NORTH_AMERICAN.fullmatch(key)
    return resolve_zone(region.group(1)) if region else None


_NORTH_AMERICAN = re.compile(
    r"(?:the\s+)?(?:us|u\.s\.a?\.?|usa|america|american|canada|canadian)\s+(.+)"
)
# A country's people, said for its time ("Irish time"): the country (one with several zones
# is then not one zone, as the country's name isn't).
_DEMONYMS = {
    "irish": "ireland",
    "british": "uk",
    "english": "england",
    "scottish": "scotland",
    "welsh": "wales",
    "german": "germany",
    "french": "france",
    "spanish": "spain",
    "italian": "italy",
    "dutch": "netherlands",
    "belgian": "belgium",
    "swiss": "switzerland",
    "austrian": "austria",
    "polish": "poland",
    "czech": "czechia",
    "slovak": "slovakia",
    "portuguese": "portugal",
    "greek": "greece",
    "turkish": "turkey",
    "swedish": "sweden",
    "norwegian": "norway",
    "danish": "denmark",
    "finnish": "finland",
    "icelandic": "iceland",
    "hungarian": "hungary",
    "romanian": "romania",
    "bulgarian": "bulgaria",
    "croatian": "croatia",
    "serbian": "serbia",
    "ukrainian": "ukraine",
    "japanese": "japan",
    "korean": "south korea",
    "south korean": "south korea",
    "chinese": "china",
    "taiwanese": "taiwan",
    "indian": "india",
    "pakistani": "pakistan",
    "thai": "thailand",
    "vietnamese": "vietnam",
    "filipino": "philippines",
    "singaporean": "singapore",
    "israeli": "israel",
    "egyptian": "egypt",
    "south african": "south africa",
    "nigerian": "nigeria",
    "kenyan": "kenya",
    "argentinian": "argentina",
    "argentine": "argentina",
    "colombian": "colombia",
    "peruvian": "peru",
}
# Names people use for a country that the tz database spells otherwise.
_COUNTRY_NAMES = {
    "us": "US",
    "usa": "US",
    "u.s.": "US",
    "u.s.a.": "US",
    "america": "US",
    "united states of america": "US",
    "the states": "US",
    "uk": "GB",
    "u.k.": "GB",
    "united kingdom": "GB",
    "great britain": "GB",
    "britain": "GB",
    "england": "GB",
    "scotland": "GB",
    "wales": "GB",
    "northern ireland": "GB",
    "holland": "NL",
    "czechia": "CZ",
    "uae": "AE",
    "south korea": "KR",
    "korea": "KR",
    "ivory coast": "CI",
    "swaziland": "SZ",
    "burma": "MM",
    "north korea": "KP",
    "turkiye": "TR",
    "türkiye": "TR",
}
# A country whose zones keep this many different UTC offsets needs a city to say which.
_MANY_OFFSETS = 3


def country_zone(text: str) -> str | None:
    """The zone of a country named in `text` ("Germany", "Japan", "the UK"), or None when
    it is no country or spans several offsets ("US", "Australia": name a city instead)."""
    code = _country_code(text)
    return _country_zones().get(code) if code else None


def spans_zones(text: str) -> bool:
    """Is `text` a country with several time zones ("the US", "Australia")?"""
    code = _country_code(text)
    return code is not None and code not in _country_zones()


def _country_code(text: str) -> str | None:
    key = re.sub(r"\s+", " ", text.strip().lower())
    bare = key.removeprefix("the ")
    return _COUNTRY_NAMES.get(key) or _COUNTRY_NAMES.get(bare) or _countries().get(bare)


def _tz_table(name: str) -> list[list[str]]:
    """The rows of one of the tz database's tables (shipped by the `tzdata` dependency)."""
    text = resources.files("tzdata").joinpath("zoneinfo", name).read_text(encoding="utf-8")
    return [line.split("\t") for line in text.splitlines() if line and not line.startswith("#")]


@lru_cache(maxsize=1)
def _countries() -> dict[str, str]:
    """Lower-case country name → ISO code, from the tz database's iso3166.tab ("Britain
    (UK)" gives "britain"; "Korea (South)" and "Virgin Islands (US)" only themselves: what
    is in brackets may name another country)."""
    found: dict[str, str] = {}
    for code, name, *_ in _tz_table("iso3166.tab"):
        low = name.lower()
        found[low] = code
        plain = re.sub(r"\s*\([^)]*\)", "", low).strip()
        if plain != low and not re.search(r"\((?:north|south|east|west|the|uk|us)\)", low):
            found.setdefault(plain, code)
    return found


@lru_cache(maxsize=1)
def _country_zones() -> dict[str, str]:
    """ISO code → the zone of the country's most populous city (else its first in
    zone.tab), for countries whose zones keep fewer than _MANY_OFFSETS different
    (January, July) UTC offsets."""
    zones: dict[str, list[str]] = {}
    for code, _coords, name, *_ in _tz_table("zone.tab"):
        zones.setdefault(code, []).append(name)
    biggest: dict[str, str] = {}
    for city in cities():  # most populous first
        biggest.setdefault(city.country, city.zone)
    out: dict[str, str] = {}
    for code, names in zones.items():
        offsets = set()
        for name in names:
            z = ZoneInfo(name)
            offsets.add(tuple(datetime(2026, m, 15, tzinfo=z).utcoffset() for m in (1, 7)))
        if len(offsets) < _MANY_OFFSETS:
            out[code] = biggest.get(code, names[0])
    return out


def suggest_places(text: str, limit: int = 25) -> list[tuple[str, str]]:
    """(label, zone) pairs for an autocomplete box: the zone `text` means, then cities by
    size ("Paris, FR — Europe/Paris"), then zone names that match."""
    zones = suggest_zones(text, limit)
    resolved = resolve_zone(text) if text.strip() else None
    first = [(resolved, resolved)] if resolved is not None else []
    cities = cities_starting(text, limit) if len(text.strip()) >= 2 else []
    places = [(c.label[:100], c.zone) for c in cities]
    out: list[tuple[str, str]] = []
    for pair in [*first, *places, *((z, z) for z in zones)]:
        if pair not in out:
            out.append(pair)
    return out[:limit]


def suggest_zones(text: str, limit: int = 25) -> list[str]:
    """Zone names for an autocomplete box: the resolved zone first, then name matches."""
    t = text.strip().lower()
    out: list[str] = []
    resolved = resolve_zone(text) if t else None
    if resolved is not None:
        out.append(resolved)
    if not t:
        common = (
            "UTC",
            "Europe/London",
            "Europe/Berlin",
            "America/New_York",
            "America/Chicago",
            "America/Los_Angeles",
            "Asia/Kolkata",
            "Asia/Tokyo",
            "Australia/Sydney",
        )
        return list(common)[:limit]
    needle = t.replace(" ", "_")
    starts: list[str] = []
    contains: list[str] = []
    for name in all_zones():
        low = name.lower()
        city = low.rsplit("/", 1)[-1]
        if city.startswith(needle) or low.startswith(needle):
            starts.append(name)
        elif needle in low:
            contains.append(name)
    for name in [*sorted(starts, key=_is_legacy), *sorted(contains, key=_is_legacy)]:
        if name not in out:
            out.append(name)
        if len(out) >= limit:
            break
    return out[:limit]


# ---------------------------------------------------------------- a zone inside a phrase

_TRAILING = re.compile(
    r"^(?P<rest>.*\S)\s+(?:in\s+(?P<inside>[^\d\s][\w .,'-]{0,60}?)"
    r"|(?P<named>[^\d\s][\w .,'/+-]{0,60}?)\s+time)\s*$",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class ZonedPhrase:
    text: str  # the phrase without the zone ("3pm")
    tz: str  # the IANA zone it named ("Asia/Tokyo")


def split_zone(text: str) -> ZonedPhrase | None:
    """The phrase and the zone it names at its end, or None if it names none.

    Only consulted when the whole phrase is not a time by itself, so "9am in March" stays
    a date in March even though March is also a town.
    """
    m = _TRAILING.match(text.strip())
    if m is None:
        return None
    name = (m.group("inside") or m.group("named") or "").strip(" ,")
    tz = resolve_zone(name) if name else None
    if tz is None:
        return None
    return ZonedPhrase(m.group("rest").strip(), tz)


# "3pm Tokyo time", "9am in Berlin time", "at 10 New York time": a city's wall clock.
_CITY_TIME = re.compile(r"\b(?:in\s+)?([A-Za-z][A-Za-z_/]*(?:[ _][A-Za-z]+)?)\s+time\b", re.I)


def zone_time_in(text: str) -> tuple[str | None, str]:
    """A zone named anywhere in a message as "<city> time": (the zone, the text without it)."""
    for m in _CITY_TIME.finditer(text):
        name = m.group(1)
        words = name.split()
        # Take the longest tail of the words before "time" that names a zone.
        for k in range(len(words)):
            cand = " ".join(words[k:])
            found = resolve_zone(cand)
            if found is not None:
                start = m.start(1) + name.find(cand)
                cut = text[:start].removesuffix("in ") + " " + text[m.end() :]
                return found, " ".join(cut.split())
    return None, text


# "8am their time", "10am local time there": the wall clock of the one place the message
# names ("standup with Priya in Sydney", "my call with the Chicago client").
_THEIR_TIME = re.compile(
    r"\s*,?\s*\b(?:in\s+|on\s+)?(?:their\s+(?:local\s+)?time|(?:the\s+)?local\s+time\s+there"
    r"|(?:their|the\s+local)\s+clock)\b",
    re.I,
)
_NOT_A_PLACE = r"(?!(?:the|a|an|my|our|their|his|her|your|this|that|me|us|them)\b)"
_PLACE_SAID = re.compile(
    rf"\b(?:in|from|to|at)\s+(?:the\s+)?{_NOT_A_PLACE}(?P<a>[A-Za-z][\w'-]+(?:\s+[A-Z][\w'-]+)?)"
    rf"|\b{_NOT_A_PLACE}(?P<b>[A-Za-z][\w'-]+(?:\s+[A-Za-z][\w'-]+)?)\s+(?:team|client|clients"
    r"|office|colleagues?|crew|folks|people|branch|hq|side|group|partners?|customers?)\b",
)


def their_time_in(text: str, context: str = "") -> tuple[str | None, str]:
    """A time said in "their time" where the message (or `context`, the request it answers)
    names exactly one place: (that place's zone, the text without "their time")."""
    m = _THEIR_TIME.search(text)
    if m is None:
        return None, text
    zones = set()
    for place in _PLACE_SAID.finditer(f"{context} {text}"):
        name = (place["a"] or place["b"]).strip()
        words = name.split()
        for cand in ([name] if len(words) > 1 else []) + words[-1:]:
            found = resolve_zone(cand)
            if found is not None:
                zones.add(found)
                break
    if len(zones) != 1:
        return None, text
    return zones.pop(), " ".join((text[: m.start()] + " " + text[m.end() :]).split())
