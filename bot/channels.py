"""Channel resolution: from an id to something a message can be sent to.

Archived threads drop out of discord.py's cache, so a lookup by id may miss a channel
that still exists: `messageable` then falls back to a partial messageable (sending
works without the cache), `fetched` asks Discord (for a delivery that must know).
"""

from __future__ import annotations

from typing import Any, Protocol

import discord


class Lookups(Protocol):
    """The client's channel lookups (`discord.Client`, or the components' `Client`)."""

    def get_channel(self, id: int, /) -> Any: ...

    def get_partial_messageable(
        self, id: int, *, guild_id: int | None = None, type: discord.ChannelType | None = None
    ) -> discord.PartialMessageable: ...


def messageable(client: Lookups, channel_id: int, guild_id: int | None = None) -> Any:
    """The cached channel, or a partial messageable that still reaches it."""
    channel = client.get_channel(channel_id)
    if channel is not None:
        return channel
    return client.get_partial_messageable(channel_id, guild_id=guild_id)


async def fetched(client: discord.Client, channel_id: int) -> tuple[Any, str]:
    """The channel (asking Discord if it isn't cached), or None and why it can't be had."""
    channel = client.get_channel(channel_id)
    if channel is not None:
        return channel, ""
    try:
        return await client.fetch_channel(channel_id), ""
    except discord.NotFound:
        return None, "the thread no longer exists"
    except discord.Forbidden:
        return None, "I no longer have access to it"


async def direct_messages(client: discord.Client, user_id: int) -> discord.DMChannel:
    """The DM channel with a user (the cached user, or asking Discord; opened if needed)."""
    user = client.get_user(user_id) or await client.fetch_user(user_id)
    return user.dm_channel or await user.create_dm()
