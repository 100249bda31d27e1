"""Jobs to and from files: JSON, and iCalendar (.ics) with RRULE/EXDATE.

An export holds every open job (active or paused) as it is now: where it lives, its
command, schedule, zone, end conditions, next run and runs done. Importing it into an
empty database and exporting again gives the identical file. Each .ics event also carries
the exact job (`X-HOMAR-JOB`), so a round trip loses nothing, while DTSTART/RRULE/EXDATE
let calendar programs show the same runs. Imports go through `Engine.restore`, which
validates every job like a new one (command, schedule, quota, duplicates).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from storage.jobs import Job
from storage.models import JobKind, JobStatus
from tools.audience import Audience
from tools.errors import UserError
from tools.jobs.engine import Engine
from tools.jobs.model import Target
from tools.schedule import Cron, Every, Once, RRule, Schedule, ScheduleError, spec_from_json

FORMAT = "homar-jobs"
VERSION = 1
_PROD_ID = "-//Homar//Homar jobs//EN"


def _iso(at: datetime | None) -> str | None:
    return at.astimezone(UTC).isoformat() if at is not None else None


def _when(value: Any, field: str) -> datetime | None:
    if value is None:
        return None
    try:
        at = datetime.fromisoformat(str(value))
    except ValueError:
        raise UserError(f"`{field}` must be an ISO time like 2026-11-24T09:00:00+00:00.") from None
    if at.tzinfo is None:
        raise UserError(f"`{field}` needs a zone offset, e.g. 2026-11-24T09:00:00+00:00.")
    return at


def job_row(job: Job) -> dict[str, Any]:
    """One job as exported (no id: a restored job gets a new one)."""
    return {
        "owner_id": job.owner_id,
        "guild_id": job.guild_id,
        "channel_id": job.channel_id,
        "parent_channel_id": job.parent_channel_id,
        "command": job.command,
        "kind": job.kind,
        "schedule": job.schedule,
        "tz": job.tz,
        "until": _iso(job.until),
        "max_runs": job.max_runs,
        "status": job.status,
        # While a run is in flight next_run_at is its lease; the slot is the real next run.
        "next_run_at": _iso(job.claimed_slot or job.next_run_at),
        "run_count": job.run_count,
        "created_by": job.created_by,
        "created_at": _iso(job.created_at),
        "follow_up": job.follow_up,
        "meta": job.meta,
        "audience": job.audience,
    }


async def export_rows(engine: Engine, *, owner_id: int | None = None) -> list[dict[str, Any]]:
    jobs = await engine.list_jobs(owner_id=owner_id, limit=1_000_000)
    open_jobs = [j for j in jobs if j.status in (JobStatus.ACTIVE, JobStatus.PAUSED)]
    return [job_row(j) for j in sorted(open_jobs, key=lambda j: j.id)]


# ------------------------------------------------------------------ JSON


def to_json(rows: list[dict[str, Any]]) -> str:
    doc = {"format": FORMAT, "version": VERSION, "jobs": rows}
    return json.dumps(doc, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def from_json(text: str) -> list[dict[str, Any]]:
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise UserError(f"That file isn't valid JSON ({exc.msg}, line {exc.lineno}).") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT or "jobs" not in doc:
        raise UserError("That JSON isn't a Homar export (made by `homar jobs export`).")
    if doc.get("version") != VERSION:
        raise UserError(f"That export is version {doc.get('version')!r}; this Homar reads 1.")
    rows = doc["jobs"]
    if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
        raise UserError("The export's `jobs` must be a list of jobs.")
    return rows


# ------------------------------------------------------------------ iCalendar


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace(";", "\\;").replace(",", "\\,").replace("\n", "\\n")


def _fold(line: str) -> str:
    """RFC 5545 §3.1: lines of at most 75 octets, continued with a leading space."""
    out: list[str] = []
    chunk = ""
    for ch in line:
        limit = 75 if not out else 74
        if len((chunk + ch).encode()) > limit:
            out.append(chunk)
            chunk = ""
        chunk += ch
    out.append(chunk)
    return "\r\n ".join(out)


def _stamp(at: datetime) -> str:
    return f"{at.astimezone(UTC):%Y%m%dT%H%M%SZ}"


def _cron_rule(spec: Cron) -> str | None:
    """A cron as an RRULE when iCalendar can say it (not "day-of-month OR weekday")."""
    if not spec.any_day and not spec.any_weekday:
        return None
    parts = ["FREQ=MINUTELY"]
    if len(spec.months) < 12:
        parts.append("BYMONTH=" + ",".join(map(str, sorted(spec.months))))
    if not spec.any_day:
        parts.append("BYMONTHDAY=" + ",".join(map(str, sorted(spec.days))))
    if not spec.any_weekday:
        names = ["SU", "MO", "TU", "WE", "TH", "FR", "SA"]
        days = sorted({d % 7 for d in spec.weekdays})
        parts.append("BYDAY=" + ",".join(names[d] for d in days))
    if len(spec.hours) < 24:
        parts.append("BYHOUR=" + ",".join(map(str, sorted(spec.hours))))
    parts.append("BYMINUTE=" + ",".join(map(str, sorted(spec.minutes))))
    return ";".join(parts)


def _event_times(schedule: Schedule, created: datetime) -> list[str]:
    """DTSTART, RRULE and EXDATE lines that give a calendar the same runs."""
    spec, tz = schedule.spec, schedule.tz
    lines: list[str] = []
    rule: str | None = None
    if isinstance(spec, Once):
        lines.append(f"DTSTART;TZID={tz}:{spec.at.astimezone(schedule.zone):%Y%m%dT%H%M%S}")
    elif isinstance(spec, Every):
        days = spec.whole_days
        if days:  # whole days step the local calendar
            local = spec.anchor.astimezone(schedule.zone)
            lines.append(f"DTSTART;TZID={tz}:{local:%Y%m%dT%H%M%S}")
            rule = f"FREQ=DAILY;INTERVAL={days}"
        else:  # shorter steps are exact spans: anchor them in UTC
            lines.append(f"DTSTART:{_stamp(spec.anchor)}")
            rule = f"FREQ=SECONDLY;INTERVAL={spec.seconds}"
    elif isinstance(spec, RRule):
        lines.append(f"DTSTART;TZID={tz}:{spec.start:%Y%m%dT%H%M%S}")
        rule = spec.rule
        for exc in spec.exclusions:
            if exc.day is not None:
                lines.append(f"EXDATE;VALUE=DATE:{exc.day:%Y%m%d}")
            elif exc.wall is not None:
                lines.append(f"EXDATE;TZID={tz}:{exc.wall:%Y%m%dT%H%M%S}")
            elif exc.rule is not None:
                lines.append(f"X-HOMAR-EXRULE:{exc.rule}")  # EXRULE left RFC 5545
    else:
        local = created.astimezone(schedule.zone).replace(second=0, microsecond=0)
        lines.append(f"DTSTART;TZID={tz}:{local:%Y%m%dT%H%M%S}")
        rule = _cron_rule(spec)
        lines.append(f"X-HOMAR-CRON:{spec.expr}")
    if rule is not None:
        if schedule.until is not None and "UNTIL=" not in rule and "COUNT=" not in rule:
            rule += f";UNTIL={_stamp(schedule.until)}"
        elif schedule.max_runs is not None and "UNTIL=" not in rule and "COUNT=" not in rule:
            rule += f";COUNT={schedule.max_runs}"
        lines.append(f"RRULE:{rule}")
    return lines


def to_ics(rows: list[dict[str, Any]]) -> str:
    lines = ["BEGIN:VCALENDAR", "VERSION:2.0", f"PRODID:{_PROD_ID}", "CALSCALE:GREGORIAN"]
    for row in rows:
        exact = json.dumps(row, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
        uid = hashlib.sha256(exact.encode()).hexdigest()[:24]
        schedule = _row_schedule(row)
        created = _when(row.get("created_at"), "created_at") or datetime(1970, 1, 1, tzinfo=UTC)
        lines += [
            "BEGIN:VEVENT",
            f"UID:homar-{uid}@homar",
            f"DTSTAMP:{_stamp(created)}",
            *_event_times(schedule, created),
            f"SUMMARY:{_escape(str(row['command']))}",
            f"X-HOMAR-JOB;VALUE=TEXT:{_escape(exact)}",
            "END:VEVENT",
        ]
    lines.append("END:VCALENDAR")
    return "".join(_fold(line) + "\r\n" for line in lines)


@dataclass(frozen=True)
class Place:
    """Where jobs from a foreign calendar go (Homar's own exports carry it)."""

    owner_id: int
    channel_id: int
    guild_id: int | None = None


def from_ics(text: str, place: Place | None = None) -> list[dict[str, Any]]:
    import icalendar

    try:
        calendar = icalendar.Calendar.from_ical(text)
    except ValueError as exc:
        raise UserError(f"That file isn't a valid iCalendar file ({exc}).") from None
    rows: list[dict[str, Any]] = []
    for event in calendar.walk("VEVENT"):
        exact = event.get("X-HOMAR-JOB")
        if exact is not None:
            try:
                row = json.loads(str(exact))
            except json.JSONDecodeError:
                raise UserError("An event's X-HOMAR-JOB is damaged; export it again.") from None
            rows.append(row)
            continue
        if place is None:
            raise UserError(
                "That calendar wasn't exported by Homar; say whose jobs they are and where "
                "they post, e.g. `homar jobs import cal.ics --owner 1234 --channel 5678`."
            )
        rows.append(_foreign_row(event, place))
    return rows


def _foreign_row(event: Any, place: Place) -> dict[str, Any]:
    """A plain calendar event → a reminder (one-off) or a recurring job at its DTSTART."""
    summary = str(event.get("SUMMARY") or "").strip()
    start = event.decoded("DTSTART") if event.get("DTSTART") is not None else None
    if not isinstance(start, datetime):
        raise UserError(f"The event “{summary[:60]}” has no start time; give it one.")
    tzid = event["DTSTART"].params.get("TZID")
    tz = str(tzid) if tzid else "UTC"
    if start.tzinfo is None:
        raise UserError(f"The event “{summary[:60]}” has a floating time; give it a zone.")
    rrule = event.get("RRULE")
    if rrule is None:
        spec: dict[str, Any] = {"type": "once", "at": start.astimezone(UTC).isoformat()}
        kind = JobKind.REMINDER
    else:
        excluded = []
        for prop in (
            event.get("EXDATE", [])
            if isinstance(event.get("EXDATE"), list)
            else [event.get("EXDATE")]
        ):
            if prop is None:
                continue
            for value in prop.dts:
                at = value.dt
                if isinstance(at, datetime):
                    wall = at.astimezone(start.tzinfo).replace(tzinfo=None)
                    excluded.append(f"EXDATE:{wall:%Y%m%dT%H%M%S}")
                else:
                    excluded.append(f"EXDATE:{at:%Y%m%d}")
        spec = {
            "type": "rrule",
            "rule": rrule.to_ical().decode(),
            "start": start.replace(tzinfo=None).isoformat(),
        }
        if excluded:
            spec["exclude"] = excluded
        kind = JobKind.RECURRING
    return {
        "owner_id": place.owner_id,
        "guild_id": place.guild_id,
        "channel_id": place.channel_id,
        "parent_channel_id": None,
        "command": summary,
        "kind": kind,
        "schedule": spec,
        "tz": tz,
        "until": None,
        "max_runs": None,
        "status": JobStatus.ACTIVE,
        "next_run_at": None,
        "run_count": 0,
        "created_by": "user",
        "created_at": None,
        "follow_up": None,
        "meta": None,
        "audience": None,
    }


# ------------------------------------------------------------------ import


def _row_schedule(row: dict[str, Any]) -> Schedule:
    data = row.get("schedule")
    if not isinstance(data, dict):
        raise UserError('`schedule` must be an object like {"type": "once", "at": …}.')
    try:
        spec = spec_from_json(data)
    except (KeyError, TypeError, ValueError) as exc:
        if isinstance(exc, ScheduleError):
            raise
        raise UserError(f"`schedule` is incomplete or malformed ({exc}).") from None
    max_runs = row.get("max_runs")
    if max_runs is not None and not isinstance(max_runs, int):
        raise UserError("`max_runs` must be a whole number or null.")
    return Schedule(spec, str(row.get("tz") or "UTC"), _when(row.get("until"), "until"), max_runs)


def _audience(data: Any) -> Audience | None:
    """Who a job pings, as stored; only its stored audience is ever pinged."""
    if data is None:
        return None
    try:
        return Audience.from_json(data)
    except (TypeError, ValueError):
        raise UserError("`audience` is malformed; export the job again.") from None


def _int(row: dict[str, Any], field: str, *, optional: bool = False) -> int | None:
    value = row.get(field)
    if value is None and optional:
        return None
    if not isinstance(value, int) or isinstance(value, bool):
        raise UserError(f"`{field}` must be a number.")
    return value


async def import_rows(engine: Engine, rows: list[dict[str, Any]]) -> tuple[list[int], list[str]]:
    """Restore each job (validated like a new one); returns the new ids and the refusals."""
    created: list[int] = []
    problems: list[str] = []
    for n, row in enumerate(rows, 1):
        try:
            owner = _int(row, "owner_id")
            channel = _int(row, "channel_id")
            assert owner is not None and channel is not None
            target = Target(
                owner,
                channel,
                _int(row, "guild_id", optional=True),
                _int(row, "parent_channel_id", optional=True),
            )
            for field in ("follow_up", "meta", "audience"):
                if row.get(field) is not None and not isinstance(row.get(field), dict):
                    raise UserError(f"`{field}` must be an object or null.")
            job = await engine.restore(
                target=target,
                command=str(row.get("command") or ""),
                schedule=_row_schedule(row),
                kind=str(row.get("kind") or ""),
                status=str(row.get("status") or JobStatus.ACTIVE),
                next_run_at=_when(row.get("next_run_at"), "next_run_at"),
                run_count=_int(row, "run_count", optional=True) or 0,
                created_by=str(row.get("created_by") or "user")[:8],
                follow_up=row.get("follow_up"),
                meta=row.get("meta"),
                created_at=_when(row.get("created_at"), "created_at"),
                audience=_audience(row.get("audience")),
            )
        except UserError as exc:
            problems.append(f"job {n} (“{str(row.get('command', ''))[:40]}”): {exc.message}")
            continue
        created.append(job.id)
    return created, problems
