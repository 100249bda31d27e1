"""Who is asking and where, read from an interaction, plus private replies."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import discord

from storage.user_settings import UserSettingsStore
from tools.engine import Actor, Target
from tools.errors import UserError
from tools.zones import resolve_zone

if TYPE_CHECKING:
    from bot.runtime import Runtime


@dataclass(frozen=True)
class Zone:
    """The zone to read a user's times in, and whether they chose it or we assumed it."""

    name: str
    assumed: bool


def runtime_of(interaction: discord.Interaction[Any]) -> Runtime:
    runtime: Runtime = interaction.client.runtime
    return runtime


def actor_of(interaction: discord.Interaction[Any]) -> Actor:
    perms = interaction.permissions
    return Actor(
        interaction.user.id,
        interaction.guild_id,
        manage_messages=bool(interaction.guild_id and perms.manage_messages),
    )


def target_of(interaction: discord.Interaction[Any]) -> Target:
    """The job lives where the command was typed: a thread, a channel or a DM."""
    channel = interaction.channel
    parent = channel.parent_id if isinstance(channel, discord.Thread) else None
    channel_id = interaction.channel_id or interaction.user.id
    return Target(interaction.user.id, channel_id, interaction.guild_id, parent)


async def zone_of(interaction: discord.Interaction[Any]) -> Zone:
    """The caller's zone, read once per interaction (the transformer and command share it)."""
    cached = interaction.extras.get("homar_zone")
    if isinstance(cached, Zone):
        return cached
    runtime = runtime_of(interaction)
    chosen = await UserSettingsStore(runtime.db).tz(interaction.user.id)
    if chosen:
        found = Zone(chosen, assumed=False)
    else:
        found = Zone(runtime.settings.default_timezone, assumed=True)
    interaction.extras["homar_zone"] = found
    return found


async def reply_private(
    interaction: discord.Interaction[Any],
    content: str | None = None,
    *,
    embed: discord.Embed | None = None,
    view: discord.ui.View | None = None,
) -> None:
    """Answer privately, whether or not the interaction was already answered or deferred."""
    kwargs: dict[str, Any] = {"ephemeral": True}
    if embed is not None:
        kwargs["embed"] = embed
    if view is not None:
        kwargs["view"] = view
    if interaction.response.is_done():
        await interaction.followup.send(content or "", **kwargs)
    else:
        await interaction.response.send_message(content, **kwargs)


async def reading_zone(interaction: discord.Interaction[Any]) -> Zone:
    """The zone a command's times are read in: its own `zone:` option if it has one (a
    per-job override), else the caller's zone."""
    typed = getattr(interaction.namespace, "zone", None)
    if isinstance(typed, str) and typed.strip():
        name = resolve_zone(typed)
        if name is None:
            raise UserError(
                f"I don't know the zone {typed!r}. Try a city (`Berlin`), an IANA name "
                "(`America/New_York`), an abbreviation (`PST`) or an offset (`UTC+2`)."
            )
        return Zone(name, assumed=False)
    return await zone_of(interaction)
