"""/remind: a reminder without the model, answered at once with a Cancel button.

`to:` addresses someone else or a role, `channel:` posts it in another channel of this
server, `deliver: dm` sends it by DM; each is checked (`bot/audience.py`) before anything
is created.
"""

from __future__ import annotations

from typing import Any, Literal

import discord
from discord import app_commands

from bot.commands import remind as shared
from bot.components.jobs import cancel_view
from bot.components.templates import SaveTemplateButton
from bot.slash.context import caller_of, reading_zone, reply_private, runtime_of
from bot.slash.preview import repeat_choices, until_choices
from bot.slash.render import embed_of
from bot.slash.timezone import zone_choices
from bot.slash.transform import WhenOption
from bot.slash.when import Instant
from storage.templates import SavedTemplate, TemplateStore
from tools.audience import Addressing, Audience
from tools.errors import UserError

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


async def template_choices(
    interaction: discord.Interaction[Any], current: str
) -> list[app_commands.Choice[str]]:
    """`template:` autocomplete: this server's templates (saved with `bot.components.templates`)."""
    if interaction.guild_id is None:
        return []
    names = await TemplateStore(runtime_of(interaction).db).names(interaction.guild_id, current)
    return [app_commands.Choice(name=n, value=n) for n in names]


async def load_template(interaction: discord.Interaction[Any], name: str) -> SavedTemplate:
    if interaction.guild_id is None:
        raise UserError("Templates belong to a server; use `template:` in one.")
    found = await TemplateStore(runtime_of(interaction).db).get(interaction.guild_id, name)
    if found is None:
        raise UserError(f"There's no template called {name[:100]!r} here; pick one from the list.")
    return found


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
    caller = await caller_of(interaction)
    audience = audience_of(interaction.user.id, to, channel, deliver)
    if saved is not None and saved.audience and audience.is_default and to is None:
        audience = Audience.from_json(saved.audience)

    async def check(audience: Audience) -> None:
        owner = interaction.user if isinstance(interaction.user, discord.Member) else None
        target = caller.target
        where = Addressing(target.owner_id, target.guild_id, target.channel_id)
        await interaction.client.audience_gate.check(audience, where, owner=owner)

    reply = await shared.remind(
        caller,
        at,
        what,
        repeat=repeat,
        until=until,
        follow_up=follow_up,
        escalate=escalate,
        audience=audience,
        reading=reading,
        check_audience=check,
    )
    assert reply.card is not None and reply.cancel_job is not None  # /remind answers a card
    view = cancel_view(reply.cancel_job)
    if interaction.guild_id is not None:
        view.add_item(SaveTemplateButton(reply.cancel_job))
    await reply_private(interaction, embed=embed_of(reply.card), view=view)
