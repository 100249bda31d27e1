"""/heartbeat on|off|status: work through a thread's to-do list when it is idle."""

from __future__ import annotations

from bot.commands import Answer, Caller
from bot.commands.todo import todos_of
from storage.models import JobStatus
from tools import heartbeat
from tools.schedule import timestamp


async def on(caller: Caller, every: str | None = None) -> Answer:
    interval = heartbeat.parse_every(every)
    job = await heartbeat.enable(
        caller.runtime.engine,
        caller.target,
        interval,
        caller.zone.name,
        caller.actor,
        meta={"via": "slash"},
    )
    nxt = f", first check {timestamp(job.next_run_at, 'R')}" if job.next_run_at else ""
    return Answer(
        f"💓 Heartbeat on (job #{job.id}): {heartbeat.every_words(interval)}{nxt}. "
        "When this thread is idle I'll work on its oldest open to-do; with nothing to do, "
        "a beat costs nothing and says nothing. `/heartbeat off` stops it."
    )


async def off(caller: Caller) -> Answer:
    job = await heartbeat.disable(caller.runtime.engine, caller.channel_id, caller.actor)
    if job is None:
        return Answer("There is no heartbeat in this thread. `/heartbeat on` starts one.")
    return Answer(f"Heartbeat off (job #{job.id} cancelled). Your to-do list stays as it is.")


async def status(caller: Caller) -> Answer:
    channel_id = caller.channel_id
    job = await heartbeat.find(caller.runtime.engine, channel_id)
    pending = len(await todos_of(caller).pending(channel_id))
    todos = f"{pending} open to-do{'s' if pending != 1 else ''} here."
    if job is None:
        return Answer(f"The heartbeat is off here. {todos} `/heartbeat on` starts it.")
    state = "on" if job.status == JobStatus.ACTIVE else job.status
    when = (
        f", next check {timestamp(job.next_run_at, 'R')}"
        if job.next_run_at and job.status == JobStatus.ACTIVE
        else ""
    )
    every = heartbeat.every_words(heartbeat.interval_of(job))
    return Answer(
        f"💓 Heartbeat is {state} (job #{job.id}, set by <@{job.owner_id}>): {every}{when}. {todos}"
    )
