"""`when` options read once, in the caller's zone, for every command that takes a time."""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands

from bot.slash.context import reading_zone, runtime_of
from bot.slash.preview import when_choices
from bot.slash.when import Instant, read_instant


class WhenTransformer(app_commands.Transformer[Any]):
    """ "tomorrow 9am" → an `Instant` in the user's zone; failures carry examples that work.

    While it is typed, autocomplete previews what it reads as (`bot/slash/preview.py`)."""

    async def transform(self, interaction: discord.Interaction[Any], value: Any) -> Instant:
        zone = await reading_zone(interaction)
        now = runtime_of(interaction).clock.now()
        return read_instant(str(value), now=now, tz=zone.name)

    async def autocomplete(  # type: ignore[override]
        self, interaction: discord.Interaction[Any], value: Any, /
    ) -> list[app_commands.Choice[str]]:
        return await when_choices(interaction, str(value))


WhenOption = app_commands.Transform[Instant, WhenTransformer]
