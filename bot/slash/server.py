"""/server everyone-pings: whether reminders in this server may ping @everyone/@here."""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands

from bot.slash.context import reply_private, runtime_of
from storage.guild_settings import GuildSettingsStore
from tools.errors import UserError


class ServerGroup(app_commands.Group):
    """Homar's settings for this server (Manage Server)."""

    def __init__(self) -> None:
        super().__init__(
            name="server",
            description="Homar's settings for this server.",
            guild_only=True,
            default_permissions=discord.Permissions(manage_guild=True),
        )

    @app_commands.command(
        name="everyone-pings", description="Allow reminders to ping @everyone and @here."
    )
    @app_commands.describe(enabled="On: members with Mention Everyone may; off: nobody may")
    async def everyone_pings(self, interaction: discord.Interaction[Any], enabled: bool) -> None:
        if interaction.guild_id is None:
            raise UserError("This setting is per server; use it in one.")
        if not interaction.permissions.manage_guild:
            raise UserError("Only members with Manage Server can change Homar's server settings.")
        runtime = runtime_of(interaction)
        await GuildSettingsStore(runtime.db).set_everyone_pings(
            interaction.guild_id, enabled, runtime.clock.now()
        )
        if enabled:
            text = (
                "✅ Reminders here may ping @everyone/@here — only when set by members "
                "with the Mention Everyone permission."
            )
        else:
            text = "🚫 Reminders here can no longer ping @everyone/@here (existing ones won't)."
        await reply_private(interaction, text)
