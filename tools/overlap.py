"""Jobs that overlap a new one (seed 004): duplicates to ask about, same-minute neighbours.

Before the agent proposes or creates a job it looks at the owner's open jobs in the
same thread:

- a **duplicate** has the same command (compared normalised) and a schedule that shares
  at least one run minute with the new one, or is an interval of the same period: the
  user is asked "replace it, keep both, or cancel?" and nothing is created yet;
- a **neighbour** is any other of those jobs with a run in the same minute as one of the
  new job's runs: the confirmation mentions it.

Neither blocks on its own: the answer to the question decides (see `DuplicateChoice`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Literal

from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    ToolCallPart,
    ToolReturnPart,
)

from storage.jobs import Job
from storage.models import JobKind
from tools.jobs.engine import Engine
from tools.jobs.limits import normalize_command
from tools.jobs.model import schedule_of
from tools.schedule import Cron, Every, Schedule, timestamp

# How far ahead runs are compared, and how many runs of each job at most. Duplicates (few:
# same command only) look at a year of a daily job; same-minute neighbours (every job in
# the thread) at the new job's next 50 runs, which keeps a creation among 50 jobs cheap.
HORIZON = timedelta(days=370)
SAMPLE = 400
NEIGHBOUR_SAMPLE = 50

DuplicateChoice = Literal["ask", "replace", "keep_both"]


@dataclass(frozen=True)
class Neighbour:
    """Another job of the owner's running in the same minute as the new one, first at `at`."""

    job: Job
    at: datetime


async def thread_jobs(engine: Engine, owner_id: int, channel_id: int) -> list[Job]:
    """The owner's open jobs in this thread (heartbeats aside: they only wake the thread)."""
    jobs = await engine.list_jobs(owner_id=owner_id, channel_id=channel_id, limit=SAMPLE)
    return [j for j in jobs if j.kind != JobKind.HEARTBEAT]


def run_minutes(
    schedule: Schedule,
    now: datetime,
    *,
    runs_done: int = 0,
    limit: int = SAMPLE,
    end: datetime | None = None,
) -> set[datetime]:
    """The schedule's next `limit` runs up to `end` (default: HORIZON), as UTC minutes."""
    end = end or now + HORIZON
    out: set[datetime] = set()
    for at in schedule.next_runs(now, limit, runs_done=runs_done, end=end):
        out.add(at.astimezone(UTC).replace(second=0, microsecond=0))
    return out


def _job_minutes(
    job: Job, now: datetime, limit: int = SAMPLE, end: datetime | None = None
) -> set[datetime]:
    try:
        return run_minutes(schedule_of(job), now, runs_done=job.run_count, limit=limit, end=end)
    except Exception:  # a stored schedule that no longer reads is nobody's neighbour
        return set()


def _same_period(a: Schedule, b: Schedule) -> bool:
    return (
        isinstance(a.spec, Every) and isinstance(b.spec, Every) and a.spec.seconds == b.spec.seconds
    )


def duplicates(jobs: Iterable[Job], command: str, schedule: Schedule, now: datetime) -> list[Job]:
    """Open jobs with the same command whose schedule overlaps `schedule`."""
    wanted = normalize_command(command)
    mine = run_minutes(schedule, now)
    found = []
    for job in jobs:
        if normalize_command(job.command) != wanted:
            continue
        if _same_period(schedule_of(job), schedule) or mine & _job_minutes(job, now):
            found.append(job)
    return found


def neighbours(
    jobs: Iterable[Job], schedule: Schedule, now: datetime, *, skip: Sequence[int] = ()
) -> list[Neighbour]:
    """Jobs (other than `skip`) with a run in the same minute as one of `schedule`'s next
    NEIGHBOUR_SAMPLE runs."""
    mine = sorted(run_minutes(schedule, now, limit=NEIGHBOUR_SAMPLE))
    if not mine:
        return []
    found = []
    for job in jobs:
        if job.id in skip:
            continue
        try:
            at = _first_shared(schedule_of(job), job.run_count, mine, now)
        except Exception:  # a stored schedule that no longer reads is nobody's neighbour
            continue
        if at is not None:
            found.append(Neighbour(job, at))
    return sorted(found, key=lambda n: (n.at, n.job.id))


