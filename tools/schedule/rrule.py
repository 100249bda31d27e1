"""RFC 5545 recurrence rules over local wall-clock time, with their exceptions (EXDATE/EXRULE)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta

from dateutil.rrule import rrule, rrulestr

from tools.errors import ScheduleError, quoted

_RRULE_KEYS = {
    "FREQ",
    "INTERVAL",
    "BYDAY",
    "BYMONTHDAY",
    "BYMONTH",
    "BYHOUR",
    "BYMINUTE",
    "BYSECOND",
    "BYSETPOS",
    "BYYEARDAY",
    "BYWEEKNO",
    "BYEASTER",  # days from Easter Sunday (dateutil's extension): "every good friday"
    "WKST",
    "COUNT",
    "UNTIL",
}


SUB_DAILY = {"HOURLY": 3600, "MINUTELY": 60, "SECONDLY": 1}
_EXCLUSION_HELP = (
    "use EXDATE:YYYYMMDD (a whole day), EXDATE:YYYYMMDDTHHMMSS (one local time) "
    "or EXRULE:FREQ=… (a repeating exception)"
)
MAX_EXCLUSIONS = 100


@dataclass(frozen=True)
class Exclusion:
    """One parsed exception of an RRule: a local day, a local wall time, or a rule."""

    text: str
    day: date | None = None
    wall: datetime | None = None
    rule: str | None = None

    @property
    def timed_rule(self) -> bool:
        """A rule naming times of day excludes those walls; one without excludes days."""
        if self.rule is None:
            return False
        parts = dict(p.split("=", 1) for p in self.rule.split(";") if "=" in p)
        return parts.get("FREQ") in SUB_DAILY or bool(
            {"BYHOUR", "BYMINUTE", "BYSECOND"} & parts.keys()
        )


def _exdate(value: str, original: str) -> Exclusion:
    compact = value.strip().replace("-", "").replace(":", "")
    m = re.fullmatch(r"(\d{4})(\d{2})(\d{2})(?:T(\d{2})(\d{2})(\d{2})?)?", compact)
    if not m:
        raise ScheduleError(f"Exception {quoted(original)} is not valid; {_EXCLUSION_HELP}.")
    y, mo, d = int(m[1]), int(m[2]), int(m[3])
    try:
        if m[4] is None:
            day = date(y, mo, d)
            return Exclusion(f"EXDATE:{day:%Y%m%d}", day=day)
        wall = datetime(y, mo, d, int(m[4]), int(m[5]), int(m[6] or 0))
    except ValueError:
        raise ScheduleError(f"Exception {quoted(original)} is not a real date or time.") from None
    return Exclusion(f"EXDATE:{wall:%Y%m%dT%H%M%S}", wall=wall)


def _exrule(body: str, original: str, start: datetime) -> Exclusion:
    body = body.strip().strip(";")
    keys = {p.partition("=")[0] for p in body.split(";") if p}
    if "FREQ" not in keys or not keys <= _RRULE_KEYS:
        raise ScheduleError(f"Exception {quoted(original)} is not valid; {_EXCLUSION_HELP}.")
    try:
        rrulestr(body, dtstart=exclusion_anchor(start))
    except (ValueError, TypeError) as exc:
        raise ScheduleError(f"Exception {quoted(original)} is not a valid rule: {exc}") from None
    return Exclusion(f"EXRULE:{body}", rule=body)


def exclusion_anchor(start: datetime) -> datetime:
    # Exception rules count from the start's day at midnight, so a rule without a time
    # names whole days and one with BYHOUR defaults its minutes and seconds to zero.
    return datetime.combine(start.date(), time(0))


def parse_exclusions(items: tuple[str, ...] | list[str], start: datetime) -> list[Exclusion]:
    """Validate and normalise RRule exceptions (a ScheduleError says what to type)."""
    out: dict[str, Exclusion] = {}
    for item in items:
        if not isinstance(item, str):
            raise ScheduleError(f"Exception {quoted(item)} is not valid; {_EXCLUSION_HELP}.")
        head, sep, body = item.strip().upper().partition(":")
        head = head.strip()
        if not sep or not body.strip():
            raise ScheduleError(f"Exception {quoted(item)} is not valid; {_EXCLUSION_HELP}.")
        if head in ("EXDATE", "EXDATE;VALUE=DATE", "EXDATE;VALUE=DATE-TIME"):
            found = [_exdate(v, item) for v in body.split(",") if v.strip()]
        elif head == "EXRULE":
            found = [_exrule(body, item, start)]
        else:
            raise ScheduleError(f"Exception {quoted(item)} is not valid; {_EXCLUSION_HELP}.")
        for exc in found:
            out.setdefault(exc.text, exc)
    if len(out) > MAX_EXCLUSIONS:
        raise ScheduleError(f"A schedule can have at most {MAX_EXCLUSIONS} exceptions.")
    return list(out.values())


@dataclass(frozen=True)
class RRule:
    """An RFC 5545 recurrence rule over naive local wall-clock times starting at `start`.

    `exclude` holds exceptions, all read as local wall clock: ``EXDATE:YYYYMMDD`` skips a
    whole day, ``EXDATE:YYYYMMDDTHHMMSS`` skips runs in that minute, and ``EXRULE:<rule>``
    skips what a rule names (whole days, or exact walls when it has BYHOUR/BYMINUTE or a
    sub-daily FREQ). Sub-daily rules (FREQ=HOURLY…) step the wall clock too.
    """

    rule: str
    start: datetime
    exclude: tuple[str, ...] = ()
    exclusions: tuple[Exclusion, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        body = self.rule.strip()
        if body.upper().startswith("RRULE:"):
            body = body[6:]
        object.__setattr__(self, "rule", body.upper())
        if self.start.tzinfo is not None:
            object.__setattr__(self, "start", self.start.replace(tzinfo=None))
        keys = {p.partition("=")[0] for p in self.rule.split(";") if p}
        if "FREQ" not in keys or not keys <= _RRULE_KEYS:
            raise ScheduleError(f"Recurrence rule {quoted(self.rule)} is not valid.")
        try:
            self.build()
        except (ValueError, TypeError) as exc:
            raise ScheduleError(
                f"Recurrence rule {quoted(self.rule)} is not valid: {exc}"
            ) from None
        raw = (self.exclude,) if isinstance(self.exclude, str) else tuple(self.exclude or ())
        parsed = parse_exclusions(raw, self.start)
        object.__setattr__(self, "exclude", tuple(e.text for e in parsed))
        object.__setattr__(self, "exclusions", tuple(parsed))
        if parsed and not self._survives_exclusions():
            raise ScheduleError(
                "Those exceptions leave no runs at all; "
                "drop some of them, e.g. `every day except weekends`."
            )

    def build(self) -> rrule:
        built = rrulestr(self.rule, dtstart=self.start)
        assert isinstance(built, rrule)
        return built

    def parts(self) -> dict[str, str]:
        return dict(p.split("=", 1) for p in self.rule.split(";") if "=" in p)

    def _survives_exclusions(self) -> bool:
        """Whether some run escapes the exceptions within eight years of the start.

        Probes at most 20,000 runs; a rule that dense gets the benefit of the doubt.
        """
        horizon = self.start + timedelta(days=366 * 8)
        seen = 0

        def walls() -> Iterator[datetime]:
            nonlocal seen
            for wall in self.build().xafter(self.start, count=None, inc=True):
                if wall > horizon or seen >= 20_000:
                    return
                seen += 1
                yield wall

        for _ in excluding(self, walls()):
            return True
        return seen >= 20_000


def rrule_walls(spec: RRule, after_local: datetime) -> Iterator[datetime]:
    start = after_local.replace(tzinfo=None) - timedelta(days=1)
    rule = _rebased(spec, start)
    if start < spec.start:
        start = spec.start - timedelta(seconds=1)
    yield from rule.xafter(start, count=None, inc=False)


def _rebased(spec: RRule, start: datetime) -> rrule:
    """The rule, with a plain sub-daily interval's start moved up close to `start`.

    FREQ=HOURLY;INTERVAL=8 from years ago would otherwise be replayed from its first
    run on every call; stepping whole intervals on the naive wall clock keeps the phase.
    """
    parts = spec.parts()
    unit = SUB_DAILY.get(parts.get("FREQ", ""))
    if unit is None or not set(parts) <= {"FREQ", "INTERVAL", "UNTIL"} or start <= spec.start:
        return spec.build()
    step = unit * max(1, int(parts.get("INTERVAL", "1") or 1))
    k = int((start - spec.start).total_seconds()) // step
    moved = spec.start + timedelta(seconds=k * step)
    built = rrulestr(spec.rule, dtstart=moved)
    assert isinstance(built, rrule)
    return built


MAX_SKIPPED = 100_000


def excluding(spec: RRule, walls: Iterator[datetime]) -> Iterator[datetime]:
    """`walls` (increasing naive local times) minus the rule's exceptions.

    Gives up after MAX_SKIPPED excluded runs in a row, so exceptions that swallow
    everything end the schedule instead of looping forever.
    """
    days = {e.day for e in spec.exclusions if e.day is not None}
    minutes = {e.wall.replace(second=0) for e in spec.exclusions if e.wall is not None}
    rules = [e for e in spec.exclusions if e.rule is not None]
    streams: list[tuple[bool, Iterator[datetime], list[datetime | None]]] = []
    skipped = 0
    for wall in walls:
        minute = wall.replace(second=0, microsecond=0)
        if not streams and rules:
            since = datetime.combine(wall.date(), time(0))
            for e in rules:
                assert e.rule is not None
                r = rrulestr(e.rule, dtstart=exclusion_anchor(spec.start))
                assert isinstance(r, rrule)
                stream: Iterator[datetime] = r.xafter(since, count=None, inc=True)
                streams.append((e.timed_rule, stream, [next(stream, None)]))
        hit = wall.date() in days or minute in minutes
        for timed, it, head in streams:
            if hit:
                break
            lo = minute if timed else datetime.combine(wall.date(), time(0))
            hi = lo + (timedelta(minutes=1) if timed else timedelta(days=1))
            while head[0] is not None and head[0] < lo:
                head[0] = next(it, None)
            hit = head[0] is not None and head[0] < hi
        if hit:
            skipped += 1
            if skipped >= MAX_SKIPPED:
                return
            continue
        skipped = 0
        yield wall
