"""Data model of the fake Discord server (users, guilds, channels, messages, interactions)."""

from __future__ import annotations

import asyncio
import datetime
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

DISCORD_EPOCH_MS = 1420070400000

# Permission bits (https://discord.com/developers/docs/topics/permissions)
ADD_REACTIONS = 1 << 6
VIEW_CHANNEL = 1 << 10
SEND_MESSAGES = 1 << 11
MANAGE_MESSAGES = 1 << 13
EMBED_LINKS = 1 << 14
ATTACH_FILES = 1 << 15
READ_MESSAGE_HISTORY = 1 << 16
MENTION_EVERYONE = 1 << 17
USE_APPLICATION_COMMANDS = 1 << 31
MANAGE_THREADS = 1 << 34
CREATE_PUBLIC_THREADS = 1 << 35
SEND_MESSAGES_IN_THREADS = 1 << 38
ADMINISTRATOR = 1 << 3

DEFAULT_EVERYONE_PERMISSIONS = (
    ADD_REACTIONS
    | VIEW_CHANNEL
    | SEND_MESSAGES
    | EMBED_LINKS
    | ATTACH_FILES
    | READ_MESSAGE_HISTORY
    | USE_APPLICATION_COMMANDS
    | CREATE_PUBLIC_THREADS
    | SEND_MESSAGES_IN_THREADS
)
BOT_ROLE_PERMISSIONS = DEFAULT_EVERYONE_PERMISSIONS | MANAGE_MESSAGES | MANAGE_THREADS

# Channel types
GUILD_TEXT = 0
DM = 1
PUBLIC_THREAD = 11
PRIVATE_THREAD = 12
THREAD_TYPES = (10, PUBLIC_THREAD, PRIVATE_THREAD)

# Message flags
EPHEMERAL = 1 << 6
LOADING = 1 << 7

USER_MENTION_RE = re.compile(r"<@!?(\d+)>")
ROLE_MENTION_RE = re.compile(r"<@&(\d+)>")


def iso_now() -> str:
    return datetime.datetime.now(datetime.UTC).isoformat()


class SnowflakeGenerator:
    """Monotonic snowflake ids derived from the wall clock."""

    def __init__(self) -> None:
        self._last = 0

    def __call__(self) -> int:
        now_ms = int(time.time() * 1000) - DISCORD_EPOCH_MS
        candidate = now_ms << 22
        self._last = max(candidate, self._last + 1)
        return self._last


@dataclass
class FakeUser:
    id: int
    username: str
    global_name: str | None = None
    bot: bool = False
    dms_closed: bool = False

    def payload(self) -> dict[str, Any]:
        return {
            "id": str(self.id),
            "username": self.username,
            "discriminator": "0",
            "global_name": self.global_name,
            "avatar": None,
            "bot": self.bot,
            "system": False,
            "public_flags": 0,
            "flags": 0,
            "banner": None,
            "accent_color": None,
            "avatar_decoration_data": None,
        }


@dataclass
class FakeRole:
    id: int
    guild_id: int
    name: str
    permissions: int = 0
    position: int = 0
    managed: bool = False
    mentionable: bool = True

    def payload(self) -> dict[str, Any]:
        return {
            "id": str(self.id),
            "name": self.name,
            "color": 0,
            "colors": {"primary_color": 0, "secondary_color": None, "tertiary_color": None},
            "hoist": False,
            "icon": None,
            "unicode_emoji": None,
            "position": self.position,
            "permissions": str(self.permissions),
            "managed": self.managed,
            "mentionable": self.mentionable,
            "flags": 0,
        }


