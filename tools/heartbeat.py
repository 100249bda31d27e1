"""A thread's heartbeat: one recurring job of kind `heartbeat` per thread, on, off or changed.

The job only wakes the thread; what a beat does (start the agent on the oldest pending
to-do when the thread is idle, else nothing) lives in the bot layer (`bot.heartbeat`).
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from typing import Any

from storage.jobs import Job
from storage.models import JobKind, JobStatus
from storage.todos import TodoItem
from tools import timeparse
from tools.errors import UserError, quoted
from tools.jobs.engine import Engine
from tools.jobs.model import Actor, Target
from tools.schedule import Every, Schedule

HEARTBEAT_COMMAND = "heartbeat: work through this thread's to-do list when idle"
DEFAULT_EVERY = timedelta(minutes=30)
MIN_EVERY = timedelta(minutes=5)
MAX_EVERY = timedelta(days=7)


def parse_every(text: str | None) -> timedelta:
    """`every:` as typed ("30 minutes", "1h", "45"; bare numbers are minutes), checked."""
    if text is None or not text.strip():
        return DEFAULT_EVERY
    cleaned = re.sub(r"^(every|each)\s+", "", text.strip(), flags=re.I)
    every = timeparse.parse_duration(cleaned + " minutes" if cleaned.isdigit() else cleaned)
    if every is None:
        raise UserError(
            f"I couldn't read {quoted(text)} as `every`; try `30 minutes`, `1h` or `45`."
        )
    check_every(every)
    return every


def check_every(every: timedelta) -> None:
    if every < MIN_EVERY:
        raise UserError("The heartbeat can beat at most every 5 minutes; try `every: 5 minutes`.")
    if every > MAX_EVERY:
        raise UserError("The heartbeat must beat at least once a week; try `every: 1 day`.")


def heartbeat_schedule(every: timedelta, now: datetime, tz: str) -> Schedule:
    seconds = int(every.total_seconds())
    return Schedule(Every(seconds, now + timedelta(seconds=seconds)), tz)


def every_words(every: timedelta) -> str:
    minutes = int(every.total_seconds()) // 60
    for unit, size in (("day", 1440), ("hour", 60)):
        if minutes % size == 0:
            n = minutes // size
            return f"every {n} {unit}s" if n != 1 else f"every {unit}"
    return f"every {minutes} minutes"


def interval_of(job: Job) -> timedelta:
    return timedelta(seconds=int(job.schedule.get("seconds", 0)))


async def find(engine: Engine, channel_id: int) -> Job | None:
    """The thread's open heartbeat job, if it has one."""
    jobs = await engine.list_jobs(channel_id=channel_id, limit=500)
    return next((j for j in jobs if j.kind == JobKind.HEARTBEAT), None)


async def enable(
    engine: Engine,
    target: Target,
    every: timedelta,
    tz: str,
    actor: Actor,
    *,
    created_by: str = "user",
    meta: dict[str, Any] | None = None,
) -> Job:
    """Start the thread's heartbeat, or change its interval (and resume it) if it has one."""
    check_every(every)
    schedule = heartbeat_schedule(every, engine.clock(), tz)
    existing = await find(engine, target.channel_id)
    if existing is None:
        return await engine.create(
            target=target,
            command=HEARTBEAT_COMMAND,
            schedule=schedule,
            kind=JobKind.HEARTBEAT,
            created_by=created_by,
            meta=meta,
        )
    job = await engine.update(existing.id, actor, schedule=schedule)
    if job.status == JobStatus.PAUSED:
        job = await engine.resume(job.id, actor)
    return job


async def disable(engine: Engine, channel_id: int, actor: Actor) -> Job | None:
    """Stop the thread's heartbeat; None if it had none."""
    existing = await find(engine, channel_id)
    if existing is None:
        return None
    return await engine.cancel(existing.id, actor)


# ---------------------------------------------------------------- one beat, several to-dos

MAX_CHAIN = 5  # to-dos one beat may work through (each costs model requests)
CHAIN_WINDOW = timedelta(minutes=10)


def chain_budget(every: timedelta) -> timedelta:
    """How long after a beat started the next to-do may still be started in the same beat:
    half the interval (so beats never pile up), at most CHAIN_WINDOW."""
    return min(every / 2, CHAIN_WINDOW)


def chain_summary(finished: list[TodoItem], open_started: list[TodoItem], waiting: int) -> str:
    """The one line a beat ends with: what it finished, what it started and left open."""
    parts = []
    if finished:
        parts.append("finished " + ", ".join(f"#{i.id} “{i.description}”" for i in finished))
    if open_started:
        started = ", ".join(f"#{i.id} “{i.description}”" for i in open_started)
        parts.append(f"started {started} (not done yet)")
    if waiting:
        parts.append(f"{waiting} more to-do{'s' if waiting != 1 else ''} for the next beat")
    return "💓 Heartbeat: " + "; ".join(parts) + "." if parts else ""