def _first_shared(
    other: Schedule, runs_done: int, minutes: list[datetime], now: datetime
) -> datetime | None:
    """The first of `minutes` (sorted UTC minutes) in which `other` runs.

    Cron and intervals are checked minute by minute (cheap, however dense the other job
    is); rrules and one-offs by listing their runs up to the last minute.
    """
    minutes = [m for m in minutes if other.until is None or m <= other.until]
    spec = other.spec
    if isinstance(spec, Cron):
        return next((m for m in minutes if spec.matches(m.astimezone(other.zone))), None)
    if isinstance(spec, Every) and not spec.whole_days:
        step = timedelta(seconds=spec.seconds)
        for m in minutes:
            k = max(0, -((spec.anchor - m) // step))  # the first run at or after m
            if spec.anchor + k * step < m + timedelta(minutes=1):
                return m
        return None
    end = minutes[-1] + timedelta(minutes=1) if minutes else now
    theirs = run_minutes(other, now, runs_done=runs_done, end=end)
    return next((m for m in minutes if m in theirs), None)


def describe(job: Job) -> str:
    """`#12 “post standup” every weekday at 09:00 (Europe/Berlin)` for a question or a note."""
    schedule = schedule_of(job)
    if schedule.is_recurring:
        when = schedule.describe()
    elif job.next_run_at is not None:
        when = f"at {timestamp(job.next_run_at)}"
    else:
        when = f"({job.status})"
    command = job.command if len(job.command) <= 80 else job.command[:79] + "…"
    return f"#{job.id} “{command}” {when}"


def question(found: Sequence[Job]) -> str:
    """What the user is asked when the new job duplicates `found`."""
    first = found[0]
    more = f" (and {len(found) - 1} more like it)" if len(found) > 1 else ""
    return (
        f"You already have {describe(first)}{more} — replace it, keep both, or cancel? "
        "Nothing is scheduled until you answer."
    )


def note(found: Sequence[Neighbour]) -> str:
    """The confirmation's heads-up about jobs landing in the same minute."""
    if not found:
        return ""
    first = found[0]
    more = f" and {len(found) - 1} more of your jobs" if len(found) > 1 else ""
    return (
        f"\nHeads-up: {describe(first.job)}{more} also runs at "
        f"{timestamp(first.at)}, the same minute."
    )


# ---------------------------------------------------------------- the answer, next turn

QUESTION_MARK = "replace it, keep both, or cancel?"
_ANSWER = re.compile(
    r"^(?:(?:yes|yeah|ok|okay|sure|please)[,!]?\s+)*"
    r"(?P<choice>replace(?: it| the old one| that one)?|swap(?: it)?|keep (?:them )?both|both"
    r"|cancel(?: it| that)?|never ?mind|forget it|no|nope)"
    r"(?:,?\s+(?:please|thanks|thank you))?$",
    re.I,
)


def choice_of(text: str) -> DuplicateChoice | Literal["cancel"] | None:
    """What an answer to the duplicate question chose, or None if it isn't one."""
    m = _ANSWER.match(" ".join(text.split()).strip(" .!"))
    if m is None:
        return None
    word = m["choice"].lower()
    if word.startswith(("replace", "swap")):
        return "replace"
    if "both" in word:
        return "keep_both"
    return "cancel"


def asked_call(messages: Sequence[ModelMessage]) -> ToolCallPart | None:
    """The tool call my previous turn answered with the duplicate question, if it did.

    `messages` end with the current user prompt; only the turn right before it counts.
    """
    calls: dict[str, ToolCallPart] = {}
    for m in messages[:-1]:
        if isinstance(m, ModelResponse):
            calls.update({p.tool_call_id: p for p in m.parts if isinstance(p, ToolCallPart)})
    for m in reversed(messages[:-1]):
        if not isinstance(m, ModelRequest):
            continue
        for part in m.parts:
            if isinstance(part, ToolReturnPart) and QUESTION_MARK in part.model_response_str():
                return calls.get(part.tool_call_id)
        return None  # the turn before was something else
    return None


def answer(messages: Sequence[ModelMessage], text: str) -> tuple[str, dict[str, Any]] | str | None:
    """For a model without judgement (the offline one): the user's answer to the question
    as the call to make again (with `on_duplicate`), or the reply to a "cancel"; None if
    `text` doesn't answer a question asked in the turn before."""
    choice = choice_of(text)
    if choice is None:
        return None
    call = asked_call(messages)
    if call is None:
        return None
    if choice == "cancel":
        return "Okay — I scheduled nothing new; your existing job stays as it is."
    return call.tool_name, {**call.args_as_dict(), "on_duplicate": choice}
