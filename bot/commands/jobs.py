"""/jobs: list, cancel, pause, resume, edit, history and run-now."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import replace
from datetime import datetime
from typing import Any

from bot.commands import Answer, Caller, Page
from bot.commands.cards import history as history_card
from bot.commands.cards import next_words, page, repeat_words
from bot.commands.remind import follow_up_config
from bot.slash.when import Instant, plan, read_until, wants_repeat
from storage.jobs import Job
from storage.models import JobKind
from tools.audience import Audience
from tools.errors import NotAllowed, UserError
from tools.jobs.model import schedule_of
from tools.schedule import Every, Schedule

PAGE_SIZE = 10
SCOPES = ("mine", "thread", "server")
# The kinds /remind makes: the ones whose runs remind someone, so nagging makes sense.
NAGGING_KINDS = (JobKind.REMINDER, JobKind.RECURRING, JobKind.INTERVAL)


def check_scope(caller: Caller, scope: str) -> None:
    if scope not in SCOPES:
        raise UserError("Pick a scope: `mine`, `thread` or `server`.")
    if scope == "server":
        if not caller.in_guild:
            raise UserError("`server` only works inside a server; try `/jobs list scope: mine`.")
        if not caller.actor.manage_messages:
            raise NotAllowed(
                "Listing everyone's jobs needs the Manage Messages permission; "
                "try `/jobs list scope: mine`."
            )


async def fetch_page(caller: Caller, scope: str, page_no: int) -> tuple[list[Job], bool]:
    """The jobs on `page_no` (soonest due first) and whether another page follows."""
    check_scope(caller, scope)
    engine = caller.runtime.engine
    offset = max(0, page_no) * PAGE_SIZE
    if scope == "thread":
        jobs = await engine.list_jobs(
            channel_id=caller.channel_id, limit=PAGE_SIZE + 1, offset=offset
        )
    elif scope == "server":
        jobs = await engine.list_jobs(
            guild_id=caller.actor.guild_id, limit=PAGE_SIZE + 1, offset=offset
        )
    else:
        jobs = await engine.list_jobs(owner_id=caller.user_id, limit=PAGE_SIZE + 1, offset=offset)
    return jobs[:PAGE_SIZE], len(jobs) > PAGE_SIZE


async def list_page(caller: Caller, scope: str = "mine", page_no: int = 0) -> Answer:
    jobs, more = await fetch_page(caller, scope, page_no)
    return Answer(card=page(jobs, scope=scope, page_no=page_no), page=Page(scope, page_no, more))


async def cancel(caller: Caller, job_id: int) -> Answer:
    job = await caller.runtime.engine.cancel(job_id, caller.actor)
    return Answer(f"Cancelled #{job.id}: “{job.command[:200]}”.")


async def pause(caller: Caller, job_id: int) -> Answer:
    job = await caller.runtime.engine.pause(job_id, caller.actor)
    return Answer(f"Paused #{job.id}. `/jobs resume id: {job.id}` restarts it.")


async def resume(caller: Caller, job_id: int) -> Answer:
    job = await caller.runtime.engine.resume(job_id, caller.actor)
    return Answer(f"Resumed #{job.id} — {next_words(job.next_run_at)}.")


async def edit(
    caller: Caller,
    job_id: int,
    *,
    when: Instant | None = None,
    what: str | None = None,
    repeat: str | None = None,
    until: str | None = None,
    audience: Audience | None = None,
    check_audience: Callable[[Audience], Awaitable[None]] | None = None,
    follow_up: dict[str, Any] | None = None,
) -> Answer:
    """Change a job: only what is given (and differs) changes.

    A new `audience` other than just the owner goes through `check_audience` (the surface's
    check against Discord) before anything changes, as with `/remind to:`; `follow_up` is
    the new nagging config (`follow_up_config`), `{}` to stop nagging.
    """
    engine = caller.runtime.engine
    job = await engine.get(job_id, caller.actor)
    now = caller.runtime.clock.now()
    schedule = None
    if when is not None or repeat is not None:
        schedule = new_schedule(
            now=now,
            tz=caller.zone.name,
            job_schedule=schedule_of(job),
            kind=job.kind,
            when=when,
            repeat=repeat,
            next_run=job.next_run_at,
        )
    if until is not None:
        schedule = with_end(schedule or schedule_of(job), until, now=now)
    if audience is not None:
        current = Audience.from_json(job.audience)
        # People who pressed "Notify me too" stay while it is still a broadcast.
        audience = replace(audience, joined=current.joined if audience.broadcast else ())
        if audience == current:
            audience = None
        elif not audience.is_default:
            if check_audience is None:
                raise UserError("Only the owner can be reminded from here; use Discord.")
            await check_audience(audience)  # a refused audience changes nothing
    if follow_up is not None:
        if follow_up == (job.follow_up or {}):
            follow_up = None
        elif follow_up and job.kind not in NAGGING_KINDS:
            raise UserError(
                "Follow-ups are for reminders; this job runs a command. Make a reminder "
                "with `/remind … follow_up: True` instead."
            )
    job = await engine.update(
        job_id,
        caller.actor,
        command=what,
        schedule=schedule,
        audience=audience,
        follow_up=follow_up,
    )
    return Answer(
        f"Updated #{job.id}: “{job.command[:200]}” — {repeat_words(job)}, "
        f"{next_words(job.next_run_at)}."
    )


async def history(caller: Caller, job_id: int) -> Answer:
    engine = caller.runtime.engine
    runs = await engine.history(job_id, caller.actor, limit=10)
    job = await engine.get(job_id, caller.actor)
    return Answer(card=history_card(job, runs))


async def run_now(caller: Caller, job_id: int) -> Answer:
    job = await caller.runtime.engine.run_now(job_id, caller.actor)
    tail = " It then continues on its schedule." if schedule_of(job).is_recurring else ""
    return Answer(f"Running #{job.id} now.{tail}")


def new_schedule(
    *,
    now: datetime,
    tz: str,
    job_schedule: Schedule,
    kind: str,
    when: Instant | None,
    repeat: str | None,
    next_run: datetime | None,
) -> Schedule:
    """The edited schedule: a new time keeps the repeat, a new repeat keeps the time."""
    if when is not None:
        start = when
    elif next_run is not None:
        start = Instant(next_run, tz, "")
    else:
        raise UserError("That job has no next run; give a new `when` too.")
    one_off = JobKind.REMINDER if kind == JobKind.REMINDER else JobKind.SCHEDULED
    if repeat is not None:
        return plan(
            start, now=now, repeat=repeat if wants_repeat(repeat) else None, one_off_kind=one_off
        ).schedule
    if not job_schedule.is_recurring:
        return plan(start, now=now, one_off_kind=one_off).schedule
    spec = job_schedule.spec
    if isinstance(spec, Every):
        return Schedule(
            Every(spec.seconds, start.at),
            job_schedule.tz,
            job_schedule.until,
            job_schedule.max_runs,
        )
    raise UserError(
        "That job repeats on a pattern; give the new `repeat` as well, e.g. "
        "`every weekday at 9`, or `never` to make it a one-off."
    )


def follow_up_change(
    current: dict[str, Any] | None, follow_up: bool | None, escalate: str | None
) -> dict[str, Any] | None:
    """The nagging an edit asks for, for `edit(follow_up=...)`: None leaves it as it is.

    `follow_up` False stops the nudges (`{}`); True turns them on as `/remind` does and
    keeps nudges already on as they are (their pace, their escalation); `escalate` adds the
    escalation (and so the nudges it follows).
    """
    if follow_up is None and escalate is None:
        return None
    if follow_up is False:
        if escalate is not None:
            raise UserError(
                "`escalate` follows the nudges, and turning `follow_up` off stops them; "
                "leave one of the two out."
            )
        return {}
    usual = follow_up_config(True, escalate)  # a bad `escalate` is refused here
    assert usual is not None
    config = {**usual, **(current or {})}
    if escalate is not None:
        config["escalate"] = escalate
    return config


def with_end(schedule: Schedule, until: str, *, now: datetime) -> Schedule:
    """A repeating schedule with a new end ("friday", "5 times")."""
    if not schedule.is_recurring:
        raise UserError("`until` only applies to a repeating job; give a `repeat` as well.")
    end, count = read_until(until, now=now, tz=schedule.tz)
    return Schedule(schedule.spec, schedule.tz, end, count)
