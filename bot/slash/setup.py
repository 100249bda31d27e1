"""Register Homar's slash commands on a bot, and publish them (buttons: `bot.components`)."""

from __future__ import annotations

import logging

import discord
from discord.ext import commands

from bot.slash.context import defer_private
from bot.slash.dm import DmGroup
from bot.slash.errors import on_app_command_error
from bot.slash.heartbeat import HeartbeatGroup
from bot.slash.help import help_
from bot.slash.jobs import JobsGroup
from bot.slash.remind import remind
from bot.slash.server import ServerGroup
from bot.slash.timezone import TimezoneGroup
from bot.slash.todo import TodoGroup

log = logging.getLogger(__name__)


def install(bot: commands.Bot) -> None:
    tree = bot.tree
    tree.add_command(remind)
    tree.add_command(JobsGroup())
    tree.add_command(TimezoneGroup())
    tree.add_command(TodoGroup())
    tree.add_command(HeartbeatGroup())
    tree.add_command(help_)
    tree.add_command(DmGroup())
    tree.add_command(ServerGroup())
    tree.on_error = on_app_command_error  # type: ignore[method-assign]
    tree.interaction_check = acknowledge_commands  # type: ignore[method-assign]


async def acknowledge_commands(interaction: discord.Interaction) -> bool:
    """Every command reads or writes the database (its time option too, for the zone):
    defer it privately before any of that, then answer (see `defer_private`)."""
    if interaction.type is discord.InteractionType.application_command:
        try:
            await defer_private(interaction)
        except discord.HTTPException as exc:  # expired or already answered: answer anyway
            name = getattr(interaction.command, "qualified_name", "?")
            log.warning("could not acknowledge /%s: %s", name, exc)
    return True


async def sync(bot: commands.Bot, dev_guild_id: int | None) -> None:
    """Publish the commands: to one guild at once for development, else globally.

    A failed sync is logged, never fatal: the commands Discord already has keep working.
    """
    try:
        if dev_guild_id is not None:
            guild = discord.Object(dev_guild_id)
            bot.tree.copy_global_to(guild=guild)
            synced = await bot.tree.sync(guild=guild)
        else:
            synced = await bot.tree.sync()
    except (discord.HTTPException, discord.app_commands.CommandSyncFailure) as exc:
        log.warning("could not sync slash commands: %s", exc)
        return
    log.info(
        "synced %d slash commands%s",
        len(synced),
        f" to guild {dev_guild_id}" if dev_guild_id else "",
    )
