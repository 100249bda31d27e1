"""/dm allow|block: who may remind you by DM. Nobody may unless you allow it."""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands

from bot.slash.context import reply_private, runtime_of
from storage.consents import ANYONE, ConsentStore


class DmGroup(app_commands.Group):
    """Choose who may send you reminders by DM."""

    def __init__(self) -> None:
        super().__init__(name="dm", description="Who may remind you by DM.")

    @app_commands.command(name="allow", description="Let someone (or anyone) remind you by DM.")
    @app_commands.describe(user="Only this person; leave out for anyone you share a server with")
    async def allow(
        self, interaction: discord.Interaction[Any], user: discord.User | None = None
    ) -> None:
        await _set(interaction, user, allowed=True)

    @app_commands.command(name="block", description="Stop someone (or everyone) DM-reminding you.")
    @app_commands.describe(user="Only this person; leave out to block everyone")
    async def block(
        self, interaction: discord.Interaction[Any], user: discord.User | None = None
    ) -> None:
        await _set(interaction, user, allowed=False)


async def _set(
    interaction: discord.Interaction[Any], user: discord.User | None, *, allowed: bool
) -> None:
    runtime = runtime_of(interaction)
    me = interaction.user.id
    if user is not None and user.id == me:
        await reply_private(interaction, "You can always remind yourself by DM.")
        return
    who = user.id if user is not None else ANYONE
    await ConsentStore(runtime.db).set(me, who, allowed=allowed, now=runtime.clock.now())
    if allowed and user is None:
        text = (
            "✅ Anyone you share a server with may now set reminders in your DMs. "
            "`/dm block` undoes it (or `/dm block user:` for one person)."
        )
    elif allowed:
        text = f"✅ <@{who}> may now set reminders in your DMs. `/dm block user:` undoes it."
    elif user is None:
        text = "🚫 Nobody may set reminders in your DMs any more (jobs already made stop too)."
    else:
        text = f"🚫 <@{who}> may no longer set reminders in your DMs."
    await reply_private(interaction, text)
