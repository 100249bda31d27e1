"""/timezone set and /timezone show: the zone a user's times are read in."""

from __future__ import annotations

import re
from typing import Any

import discord
from discord import app_commands

from bot.clicks import Ack, acknowledged
from bot.commands import timezone
from bot.slash.context import answer, caller_of, reply_private
from tools.zones import suggest_places


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


class FollowZoneButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"homar:tzfollow:(?P<user>\d+):(?P<old>[^:]+):(?P<new>[^:]+)",
):
    """ "Move them too": the presser's jobs in the old zone follow to the new one."""

    def __init__(self, user_id: int, old: str, new: str) -> None:
        super().__init__(
            discord.ui.Button(
                label=f"Move them to {new}"[:80],
                style=discord.ButtonStyle.primary,
                custom_id=f"homar:tzfollow:{user_id}:{old}:{new}",
            )
        )
        self.user_id, self.old, self.new = user_id, old, new

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[Any],
        item: discord.ui.Item[Any],
        match: re.Match[str],
        /,
    ) -> FollowZoneButton:
        return cls(int(match["user"]), match["old"], match["new"])

    @acknowledged(Ack.PRIVATE)
    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        caller = await caller_of(interaction)
        moved = await timezone.move_jobs(caller, self.user_id, self.old, self.new)
        await answer(interaction, moved)
