"""A time of day said on its own ("9:30", "half past 4", "at 5pm", "noon", "17h30", "8
in the evening"): no day, no offset. What a repeating job is moved to when only its time
of day changes ("push the standup to 9:30")."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime, time

from .instant import PODS, Conflict, Ctx, Frame, WorkLimit, _prepared, read_frame

_LEAD = re.compile(r"^(?:(?:to|for|till|til|until|around|about|at)\s+)+", re.I)
_REF = datetime(2000, 1, 3, 12, tzinfo=UTC)  # any: a clock alone is never placed in time


@dataclass(frozen=True)
class ClockSaid:
    """A time of day as said: `fixed` when its half of the day was said or follows from
    it ("pm", "21:30", "noon", "in the morning"); otherwise `hour` is 1-12 and either
    half may be meant."""

    hour: int
    minute: int
    fixed: bool

    def nearest(self, to: time) -> time:
        """The time meant: as said when `fixed`; else whichever of its morning and
        afternoon readings is nearer `to` on the clock (a job at 09:00 moved "to 9:30"
        stays in the morning, one at 20:00 moved "to 8:30" stays in the evening), the
        afternoon one on a tie."""
        if self.fixed:
            return time(self.hour, self.minute)
        here = to.hour * 60 + to.minute
        options = [(self.hour % 12) * 60 + self.minute, (self.hour % 12 + 12) * 60 + self.minute]

        def distance(m: int) -> int:
            d = abs(m - here) % 1440
            return min(d, 1440 - d)

        best = min(options, key=lambda m: (distance(m), -m))
        return time(best // 60, best % 60)


def clock_of(text: str) -> ClockSaid | None:
    """The time of day `text` says, if that is all it says; None for anything naming a
    day, a date, an offset or a zone, or not a time at all."""
    if not isinstance(text, str) or len(text) > 60:
        return None
    bare = _LEAD.sub("", text.strip())
    if not bare:
        return None
    f = _frame(bare) or _frame("at " + bare)  # "at" reads "9.30", "930" as clocks
    if f is None or f.hour is None or f.exact_now or f.extra.get("needs_day"):
        return None
    said = (f.date, f.weekday, f.day, f.month, f.year, f.rel, f.instant, f.holiday, f.zone)
    if any(v is not None for v in said):
        return None
    hour = f.hour
    if f.ampm is not None:
        return ClockSaid(hour % 12 + (12 if f.ampm.startswith("p") else 0), f.minute, True)
    if f.pod is not None and f.pod in PODS:
        pm = PODS[f.pod][1]
        if pm and hour < 12:
            hour += 12
        elif not pm and hour == 12:
            hour = 0
        return ClockSaid(hour, f.minute, True)
    if f.pod is not None:
        return None
    return ClockSaid(hour, f.minute, f.h24 or hour == 0 or hour > 12)


def _frame(text: str) -> Frame | None:
    try:
        s = _prepared(text)
        return read_frame(s, Ctx(_REF, UTC)) if s else None
    except (ValueError, OverflowError, Conflict, IndexError, WorkLimit):
        return None
