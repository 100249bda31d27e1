"""/remind: a reminder without the model, answered at once with a Cancel button.

`to:` addresses someone else or a role, `channel:` posts it in another channel of this
server, `deliver: dm` sends it by DM; each is checked (`bot/audience.py`) before anything
is created.
"""

from __future__ import annotations

from typing import Any, Literal

import discord
from discord import app_commands

from bot.slash.context import reading_zone, reply_private, runtime_of, target_of
from bot.slash.preview import repeat_choices, until_choices
from bot.slash.render import confirmation
from bot.slash.templates import SaveTemplateButton, load_template, template_choices
from bot.slash.timezone import zone_choices
from bot.slash.transform import WhenOption
from bot.slash.when import Instant, plan
from bot.views import cancel_view
from tools import overlap
from tools.audience import Addressing, Audience
from tools.errors import UserError

FOLLOW_UP = {"interval_s": 1800, "max": 2}


def follow_up_config(follow_up: bool, escalate: str | None) -> dict[str, Any] | None:
    """The reminder's nagging settings; escalating implies nagging (it follows the last nudge)."""
    if not follow_up and escalate is None:
        return None
    config: dict[str, Any] = dict(FOLLOW_UP)
    if escalate is not None:
        config["escalate"] = escalate
    return config


Channel = discord.TextChannel | discord.Thread


def audience_of(
    owner_id: int,
    to: discord.Member | discord.User | discord.Role | None,
    channel: Channel | None,
    deliver: str | None,
) -> Audience:
    """The audience the options name: only the owner, where typed, unless told otherwise."""
    if deliver not in (None, "here", "dm"):
        raise UserError("`deliver` is `here` or `dm`; pick one from the list.")
    users: tuple[int, ...] = ()
    roles: tuple[int, ...] = ()
    everyone = False
    if isinstance(to, discord.Role):
        if to.is_default():
            everyone = True
        else:
            roles = (to.id,)
    elif to is not None and to.id != owner_id:
        users = (to.id,)
    return Audience(
        users=users,
        roles=roles,
        everyone=everyone,
        owner=to is None or to.id == owner_id,
        channel_id=channel.id if channel is not None else None,
        dm=deliver == "dm",
    )


@app_commands.command(name="remind", description="Remind me of something at a time (no AI).")
@app_commands.describe(
    when="When: 'in 20 minutes', 'tomorrow 9am', 'friday 17:30'",
    what="What to remind you about",
    repeat="Optional: 'daily', 'weekly', 'every 2 hours', 'every weekday at 9'",
    until="Optional end: 'friday', '2026-12-31', '5 times'",
    follow_up="Nudge me again if I don't answer",
    escalate="dm: if I ignore every nudge, DM me once (turns the nudges on)",
    to="Optional: remind someone else or a role instead of you",
    channel="Optional: post it in this channel of the server",
    deliver="Optional: 'dm' sends it by DM (to you, or to the person in `to`)",
    zone="Optional: read the time in this zone instead of yours ('Tokyo', 'PST', 'UTC+2')",
    template="Optional: a reminder saved in this server (fills in what you leave out)",
)
@app_commands.autocomplete(
    repeat=repeat_choices, until=until_choices, zone=zone_choices, template=template_choices
)
async def remind(
    interaction: discord.Interaction[Any],
    when: WhenOption,
    what: app_commands.Range[str, 1, 2000] | None = None,
    repeat: str | None = None,
    until: str | None = None,
    follow_up: bool = False,
    escalate: Literal["dm"] | None = None,
    to: discord.Member | discord.User | discord.Role | None = None,
    channel: Channel | None = None,
    deliver: Literal["here", "dm"] | None = None,
    zone: str | None = None,
    template: str | None = None,
) -> None:
    runtime = runtime_of(interaction)
    reading = await reading_zone(interaction)  # `zone:` overrides the caller's for this job
    at: Instant = when
    saved = await load_template(interaction, template) if template else None
    if saved is not None:  # what was typed wins over what the template says
        what = what or saved.command
        repeat = repeat if repeat is not None else saved.repeat
        until = until if until is not None else saved.until
        follow_up = follow_up or saved.follow_up
    if not what:
        raise UserError("Tell me what to remind you about (`what:`), or pick a `template:`.")
    chosen = plan(at, now=runtime.clock.now(), repeat=repeat, until=until)
    target = target_of(interaction)
    audience = audience_of(interaction.user.id, to, channel, deliver)
    if saved is not None and saved.audience and audience.is_default and to is None:
        audience = Audience.from_json(saved.audience)
    if not audience.is_default:
        # Checked before anything is made: a refused audience creates nothing.
        owner = interaction.user if isinstance(interaction.user, discord.Member) else None
        where = Addressing(target.owner_id, target.guild_id, target.channel_id)
        await interaction.client.audience_gate.check(audience, where, owner=owner)
    around = await overlap.thread_jobs(runtime.engine, target.owner_id, target.channel_id)
    job = await runtime.engine.create(
        target=target,
        command=what,
        schedule=chosen.schedule,
        kind=chosen.kind,
        created_by="user",
        follow_up=follow_up_config(follow_up, escalate),
        audience=None if audience.is_default else audience,
        # The words typed, so "Save as template" can keep them as typed.
        meta={"slash": {"repeat": repeat, "until": until}} if repeat or until else None,
    )
    nagging = follow_up or escalate is not None
    embed = confirmation(job, zone=reading.name, assumed=reading.assumed, follow_up=nagging)
    if escalate is not None:
        embed.add_field(
            name="Escalation", value="If you answer none of the nudges, I'll DM you once."
        )
    if not audience.is_default:
        embed.add_field(name="For", value=audience.describe(), inline=False)
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
    view = cancel_view(job.id)
    if job.guild_id is not None:
        view.add_item(SaveTemplateButton(job.id))
    await reply_private(interaction, embed=embed, view=view)