@dataclass
class FakeMember:
    user_id: int
    guild_id: int
    roles: list[int] = field(default_factory=list)
    nick: str | None = None
    joined_at: str = field(default_factory=iso_now)

    def payload(
        self, user: FakeUser | None = None, permissions: int | None = None
    ) -> dict[str, Any]:
        data: dict[str, Any] = {
            "roles": [str(r) for r in self.roles],
            "nick": self.nick,
            "avatar": None,
            "banner": None,
            "joined_at": self.joined_at,
            "premium_since": None,
            "deaf": False,
            "mute": False,
            "flags": 0,
            "pending": False,
            "communication_disabled_until": None,
        }
        if user is not None:
            data["user"] = user.payload()
        if permissions is not None:
            data["permissions"] = str(permissions)
        return data


@dataclass
class FakeChannel:
    id: int
    type: int
    name: str | None = None
    guild_id: int | None = None
    parent_id: int | None = None
    owner_id: int | None = None
    position: int = 0
    topic: str | None = None
    # thread metadata
    archived: bool = False
    locked: bool = False
    auto_archive_duration: int = 1440
    archive_timestamp: str = field(default_factory=iso_now)
    create_timestamp: str = field(default_factory=iso_now)
    thread_member_ids: set[int] = field(default_factory=set)
    # DM
    recipient_id: int | None = None
    # state
    deleted: bool = False
    bot_has_access: bool = True
    last_message_id: int | None = None
    message_count: int = 0
    # Permission overwrites by role or member id: (type 0 role / 1 member, allow, deny).
    overwrites: dict[int, tuple[int, int, int]] = field(default_factory=dict)

    @property
    def is_thread(self) -> bool:
        return self.type in THREAD_TYPES

    def payload(self, users: dict[int, FakeUser] | None = None) -> dict[str, Any]:
        data: dict[str, Any] = {
            "id": str(self.id),
            "type": self.type,
            "last_message_id": str(self.last_message_id) if self.last_message_id else None,
            "flags": 0,
        }
        if self.type == DM:
            recipients = []
            if users is not None and self.recipient_id in users:
                recipients.append(users[self.recipient_id].payload())
            data["recipients"] = recipients
            return data
        data.update(
            {
                "guild_id": str(self.guild_id),
                "name": self.name,
                "rate_limit_per_user": 0,
                "parent_id": str(self.parent_id) if self.parent_id else None,
                "nsfw": False,
            }
        )
        if self.is_thread:
            data.update(
                {
                    "owner_id": str(self.owner_id) if self.owner_id else None,
                    "message_count": self.message_count,
                    "total_message_sent": self.message_count,
                    "member_count": len(self.thread_member_ids),
                    "thread_metadata": {
                        "archived": self.archived,
                        "locked": self.locked,
                        "auto_archive_duration": self.auto_archive_duration,
                        "archive_timestamp": self.archive_timestamp,
                        "create_timestamp": self.create_timestamp,
                        "invitable": True,
                    },
                    "applied_tags": [],
                }
            )
        else:
            data.update(
                {
                    "position": self.position,
                    "permission_overwrites": [
                        {"id": str(k), "type": t, "allow": str(a), "deny": str(d)}
                        for k, (t, a, d) in self.overwrites.items()
                    ],
                    "topic": self.topic,
                }
            )
        return data


@dataclass
class FakeGuild:
    id: int
    name: str
    owner_id: int
    roles: dict[int, FakeRole] = field(default_factory=dict)
    members: dict[int, FakeMember] = field(default_factory=dict)
    joined_at: str = field(default_factory=iso_now)

    def permissions_for(self, user_id: int) -> int:
        if user_id == self.owner_id:
            return (1 << 53) - 1
        perms = self.roles[self.id].permissions if self.id in self.roles else 0
        member = self.members.get(user_id)
        if member is not None:
            for role_id in member.roles:
                role = self.roles.get(role_id)
                if role is not None:
                    perms |= role.permissions
        if perms & ADMINISTRATOR:
            return (1 << 53) - 1
        return perms

    def channel_permissions(self, user_id: int, channel: FakeChannel) -> int:
        """Discord's order: base, then @everyone's overwrite, roles' overwrites, the member's."""
        perms = self.permissions_for(user_id)
        if perms == (1 << 53) - 1:
            return perms
        ow = channel.overwrites
        if self.id in ow:
            perms = (perms & ~ow[self.id][2]) | ow[self.id][1]
        member = self.members.get(user_id)
        roles = member.roles if member is not None else []
        deny = allow = 0
        for role_id in roles:
            if role_id in ow:
                allow |= ow[role_id][1]
                deny |= ow[role_id][2]
        perms = (perms & ~deny) | allow
        if user_id in ow:
            perms = (perms & ~ow[user_id][2]) | ow[user_id][1]
        return perms


