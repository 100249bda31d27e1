"""/remind: a reminder without the model, answered at once with a Cancel button."""

from __future__ import annotations

from typing import Any, Literal

import discord
from discord import app_commands

from bot.slash.context import reply_private, runtime_of, target_of, zone_of
from bot.slash.render import confirmation
from bot.slash.transform import WhenOption
from bot.slash.when import Instant, plan
from bot.views import cancel_view
from tools import overlap

FOLLOW_UP = {"interval_s": 1800, "max": 2}


def follow_up_config(follow_up: bool, escalate: str | None) -> dict[str, Any] | None:
    """The reminder's nagging settings; escalating implies nagging (it follows the last nudge)."""
    if not follow_up and escalate is None:
        return None
    config: dict[str, Any] = dict(FOLLOW_UP)
    if escalate is not None:
        config["escalate"] = escalate
    return config


@app_commands.command(name="remind", description="Remind me of something at a time (no AI).")
@app_commands.describe(
    when="When: 'in 20 minutes', 'tomorrow 9am', 'friday 17:30'",
    what="What to remind you about",
    repeat="Optional: 'daily', 'weekly', 'every 2 hours', 'every weekday at 9'",
    until="Optional end: 'friday', '2026-12-31', '5 times'",
    follow_up="Nudge me again if I don't answer",
    escalate="dm: if I ignore every nudge, DM me once (turns the nudges on)",
)
async def remind(
    interaction: discord.Interaction[Any],
    when: WhenOption,
    what: app_commands.Range[str, 1, 2000],
    repeat: str | None = None,
    until: str | None = None,
    follow_up: bool = False,
    escalate: Literal["dm"] | None = None,
) -> None:
    runtime = runtime_of(interaction)
    zone = await zone_of(interaction)
    at: Instant = when
    chosen = plan(at, now=runtime.clock.now(), repeat=repeat, until=until)
    target = target_of(interaction)
    around = await overlap.thread_jobs(runtime.engine, target.owner_id, target.channel_id)
    job = await runtime.engine.create(
        target=target,
        command=what,
        schedule=chosen.schedule,
        kind=chosen.kind,
        created_by="user",
        follow_up=follow_up_config(follow_up, escalate),
    )
    embed = confirmation(
        job, zone=zone.name, assumed=zone.assumed, follow_up=follow_up or escalate is not None
    )
    if escalate is not None:
        embed.add_field(
            name="Escalation", value="If you answer none of the nudges, I'll DM you once."
        )
    # Seed 004, without a next turn to answer in: say so, and how to drop one of them.
    now = runtime.clock.now()
    same = overlap.duplicates(around, job.command, chosen.schedule, now)
    if same:
        embed.add_field(
            name="Already scheduled",
            value=f"You already had {overlap.describe(same[0])}; `/jobs cancel id: "
            f"{same[0].id}` if this one replaces it.",
            inline=False,
        )
    heads_up = overlap.note(overlap.neighbours(around, chosen.schedule, now)).strip()
    if heads_up:
        embed.add_field(name="Same minute", value=heads_up, inline=False)
    await reply_private(interaction, embed=embed, view=cancel_view(job.id))
