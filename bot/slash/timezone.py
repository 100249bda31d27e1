"""/timezone set and /timezone show: the zone a user's times are read in."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import discord
from discord import app_commands

from bot.slash.context import reply_private, runtime_of, zone_of
from storage.user_settings import UserSettingsStore
from tools.errors import UserError
from tools.schedule import zone as zone_info
from tools.zones import resolve_zone, suggest_zones


async def zone_choices(
    interaction: discord.Interaction[Any], current: str
) -> list[app_commands.Choice[str]]:
    return [app_commands.Choice(name=z, value=z) for z in suggest_zones(current)]


def _local(now: datetime, tz: str) -> str:
    return f"{now.astimezone(zone_info(tz)):%H:%M on %a %d %b}"


class TimezoneGroup(app_commands.Group):
    """Set or show your time zone."""

    def __init__(self) -> None:
        super().__init__(name="timezone", description="Your time zone for reminders.")

    @app_commands.command(name="set", description="Set your time zone, e.g. Europe/Berlin.")
    @app_commands.describe(zone="A city or zone: 'Berlin', 'America/New_York', 'PST', 'UTC+2'")
    @app_commands.autocomplete(zone=zone_choices)
    async def set_(self, interaction: discord.Interaction[Any], zone: str) -> None:
        name = resolve_zone(zone)
        if name is None:
            raise UserError(
                f"I don't know the zone {zone!r}. Try a city (`Berlin`), an IANA name "
                "(`America/New_York`), an abbreviation (`PST`) or an offset (`UTC+2`)."
            )
        runtime = runtime_of(interaction)
        await UserSettingsStore(runtime.db).set_tz(interaction.user.id, name)
        interaction.extras.pop("homar_zone", None)
        await reply_private(
            interaction,
            f"Your time zone is now **{name}** (it's {_local(runtime.clock.now(), name)} there). "
            "New reminders use it; existing jobs keep their zone.",
        )

    @app_commands.command(name="show", description="Show your time zone.")
    async def show(self, interaction: discord.Interaction[Any]) -> None:
        zone = await zone_of(interaction)
        now = runtime_of(interaction).clock.now()
        if zone.assumed:
            text = (
                f"You haven't set a time zone, so I assume **{zone.name}** "
                f"(it's {_local(now, zone.name)} there). Set yours with `/timezone set`."
            )
        else:
            text = f"Your time zone is **{zone.name}** (it's {_local(now, zone.name)} there)."
        await reply_private(interaction, text)
