"""/timezone set and /timezone show: the zone a user's times are read in."""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

import discord
from discord import app_commands

from bot.clicks import Ack, acknowledged
from bot.slash.context import reply_private, runtime_of, zone_of
from storage.user_settings import UserSettingsStore
from tools.errors import UserError, quoted
from tools.schedule import zone as zone_info
from tools.zones import resolve_zone, suggest_places


async def zone_choices(
    interaction: discord.Interaction[Any], current: str
) -> list[app_commands.Choice[str]]:
    return [app_commands.Choice(name=label, value=z) for label, z in suggest_places(current)]


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
                f"I don't know the zone {quoted(zone)}. Try a city (`Berlin`), an IANA name "
                "(`America/New_York`), an abbreviation (`PST`) or an offset (`UTC+2`)."
            )
        runtime = runtime_of(interaction)
        old = await UserSettingsStore(runtime.db).tz(interaction.user.id)
        old = old or runtime.settings.default_timezone
        await UserSettingsStore(runtime.db).set_tz(interaction.user.id, name)
        interaction.extras.pop("homar_zone", None)
        text = f"Your time zone is now **{name}** (it's {_local(runtime.clock.now(), name)} there)."
        mine = [
            j
            for j in await runtime.engine.list_jobs(owner_id=interaction.user.id, limit=1000)
            if j.tz == old
        ]
        button = FollowZoneButton(interaction.user.id, old, name)
        if old == name or not mine or len(button.item.custom_id or "") > 100:
            await reply_private(interaction, f"{text} New reminders use it.")
            return
        view = discord.ui.View(timeout=None)
        view.add_item(button)
        await reply_private(
            interaction,
            f"{text} New reminders use it.\nYou have {len(mine)} scheduled "
            f"job{'s' if len(mine) != 1 else ''} in {old}. Should they move to {name} at the "
            "same local times (09:00 stays 09:00)? If not, they keep their zone.",
            view=view,
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
        if interaction.user.id != self.user_id:
            await reply_private(interaction, "These are someone else's jobs.")
            return
        engine = runtime_of(interaction).engine
        moved, kept = await engine.follow_zone(self.user_id, self.old, self.new)
        text = f"Moved {moved} job{'s' if moved != 1 else ''} to {self.new}."
        if kept:
            text += (
                f" {kept} kept {self.old}: being delivered right now, or its new time "
                "would already be past."
            )
        await reply_private(interaction, text)
