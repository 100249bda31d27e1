"""The dashboard's view of Discord, through the running bot (its cache, then its API)."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING

import discord

from bot.channels import direct_messages

if TYPE_CHECKING:
    from discord import Client

log = logging.getLogger(__name__)


class BotGuildView:
    """`GuildView` over a discord.py client: the bot's own knowledge, never the browser's."""

    def __init__(self, client: Client) -> None:
        self.client = client
        self._names: dict[int, str] = {}  # users the bot has no cache entry for

    def guild_ids(self) -> list[int]:
        return [g.id for g in self.client.guilds]

    def guild_name(self, guild_id: int) -> str | None:
        guild = self.client.get_guild(guild_id)
        return guild.name if guild is not None else None

    def channel_name(self, channel_id: int) -> str | None:
        channel = self.client.get_channel(channel_id)
        name = getattr(channel, "name", None)
        return name if isinstance(name, str) else None

    def role_name(self, role_id: int) -> str | None:
        for guild in self.client.guilds:
            role = guild.get_role(role_id)
            if role is not None:
                return role.name
        return None

    def roles(self, guild_id: int) -> dict[int, str]:
        guild = self.client.get_guild(guild_id)
        if guild is None:
            return {}
        # Bots' and integrations' own roles are nobody's audience.
        return {r.id: r.name for r in guild.roles if not r.is_default() and not r.managed}

    def text_channels(self, guild_id: int) -> dict[int, str]:
        guild = self.client.get_guild(guild_id)
        return {c.id: c.name for c in guild.text_channels} if guild is not None else {}

    def user_name(self, user_id: int) -> str | None:
        user = self.client.get_user(user_id)
        return user.display_name if user is not None else self._names.get(user_id)

    async def learn_users(self, user_ids: Sequence[int]) -> None:
        for user_id in user_ids:
            if self.user_name(user_id) is not None or len(self._names) > 10_000:
                continue
            try:
                user = await self.client.fetch_user(user_id)
            except discord.HTTPException:
                continue  # shown by id instead
            self._names[user_id] = user.display_name

    async def manages(self, guild_id: int, user_id: int) -> bool | None:
        guild = self.client.get_guild(guild_id)
        if guild is None:
            return None  # the bot isn't there: nothing to moderate through it
        member = guild.get_member(user_id)
        if member is None:
            try:
                member = await guild.fetch_member(user_id)
            except discord.NotFound:
                return None
            except discord.HTTPException as exc:
                # Unknown means no extra rights, never more.
                log.warning("dashboard: could not check %s in guild %s: %s", user_id, guild_id, exc)
                return None
        return member.guild_permissions.manage_messages

    async def dm_channel(self, user_id: int) -> int:
        return (await direct_messages(self.client, user_id)).id
