"""Operator commands (`homar jobs …`, `homar status`) on the database, without Discord.

Every change goes through the engine (its limits, checks and wake-ups); the operator acts
with full rights (no actor). Answers reuse the slash commands' wording, rendered for a
terminal: times in DEFAULT_TIMEZONE, and `/jobs pause id: 42` hints as `homar jobs pause 42`.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from pathlib import Path

from bot import job_files
from bot.commands.cards import history as history_card
from bot.commands.cards import next_words, repeat_words
from bot.commands.jobs import new_schedule
from bot.settings import Settings
from bot.slash.when import read_instant
from bot.terminal import TerminalRenderer
from storage.approvals import ApprovalStore
from storage.db import Database
from storage.jobs import JobStore
from tools.errors import UserError
from tools.jobs.engine import Engine
from tools.jobs.model import schedule_of
from tools.schedule import zone

_SLASH_ID = re.compile(r"/jobs ([a-z-]+) id: (\d+)")
_SLASH = re.compile(r"(?<![\w/])/jobs ([a-z-]+)")


@asynccontextmanager
async def opened(settings: Settings) -> AsyncIterator[Engine]:
    db = Database(settings.database_url)
    try:
        await db.upgrade()
        yield Engine(JobStore(db), limits=settings.limits())
    finally:
        await db.close()


def for_terminal(settings: Settings, text: str) -> str:
    """A shared answer as operator text: local times, and CLI words for slash hints."""
    text = _SLASH.sub(r"homar jobs \1", _SLASH_ID.sub(r"homar jobs \1 \2", text))
    renderer = TerminalRenderer(user_id=0, styled=False)
    return renderer.render(text, now=datetime.now(UTC), tz=zone(settings.default_timezone))


async def list_jobs(settings: Settings, *, user: int | None, include_closed: bool) -> list[str]:
    async with opened(settings) as engine:
        jobs = await engine.list_jobs(owner_id=user, include_closed=include_closed, limit=1000)
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


async def show_job(settings: Settings, job_id: int) -> str:
    async with opened(settings) as engine:
        job = await engine.get(job_id)
    schedule = schedule_of(job)
    nxt = job.claimed_slot or job.next_run_at
    lines = [
        f"Job #{job.id} ({job.kind}, {job.status})",
        f"  command:  {job.command}",
        f"  schedule: {schedule.describe()}",
        f"  next run: {next_words(nxt).removeprefix('next ')}"
        + (f" = {nxt:%Y-%m-%d %H:%M:%S} UTC" if nxt else ""),
        f"  runs:     {job.run_count}" + (f" of {job.max_runs}" if job.max_runs else ""),
        f"  owner:    {job.owner_id} in channel {job.channel_id}"
        + (f" (server {job.guild_id})" if job.guild_id else ""),
        f"  created:  {job.created_at:%Y-%m-%d %H:%M} UTC by {job.created_by}",
    ]
    if job.follow_up:
        lines.append(
            f"  follow-up: every {job.follow_up.get('interval_s', '?')} s, "
            f"up to {job.follow_up.get('max', '?')} times"
        )
    if job.fail_reason:
        lines.append(f"  last problem: {job.fail_reason}")
    return for_terminal(settings, "\n".join(lines))


async def change(settings: Settings, action: str, job_id: int) -> str:
    """cancel, pause, resume or run-now, through the engine."""
    async with opened(settings) as engine:
        if action == "cancel":
            job = await engine.cancel(job_id)
            return f"Cancelled job #{job.id}."
        if action == "pause":
            job = await engine.pause(job_id)
            text = f"Paused #{job.id}. `/jobs resume id: {job.id}` restarts it."
            return for_terminal(settings, text)
        if action == "resume":
            job = await engine.resume(job_id)
            return for_terminal(settings, f"Resumed #{job.id} — {next_words(job.next_run_at)}.")
        if action == "run-now":
            job = await engine.run_now(job_id)
            tail = " It then continues on its schedule." if schedule_of(job).is_recurring else ""
            return f"Job #{job.id} is due now; a running bot (or `homar chat`) fires it.{tail}"
    raise UserError(f"Unknown action {action!r}.")


async def history(settings: Settings, job_id: int, limit: int) -> str:
    async with opened(settings) as engine:
        runs = await engine.history(job_id, limit=limit)
        job = await engine.get(job_id)
    card = history_card(job, runs)
    return for_terminal(settings, f"{card.title}\n{card.description}\n{card.footer}")


async def edit(
    settings: Settings, job_id: int, *, when: str | None, what: str | None, repeat: str | None
) -> str:
    async with opened(settings) as engine:
        job = await engine.get(job_id)
        now = datetime.now(UTC)
        schedule = None
        if when is not None or repeat is not None:
            instant = read_instant(when, now=now, tz=job.tz) if when else None
            schedule = new_schedule(
                now=now,
                tz=job.tz,
                job_schedule=schedule_of(job),
                kind=job.kind,
                when=instant,
                repeat=repeat,
                next_run=job.next_run_at,
            )
        job = await engine.update(job_id, command=what, schedule=schedule)
    return for_terminal(
        settings,
        f"Updated #{job.id}: “{job.command[:200]}” — {repeat_words(job)}, "
        f"{next_words(job.next_run_at)}.",
    )


def file_format(path: str, given: str | None) -> str:
    fmt = (given or ("ics" if path.lower().endswith((".ics", ".ical")) else "json")).lower()
    if fmt not in ("json", "ics"):
        raise UserError("Pick `--format json` or `--format ics`.")
    return fmt


async def export_jobs(settings: Settings, *, fmt: str, user: int | None) -> tuple[str, int]:
    async with opened(settings) as engine:
        rows = await job_files.export_rows(engine, owner_id=user)
    return (job_files.to_ics(rows) if fmt == "ics" else job_files.to_json(rows)), len(rows)


async def import_jobs(
    settings: Settings, path: Path, *, fmt: str, place: job_files.Place | None
) -> tuple[list[int], list[str]]:
    try:
        text = await asyncio.to_thread(path.read_text, encoding="utf-8")
    except OSError as exc:
        raise UserError(f"Can't read {path}: {exc.strerror or exc}.") from None
    rows = job_files.from_ics(text, place) if fmt == "ics" else job_files.from_json(text)
    async with opened(settings) as engine:
        return await job_files.import_rows(engine, rows)


async def status_counts(settings: Settings) -> dict[str, int]:
    db = Database(settings.database_url)
    await db.upgrade()
    try:
        health = await JobStore(db).health(datetime.now(UTC))
        approvals = await ApprovalStore(db).count_pending()
    finally:
        await db.close()
    return {
        "pending": health.pending,
        "due": health.due,
        "late": health.late,
        "failed": health.failed,
        "paused": health.paused,
        "approvals": approvals,
        "failed runs (24 h)": health.failed_runs,
        "late runs (24 h)": health.late_runs,
    }
