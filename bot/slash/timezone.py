"""/timezone set and /timezone show: the zone a user's times are read in."""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands

from bot.commands import timezone
from bot.components.zones import FollowZoneButton
from bot.slash.context import answer, caller_of, reply_private
from tools.schedule.zones import suggest_places


async def zone_choices(
    interaction: discord.Interaction[Any], current: str
) -> list[app_commands.Choice[str]]:
    return [app_commands.Choice(name=label, value=z) for label, z in suggest_places(current)]


class TimezoneGroup(app_commands.Group):
    """Set or show your time zone."""

    def __init__(self) -> None:
        super().__init__(name="timezone", description="Your time zone for reminders.")

    @app_commands.command(name="set", description="Set your time zone, e.g. Europe/Berlin.")
    @app_commands.describe(zone="A city or zone: 'Berlin', 'America/New_York', 'PST', 'UTC+2'")
    @app_commands.autocomplete(zone=zone_choices)
    async def set_(self, interaction: discord.Interaction[Any], zone: str) -> None:
        reply = await timezone.set_zone(await caller_of(interaction), zone)
        interaction.extras.pop("homar_zone", None)
        move = reply.zone_move
        if move is None:
            await reply_private(interaction, reply.text)
            return
        button = FollowZoneButton(move.user_id, move.old, move.new)
        if len(button.item.custom_id or "") > 100:  # no button fits: the jobs keep their zone
            await reply_private(interaction, reply.text)
            return
        view = discord.ui.View(timeout=None)
        view.add_item(button)
        await reply_private(interaction, f"{reply.text}\n{move.question}", view=view)

    @app_commands.command(name="show", description="Show your time zone.")
    async def show(self, interaction: discord.Interaction[Any]) -> None:
        await answer(interaction, await timezone.show_zone(await caller_of(interaction)))
