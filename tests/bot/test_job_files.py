"""Export → import into an empty database → export gives identical files; the .ics opens
in icalendar with the same next runs as Homar computes."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import icalendar
import pytest
from dateutil.rrule import rrulestr

from bot import job_files
from storage.db import Database
from storage.jobs import JobStore
from storage.models import JobKind, JobStatus
from tools.audience import Audience
from tools.errors import UserError
from tools.jobs.engine import Engine
from tools.jobs.model import Target
from tools.schedule import Cron, Every, Once, RRule, Schedule

NOW = datetime(2026, 11, 23, 15, 0, tzinfo=UTC)


async def _engine(path: Path) -> tuple[Database, Engine]:
    db = Database(f"sqlite+aiosqlite:///{path}")
    await db.upgrade()
    return db, Engine(JobStore(db), clock=lambda: NOW)


async def _fill(engine: Engine) -> None:
    here = Target(owner_id=7, channel_id=70, guild_id=700, parent_channel_id=71)
    await engine.create(
        target=here,
        command="call the dentist, then; email Ana\nabout it",
        schedule=Schedule(Once(NOW + timedelta(days=2)), "Europe/Berlin"),
        kind=JobKind.REMINDER,
        follow_up={"interval_s": 1800, "max": 2},
    )
    await engine.create(
        target=here,
        command="standup time 🧍",
        schedule=Schedule(
            RRule(
                "FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR;BYHOUR=9;BYMINUTE=0;BYSECOND=0",
                datetime(2026, 11, 24),
                ("EXDATE:20261126T090000",),
            ),
            "Europe/Berlin",
        ),
        kind=JobKind.RECURRING,
    )
    await engine.create(
        target=Target(owner_id=8, channel_id=80, guild_id=800),
        command="check the build",
        audience=Audience(users=(81,), roles=(82,), channel_id=83),
        schedule=Schedule(Every(7200, NOW + timedelta(minutes=5)), "UTC", max_runs=10),
        kind=JobKind.INTERVAL,
    )
    await engine.create(
        target=Target(owner_id=8, channel_id=80),
        command="water the plants",
        schedule=Schedule(
            Every(2 * 86400, datetime(2026, 11, 24, 18, tzinfo=ZoneInfo("America/New_York"))),
            "America/New_York",
            until=datetime(2027, 3, 1, tzinfo=UTC),
        ),
        kind=JobKind.INTERVAL,
    )
    paused = await engine.create(
        target=Target(owner_id=9, channel_id=90),
        command="weekly report",
        schedule=Schedule(Cron("30 8 * * 1-5"), "Asia/Tokyo"),
        kind=JobKind.RECURRING,
    )
    await engine.pause(paused.id)


async def _export(path: Path, fmt: str) -> str:
    db, engine = await _engine(path)
    try:
        rows = await job_files.export_rows(engine)
        return job_files.to_ics(rows) if fmt == "ics" else job_files.to_json(rows)
    finally:
        await db.close()


async def _import(path: Path, text: str, fmt: str) -> tuple[list[int], list[str]]:
    db, engine = await _engine(path)
    try:
        rows = job_files.from_ics(text) if fmt == "ics" else job_files.from_json(text)
        return await job_files.import_rows(engine, rows)
    finally:
        await db.close()


@pytest.mark.parametrize("fmt", ["json", "ics"])
async def test_export_import_export_is_identical(tmp_path: Path, fmt: str) -> None:
    db, engine = await _engine(tmp_path / "a.db")
    await _fill(engine)
    await db.close()
    first = await _export(tmp_path / "a.db", fmt)
    made, problems = await _import(tmp_path / "b.db", first, fmt)
    assert problems == [] and len(made) == 5
    assert await _export(tmp_path / "b.db", fmt) == first
    restored = json.loads(await _export(tmp_path / "b.db", "json"))["jobs"]
    assert [r["status"] for r in restored].count(JobStatus.PAUSED) == 1
    assert restored[0]["follow_up"] == {"interval_s": 1800, "max": 2}
    assert Audience.from_json(restored[2]["audience"]).users == (81,)  # who it pings survives


async def test_ics_opens_in_icalendar_with_the_same_next_runs(tmp_path: Path) -> None:
    db, engine = await _engine(tmp_path / "a.db")
    await _fill(engine)
    await db.close()
    text = await _export(tmp_path / "a.db", "ics")
    rows = json.loads(await _export(tmp_path / "a.db", "json"))["jobs"]
    calendar = icalendar.Calendar.from_ical(text)
    events = list(calendar.walk("VEVENT"))
    assert len(events) == len(rows)
    for event, row in zip(events, rows, strict=True):
        assert str(event["SUMMARY"]) == row["command"]  # escaping survives a real parser
        schedule = job_files._row_schedule(row)
        ours = schedule.next_runs(NOW, 5)
        start = event.decoded("DTSTART")
        if "RRULE" not in event:
            assert [start] == ours
            continue
        rule = rrulestr(event["RRULE"].to_ical().decode(), dtstart=start)
        excluded = set()
        if "EXDATE" in event:
            for prop in event["EXDATE"] if isinstance(event["EXDATE"], list) else [event["EXDATE"]]:
                excluded |= {d.dt for d in prop.dts}
        theirs = []
        for at in rule.xafter(NOW, count=50):
            if at in excluded or (isinstance(at, datetime) and at.date() in excluded):
                continue
            theirs.append(at)
            if len(theirs) == 5:
                break
        assert theirs == ours, row["command"]
    assert any(isinstance(d, datetime) for e in events for d in [e.decoded("DTSTART")])
    assert date(2026, 11, 26) not in {
        r.date() for r in job_files._row_schedule(rows[1]).next_runs(NOW, 5)
    }


async def test_import_validates_like_create(tmp_path: Path) -> None:
    db, engine = await _engine(tmp_path / "a.db")
    await _fill(engine)
    await db.close()
    rows = json.loads(await _export(tmp_path / "a.db", "json"))["jobs"]
    bad = [
        {**rows[0], "command": "[DELAYED_COMMAND] do it"},
        {**rows[0], "command": "ping @everyone"},
        {
            **rows[2],
            "schedule": {"type": "every", "seconds": 5, "anchor": rows[2]["schedule"]["anchor"]},
        },
        {**rows[0], "schedule": {"type": "once", "at": "2020-01-01T00:00:00+00:00"}},
        {**rows[0], "schedule": {"type": "teleport"}},
        {**rows[0], "owner_id": "me"},
        {**rows[0], "status": "completed"},
        {**rows[0], "tz": "Mars/Olympus"},
    ]
    made, problems = await _import(
        tmp_path / "b.db", json.dumps({"format": "homar-jobs", "version": 1, "jobs": bad}), "json"
    )
    assert made == [] and len(problems) == len(bad)
    assert "DELAYED_COMMAND" in problems[0] and "@everyone" in problems[1]
    assert "seconds apart" in problems[2] and "past" in problems[3]
    for text in ("not json", json.dumps({"jobs": []}), json.dumps([1, 2])):
        with pytest.raises(UserError):
            job_files.from_json(text)
    with pytest.raises(UserError, match="--owner"):
        job_files.from_ics(
            "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VEVENT\r\nUID:x\r\n"
            "DTSTART;TZID=Europe/Berlin:20261201T090000\r\nSUMMARY:dentist\r\n"
            "END:VEVENT\r\nEND:VCALENDAR\r\n"
        )


async def test_a_foreign_calendar_becomes_jobs_for_the_named_owner(tmp_path: Path) -> None:
    ics = (
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//x//y//EN\r\n"
        "BEGIN:VEVENT\r\nUID:a\r\nDTSTAMP:20261101T000000Z\r\n"
        "DTSTART;TZID=Europe/Berlin:20261201T090000\r\nSUMMARY:dentist\r\nEND:VEVENT\r\n"
        "BEGIN:VEVENT\r\nUID:b\r\nDTSTAMP:20261101T000000Z\r\n"
        "DTSTART;TZID=Europe/Berlin:20261124T080000\r\nRRULE:FREQ=WEEKLY;BYDAY=TU\r\n"
        "EXDATE;TZID=Europe/Berlin:20261201T080000\r\nSUMMARY:yoga\r\nEND:VEVENT\r\n"
        "END:VCALENDAR\r\n"
    )
    rows = job_files.from_ics(ics, job_files.Place(owner_id=5, channel_id=50))
    db, engine = await _engine(tmp_path / "c.db")
    try:
        made, problems = await job_files.import_rows(engine, rows)
        assert problems == [] and len(made) == 2
        yoga = await engine.get(made[1])
        runs = job_files._row_schedule(job_files.job_row(yoga)).next_runs(NOW, 2)
        berlin = ZoneInfo("Europe/Berlin")
        assert [r.astimezone(berlin).date() for r in runs] == [
            date(2026, 11, 24),
            date(2026, 12, 8),
        ]
        assert (await engine.get(made[0])).owner_id == 5
    finally:
        await db.close()
