"""/remind: a reminder without the model, answered at once (with a way to cancel it)."""

from __future__ import annotations

from bot.commands import Answer, Caller
from bot.commands.cards import confirmation
from bot.slash.when import Instant, plan

FOLLOW_UP = {"interval_s": 1800, "max": 2}


async def remind(
    caller: Caller,
    when: Instant,
    what: str,
    *,
    repeat: str | None = None,
    until: str | None = None,
    follow_up: bool = False,
) -> Answer:
    runtime = caller.runtime
    chosen = plan(when, now=runtime.clock.now(), repeat=repeat, until=until)
    job = await runtime.engine.create(
        target=caller.target,
        command=what,
        schedule=chosen.schedule,
        kind=chosen.kind,
        created_by="user",
        follow_up=dict(FOLLOW_UP) if follow_up else None,
    )
    card = confirmation(
        job, zone=caller.zone.name, assumed=caller.zone.assumed, follow_up=follow_up
    )
    return Answer(card=card, cancel_job=job.id)
