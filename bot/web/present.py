"""How jobs, runs, approvals and to-dos read on the dashboard (plain data for templates)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from bot.web.access import GuildView
from storage.jobs import Job, Run
from tools.approval import PendingApproval, next_runs
from tools.audience import Audience
from tools.jobs import reminders as followups
from tools.jobs.model import FollowUpState, schedule_of
from tools.schedule import zone

RUNS_SHOWN = 5
_DISCORD_TS = re.compile(r"<t:(\d+)(?::[tTdDfFR])?>")
_RELATIVE_AFTER = re.compile(r"\s*\(<t:\d+:R>\)")
_MENTION = re.compile(r"<(@!?|@&|#)(\d+)>")
# A role or channel name the agent's resolver reads after @ or # (`bot/audience.py`).
_TYPED_NAME = re.compile(r"[\w.-]{1,100}")
_TYPED_PERSON = re.compile(r"(?<![<\w])@([\w.-]{1,100})")


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
            return f"@{view.role_name(ident) or f'role {ident}'}"
        return f"@{view.user_name(ident) or ident}"

    return _MENTION.sub(name, text)


def audience_words(job: Job, view: GuildView, *, own: bool) -> str:
    """Who the job pings and where, from the stored audience (the owner by default)."""
    words = Audience.from_json(job.audience).describe()
    if not own:
        words = re.sub(r"^you\b", "the owner", words)
    return plain_mentions(words, view)


def audience_text(audience: Audience, guild_id: int | None, view: GuildView) -> str:
    """The audience as one would type it in the edit form (and as the agent's resolver reads
    it): `me`, `<@1>`, `@role`, `#channel`, `@everyone`, `dm`. Names only where they are
    unambiguous in the server; otherwise the mention itself."""
    roles = view.roles(guild_id) if guild_id is not None else {}
    channels = view.text_channels(guild_id) if guild_id is not None else {}
    named = {i: n for n, i in people_by_name(audience, guild_id, view).items()}
    parts = ["me"] if audience.owner else []
    parts += [f"@{view.user_name(u)}" if u in named else f"<@{u}>" for u in audience.users]
    parts += [_typed(roles, r, "@", f"<@&{r}>") for r in audience.roles]
    if audience.everyone:
        parts.append("@everyone")
    if audience.here:
        parts.append("@here")
    if audience.channel_id is not None:
        c = audience.channel_id
        parts.append(_typed(channels, c, "#", f"<#{c}>"))
    if audience.dm:
        parts.append("dm")
    return " ".join(parts)


def people_by_name(audience: Audience, guild_id: int | None, view: GuildView) -> dict[str, int]:
    """The job's people one may keep typing as `@name` (casefolded name → id).

    Discord can't look a member up by name without the members intent, so the resolver
    only finds names it has seen; the people already pinged are known here, by id. A name
    shared with a role, @everyone/@here or another of them stays a mention (`<@id>`).
    """
    taken = {n.casefold() for n in view.roles(guild_id).values()} if guild_id else set()
    taken |= {"everyone", "here"}
    names: dict[str, list[int]] = {}
    for user_id in audience.users:
        name = view.user_name(user_id)
        if name is not None and _TYPED_NAME.fullmatch(name) and name.casefold() not in taken:
            names.setdefault(name.casefold(), []).append(user_id)
    return {name: ids[0] for name, ids in names.items() if len(ids) == 1}


def with_known_people(typed: str, known: dict[str, int]) -> str:
    """`@name` of someone the job already pings, as the mention the resolver reads."""

    def mention(m: re.Match[str]) -> str:
        user_id = known.get(m.group(1).casefold())
        return f"<@{user_id}>" if user_id is not None else m.group(0)

    return _TYPED_PERSON.sub(mention, typed)


def _typed(names: dict[int, str], ident: int, sigil: str, mention: str) -> str:
    """`@team` when that name finds exactly this one (the resolver ignores case), else the
    mention."""
    name = names.get(ident)
    if name is None or not _TYPED_NAME.fullmatch(name):
        return mention
    same = [i for i, n in names.items() if n.casefold() == name.casefold()]
    return f"{sigil}{name}" if same == [ident] else mention


def places(guild_id: int | None, view: GuildView) -> str:
    """What one may name in the job's server (a hint under the audience field)."""
    if guild_id is None:
        return ""
    roles = sorted(f"@{n}" for n in view.roles(guild_id).values())
    channels = sorted(f"#{n}" for n in view.text_channels(guild_id).values())
    return " · ".join(
        part
        for part in (
            f"roles: {', '.join(roles[:30])}" if roles else "",
            f"channels: {', '.join(channels[:30])}" if channels else "",
        )
        if part
    )


@dataclass(frozen=True)
class FollowUpForm:
    """A job's follow-up settings as the edit form shows them."""

    on: bool
    every: str
    times: int
    escalate: bool


def follow_up_form(job: Job) -> FollowUpForm:
    config = followups.config_of(job)
    if config is None:
        return FollowUpForm(False, "30 minutes", 2, False)
    # Exact, so saving the form unchanged changes nothing ("90 seconds", not "1 minute").
    seconds = int(config.interval.total_seconds())
    if seconds % 3600 == 0:
        every = _count(seconds // 3600, "hour")
    elif seconds % 60 == 0:
        every = _count(seconds // 60, "minute")
    else:
        every = _count(seconds, "second")
    return FollowUpForm(True, every, config.max, config.escalate == "dm")


def _count(n: int, unit: str) -> str:
    return f"{n} {unit}{'s' if n != 1 else ''}"


def follow_up_words(job: Job, tz: str, *, own: bool = True) -> str:
    config = followups.config_of(job)
    if config is None:
        words = "none"
    else:
        minutes = int(config.interval.total_seconds() // 60)
        words = f"every {minutes} min, up to {config.max} times"
        if config.escalate == "dm":
            words += ", then one DM"
    whose = "your" if own else "the owner's"
    state = FollowUpState.of(job)
    if state.awaiting is not None:
        # `attempt` is the next one to send; the reminder itself was the first.
        sent = max(1, state.awaiting.attempt - 1)
        words += f" — waiting for {whose} answer ({sent} sent)"
    elif state.snoozed is not None:
        words += " — snoozed"
    return words


def plain_discord(text: str, tz: str) -> str:
    """Discord markup as page text: timestamps become local times, bold and fences go.

    A relative stamp after an absolute one ("<t:1:F> (<t:1:R>)") would repeat the same
    local time, so it is dropped.
    """
    text = _RELATIVE_AFTER.sub("", text)
    text = _DISCORD_TS.sub(
        lambda m: local(datetime.fromtimestamp(int(m.group(1)), tz=zone("UTC")), tz), text
    )
    return text.replace("```", "").replace("**", "").strip()


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
        follow_up=follow_up_words(job, tz, own=job.owner_id == viewer_id),
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


def timeline(runs: Sequence[Run], tz: str) -> list[RunEntry]:
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
    text = plain_discord(pending.proposal, tz)
    return ApprovalCard(pending.approval_id, text, local(pending.expires_at, tz))
