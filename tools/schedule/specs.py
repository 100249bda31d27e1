"""The simple specs — one instant (`Once`), a fixed interval (`Every`) — and every spec's JSON.

`Spec` is what a `Schedule` holds: `Once`, `Every`, `Cron` (`cron.py`) or `RRule`
(`rrule.py`); `spec_to_json`/`spec_from_json` are the `jobs.schedule` column's shape.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from tools.errors import ScheduleError, quoted
from tools.schedule.cron import Cron
from tools.schedule.rrule import RRule
from tools.schedule.zones import localize


@dataclass(frozen=True)
class Once:
    """One instant."""

    at: datetime

    def __post_init__(self) -> None:
        if self.at.tzinfo is None:
            raise ScheduleError("A one-off time needs a time zone.")


@dataclass(frozen=True)
class Every:
    """Every `seconds`, first at `anchor`. Whole days step the local calendar."""

    seconds: int
    anchor: datetime

    def __post_init__(self) -> None:
        if self.anchor.tzinfo is None:
            raise ScheduleError("An interval needs a time zone for its start.")
        if not isinstance(self.seconds, int) or self.seconds <= 0:
            raise ScheduleError("An interval must be longer than zero, e.g. every 30 minutes.")

    @property
    def whole_days(self) -> int:
        return self.seconds // 86400 if self.seconds % 86400 == 0 else 0


Spec = Once | Every | Cron | RRule


def spec_to_json(spec: Spec) -> dict[str, Any]:
    """Plain JSON for the `jobs.schedule` column."""
    if isinstance(spec, Once):
        return {"type": "once", "at": spec.at.isoformat()}
    if isinstance(spec, Every):
        return {"type": "every", "seconds": spec.seconds, "anchor": spec.anchor.isoformat()}
    if isinstance(spec, Cron):
        return {"type": "cron", "expr": spec.expr}
    out: dict[str, Any] = {"type": "rrule", "rule": spec.rule, "start": spec.start.isoformat()}
    if spec.exclude:
        out["exclude"] = list(spec.exclude)
    return out


def spec_from_json(data: dict[str, Any]) -> Spec:
    kind = data.get("type")
    if kind == "once":
        return Once(datetime.fromisoformat(data["at"]))
    if kind == "every":
        return Every(int(data["seconds"]), datetime.fromisoformat(data["anchor"]))
    if kind == "cron":
        return Cron(str(data["expr"]))
    if kind == "rrule":
        exclude = data.get("exclude") or ()
        if not isinstance(exclude, (list, tuple)):
            raise ScheduleError("A schedule's exceptions must be a list of EXDATE/EXRULE strings.")
        return RRule(
            str(data["rule"]),
            datetime.fromisoformat(data["start"]),
            tuple(str(x) for x in exclude),
        )
    raise ScheduleError(f"Unknown schedule type {quoted(str(kind))}.")


def every_runs(spec: Every, after: datetime, tz: ZoneInfo) -> Iterator[datetime]:
    days = spec.whole_days
    if days:
        wall0 = spec.anchor.astimezone(tz).replace(tzinfo=None)
        delta_days = (after.astimezone(tz).date() - wall0.date()).days
        k = max(0, delta_days // days - 1)
        while True:
            at = localize(wall0 + timedelta(days=k * days), tz)
            if at > after:
                yield at
            k += 1
        return
    # Real elapsed time, whatever zone the anchor came in: aware arithmetic in a ZoneInfo
    # steps the wall clock, which across a DST change is an hour off the stored job's series.
    step = timedelta(seconds=spec.seconds)
    anchor = spec.anchor.astimezone(UTC)
    k = 0 if after < anchor else int((after - anchor) // step) + 1
    while True:
        yield (anchor + k * step).astimezone(tz)
        k += 1
