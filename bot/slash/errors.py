"""The one failure answer: every slash command, button or form that fails is answered
privately, in words a person can act on (never "This interaction failed")."""

from __future__ import annotations

import logging
from typing import Any

import discord
from discord import app_commands

from bot.runtime import STORAGE_DOWN
from bot.slash.context import reply_private
from storage.db import StorageUnavailable
from tools.errors import UserError

log = logging.getLogger(__name__)

SORRY = "Something went wrong on my side; please try again in a moment."


def friendly(error: BaseException) -> str | None:
    """The message a person should see, or None for a bug (logged, then apologised for)."""
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, UserError):
            return current.message
        if isinstance(current, StorageUnavailable):
            return STORAGE_DOWN
        if isinstance(current, app_commands.CheckFailure):
            return str(current) or "You can't use that command here."
        if isinstance(current, app_commands.TransformerError) and current.__cause__ is None:
            # A crafted or stale option (a channel of another server, a deleted role).
            if current.type == discord.AppCommandOptionType.channel:
                return "That isn't a channel of this server I can use; pick one from the list."
            return "I couldn't use one of the options you picked; pick it again from the list."
        if isinstance(current, app_commands.CommandOnCooldown):
            return f"Slow down a little; try again in {current.retry_after:.0f} seconds."
        original = getattr(current, "original", None)
        current = original if isinstance(original, BaseException) else current.__cause__
    return None


async def answer_failure(interaction: discord.Interaction[Any], error: BaseException) -> None:
    """A person's mistake with its message, storage that is down with `STORAGE_DOWN`, a bug
    (logged) with an apology; privately, whether the interaction was answered or not."""
    text = friendly(error)
    if text is None:
        log.error("%s failed", described(interaction), exc_info=error)
        text = SORRY
    try:
        await reply_private(interaction, text)
    except discord.HTTPException:
        log.warning("could not answer %s privately", described(interaction))


async def on_app_command_error(
    interaction: discord.Interaction[Any], error: app_commands.AppCommandError
) -> None:
    await answer_failure(interaction, error)


def described(interaction: discord.Interaction[Any]) -> str:
    """The command or component an interaction is, for the log."""
    if interaction.command is not None:
        return f"/{interaction.command.qualified_name}"
    data: Any = interaction.data or {}
    return f"component {data.get('custom_id', '?')!s:.100}"
