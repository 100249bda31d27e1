"""What components need of the Discord client, as a protocol: they never import the bot.

`HomarBot` satisfies it; a component reads it from `interaction.client` (`client_of`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol, cast

import discord

if TYPE_CHECKING:
    from bot.runtime import PostReply, Runtime


class Client(Protocol):
    """The bot as components see it: the runtime, posting replies, and Discord lookups."""

    @property
    def runtime(self) -> Runtime: ...

    @property
    def post(self) -> PostReply: ...

    def get_channel(self, id: int, /) -> Any: ...

    def get_partial_messageable(
        self, id: int, *, guild_id: int | None = None, type: discord.ChannelType | None = None
    ) -> discord.PartialMessageable: ...

    def is_closed(self) -> bool: ...


def client_of(interaction: discord.Interaction[Any]) -> Client:
    return cast(Client, interaction.client)
