"""A zone named inside a time phrase: "3pm Tokyo time", "at 9 Berlin time", "9am in Tokyo".

Only consulted when the whole phrase is not a time by itself, so "9am in March" stays a
date in March even though March is also a town.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tools.zones import resolve_zone

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
    """The phrase and the zone it names at its end, or None if it names none."""
    m = _TRAILING.match(text.strip())
    if m is None:
        return None
    name = (m.group("inside") or m.group("named") or "").strip(" ,")
    tz = resolve_zone(name) if name else None
    if tz is None:
        return None
    return ZonedPhrase(m.group("rest").strip(), tz)
