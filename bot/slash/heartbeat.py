"""/heartbeat on|off|status: the heartbeat that works through a thread's to-do list when idle."""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands

from bot.commands import heartbeat
from bot.slash.context import answer, caller_of


class HeartbeatGroup(app_commands.Group):
    """This thread's heartbeat."""

    def __init__(self) -> None:
        super().__init__(
            name="heartbeat", description="Work through this thread's to-do list when idle."
        )

    @app_commands.command(name="on", description="Start (or change) this thread's heartbeat.")
    @app_commands.describe(every="How often to check: '30 minutes' (default), '1h'; at least 5 min")
    async def on(self, interaction: discord.Interaction[Any], every: str | None = None) -> None:
        await answer(interaction, await heartbeat.on(await caller_of(interaction), every))

    @app_commands.command(name="off", description="Stop this thread's heartbeat.")
    async def off(self, interaction: discord.Interaction[Any]) -> None:
        await answer(interaction, await heartbeat.off(await caller_of(interaction)))

    @app_commands.command(name="status", description="Is the heartbeat on here, and what's next?")
    async def status(self, interaction: discord.Interaction[Any]) -> None:
        await answer(interaction, await heartbeat.status(await caller_of(interaction)))
