"""How jobs read in command answers: list lines, confirmations, history, autocomplete labels.

Times are `<t:…>` tokens; Discord shows them natively, the terminal renders them.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from bot.commands import Card
from storage.jobs import Job, Run
from tools.audience import Audience
from tools.jobs.model import schedule_of
from tools.schedule import stamp, timestamp


def repeat_words(job: Job) -> str:
    schedule = schedule_of(job)
    return schedule.describe() if schedule.is_recurring else "does not repeat"


def short(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def next_words(job_next: datetime | None) -> str:
    return f"next {stamp(job_next)}" if job_next else "no next run"


def confirmation(job: Job, *, zone: str, assumed: bool, follow_up: bool = False) -> Card:
    """The /remind answer: what, when, repeat, job id."""
    fields = [("What", short(job.command, 1000))]
    if job.next_run_at is not None:
        fields.append(("When", stamp(job.next_run_at)))
    fields.append(("Repeat", repeat_words(job)))
    if follow_up:
        fields.append(("Follow-up", "I'll nudge you again if you don't answer."))
    footer = f"Job #{job.id} · zone {zone}"
    if assumed:
        footer += " (assumed — use /timezone set to change it)"
    return Card(f"⏰ Job #{job.id} scheduled", fields=tuple(fields), footer=footer)


def job_line(job: Job) -> str:
    nxt = timestamp(job.next_run_at, "R") if job.next_run_at else "no next run"
    audience = Audience.from_json(job.audience)
    who = "" if audience.is_default else f" · for {audience.describe()}"
    return (
        f"**#{job.id}** {job.kind} · {nxt} · {repeat_words(job)} · "
        f"“{short(job.command, 80)}” · {job.status}{who}"
    )


def choice_label(job: Job) -> str:
    """An autocomplete entry (<= 100 chars): "#43 every weekday at 09:00 — post standup…"."""
    schedule = schedule_of(job)
    when = schedule.describe() if schedule.is_recurring else _once_words(job)
    head = f"#{job.id} {when} — "
    return head + short(job.command, max(10, 100 - len(head)))


def _once_words(job: Job) -> str:
    if job.next_run_at is None:
        return job.status
    local = job.next_run_at.astimezone(schedule_of(job).zone)
    return f"{local:%a %d %b %H:%M}"


SCOPE_TITLES = {"mine": "Your jobs", "thread": "Jobs here", "server": "Jobs in this server"}


def page(jobs: Sequence[Job], *, scope: str, page_no: int) -> Card:
    if jobs:
        description = "\n".join(job_line(j) for j in jobs)
    elif page_no == 0:
        description = "Nothing scheduled. Try `/remind when: tomorrow 9am what: call mom`."
    else:
        description = "No more jobs."
    return Card(
        SCOPE_TITLES.get(scope, "Jobs"), description=description, footer=f"Page {page_no + 1}"
    )


def history(job: Job, runs: Sequence[Run]) -> Card:
    lines = []
    for run in runs:
        delivered = timestamp(run.delivered_at, "f") if run.delivered_at else "—"
        late = f"{(run.lateness_ms or 0) / 1000:.0f}s late" if run.lateness_ms else "on time"
        line = f"{timestamp(run.scheduled_for, 'f')} → {delivered} · {late} · {run.outcome}"
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
    return Card(
        f"Job #{job.id} — last runs",
        description="\n".join(lines) or "It hasn't run yet.",
        footer=short(f"“{job.command}” · {repeat_words(job)}", 200),
    )
