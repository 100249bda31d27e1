"""The fake Discord's world: users, guilds, roles, members, channels, threads, messages
and registered commands, with the test-side set-up calls, the queries tests assert on, and
the payloads the world is described with on the wire (REST answers and gateway events).

Everything here is plain state; telling connected bots about a change is the gateway's
job (`World._dispatch_soon` is its hook), answering HTTP is the routes'.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from .models import (
    BOT_ROLE_PERMISSIONS,
    DEFAULT_EVERYONE_PERMISSIONS,
    DM,
    GUILD_TEXT,
    MANAGE_MESSAGES,
    PUBLIC_THREAD,
    ROLE_MENTION_RE,
    USER_MENTION_RE,
    FakeChannel,
    FakeGuild,
    FakeMember,
    FakeMessage,
    FakeRole,
    FakeUser,
    InteractionHandle,
    Pings,
    SnowflakeGenerator,
    iso_now,
    pings_of,
)


class World:
    """The state every other layer reads and changes (see the package docstring)."""

    def __init__(self, *, bot_name: str) -> None:
        super().__init__()
        self.snowflake = SnowflakeGenerator()
        self.application_id = self.snowflake()
        self.bot_user = FakeUser(
            id=self.application_id, username=bot_name, global_name=None, bot=True
        )
        self.owner_user = FakeUser(id=self.snowflake(), username="owner")
        self.users: dict[int, FakeUser] = {
            self.bot_user.id: self.bot_user,
            self.owner_user.id: self.owner_user,
        }
        self.guilds: dict[int, FakeGuild] = {}
        self.channels: dict[int, FakeChannel] = {}
        self._messages: dict[int, list[FakeMessage]] = {}
        self._message_index: dict[int, FakeMessage] = {}
        self.global_commands: list[dict[str, Any]] = []
        self.guild_commands: dict[int, list[dict[str, Any]]] = {}
        self.interactions: dict[int, InteractionHandle] = {}
        self._interactions_by_token: dict[str, InteractionHandle] = {}
        self._changed = asyncio.Condition()

    def _dispatch_soon(
        self, event: str, payload: Callable[[], dict[str, Any]], guild_id: int | None
    ) -> None:
        """Tell connected bots about a change made by a synchronous set-up call. The gateway
        layer sends it; a world nobody is connected to has nobody to tell."""

    def add_user(
        self,
        username: str,
        *,
        user_id: int | None = None,
        bot: bool = False,
        global_name: str | None = None,
    ) -> FakeUser:
        user = FakeUser(
            id=user_id or self.snowflake(), username=username, global_name=global_name, bot=bot
        )
        self.users[user.id] = user
        return user

    def add_guild(
        self, name: str = "Test Guild", *, guild_id: int | None = None, owner_id: int | None = None
    ) -> FakeGuild:
        """Create a guild with an ``@everyone`` role and the bot as a member (with a bot role)."""
        gid = guild_id or self.snowflake()
        guild = FakeGuild(id=gid, name=name, owner_id=owner_id or self.owner_user.id)
        guild.roles[gid] = FakeRole(
            id=gid, guild_id=gid, name="@everyone", permissions=DEFAULT_EVERYONE_PERMISSIONS
        )
        bot_role = FakeRole(
            id=self.snowflake(),
            guild_id=gid,
            name=self.bot_user.username,
            permissions=BOT_ROLE_PERMISSIONS,
            position=1,
            managed=True,
        )
        guild.roles[bot_role.id] = bot_role
        guild.members[self.bot_user.id] = FakeMember(
            user_id=self.bot_user.id, guild_id=gid, roles=[bot_role.id]
        )
        guild.members[guild.owner_id] = FakeMember(user_id=guild.owner_id, guild_id=gid)
        self.guilds[gid] = guild
        self._dispatch_soon("GUILD_CREATE", lambda: self._guild_create_payload(guild), gid)
        return guild

    def add_role(
        self,
        guild_id: int,
        name: str,
        *,
        permissions: int = 0,
        manage_messages: bool = False,
        mentionable: bool = True,
    ) -> FakeRole:
        guild = self.guilds[guild_id]
        perms = permissions | (MANAGE_MESSAGES if manage_messages else 0)
        role = FakeRole(
            id=self.snowflake(),
            guild_id=guild_id,
            name=name,
            permissions=perms,
            position=len(guild.roles),
            mentionable=mentionable,
        )
        guild.roles[role.id] = role
        created = {"guild_id": str(guild_id), "role": role.payload()}
        self._dispatch_soon("GUILD_ROLE_CREATE", lambda: created, guild_id)
        return role

    def add_member(
        self,
        guild_id: int,
        user_id: int,
        *,
        roles: list[int] | None = None,
        nick: str | None = None,
    ) -> FakeMember:
        member = FakeMember(user_id=user_id, guild_id=guild_id, roles=list(roles or []), nick=nick)
        self.guilds[guild_id].members[user_id] = member
        return member

    def add_channel(
        self,
        guild_id: int,
        name: str = "general",
        *,
        channel_id: int | None = None,
        topic: str | None = None,
    ) -> FakeChannel:
        channel = FakeChannel(
            id=channel_id or self.snowflake(),
            type=GUILD_TEXT,
            name=name,
            guild_id=guild_id,
            topic=topic,
            position=len(self.channels),
        )
        self.channels[channel.id] = channel
        self._dispatch_soon("CHANNEL_CREATE", lambda: channel.payload(), guild_id)
        return channel

    def add_thread(
        self,
        parent_id: int,
        name: str = "thread",
        *,
        owner_id: int | None = None,
        thread_id: int | None = None,
        archived: bool = False,
        locked: bool = False,
        auto_archive_duration: int = 1440,
    ) -> FakeChannel:
        parent = self.channels[parent_id]
        thread = FakeChannel(
            id=thread_id or self.snowflake(),
            type=PUBLIC_THREAD,
            name=name,
            guild_id=parent.guild_id,
            parent_id=parent_id,
            owner_id=owner_id or self.bot_user.id,
            archived=archived,
            locked=locked,
            auto_archive_duration=auto_archive_duration,
        )
        thread.thread_member_ids.add(thread.owner_id or self.bot_user.id)
        self.channels[thread.id] = thread
        if not archived:
            self._dispatch_soon(
                "THREAD_CREATE",
                lambda: {**thread.payload(), "newly_created": True},
                parent.guild_id,
            )
        return thread

    def dm_channel(self, user_id: int) -> FakeChannel:
        """Get or create the DM channel between the bot and ``user_id``."""
        for channel in self.channels.values():
            if channel.type == DM and channel.recipient_id == user_id and not channel.deleted:
                return channel
        channel = FakeChannel(id=self.snowflake(), type=DM, recipient_id=user_id)
        self.channels[channel.id] = channel
        return channel

    def close_dms(self, user_id: int, closed: bool = True) -> None:
        """Make DMs to ``user_id`` fail with 403 / 50007."""
        self.users[user_id].dms_closed = closed

    def deny_access(self, channel_id: int, denied: bool = True) -> None:
        """Make any bot access to the channel fail with 403 / 50001 Missing Access."""
        self.channels[channel_id].bot_has_access = not denied

    def pinged(self, message: FakeMessage) -> Pings:
        """Who `message` actually notified (see `pings_of`)."""
        return pings_of(message.content, message.allowed_mentions)

    def messages(self, channel_id: int, *, include_deleted: bool = False) -> list[FakeMessage]:
        """Messages in a channel, oldest first (ephemeral interaction messages are not included)."""
        return [m for m in self._messages.get(channel_id, []) if include_deleted or not m.deleted]

    def get_message(self, message_id: int) -> FakeMessage | None:
        return self._message_index.get(message_id)

    def bot_messages(self, channel_id: int) -> list[FakeMessage]:
        return [m for m in self.messages(channel_id) if m.author_id == self.bot_user.id]

    async def wait_for(self, predicate: Callable[[], bool], timeout: float = 2.0) -> None:
        """Wait until ``predicate()`` is true; re-checked whenever the fake's state changes."""

        async def _wait() -> None:
            async with self._changed:
                await self._changed.wait_for(predicate)

        await asyncio.wait_for(_wait(), timeout)

    async def wait_for_message(
        self,
        channel_id: int,
        predicate: Callable[[FakeMessage], bool] | None = None,
        timeout: float = 2.0,
        *,
        include_existing: bool = True,
    ) -> FakeMessage:
        """Wait for a (non-deleted) message in ``channel_id`` matching ``predicate``."""
        seen = set() if include_existing else {m.id for m in self.messages(channel_id)}
        found: list[FakeMessage] = []

        def check() -> bool:
            for m in self.messages(channel_id):
                if m.id not in seen and (predicate is None or predicate(m)):
                    found.append(m)
                    return True
            return False

        await self.wait_for(check, timeout)
        return found[0]

    async def _notify(self) -> None:
        async with self._changed:
            self._changed.notify_all()

    def _member_payload(
        self,
        guild: FakeGuild,
        user_id: int,
        *,
        with_user: bool = True,
        with_permissions: bool = False,
    ) -> dict[str, Any]:
        member = guild.members.get(user_id) or FakeMember(user_id=user_id, guild_id=guild.id)
        return member.payload(
            self.users[user_id] if with_user else None,
            guild.permissions_for(user_id) if with_permissions else None,
        )

    def _guild_create_payload(self, guild: FakeGuild) -> dict[str, Any]:
        channels = [c for c in self.channels.values() if c.guild_id == guild.id and not c.deleted]
        return {
            "id": str(guild.id),
            "name": guild.name,
            "icon": None,
            "splash": None,
            "discovery_splash": None,
            "owner_id": str(guild.owner_id),
            "afk_channel_id": None,
            "afk_timeout": 300,
            "verification_level": 0,
            "default_message_notifications": 0,
            "explicit_content_filter": 0,
            "roles": [r.payload() for r in guild.roles.values()],
            "emojis": [],
            "stickers": [],
            "features": [],
            "mfa_level": 0,
            "application_id": None,
            "system_channel_id": None,
            "system_channel_flags": 0,
            "rules_channel_id": None,
            "vanity_url_code": None,
            "description": None,
            "banner": None,
            "premium_tier": 0,
            "preferred_locale": "en-US",
            "public_updates_channel_id": None,
            "nsfw_level": 0,
            "premium_progress_bar_enabled": False,
            "joined_at": guild.joined_at,
            "large": False,
            "unavailable": False,
            "member_count": len(guild.members),
            "voice_states": [],
            "members": [self._member_payload(guild, uid) for uid in guild.members],
            "channels": [c.payload() for c in channels if not c.is_thread],
            "threads": [c.payload() for c in channels if c.is_thread and not c.archived],
            "presences": [],
            "stage_instances": [],
            "guild_scheduled_events": [],
            "soundboard_sounds": [],
        }

    def _app_info_payload(self) -> dict[str, Any]:
        return {
            "id": str(self.application_id),
            "name": self.bot_user.username,
            "icon": None,
            "description": "",
            "rpc_origins": [],
            "bot_public": True,
            "bot_require_code_grant": False,
            "bot": self.bot_user.payload(),
            "owner": self.owner_user.payload(),
            "team": None,
            "verify_key": "0" * 64,
            "flags": 0,
            "summary": "",
            "tags": [],
            "redirect_uris": [],
            "interactions_endpoint_url": None,
            "approximate_guild_count": len(self.guilds),
        }

    def _attachments(
        self, files: list[dict[str, Any]], url_base: str | None
    ) -> list[dict[str, Any]]:
        """The `attachments` of a message carrying `files` (served under `url_base`, if any)."""
        return [
            {
                "id": str(self.snowflake()),
                "filename": f["filename"],
                "size": f["size"],
                "url": f"{url_base}/attachments/{f['filename']}" if url_base else "",
                "proxy_url": f"{url_base}/attachments/{f['filename']}" if url_base else "",
            }
            for f in files
        ]

    def _new_message(
        self,
        channel: FakeChannel,
        author: FakeUser,
        body: dict[str, Any],
        *,
        extra_mentions: list[int] | None = None,
    ) -> dict[str, Any]:
        content = str(body.get("content") or "")
        mention_ids: list[int] = [int(x) for x in USER_MENTION_RE.findall(content)]
        mention_ids += list(extra_mentions or [])
        mentions = []
        for uid in dict.fromkeys(mention_ids):
            user = self.users.get(uid)
            if user is None:
                continue
            data = user.payload()
            guild = self.guilds.get(channel.guild_id or 0)
            if guild is not None and uid in guild.members:
                data["member"] = self._member_payload(guild, uid, with_user=False)
            mentions.append(data)
        msg: dict[str, Any] = {
            "id": str(body.get("id") or self.snowflake()),
            "type": 19 if body.get("message_reference") else 0,
            "channel_id": str(channel.id),
            "author": author.payload(),
            "content": content,
            "timestamp": iso_now(),
            "edited_timestamp": None,
            "tts": bool(body.get("tts", False)),
            "mention_everyone": "@everyone" in content and author.id != self.bot_user.id,
            "mentions": mentions,
            "mention_roles": list(dict.fromkeys(ROLE_MENTION_RE.findall(content))),
            "attachments": body.get("attachments") or [],
            "embeds": body.get("embeds") or [],
            "components": body.get("components") or [],
            "pinned": False,
            "flags": int(body.get("flags") or 0),
            "reactions": [],
        }
        if body.get("nonce") is not None:
            msg["nonce"] = body["nonce"]
        if channel.guild_id is not None:
            msg["guild_id"] = str(channel.guild_id)
            guild = self.guilds.get(channel.guild_id)
            if guild is not None:
                msg["member"] = self._member_payload(guild, author.id, with_user=False)
        ref = body.get("message_reference")
        if ref:
            ref_id = int(ref.get("message_id"))
            msg["message_reference"] = {
                "type": 0,
                "message_id": str(ref_id),
                "channel_id": str(channel.id),
                "guild_id": str(channel.guild_id) if channel.guild_id else None,
            }
            referenced = self._message_index.get(ref_id)
            msg["referenced_message"] = referenced.payload if referenced else None
        if channel.is_thread:
            msg["position"] = channel.message_count
        return msg

    def _store(self, message: FakeMessage) -> None:
        self._messages.setdefault(message.channel_id, []).append(message)
        self._message_index[message.id] = message
        channel = self.channels.get(message.channel_id)
        if channel is not None:
            channel.last_message_id = message.id
            channel.message_count += 1
