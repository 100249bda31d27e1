"""How jobs look in slash-command answers: embeds, list lines, autocomplete labels."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

import discord

from storage.jobs import JobView
from storage.models import Job, JobRun
from tools.audience import Audience
from tools.engine import schedule_of

COLOUR = discord.Colour.from_rgb(230, 90, 60)


def ts(at: datetime, style: str) -> str:
    return f"<t:{int(at.timestamp())}:{style}>"


def repeat_words(job: JobView) -> str:
    schedule = schedule_of(job)
    return schedule.describe() if schedule.is_recurring else "does not repeat"


def short(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def confirmation(
    job: JobView, *, zone: str, assumed: bool, follow_up: bool = False
) -> discord.Embed:
    """The /remind answer: what, when, repeat, job id."""
    embed = discord.Embed(title=f"⏰ Job #{job.id} scheduled", colour=COLOUR)
    embed.add_field(name="What", value=short(job.command, 1000), inline=False)
    if job.next_run_at is not None:
        embed.add_field(
            name="When", value=f"{ts(job.next_run_at, 'F')} ({ts(job.next_run_at, 'R')})"
        )
    embed.add_field(name="Repeat", value=repeat_words(job), inline=False)
    if follow_up:
        embed.add_field(name="Follow-up", value="I'll nudge you again if you don't answer.")
    footer = f"Job #{job.id} · zone {zone}"
    if assumed:
        footer += " (assumed — use /timezone set to change it)"
    embed.set_footer(text=footer)
    return embed


def job_line(job: JobView) -> str:
    nxt = ts(job.next_run_at, "R") if job.next_run_at else "no next run"
    audience = Audience.from_json(job.audience)
    who = "" if audience.is_default else f" · for {audience.describe()}"
    return (
        f"**#{job.id}** {job.kind} · {nxt} · {repeat_words(job)} · "
        f"“{short(job.command, 80)}” · {job.status}{who}"
    )


def choice_label(job: JobView) -> str:
    """An autocomplete entry (<= 100 chars): "#43 every weekday at 09:00 — post standup…"."""
    schedule = schedule_of(job)
    when = schedule.describe() if schedule.is_recurring else _once_words(job)
    head = f"#{job.id} {when} — "
    return head + short(job.command, max(10, 100 - len(head)))


def _once_words(job: JobView) -> str:
    if job.next_run_at is None:
        return job.status
    local = job.next_run_at.astimezone(schedule_of(job).zone)
    return f"{local:%a %d %b %H:%M}"


SCOPE_TITLES = {"mine": "Your jobs", "thread": "Jobs here", "server": "Jobs in this server"}


def page(jobs: Sequence[Job], *, scope: str, page_no: int) -> discord.Embed:
    embed = discord.Embed(title=SCOPE_TITLES.get(scope, "Jobs"), colour=COLOUR)
    if jobs:
        embed.description = "\n".join(job_line(j) for j in jobs)
    elif page_no == 0:
        embed.description = "Nothing scheduled. Try `/remind when: tomorrow 9am what: call mom`."
    else:
        embed.description = "No more jobs."
    embed.set_footer(text=f"Page {page_no + 1}")
    return embed


def history(job: JobView, runs: Sequence[JobRun]) -> discord.Embed:
    embed = discord.Embed(title=f"Job #{job.id} — last runs", colour=COLOUR)
    lines = []
    for run in runs:
        delivered = ts(run.delivered_at, "f") if run.delivered_at else "—"
        late = f"{(run.lateness_ms or 0) / 1000:.0f}s late" if run.lateness_ms else "on time"
        line = f"{ts(run.scheduled_for, 'f')} → {delivered} · {late} · {run.outcome}"
        details = run.details or {}
        if run.error:
            line += f"\n  ↳ {short(run.error, 120)}"
        for call in details.get("tool_calls", [])[:3]:
            mark = "❌" if call.get("error") else "✅"
            line += f"\n  ↳ {mark} `{short(str(call.get('tool', '?')), 40)}`"
        if details.get("skipped"):
            line += f"\n  ↳ skipped {details['skipped']} missed run(s) while offline"
        if details.get("escalation"):
            line += "\n  ↳ escalated: no answer to the follow-ups, so I sent one DM"
        todos = details.get("todos")
        if isinstance(todos, dict) and (todos.get("finished") or todos.get("open")):
            done = ", ".join(f"#{i}" for i in todos.get("finished", [])) or "none"
            line += f"\n  ↳ to-dos finished: {done}"
            if todos.get("open"):
                line += f"; started, not done: {', '.join(f'#{i}' for i in todos['open'])}"
        lines.append(line)
    embed.description = "\n".join(lines) or "It hasn't run yet."
    embed.set_footer(text=short(f"“{job.command}” · {repeat_words(job)}", 200))
    return embed
