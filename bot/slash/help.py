"""/help: what Homar can do, with examples for chat and for each command."""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands

from bot.commands.help import help_card
from bot.slash.context import answer


@app_commands.command(name="help", description="What Homar can do, with examples.")
async def help_(interaction: discord.Interaction[Any]) -> None:
    await answer(interaction, help_card())
