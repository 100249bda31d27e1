"""Who may see and change what on the dashboard, from the bot's own view of Discord.

The browser only proves who it is (the session). Which servers a person moderates is asked
of the bot (its guild cache, or Discord's API as the bot) on every request, never read from
what the browser sends; a short cache keeps one page from asking Discord for each job.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from bot import access
from bot.settings import Settings
from tools.jobs.model import Actor

MEMBER_CACHE_SECONDS = 30.0


class GuildView(Protocol):
    """What the bot knows about a guild and a member (implemented over discord.py)."""

    def guild_ids(self) -> list[int]:
        """Every guild the bot is in."""
        ...

    def guild_name(self, guild_id: int) -> str | None: ...

    def channel_name(self, channel_id: int) -> str | None: ...

    def role_name(self, role_id: int) -> str | None: ...

    def roles(self, guild_id: int) -> dict[int, str]:
        """The guild's roles one can address (id → name): not @everyone, not managed."""
        ...

    def text_channels(self, guild_id: int) -> dict[int, str]:
        """The guild's text channels (id → name)."""
        ...

    def user_name(self, user_id: int) -> str | None:
        """A name the view already knows (see `learn_users`)."""
        ...

    async def learn_users(self, user_ids: Sequence[int]) -> None:
        """Look up names for these users (for showing who a job pings)."""
        ...

    async def manages(self, guild_id: int, user_id: int) -> bool | None:
        """Manage Messages in that guild; None if not a member (or the bot isn't there)."""
        ...

    async def dm_channel(self, user_id: int) -> int:
        """The bot's DM channel with the user (where jobs made on the dashboard live)."""
        ...


@dataclass
class Viewer:
    """The signed-in person and the guilds where the bot says they hold Manage Messages."""

    user_id: int
    name: str
    moderates: dict[int, str] = field(default_factory=dict)  # guild id → name

    def actor(self, guild_id: int | None) -> Actor:
        """The engine's Actor for a job in `guild_id` (the engine re-checks ownership)."""
        return Actor(
            self.user_id,
            guild_id,
            manage_messages=guild_id is not None and guild_id in self.moderates,
        )


class Permissions:
    """Resolve a Viewer per request, caching each (guild, user) answer briefly."""

    def __init__(
        self, view: GuildView, settings: Settings, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.view = view
        self.settings = settings
        self.clock = clock
        self._cache: dict[tuple[int, int], tuple[float, bool | None]] = {}

    async def _manages(self, guild_id: int, user_id: int) -> bool | None:
        now = self.clock()
        hit = self._cache.get((guild_id, user_id))
        if hit is not None and now - hit[0] < MEMBER_CACHE_SECONDS:
            return hit[1]
        answer = await self.view.manages(guild_id, user_id)
        self._cache[(guild_id, user_id)] = (now, answer)
        return answer

    async def viewer(self, user_id: int, name: str, guild_ids: Sequence[int]) -> Viewer:
        moderates: dict[int, str] = {}
        for gid in guild_ids:
            if not access.guild_allowed(self.settings, gid):
                continue
            if await self._manages(gid, user_id):
                moderates[gid] = self.view.guild_name(gid) or f"Server {gid}"
        return Viewer(user_id, name, moderates)
