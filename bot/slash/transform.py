"""`when` options read once, in the caller's zone, for every command that takes a time."""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands

from bot.slash.context import runtime_of, zone_of
from bot.slash.when import Instant, read_instant


class WhenTransformer(app_commands.Transformer[Any]):
    """ "tomorrow 9am" → an `Instant` in the user's zone; failures carry examples that work."""

    async def transform(self, interaction: discord.Interaction[Any], value: Any) -> Instant:
        zone = await zone_of(interaction)
        now = runtime_of(interaction).clock.now()
        return read_instant(str(value), now=now, tz=zone.name)


WhenOption = app_commands.Transform[Instant, WhenTransformer]
