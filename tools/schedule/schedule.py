"""`Schedule`: a spec read in an IANA zone with its end conditions, and when it runs next.

Wall-clock schedules (cron, rrule, whole-day intervals) are evaluated on naive local
times and then placed in the zone, so a daily job fires once per local day whatever DST
does; sub-daily intervals are elapsed time.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace
from datetime import UTC, datetime, time, timedelta
from itertools import pairwise
from zoneinfo import ZoneInfo

from tools.errors import ScheduleError
from tools.schedule.cron import Cron, cron_walls
from tools.schedule.describe import describe_spec, format_day
from tools.schedule.rrule import RRule, excluding, rrule_walls
from tools.schedule.specs import Every, Once, Spec, every_runs, spec_to_json
from tools.schedule.zones import localize, zone

MAX_RUNS = 1_000_000


@dataclass(frozen=True)
class Schedule:
    """When a job runs: a spec read in an IANA zone, with optional end conditions."""

    spec: Spec
    tz: str = "UTC"
    until: datetime | None = None
    max_runs: int | None = None

    def __post_init__(self) -> None:
        zone(self.tz)
        if self.until is not None and self.until.tzinfo is None:
            object.__setattr__(self, "until", localize(self.until, zone(self.tz)))
        if self.max_runs is not None and self.max_runs < 1:
            raise ScheduleError("The number of runs must be at least 1, e.g. `5 times`.")
        if self.max_runs is not None and self.max_runs > MAX_RUNS:
            raise ScheduleError(f"That's too many runs; give at most {MAX_RUNS:,}.")

    @property
    def zone(self) -> ZoneInfo:
        return zone(self.tz)

    @property
    def is_recurring(self) -> bool:
        return not isinstance(self.spec, Once)

    @property
    def kind(self) -> str:
        return spec_to_json(self.spec)["type"]

    def at_time_of_day(self, clock: time) -> Schedule | None:
        """The same days at a new time of day ("move the standup to 9:30"), ends kept;
        None when the schedule has no one time of day to move (an interval, several
        times a day, exceptions at exact times, a one-off)."""
        spec = self.spec
        if isinstance(spec, Cron):
            days = spec.expr.split(" ")[2:]
            if len(spec.minutes) != 1 or len(spec.hours) != 1:
                return None
            moved: Spec = Cron(" ".join([str(clock.minute), str(clock.hour), *days]))
        elif isinstance(spec, RRule):
            parts = spec.parts()
            if (
                parts.get("FREQ") not in ("DAILY", "WEEKLY", "MONTHLY", "YEARLY")
                or "BYSETPOS" in parts
                or any("," in parts.get(k, "") for k in ("BYHOUR", "BYMINUTE", "BYSECOND"))
                or any(e.wall is not None or e.timed_rule for e in spec.exclusions)
            ):
                return None
            for key, value in (("BYHOUR", clock.hour), ("BYMINUTE", clock.minute), ("BYSECOND", 0)):
                if key in parts:
                    parts[key] = str(value)
            rule = ";".join(f"{k}={v}" for k, v in parts.items())
            start = spec.start.replace(hour=clock.hour, minute=clock.minute, second=0)
            moved = RRule(rule, start, spec.exclude)
        else:
            return None
        return replace(self, spec=moved)

    def next_runs(
        self, after: datetime, n: int, *, runs_done: int = 0, end: datetime | None = None
    ) -> list[datetime]:
        """Up to `n` run times strictly after `after` (and not after `end`), in the zone."""
        if after.tzinfo is None:
            raise ValueError("after must be timezone-aware")
        limit = n
        if self.max_runs is not None:
            limit = min(n, max(0, self.max_runs - runs_done))
        out: list[datetime] = []
        if limit <= 0:
            return out
        try:
            for at in self._occurrences(after):
                if self.until is not None and at > self.until:
                    break
                if end is not None and at > end:
                    break
                out.append(at)
                if len(out) >= limit:
                    break
        except (OverflowError, ValueError):
            pass  # the next run would lie past the calendar's end (year 9999): there is none
        return out

    def next_after(self, after: datetime, *, runs_done: int = 0) -> datetime | None:
        runs = self.next_runs(after, 1, runs_done=runs_done)
        return runs[0] if runs else None

    def first_run(self, now: datetime) -> datetime | None:
        """The first run at or after `now` (a one-off at `now` exactly still counts)."""
        return self.next_after(now - timedelta(microseconds=1))

    def _occurrences(self, after: datetime) -> Iterator[datetime]:
        tz = self.zone
        spec = self.spec
        if isinstance(spec, Once):
            if spec.at > after:
                yield spec.at.astimezone(tz)
            return
        if isinstance(spec, Every):
            yield from every_runs(spec, after, tz)
            return
        if isinstance(spec, Cron):
            source: Iterator[datetime] = cron_walls(spec, after.astimezone(tz))
        else:
            source = rrule_walls(spec, after.astimezone(tz))
            if spec.exclusions:
                source = excluding(spec, source)
        last: datetime | None = None
        for wall in source:
            at = localize(wall, tz)
            # Two walls can land on one instant across a DST gap; keep runs strictly increasing.
            if at <= after or (last is not None and at <= last):
                continue
            last = at
            yield at

    def describe(self) -> str:
        """Plain words: "every weekday at 08:00 (Europe/Berlin)"."""
        text = describe_spec(self.spec, self.zone)
        text += f" ({self.tz})"
        if self.until is not None:
            text += f", until {format_day(self.until.astimezone(self.zone))}"
        if self.max_runs is not None:
            text += ", once" if self.max_runs == 1 else f", {self.max_runs} times"
        return text

    def min_gap(self, after: datetime, samples: int = 50) -> timedelta | None:
        """The shortest gap between the next `samples` runs (None for fewer than two)."""
        if isinstance(self.spec, Every):
            return timedelta(seconds=self.spec.seconds)
        # In UTC: times in one zone subtract as wall clocks, which is wrong across DST.
        runs = [r.astimezone(UTC) for r in Schedule(self.spec, self.tz).next_runs(after, samples)]
        gaps = [b - a for a, b in pairwise(runs)]
        return min(gaps) if gaps else None