@dataclass(frozen=True)
class Pings:
    """Who a message really notified: mentioned in its text AND allowed by `allowed_mentions`."""

    users: frozenset[int]
    roles: frozenset[int]
    everyone: bool


def pings_of(content: str, allowed: dict[str, Any] | None) -> Pings:
    """Discord's rule: with no `allowed_mentions` everything mentioned pings; otherwise a
    mention pings only if its kind is in `parse` or its id is listed."""
    users = {int(u) for u in USER_MENTION_RE.findall(content)}
    roles = {int(r) for r in ROLE_MENTION_RE.findall(content)}
    everyone = "@everyone" in content or "@here" in content
    if allowed is None:
        return Pings(frozenset(users), frozenset(roles), everyone)
    parse = set(allowed.get("parse") or [])
    ok_users = {int(u) for u in allowed.get("users") or []}
    ok_roles = {int(r) for r in allowed.get("roles") or []}
    return Pings(
        frozenset(u for u in users if "users" in parse or u in ok_users),
        frozenset(r for r in roles if "roles" in parse or r in ok_roles),
        everyone and "everyone" in parse,
    )


@dataclass
class FakeMessage:
    """A stored message. ``payload`` is exactly what the fake sends to clients."""

    payload: dict[str, Any]
    allowed_mentions: dict[str, Any] | None = None
    nonce: str | int | None = None
    ephemeral: bool = False
    deleted: bool = False
    request_body: dict[str, Any] | None = None
    interaction_id: int | None = None

    @property
    def id(self) -> int:
        return int(self.payload["id"])

    @property
    def channel_id(self) -> int:
        return int(self.payload["channel_id"])

    @property
    def author_id(self) -> int:
        return int(self.payload["author"]["id"])

    @property
    def content(self) -> str:
        return str(self.payload.get("content", ""))

    @property
    def embeds(self) -> list[dict[str, Any]]:
        return list(self.payload.get("embeds") or [])

    @property
    def components(self) -> list[dict[str, Any]]:
        return list(self.payload.get("components") or [])

    @property
    def flags(self) -> int:
        return int(self.payload.get("flags") or 0)

    def custom_ids(self) -> list[str]:
        """All ``custom_id`` values found (recursively) in the message components."""
        found: list[str] = []

        def walk(node: Any) -> None:
            if isinstance(node, dict):
                if "custom_id" in node:
                    found.append(str(node["custom_id"]))
                for value in node.values():
                    walk(value)
            elif isinstance(node, list):
                for item in node:
                    walk(item)

        walk(self.components)
        return found


@dataclass
class RecordedRequest:
    method: str
    path: str
    query: dict[str, str]
    json: Any
    time: float
    status: int = 0


@dataclass
class Fault:
    method: str
    path_re: re.Pattern[str]
    status: int
    remaining: int
    drop: bool = False
    retry_after: float = 0.05
    body: Any = None
    is_global: bool = False
    hits: int = 0


