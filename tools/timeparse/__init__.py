"""Time phrases → instants and recurrences (deterministic, no network).

English is read by this package's grammar (`instant`, `recurrence`, `holidays`); when it
reads nothing, German, Spanish, French, Portuguese and Polish phrases go to dateparser
(`foreign`, loaded lazily) and come back as `Understood` instants that say how they
were read.

Public API: `read_time` (the one entry point every surface reads a typed time through),
`parse_instant`, `parse_recurrence`, `parse_duration`, `split_when`, `When`, `clock_of`,
`mend_spelling`,
`Recurrence` (the engine's `Schedule`), `explain_invalid_date`, `Understood`.
"""

from __future__ import annotations

import re
from datetime import datetime

from tools.errors import NoSuchDate, UserError, quoted
from tools.schedule import Schedule as Recurrence
from tools.schedule import zone
from tools.schedule.zones import split_zone

from .clock import ClockSaid, clock_of
from .duration import parse_duration
from .foreign import Understood
from .instant import parse_instant
from .invalid import explain_invalid_date
from .recurrence import parse_recurrence
from .split import When, mend_spelling, split_when

__all__ = [
    "ClockSaid",
    "Recurrence",
    "Understood",
    "When",
    "clock_of",
    "explain_invalid_date",
    "mend_spelling",
    "parse_duration",
    "parse_instant",
    "parse_recurrence",
    "read_time",
    "split_when",
]

_ISO = re.compile(
    r"^\d{4}-\d{2}-\d{2}(?:[T ]\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?)?\s*(?:Z|[+-]\d{2}:?\d{2})?$"
)


def read_time(text: str, *, now: datetime, tz: str) -> datetime:
    """A time someone typed (a person in a form, a model in a tool argument), for every surface.

    ISO 8601 (naive: in `tz`; a date alone: 09:00) or a phrase read in `tz` against `now`
    (English, else a foreign phrase as an `Understood` saying how it was read). A phrase
    naming its zone at the end ("3pm Tokyo time") is read in that zone and comes back in
    it, so `.tzinfo` says which zone the person meant. Raises `UserError` saying what was
    wrong (`NoSuchDate`: "February has no 30th — did you mean March 2nd?") or that nothing
    was read.
    """
    s = (text or "").strip()
    if _ISO.match(s):
        try:
            at = datetime.fromisoformat(s.replace(" ", "T", 1).replace("Z", "+00:00"))
        except ValueError:
            pass  # "2026-02-30": not a date; the explanation below says why
        else:
            at = at.replace(hour=9) if len(s) == 10 else at
            here = zone(tz)
            return at.replace(tzinfo=here) if at.tzinfo is None else at.astimezone(here)
    got = parse_instant(s, now=now, tz=tz) if s else None
    named = split_zone(s) if got is None and s else None
    if named is not None:  # "3pm Tokyo time": that city's wall clock
        got = parse_instant(named.text, now=now, tz=named.tz)
    if got is None:
        impossible = explain_invalid_date(s)
        if impossible is not None:
            raise NoSuchDate(impossible)
        raise UserError(f"I couldn't read {quoted(s)} as a time.")
    return got
