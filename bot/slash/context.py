"""Who is asking and where, read from an interaction, plus private replies."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import discord

from bot.commands import Answer, Caller, Zone, zone_for
from bot.commands.timezone import reading_zone as reading_zone_of
from tools.jobs.model import Actor, Target

if TYPE_CHECKING:
    from bot.runtime import Runtime


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
    found = await zone_for(runtime_of(interaction), interaction.user.id)
    interaction.extras["homar_zone"] = found
    return found


async def caller_of(interaction: discord.Interaction[Any]) -> Caller:
    """The shared commands' view of an interaction: who, where, with what rights, which zone."""
    return Caller(
        runtime_of(interaction),
        actor_of(interaction),
        target_of(interaction),
        await zone_of(interaction),
        in_guild=interaction.guild_id is not None,
    )


async def defer_private(interaction: discord.Interaction[Any]) -> None:
    """Acknowledge at once, privately ("thinking…"), before any work that may wait.

    Discord drops an answer that comes later than 3 s; a locked or slow database must
    not turn a job that was created into an error the person sees. The answer then
    replaces the "thinking…" message (see `reply_private`).
    """
    if interaction.response.is_done():
        return
    await interaction.response.defer(ephemeral=True, thinking=True)
    interaction.extras[_AWAITING_ANSWER] = True


async def reply_private(
    interaction: discord.Interaction[Any],
    content: str | None = None,
    *,
    embed: discord.Embed | None = None,
    view: discord.ui.View | None = None,
) -> None:
    """Answer privately: at once, in place of the "thinking…" of a deferral, or as a
    follow-up when an answer was already given."""
    kwargs: dict[str, Any] = {}
    if embed is not None:
        kwargs["embed"] = embed
    if view is not None:
        kwargs["view"] = view
    if not interaction.response.is_done():
        await interaction.response.send_message(content, ephemeral=True, **kwargs)
    elif interaction.extras.pop(_AWAITING_ANSWER, False):
        await interaction.edit_original_response(content=content, **kwargs)
    else:
        await interaction.followup.send(content or "", ephemeral=True, **kwargs)


async def answer(interaction: discord.Interaction[Any], reply: Answer) -> None:
    """A shared command's answer, privately: a card becomes an embed, offers become buttons."""
    from bot.components.jobs import cancel_view, pager
    from bot.slash.render import embed_of  # render imports discord's Embed; keep it local

    view: discord.ui.View | None = None
    if reply.cancel_job is not None:
        view = cancel_view(reply.cancel_job)
    elif reply.page is not None:
        view = pager(reply.page.scope, reply.page.number, more=reply.page.more)
    embed = embed_of(reply.card) if reply.card is not None else None
    await reply_private(interaction, reply.text or None, embed=embed, view=view)


async def reading_zone(interaction: discord.Interaction[Any]) -> Zone:
    """The zone a command's times are read in: its own `zone:` option if it has one (a
    per-job override), else the caller's zone."""
    typed = getattr(interaction.namespace, "zone", None)
    if isinstance(typed, str) and typed.strip():
        return reading_zone_of(typed, await zone_of(interaction))
    return await zone_of(interaction)


_AWAITING_ANSWER = "homar_awaiting_answer"
