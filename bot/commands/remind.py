"""/remind: a reminder without the model, answered at once (with a way to cancel it).

Every surface calls `remind`: Discord adds what only it can (its audience options are
checked against the server before this runs, templates fill in missing options), the
terminal passes what was typed.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import replace
from datetime import timedelta
from typing import Any

from bot.commands import Answer, Caller, Zone
from bot.commands.cards import confirmation
from bot.slash.when import Instant, plan
from tools import overlap, timeparse
from tools.audience import Audience
from tools.errors import UserError, quoted

FOLLOW_UP = {"interval_s": 1800, "max": 2}
ESCALATIONS = ("dm",)
MOST_FOLLOW_UPS = 10  # as the agent's schedule_reminder allows
# Nudges closer than this are spam; further apart than a day they outlive the cycle
# (a reminder stops nagging 24 h after it was first sent).
SHORTEST_NUDGE = timedelta(minutes=1)
LONGEST_NUDGE = timedelta(hours=24)


def follow_up_config(
    follow_up: bool,
    escalate: str | None,
    *,
    every: str | None = None,
    times: str | None = None,
) -> dict[str, Any] | None:
    """The reminder's nagging settings; escalating implies nagging (it follows the last nudge).

    `every` ("10 minutes") and `times` ("3") override the usual every 30 min, twice.
    """
    if not follow_up and escalate is None:
        return None
    if escalate is not None and escalate not in ESCALATIONS:
        raise UserError("`escalate` can only be `dm` (one DM if you answer none of the nudges).")
    config: dict[str, Any] = dict(FOLLOW_UP)
    if every:
        step = timeparse.parse_duration(every)
        if step is None or not SHORTEST_NUDGE <= step <= LONGEST_NUDGE:
            raise UserError(
                f"Nudge every {quoted(every)}? Give a span between 1 minute and 24 hours, "
                "like `30 minutes` or `2 hours`."
            )
        config["interval_s"] = int(step.total_seconds())
    if times:
        if not times.strip().isdigit() or not 1 <= int(times) <= MOST_FOLLOW_UPS:
            raise UserError(
                f"Nudge {quoted(times)} times? Give a number from 1 to {MOST_FOLLOW_UPS}."
            )
        config["max"] = int(times)
    if escalate is not None:
        config["escalate"] = escalate
    return config


async def remind(
    caller: Caller,
    when: Instant,
    what: str,
    *,
    repeat: str | None = None,
    until: str | None = None,
    follow_up: bool = False,
    escalate: str | None = None,
    audience: Audience | None = None,
    reading: Zone | None = None,
    check_audience: Callable[[Audience], Awaitable[None]] | None = None,
) -> Answer:
    """Create the reminder and say what was made, with notes on jobs it may collide with.

    `when` was read in `reading` (a `zone:` option), else in the caller's zone. An
    `audience` other than the default goes through `check_audience` (the surface's check
    against its server) after the time is understood and before anything is created.
    """
    runtime = caller.runtime
    zone = reading or caller.zone
    now = runtime.clock.now()
    chosen = plan(when, now=now, repeat=repeat, until=until)
    follow = follow_up_config(follow_up, escalate)
    target = caller.target
    around = await overlap.thread_jobs(runtime.engine, target.owner_id, target.channel_id)
    custom = audience is not None and not audience.is_default
    if custom and audience is not None:
        if check_audience is None:
            raise UserError("Only you can be reminded here; `to:` and `channel:` need Discord.")
        await check_audience(audience)  # a refused audience creates nothing
    job = await runtime.engine.create(
        target=target,
        command=what,
        schedule=chosen.schedule,
        kind=chosen.kind,
        created_by="user",
        follow_up=follow,
        audience=audience if custom else None,
        # The words typed, so "Save as template" can keep them as typed.
        meta={"slash": {"repeat": repeat, "until": until}} if repeat or until else None,
    )
    card = confirmation(job, zone=zone.name, assumed=zone.assumed, follow_up=follow is not None)
    notes: list[tuple[str, str]] = []
    understood = getattr(when.at, "understood", "")  # a phrase in another language
    if understood:
        notes.append(("Understood", understood))
    if escalate is not None:
        notes.append(("Escalation", "If you answer none of the nudges, I'll DM you once."))
    if custom and audience is not None:
        notes.append(("For", audience.describe()))
    # Seed 004, without a next turn to answer in: say so, and how to drop one of them.
    same = overlap.duplicates(around, job.command, chosen.schedule, now)
    if same:
        notes.append(
            (
                "Already scheduled",
                f"You already had {overlap.describe(same[0])}; `/jobs cancel id: "
                f"{same[0].id}` if this one replaces it.",
            )
        )
    heads_up = overlap.note(overlap.neighbours(around, chosen.schedule, now)).strip()
    if heads_up:
        notes.append(("Same minute", heads_up))
    card = replace(card, fields=card.fields + tuple(notes))
    return Answer(card=card, cancel_job=job.id)
