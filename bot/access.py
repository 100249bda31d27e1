"""Who may talk to the agent, and how much model use one person gets per day."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from bot.settings import Settings
from storage.db import Database
from storage.user_settings import UserSettingsStore

CAP_REACHED = (
    "You've used today's share of my AI model ({cap} requests), so I'm answering with my "
    "simple built-in parser until tomorrow (UTC). Slash commands like `/remind` still work."
)
NO_ROLE = "Talking to me here needs one of the roles the server admins picked for Homar."


def guild_allowed(settings: Settings, guild_id: int | None) -> bool:
    """DMs are always fine; guilds only if listed (an empty list allows every guild)."""
    allowed = settings.allowed_guild_ids
    return guild_id is None or not allowed or guild_id in allowed


def roles_allowed(settings: Settings, guild_id: int | None, role_ids: Iterable[int]) -> bool:
    """In a guild, one of AGENT_ROLE_IDS is needed (empty: everyone); DMs need none."""
    wanted = set(settings.agent_role_ids)
    return guild_id is None or not wanted or bool(wanted & set(role_ids))


class Usage:
    """Per-user daily model-request counts in `user_settings` (usage_day, usage_requests)."""

    def __init__(self, db: Database, cap: int) -> None:
        self.store = UserSettingsStore(db)
        self.cap = cap

    async def used(self, user_id: int, now: datetime) -> int:
        return await self.store.requests_on(user_id, now.date().isoformat())

    async def over_cap(self, user_id: int, now: datetime) -> bool:
        return await self.used(user_id, now) >= self.cap

    async def spend(self, user_id: int, now: datetime, requests: int) -> None:
        if requests > 0:
            await self.store.add_requests(user_id, now.date().isoformat(), requests)
