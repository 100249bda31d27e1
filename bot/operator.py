"""Operator commands that work on the database directly, without Discord."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlalchemy import ColumnElement, Select, func, select

from bot.settings import Settings
from storage.db import Database
from storage.jobs import JobStore
from storage.models import Job, JobStatus
from tools.engine import Engine, schedule_of
from tools.errors import UserError


async def _open(settings: Settings) -> tuple[Database, Engine]:
    db = Database(settings.database_url)
    await db.upgrade()
    return db, Engine(JobStore(db), limits=settings.limits())


async def list_jobs(settings: Settings, *, user: int | None, include_closed: bool) -> list[str]:
    db, engine = await _open(settings)
    try:
        jobs = await engine.list_jobs(owner_id=user, include_closed=include_closed, limit=1000)
    finally:
        await db.close()
    if not jobs:
        return ["No jobs." if include_closed else "No scheduled jobs."]
    lines = [f"{'id':>6}  {'kind':<9} {'next run (UTC)':<17} {'status':<16} {'owner':<20} command"]
    for job in jobs:
        nxt = f"{job.next_run_at:%Y-%m-%d %H:%M}" if job.next_run_at else "-"
        text = job.command.replace("\n", " ")
        if len(text) > 60:
            text = text[:59] + "…"
        lines.append(
            f"{job.id:>6}  {job.kind:<9} {nxt:<17} {job.status:<16} {job.owner_id:<20} {text}"
            f"  [{schedule_of(job).describe()}]"
        )
    return lines


async def cancel_job(settings: Settings, job_id: int) -> tuple[bool, str]:
    db, engine = await _open(settings)
    try:
        await engine.cancel(job_id)
    except UserError as exc:
        return False, exc.message
    finally:
        await db.close()
    return True, f"Cancelled job #{job_id}."


async def status_counts(settings: Settings) -> dict[str, int]:
    db = Database(settings.database_url)
    await db.upgrade()
    now = datetime.now(UTC)
    try:
        async with db.session() as s:

            def count(*where: ColumnElement[bool]) -> Select[int]:
                return select(func.count(Job.id)).where(*where)

            active = Job.status == JobStatus.ACTIVE
            pending = await s.scalar(count(active))
            due = await s.scalar(count(active, Job.next_run_at <= now))
            late = await s.scalar(count(active, Job.next_run_at <= now - timedelta(minutes=1)))
            failed = await s.scalar(count(Job.status == JobStatus.FAILED))
            paused = await s.scalar(count(Job.status == JobStatus.PAUSED))
    finally:
        await db.close()
    return {
        "pending": int(pending or 0),
        "due": int(due or 0),
        "late": int(late or 0),
        "failed": int(failed or 0),
        "paused": int(paused or 0),
    }
