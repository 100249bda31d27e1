"""How jobs, runs, approvals and to-dos read on the dashboard (plain data for templates)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from bot.web.access import GuildView
from storage.models import Job, JobRun
from tools import followups
from tools.approval import PendingApproval, next_runs
from tools.audience import Audience
from tools.engine import schedule_of
from tools.schedule import zone

RUNS_SHOWN = 5
_DISCORD_TS = re.compile(r"<t:(\d+)(?::[tTdDfFR])?>")
_MENTION = re.compile(r"<(@!?|@&|#)(\d+)>")


def local(at: datetime | None, tz: str) -> str:
    """ "Mon 23 Nov 2026, 09:00" in `tz`."""
    if at is None:
        return "—"
    return f"{at.astimezone(zone(tz)):%a %d %b %Y, %H:%M}"


@dataclass(frozen=True)
class JobCard:
    id: int
    command: str
    kind: str
    status: str
    where: str
    guild_id: int | None
    channel_id: int
    owner_id: int
    own: bool
    schedule: str
    next_run: str
    next_run_iso: str
    follow_up: str
    audience: str
    created_by: str
    next_runs: list[str] = field(default_factory=list)


def where_of(job: Job, view: GuildView) -> str:
    if job.guild_id is None:
        return "Direct messages"
    guild = view.guild_name(job.guild_id) or f"Server {job.guild_id}"
    channel = view.channel_name(job.channel_id) or str(job.channel_id)
    return f"{guild} · #{channel}"


def plain_mentions(text: str, view: GuildView) -> str:
    """Discord mention markup as readable names ("<@1>" → "@alice", "<#2>" → "#general")."""

    def name(m: re.Match[str]) -> str:
        kind, ident = m.group(1), int(m.group(2))
        if kind == "#":
            return f"#{view.channel_name(ident) or ident}"
        if kind == "@&":
            return f"@role {ident}"
        return f"@{view.user_name(ident) or ident}"

    return _MENTION.sub(name, text)


def audience_words(job: Job, view: GuildView, *, own: bool) -> str:
    """Who the job pings and where, from the stored audience (the owner by default)."""
    words = Audience.from_json(job.audience).describe()
    if not own:
        words = re.sub(r"^you\b", "the owner", words)
    return plain_mentions(words, view)


def follow_up_words(job: Job, tz: str) -> str:
    config = followups.config_of(job)
    if config is None:
        return "none"
    minutes = int(config.interval.total_seconds() // 60)
    words = f"every {minutes} min, up to {config.max} times"
    if config.escalate == "dm":
        words += ", then one DM"
    state = followups.awaiting(job)
    if state is not None:
        words += f" — waiting for your answer ({state.get('sent', 0)} sent)"
    elif followups.SNOOZED in (job.meta or {}):
        words += " — snoozed"
    return words


def card(
    job: Job, *, viewer_id: int, tz: str, view: GuildView, now: datetime, runs: int = 0
) -> JobCard:
    schedule = schedule_of(job)
    upcoming: list[str] = []
    if runs and job.status == "active":
        upcoming = [local(at, tz) for at in next_runs(schedule, now, runs)]
    return JobCard(
        id=job.id,
        command=job.command,
        kind=job.kind,
        status=job.status,
        where=where_of(job, view),
        guild_id=job.guild_id,
        channel_id=job.channel_id,
        owner_id=job.owner_id,
        own=job.owner_id == viewer_id,
        schedule=schedule.describe(),
        next_run=local(job.next_run_at, tz) if job.status == "active" else "—",
        next_run_iso=job.next_run_at.isoformat() if job.next_run_at else "",
        follow_up=follow_up_words(job, tz),
        audience=audience_words(job, view, own=job.owner_id == viewer_id),
        created_by=job.created_by,
        next_runs=upcoming,
    )


@dataclass(frozen=True)
class RunEntry:
    when: str
    delivered: str
    outcome: str
    late: str
    attempt: int
    kind: str
    error: str
    notes: list[str]


def timeline(runs: Sequence[JobRun], tz: str) -> list[RunEntry]:
    out: list[RunEntry] = []
    for run in runs:
        details: dict[str, Any] = run.details or {}
        notes: list[str] = []
        for call in details.get("tool_calls", [])[:5]:
            mark = "failed" if call.get("error") else "ok"
            notes.append(f"called {call.get('tool', '?')} ({mark})")
        if details.get("skipped"):
            notes.append(f"skipped {details['skipped']} missed run(s) while offline")
        if details.get("escalation"):
            notes.append("escalated: no answer to the follow-ups, so one DM was sent")
        late_ms = run.lateness_ms or 0
        out.append(
            RunEntry(
                when=local(run.scheduled_for, tz),
                delivered=local(run.delivered_at, tz),
                outcome=run.outcome,
                late=f"{late_ms / 1000:.0f} s late" if late_ms > 0 else "on time",
                attempt=run.attempt,
                kind=run.kind,
                error=run.error or "",
                notes=notes,
            )
        )
    return out


@dataclass(frozen=True)
class ApprovalCard:
    id: int
    proposal: str
    expires: str


def approval_card(pending: PendingApproval, tz: str) -> ApprovalCard:
    """The proposal as plain text: Discord timestamps become local times, fences go."""
    text = _DISCORD_TS.sub(
        lambda m: local(datetime.fromtimestamp(int(m.group(1)), tz=zone("UTC")), tz),
        pending.proposal,
    )
    text = text.replace("```", "").replace("**", "")
    return ApprovalCard(pending.approval_id, text.strip(), local(pending.expires_at, tz))