class InteractionHandle:
    """One interaction the fake dispatched: its callback(s), original response, follow-ups."""

    def __init__(
        self,
        *,
        id: int,
        token: str,
        type: int,
        channel_id: int,
        guild_id: int | None,
        user_id: int,
        payload: dict[str, Any],
        component_message_id: int | None = None,
    ) -> None:
        self.id = id
        self.token = token
        self.type = type
        self.channel_id = channel_id
        self.guild_id = guild_id
        self.user_id = user_id
        self.payload = payload
        self.component_message_id = component_message_id
        self.callbacks: list[dict[str, Any]] = []
        self.original: FakeMessage | None = None
        self.followups: list[FakeMessage] = []
        self.edits = 0  # edits of the original response through the webhook
        self._changed = asyncio.Condition()

    # --- convenience views -------------------------------------------------
    @property
    def responded(self) -> bool:
        return bool(self.callbacks)

    @property
    def response_type(self) -> int | None:
        return int(self.callbacks[0]["type"]) if self.callbacks else None

    @property
    def response_data(self) -> dict[str, Any]:
        if not self.callbacks:
            return {}
        return dict(self.callbacks[0].get("data") or {})

    @property
    def ephemeral(self) -> bool:
        """Whether the presser alone sees the answer; after a silent deferral (type 6)
        that answer, if any, is the first follow-up."""
        if self.response_type == 6 and self.followups:
            return self.followups[0].ephemeral
        return bool(int(self.response_data.get("flags") or 0) & EPHEMERAL)

    @property
    def updated_in_place(self) -> bool:
        """The clicked message was edited: at once (type 7) or after a silent deferral."""
        return self.response_type == 7 or (self.response_type == 6 and self.edits > 0)

    async def _notify(self) -> None:
        async with self._changed:
            self._changed.notify_all()

    async def wait_until(
        self, predicate: Callable[[InteractionHandle], bool], timeout: float = 2.0
    ) -> None:
        async def _wait() -> None:
            async with self._changed:
                await self._changed.wait_for(lambda: predicate(self))

        await asyncio.wait_for(_wait(), timeout)

    async def wait_response(self, timeout: float = 2.0) -> dict[str, Any]:
        """Wait for the interaction callback (``POST /interactions/{id}/{token}/callback``) body."""
        await self.wait_until(lambda h: h.responded, timeout)
        return self.callbacks[0]

    async def wait_answer(self, timeout: float = 2.0) -> dict[str, Any]:
        """The answer the user sees, as message data: the immediate response's, or after a
        deferral ("thinking…") the edited original or the first follow-up; after a silent
        deferral of a click (type 6) the first follow-up or else the edited clicked message."""
        body = await self.wait_response(timeout)
        if int(body["type"]) not in (5, 6):
            return dict(body.get("data") or {})
        silent = int(body["type"]) == 6

        def answered(h: InteractionHandle) -> bool:
            original = h.original
            if silent:
                return bool(h.followups) or h.edits > 0
            return bool(h.followups) or (
                original is not None and bool(original.content or original.embeds)
            )

        await self.wait_until(answered, timeout)
        original = self.original
        if silent and self.followups:
            message = self.followups[0]
        elif original is not None and (silent or original.content or original.embeds):
            message = original
        else:
            message = self.followups[0]
        return {
            "content": message.content,
            "embeds": message.embeds,
            "components": message.components,
            "flags": message.flags,
        }

    async def wait_followups(self, count: int = 1, timeout: float = 2.0) -> list[FakeMessage]:
        await self.wait_until(lambda h: len(h.followups) >= count, timeout)
        return list(self.followups)

    async def wait_original(
        self, predicate: Callable[[FakeMessage], bool] | None = None, timeout: float = 2.0
    ) -> FakeMessage:
        """Wait until the original response exists (and satisfies ``predicate``)."""

        def check(h: InteractionHandle) -> bool:
            return h.original is not None and (predicate is None or predicate(h.original))

        await self.wait_until(check, timeout)
        assert self.original is not None
        return self.original

    def __repr__(self) -> str:
        return f"<InteractionHandle id={self.id} type={self.type} callbacks={len(self.callbacks)}>"
