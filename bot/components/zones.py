"""`/timezone set`'s offer to move the jobs kept in the old zone (`ids.FOLLOW_ZONE`)."""

from __future__ import annotations

import re
from typing import Any

import discord

from bot.commands import timezone
from bot.components import ids
from bot.components.answers import Ack, acknowledged
from bot.slash.context import answer, caller_of


class FollowZoneButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]], template=ids.FOLLOW_ZONE.pattern
):
    """ "Move them too": the presser's jobs in the old zone follow to the new one."""

    def __init__(self, user_id: int, old: str, new: str) -> None:
        super().__init__(
            discord.ui.Button(
                label=f"Move them to {new}"[:80],
                style=discord.ButtonStyle.primary,
                custom_id=ids.FOLLOW_ZONE(user=user_id, old=old, new=new),
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
