"""In-process fake Discord server (REST + gateway) for offline end-to-end tests.

See ``tests/fakediscord/__init__.py`` for an overview and usage example.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import secrets
import time
import urllib.parse
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Self

from aiohttp import BodyPartReader, WSMsgType, web

from .models import (
    BOT_ROLE_PERMISSIONS,
    DEFAULT_EVERYONE_PERMISSIONS,
    DM,
    EPHEMERAL,
    GUILD_TEXT,
    LOADING,
    MANAGE_MESSAGES,
    PUBLIC_THREAD,
    ROLE_MENTION_RE,
    SEND_MESSAGES,
    USER_MENTION_RE,
    VIEW_CHANNEL,
    FakeChannel,
    FakeGuild,
    FakeMember,
    FakeMessage,
    FakeRole,
    FakeUser,
    Fault,
    InteractionHandle,
    Pings,
    RecordedRequest,
    SnowflakeGenerator,
    iso_now,
    pings_of,
)
from .oauth import FakeOAuth
from .ratelimits import RateLimits

# Discord refuses message content longer than this (characters).
MAX_CONTENT = 2000

log = logging.getLogger(__name__)

JSON = Any
Handler = Callable[[web.Request, "re.Match[str]", JSON], Awaitable[web.StreamResponse]]


class DiscordError(Exception):
    """Raised inside a REST handler to produce a Discord-style JSON error."""

    def __init__(self, status: int, code: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message


def json_response(
    data: JSON, status: int = 200, headers: dict[str, str] | None = None
) -> web.Response:
    """JSON response with Content-Type exactly ``application/json`` (discord.py requires it)."""
    all_headers = {"Content-Type": "application/json"}
    if headers:
        all_headers.update(headers)
    return web.Response(body=json.dumps(data).encode(), status=status, headers=all_headers)


def error_response(status: int, code: int, message: str) -> web.Response:
    return json_response({"code": code, "message": message}, status=status)


@dataclass
class GatewaySession:
    session_id: str
    shard_id: int = 0
    shard_count: int = 1
    seq: int = 0
    ws: web.WebSocketResponse | None = None
    buffer: list[dict[str, Any]] = field(default_factory=list)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    identify: dict[str, Any] = field(default_factory=dict)

    def wants(self, guild_id: int | None) -> bool:
        if guild_id is None:
            return self.shard_id == 0
        return (guild_id >> 22) % self.shard_count == self.shard_id

    async def send(self, frame: dict[str, Any]) -> None:
        ws = self.ws
        if ws is None or ws.closed:
            return
        async with self.lock:
            try:
                await ws.send_str(json.dumps(frame))
            except (ConnectionError, RuntimeError) as exc:  # pragma: no cover - racing a disconnect
                log.debug("gateway send failed: %s", exc)


class FakeDiscord:
    """A fake Discord API + gateway server. See module docstring of the package for usage."""

    API_PREFIX = "/api/v10"

    def __init__(
        self,
        *,
        bot_name: str = "Homar",
        token: str | None = None,
        heartbeat_interval_ms: int = 41250,
        nonce_window: float = 300.0,
        rate_limits: RateLimits | None = None,
    ) -> None:
        self.snowflake = SnowflakeGenerator()
        # Discord's documented limits, enforced only when switched on (see ratelimits.py).
        self.rate_limits = rate_limits
        self.token = token
        self.heartbeat_interval_ms = heartbeat_interval_ms
        self.nonce_window = nonce_window
        self.clock: Callable[[], float] = time.monotonic

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
        self._nonces: dict[tuple[int, str], tuple[float, int]] = {}
        self.nonce_dedup_hits = 0
        self.global_commands: list[dict[str, Any]] = []
        self.guild_commands: dict[int, list[dict[str, Any]]] = {}
        self.interactions: dict[int, InteractionHandle] = {}
        self._interactions_by_token: dict[str, InteractionHandle] = {}

        self.requests: list[RecordedRequest] = []
        self.unknown_routes: list[tuple[str, str]] = []
        self.events: list[tuple[str, dict[str, Any]]] = []
        self.faults: list[Fault] = []
        self.identify_count = 0
        self.resume_count = 0

        self.sessions: dict[str, GatewaySession] = {}
        self._changed = asyncio.Condition()
        self._bg_tasks: set[asyncio.Task[Any]] = set()
        self._runner: web.AppRunner | None = None
        self._site: web.TCPSite | None = None
        self.port: int = 0
        self._routes: list[tuple[str, re.Pattern[str], Handler]] = []
        self.oauth = FakeOAuth()
        self._register_routes()

    # ------------------------------------------------------------------ lifecycle
    async def start(self) -> Self:
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_get("/gateway", self._gateway_handler)
        app.router.add_get("/oauth2/authorize", self.oauth.authorize_page)
        app.router.add_post("/oauth2/authorize", self.oauth.authorize_submit)
        app.router.add_route("*", self.API_PREFIX + "/{tail:.*}", self._rest_handler)
        self._runner = web.AppRunner(app, access_log=None, handle_signals=False)
        await self._runner.setup()
        self._site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await self._site.start()
        server = self._site._server
        assert server is not None
        sockets = getattr(server, "sockets", None)
        assert sockets
        self.port = int(sockets[0].getsockname()[1])
        return self

    async def stop(self) -> None:
        for session in list(self.sessions.values()):
            if session.ws is not None and not session.ws.closed:
                await session.ws.close(code=1001)
        for task in list(self._bg_tasks):
            task.cancel()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> Self:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def api_base(self) -> str:
        return self.base_url + self.API_PREFIX

    @property
    def gateway_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/gateway"

    # ------------------------------------------------------------------ model setup (test side)
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

    async def update_role(
        self,
        guild_id: int,
        role_id: int,
        *,
        mentionable: bool | None = None,
        permissions: int | None = None,
    ) -> FakeRole:
        """Change a role as an admin would; GUILD_ROLE_UPDATE tells the bots."""
        role = self.guilds[guild_id].roles[role_id]
        if mentionable is not None:
            role.mentionable = mentionable
        if permissions is not None:
            role.permissions = permissions
        await self._flush_soon()
        await self.dispatch(
            "GUILD_ROLE_UPDATE", {"guild_id": str(guild_id), "role": role.payload()}, guild_id
        )
        return role

    async def set_overwrite(
        self,
        channel_id: int,
        target_id: int,
        *,
        allow: int = 0,
        deny: int = 0,
        member: bool = True,
    ) -> None:
        """A channel permission overwrite for a member (or a role); CHANNEL_UPDATE tells bots."""
        channel = self.channels[channel_id]
        channel.overwrites[target_id] = (1 if member else 0, allow, deny)
        await self._flush_soon()  # a CHANNEL_CREATE still queued must arrive first
        await self.dispatch("CHANNEL_UPDATE", channel.payload(), channel.guild_id)

    async def _flush_soon(self) -> None:
        """Wait for events queued by `_dispatch_soon`, so later ones keep Discord's order."""
        if self._bg_tasks:
            await asyncio.gather(*list(self._bg_tasks), return_exceptions=True)

    async def set_member_roles(self, guild_id: int, user_id: int, roles: list[int]) -> None:
        """Give a member exactly these roles (seen by REST member fetches)."""
        self.guilds[guild_id].members[user_id].roles = list(roles)
        await self._notify()

    def pinged(self, message: FakeMessage) -> Pings:
        """Who `message` actually notified (see `pings_of`)."""
        return pings_of(message.content, message.allowed_mentions)

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

    async def archive_thread(self, thread_id: int, *, locked: bool = False) -> None:
        thread = self.channels[thread_id]
        thread.archived = True
        thread.locked = locked
        thread.archive_timestamp = iso_now()
        await self.dispatch("THREAD_UPDATE", thread.payload(), thread.guild_id)

    async def unarchive_thread(self, thread_id: int) -> None:
        thread = self.channels[thread_id]
        thread.archived = False
        thread.locked = False
        await self.dispatch("THREAD_UPDATE", thread.payload(), thread.guild_id)

    async def delete_channel(self, channel_id: int) -> None:
        channel = self.channels[channel_id]
        channel.deleted = True
        if channel.is_thread:
            await self.dispatch(
                "THREAD_DELETE",
                {
                    "id": str(channel.id),
                    "guild_id": str(channel.guild_id),
                    "parent_id": str(channel.parent_id),
                    "type": channel.type,
                },
                channel.guild_id,
            )
        elif channel.type != DM:
            await self.dispatch("CHANNEL_DELETE", channel.payload(), channel.guild_id)

    # ------------------------------------------------------------------ queries (test side)
    def messages(self, channel_id: int, *, include_deleted: bool = False) -> list[FakeMessage]:
        """Messages in a channel, oldest first (ephemeral interaction messages are not included)."""
        return [m for m in self._messages.get(channel_id, []) if include_deleted or not m.deleted]

    def get_message(self, message_id: int) -> FakeMessage | None:
        return self._message_index.get(message_id)

    def bot_messages(self, channel_id: int) -> list[FakeMessage]:
        return [m for m in self.messages(channel_id) if m.author_id == self.bot_user.id]

    def distinct_nonces(self, channel_id: int | None = None) -> int:
        return len({k for k in self._nonces if channel_id is None or k[0] == channel_id})

    def requests_matching(self, method: str, path_regex: str) -> list[RecordedRequest]:
        rx = re.compile(path_regex)
        return [r for r in self.requests if r.method == method.upper() and rx.search(r.path)]

    @property
    def connected_sessions(self) -> list[GatewaySession]:
        return [s for s in self.sessions.values() if s.ws is not None and not s.ws.closed]

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

    async def wait_for_request(
        self, method: str, path_regex: str, timeout: float = 2.0, count: int = 1
    ) -> RecordedRequest:
        await self.wait_for(
            lambda: len(self.requests_matching(method, path_regex)) >= count, timeout
        )
        return self.requests_matching(method, path_regex)[count - 1]

    async def wait_for_connections(self, count: int = 1, timeout: float = 2.0) -> None:
        await self.wait_for(lambda: len(self.connected_sessions) >= count, timeout)

    async def _notify(self) -> None:
        async with self._changed:
            self._changed.notify_all()

    def enforce_rate_limits(self, **limits: float) -> RateLimits:
        """Switch on Discord's limits (50 requests/s globally, 5 messages per 5 s per
        channel by default; keywords as ``RateLimits``): headers, and 429 when over."""
        self.rate_limits = RateLimits(**limits)  # type: ignore[arg-type]
        return self.rate_limits

    # ------------------------------------------------------------------ fault injection
    def inject_fault(
        self,
        method: str,
        path_regex: str,
        *,
        status: int = 500,
        count: int = 1,
        drop: bool = False,
        retry_after: float = 0.05,
        body: Any = None,
        is_global: bool = False,
    ) -> Fault:
        """The next ``count`` requests matching method + path regex (path relative to the API base,
        e.g. ``r"/channels/\\d+/messages$"``) fail with ``status`` (or a dropped connection)."""
        fault = Fault(
            method=method.upper(),
            path_re=re.compile(path_regex),
            status=status,
            remaining=count,
            drop=drop,
            retry_after=retry_after,
            body=body,
            is_global=is_global,
        )
        self.faults.append(fault)
        return fault

    def _take_fault(self, method: str, path: str) -> Fault | None:
        for fault in self.faults:
            if fault.remaining > 0 and fault.method in (method, "*") and fault.path_re.search(path):
                fault.remaining -= 1
                fault.hits += 1
                return fault
        return None

    # ------------------------------------------------------------------ gateway
    def _dispatch_soon(
        self, event: str, payload: Callable[[], dict[str, Any]], guild_id: int | None
    ) -> None:
        if not self.sessions:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        task = loop.create_task(self.dispatch(event, payload(), guild_id))
        self._bg_tasks.add(task)
        task.add_done_callback(self._bg_tasks.discard)

    async def dispatch(self, event: str, data: dict[str, Any], guild_id: int | None = None) -> None:
        """Send a DISPATCH (op 0) event to every live session (respecting shard routing)."""
        self.events.append((event, data))
        for session in list(self.sessions.values()):
            if not session.wants(guild_id):
                continue
            session.seq += 1
            frame = {"op": 0, "t": event, "s": session.seq, "d": data}
            session.buffer.append(frame)
            del session.buffer[:-1000]
            await session.send(frame)
        await self._notify()

    async def _gateway_handler(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse(autoping=True, max_msg_size=0)
        await ws.prepare(request)
        session: GatewaySession | None = None
        await ws.send_str(
            json.dumps(
                {
                    "op": 10,
                    "d": {"heartbeat_interval": self.heartbeat_interval_ms},
                    "s": None,
                    "t": None,
                }
            )
        )
        try:
            async for msg in ws:
                if msg.type != WSMsgType.TEXT:
                    continue
                packet = json.loads(msg.data)
                op = packet.get("op")
                data = packet.get("d")
                if op == 1:
                    await ws.send_str(json.dumps({"op": 11, "d": None, "s": None, "t": None}))
                elif op == 2:
                    if self.token is not None and data.get("token") != self.token:
                        await ws.close(code=4004, message=b"Authentication failed.")
                        break
                    session = await self._identify(ws, data)
                elif op == 6:
                    session = await self._resume(ws, data)
                    if session is None:
                        continue
                # other ops (presence update 3, voice 4, request members 8) are ignored
        finally:
            if session is not None and session.ws is ws:
                session.ws = None
                if ws.close_code in (1000, 1001):
                    # a clean close invalidates the session, like real Discord
                    self.sessions.pop(session.session_id, None)
            await self._notify()
        return ws

    async def _identify(self, ws: web.WebSocketResponse, data: dict[str, Any]) -> GatewaySession:
        self.identify_count += 1
        shard = data.get("shard") or [0, 1]
        session = GatewaySession(
            session_id=secrets.token_hex(16),
            shard_id=int(shard[0]),
            shard_count=int(shard[1]),
            identify=data,
        )
        guilds = [g for g in self.guilds.values() if session.wants(g.id)]
        ready: dict[str, Any] = {
            "v": 10,
            "user": self.bot_user.payload()
            | {"verified": True, "mfa_enabled": False, "email": None},
            "guilds": [{"id": str(g.id), "unavailable": True} for g in guilds],
            "session_id": session.session_id,
            "session_type": "normal",
            "resume_gateway_url": self.gateway_url,
            "application": {"id": str(self.application_id), "flags": 0},
            "private_channels": [],
            "relationships": [],
            "presences": [],
            "guild_join_requests": [],
            "geo_ordered_rtc_regions": [],
            "user_settings": {},
            "shard": [session.shard_id, session.shard_count],
        }
        # register the session only now so READY is its first event
        session.ws = ws
        self.sessions[session.session_id] = session
        session.seq += 1
        await session.send({"op": 0, "t": "READY", "s": session.seq, "d": ready})
        for guild in guilds:
            session.seq += 1
            frame = {
                "op": 0,
                "t": "GUILD_CREATE",
                "s": session.seq,
                "d": self._guild_create_payload(guild),
            }
            session.buffer.append(frame)
            await session.send(frame)
        await self._notify()
        return session

    async def _resume(
        self, ws: web.WebSocketResponse, data: dict[str, Any]
    ) -> GatewaySession | None:
        session = self.sessions.get(str(data.get("session_id")))
        if session is None:
            await ws.send_str(json.dumps({"op": 9, "d": False, "s": None, "t": None}))
            return None
        self.resume_count += 1
        if session.ws is not None and not session.ws.closed and session.ws is not ws:
            await session.ws.close(code=4000)
        session.ws = ws
        last_seq = int(data.get("seq") or 0)
        for frame in list(session.buffer):
            if frame["s"] > last_seq:
                await session.send(frame)
        session.seq += 1
        await session.send({"op": 0, "t": "RESUMED", "s": session.seq, "d": {}})
        await self._notify()
        return session

    async def reconnect_all(self) -> None:
        """Send op 7 RECONNECT to every connected session (the client should RESUME)."""
        for session in self.connected_sessions:
            await session.send({"op": 7, "d": None, "s": None, "t": None})

    async def invalidate_all(self) -> None:
        """Send op 9 INVALID_SESSION (not resumable) to every session and forget them."""
        for session in list(self.sessions.values()):
            await session.send({"op": 9, "d": False, "s": None, "t": None})
        self.sessions.clear()

    # ------------------------------------------------------------------ payload builders
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

    # ------------------------------------------------------------------ user actions (test side)
    async def user_says(
        self,
        channel_id: int,
        author_id: int,
        content: str,
        *,
        mentions: list[int] | None = None,
        reply_to: int | None = None,
        embeds: list[dict[str, Any]] | None = None,
    ) -> FakeMessage:
        """A user posts a message; MESSAGE_CREATE is dispatched to connected bots."""
        channel = self.channels[channel_id]
        body: dict[str, Any] = {"content": content, "embeds": embeds or []}
        if reply_to is not None:
            body["message_reference"] = {"message_id": reply_to}
        payload = self._new_message(channel, self.users[author_id], body, extra_mentions=mentions)
        message = FakeMessage(payload=payload)
        self._store(message)
        if channel.is_thread and channel.archived and not channel.locked:
            channel.archived = False
            await self.dispatch("THREAD_UPDATE", channel.payload(), channel.guild_id)
        await self.dispatch("MESSAGE_CREATE", payload, channel.guild_id)
        return message

    def _interaction_base(
        self,
        itype: int,
        user_id: int,
        channel_id: int,
        guild_id: int | None,
        data: dict[str, Any] | None,
        message: FakeMessage | None = None,
    ) -> InteractionHandle:
        iid = self.snowflake()
        token = f"tok-{iid}-{secrets.token_hex(8)}"
        channel = self.channels.get(channel_id)
        if guild_id is None and channel is not None:
            guild_id = channel.guild_id
        payload: dict[str, Any] = {
            "id": str(iid),
            "application_id": str(self.application_id),
            "type": itype,
            "token": token,
            "version": 1,
            "channel_id": str(channel_id),
            "channel": channel.payload(self.users)
            if channel
            else {"id": str(channel_id), "type": GUILD_TEXT},
            "locale": "en-US",
            "entitlements": [],
            "attachment_size_limit": 26214400,
            "app_permissions": str(BOT_ROLE_PERMISSIONS),
            "authorizing_integration_owners": {"0": str(guild_id)}
            if guild_id
            else {"1": str(user_id)},
            "context": 0 if guild_id else 1,
        }
        if data is not None:
            payload["data"] = data
        if guild_id is not None:
            guild = self.guilds[guild_id]
            payload["guild_id"] = str(guild_id)
            payload["guild_locale"] = "en-US"
            payload["guild"] = {"id": str(guild_id), "locale": "en-US", "features": []}
            payload["member"] = self._member_payload(guild, user_id, with_permissions=True)
        else:
            payload["user"] = self.users[user_id].payload()
        if message is not None:
            payload["message"] = message.payload
        handle = InteractionHandle(
            id=iid,
            token=token,
            type=itype,
            channel_id=channel_id,
            guild_id=guild_id,
            user_id=user_id,
            payload=payload,
            component_message_id=message.id if message else None,
        )
        self.interactions[iid] = handle
        self._interactions_by_token[token] = handle
        return handle

    async def _send_interaction(self, handle: InteractionHandle) -> InteractionHandle:
        await self.dispatch("INTERACTION_CREATE", handle.payload, handle.guild_id)
        return handle

    def _find_command(
        self, name: str, guild_id: int | None, cmd_type: int
    ) -> dict[str, Any] | None:
        candidates = list(self.guild_commands.get(guild_id or 0, [])) + list(self.global_commands)
        for cmd in candidates:
            if cmd["name"] == name and int(cmd.get("type", 1)) == cmd_type:
                return cmd
        return None

    async def slash(
        self,
        name: str,
        options: list[dict[str, Any]] | dict[str, Any] | None = None,
        *,
        user_id: int,
        channel_id: int,
        guild_id: int | None = None,
        subcommand: str | list[str] | None = None,
        resolved: dict[str, Any] | None = None,
        cmd_type: int = 1,
    ) -> InteractionHandle:
        """Invoke an application command (INTERACTION_CREATE type 2).

        ``options`` is either the raw option list or a ``{name: value}`` dict (types are guessed:
        str 3, bool 5, int 4, float 10). ``subcommand`` may be ``"sub"`` or ``["group", "sub"]``.
        """
        channel = self.channels.get(channel_id)
        if guild_id is None and channel is not None:
            guild_id = channel.guild_id
        opts = self._build_options(options)
        if resolved is None:
            resolved = self._resolve_options(opts, guild_id)
        if subcommand:
            path = [subcommand] if isinstance(subcommand, str) else list(subcommand)
            for depth, sub in enumerate(reversed(path)):
                opts = [{"name": sub, "type": 1 if depth == 0 else 2, "options": opts}]
        cmd = self._find_command(name, guild_id, cmd_type)
        data: dict[str, Any] = {
            "id": cmd["id"] if cmd else str(self.snowflake()),
            "name": name,
            "type": cmd_type,
            "options": opts,
            "resolved": resolved or {},
        }
        if cmd is not None and cmd.get("guild_id"):
            data["guild_id"] = cmd["guild_id"]
        handle = self._interaction_base(2, user_id, channel_id, guild_id, data)
        return await self._send_interaction(handle)

    def _resolve_options(self, opts: list[dict[str, Any]], guild_id: int | None) -> dict[str, Any]:
        """The `resolved` block Discord sends for user/channel/role/mentionable options."""
        out: dict[str, dict[str, Any]] = {}
        guild = self.guilds.get(guild_id or 0)
        for opt in opts:
            if opt.get("type") not in (6, 7, 8, 9):
                continue
            oid = int(opt["value"])
            if opt["type"] in (6, 9) and oid in self.users:
                out.setdefault("users", {})[str(oid)] = self.users[oid].payload()
                if guild is not None and oid in guild.members:
                    out.setdefault("members", {})[str(oid)] = self._member_payload(
                        guild, oid, with_user=False, with_permissions=True
                    )
            if opt["type"] in (8, 9):
                for g in self.guilds.values():
                    if oid in g.roles:
                        out.setdefault("roles", {})[str(oid)] = g.roles[oid].payload()
            if opt["type"] == 7 and oid in self.channels:
                ch = self.channels[oid]
                data = ch.payload(self.users)
                data["permissions"] = str(BOT_ROLE_PERMISSIONS)
                out.setdefault("channels", {})[str(oid)] = data
        return out

    @staticmethod
    def _build_options(
        options: list[dict[str, Any]] | dict[str, Any] | None,
    ) -> list[dict[str, Any]]:
        if options is None:
            return []
        if isinstance(options, list):
            return options
        built = []
        for key, value in options.items():
            if isinstance(value, bool):
                otype = 5
            elif isinstance(value, int):
                otype = 4
            elif isinstance(value, float):
                otype = 10
            else:
                otype = 3
            built.append({"name": key, "type": otype, "value": value})
        return built

    async def autocomplete(
        self,
        name: str,
        options: list[dict[str, Any]] | dict[str, Any],
        focused: str,
        *,
        user_id: int,
        channel_id: int,
        guild_id: int | None = None,
        subcommand: str | list[str] | None = None,
    ) -> InteractionHandle:
        """Autocomplete request (type 4); ``focused`` names the option being typed."""
        opts = self._build_options(options)
        for opt in opts:
            if opt["name"] == focused:
                opt["focused"] = True
        channel = self.channels.get(channel_id)
        if guild_id is None and channel is not None:
            guild_id = channel.guild_id
        if subcommand:
            path = [subcommand] if isinstance(subcommand, str) else list(subcommand)
            for depth, sub in enumerate(reversed(path)):
                opts = [{"name": sub, "type": 1 if depth == 0 else 2, "options": opts}]
        cmd = self._find_command(name, guild_id, 1)
        data: dict[str, Any] = {
            "id": cmd["id"] if cmd else str(self.snowflake()),
            "name": name,
            "type": 1,
            "options": opts,
        }
        if cmd is not None and cmd.get("guild_id"):
            data["guild_id"] = cmd["guild_id"]
        handle = self._interaction_base(4, user_id, channel_id, guild_id, data)
        return await self._send_interaction(handle)

    async def click_button(
        self,
        message_id: int,
        custom_id: str,
        user_id: int,
        *,
        component_type: int = 2,
        values: list[str] | None = None,
    ) -> InteractionHandle:
        """Click a component on a stored message (INTERACTION_CREATE type 3)."""
        message = self._message_index[message_id]
        data: dict[str, Any] = {"custom_id": custom_id, "component_type": component_type}
        if values is not None:
            data["values"] = values
        handle = self._interaction_base(3, user_id, message.channel_id, None, data, message=message)
        return await self._send_interaction(handle)

    async def select(
        self, message_id: int, custom_id: str, values: list[str], user_id: int
    ) -> InteractionHandle:
        return await self.click_button(
            message_id, custom_id, user_id, component_type=3, values=values
        )

    async def submit_modal(
        self,
        custom_id: str,
        values: dict[str, str],
        *,
        user_id: int,
        channel_id: int,
        guild_id: int | None = None,
        message_id: int | None = None,
    ) -> InteractionHandle:
        """Submit a modal (type 5); ``values`` maps text-input custom_id -> value."""
        components = [
            {"type": 1, "components": [{"type": 4, "custom_id": k, "value": v}]}
            for k, v in values.items()
        ]
        message = self._message_index.get(message_id) if message_id else None
        handle = self._interaction_base(
            5,
            user_id,
            channel_id,
            guild_id,
            {"custom_id": custom_id, "components": components},
            message=message,
        )
        return await self._send_interaction(handle)

    # ------------------------------------------------------------------ REST plumbing
    def _register_routes(self) -> None:
        S = r"(\d+)"
        routes: list[tuple[str, str, Handler]] = [
            ("GET", r"/gateway", self._r_gateway),
            ("GET", r"/gateway/bot", self._r_gateway_bot),
            ("GET", r"/users/@me", self._r_me),
            ("GET", r"/users/@me/guilds", self._r_my_guilds),
            ("POST", r"/oauth2/token", self._r_oauth_token),
            ("GET", rf"/users/{S}", self._r_user),
            ("POST", r"/users/@me/channels", self._r_create_dm),
            ("GET", r"/oauth2/applications/@me", self._r_app_info),
            ("GET", r"/applications/@me", self._r_app_info),
            ("PUT", rf"/applications/{S}/commands", self._r_put_global_commands),
            ("GET", rf"/applications/{S}/commands", self._r_get_global_commands),
            ("PUT", rf"/applications/{S}/guilds/{S}/commands", self._r_put_guild_commands),
            ("GET", rf"/applications/{S}/guilds/{S}/commands", self._r_get_guild_commands),
            ("GET", rf"/guilds/{S}", self._r_guild),
            ("GET", rf"/guilds/{S}/channels", self._r_guild_channels),
            ("GET", rf"/guilds/{S}/members/{S}", self._r_guild_member),
            ("GET", rf"/guilds/{S}/roles", self._r_guild_roles),
            ("GET", rf"/channels/{S}", self._r_get_channel),
            ("PATCH", rf"/channels/{S}", self._r_patch_channel),
            ("DELETE", rf"/channels/{S}", self._r_delete_channel),
            ("POST", rf"/channels/{S}/typing", self._r_typing),
            ("GET", rf"/channels/{S}/messages", self._r_history),
            ("POST", rf"/channels/{S}/messages", self._r_send),
            ("GET", rf"/channels/{S}/messages/{S}", self._r_get_message),
            ("PATCH", rf"/channels/{S}/messages/{S}", self._r_edit_message),
            ("DELETE", rf"/channels/{S}/messages/{S}", self._r_delete_message),
            ("POST", rf"/channels/{S}/messages/{S}/threads", self._r_thread_from_message),
            ("POST", rf"/channels/{S}/threads", self._r_thread_without_message),
            ("PUT", rf"/channels/{S}/thread-members/@me", self._r_join_thread),
            ("DELETE", rf"/channels/{S}/thread-members/@me", self._r_leave_thread),
            ("PUT", rf"/channels/{S}/messages/{S}/reactions/([^/]+)/@me", self._r_no_content),
            ("DELETE", rf"/channels/{S}/messages/{S}/reactions/([^/]+)/@me", self._r_no_content),
            ("POST", rf"/interactions/{S}/([^/]+)/callback", self._r_interaction_callback),
            ("POST", rf"/webhooks/{S}/([^/]+)", self._r_followup),
            ("GET", rf"/webhooks/{S}/([^/]+)/messages/(@original|\d+)", self._r_webhook_get),
            ("PATCH", rf"/webhooks/{S}/([^/]+)/messages/(@original|\d+)", self._r_webhook_edit),
            ("DELETE", rf"/webhooks/{S}/([^/]+)/messages/(@original|\d+)", self._r_webhook_delete),
        ]
        self._routes = [(m, re.compile("^" + p + "$"), h) for m, p, h in routes]

    async def _read_body(self, request: web.Request) -> tuple[JSON, list[dict[str, Any]]]:
        """Returns (json body, attachments) accepting JSON and multipart ``payload_json``."""
        if not request.body_exists:
            return None, []
        ctype = request.content_type
        if ctype.startswith("multipart/"):
            body: JSON = None
            files: list[dict[str, Any]] = []
            reader = await request.multipart()
            while True:
                part = await reader.next()
                if part is None:
                    break
                if not isinstance(part, BodyPartReader):
                    continue
                name = part.name or ""
                raw = await part.read()
                if name == "payload_json":
                    body = json.loads(raw.decode())
                else:
                    files.append(
                        {"field": name, "filename": part.filename or name, "size": len(raw)}
                    )
            return body, files
        text = await request.text()
        if not text:
            return None, []
        try:
            return json.loads(text), []
        except ValueError:
            return text, []

    async def _rest_handler(self, request: web.Request) -> web.StreamResponse:
        path = "/" + request.match_info["tail"]
        method = request.method
        try:
            body, files = await self._read_body(request)
        except (ValueError, UnicodeDecodeError) as exc:  # pragma: no cover - malformed client body
            return error_response(400, 50109, f"The request body contains invalid JSON: {exc}")
        if files and isinstance(body, dict):
            body.setdefault("_files", files)
        record = RecordedRequest(
            method=method, path=path, query=dict(request.query), json=body, time=time.monotonic()
        )
        self.requests.append(record)
        verdict = None
        try:
            fault = self._take_fault(method, path)
            verdict = self.rate_limits.check(method, path) if self.rate_limits else None
            if fault is not None:
                response = await self._fault_response(request, fault)
            elif verdict is not None and not verdict.allowed:
                response = self._rate_limited(verdict)
            else:
                response = await self._route(request, method, path, body)
        except DiscordError as err:
            response = error_response(err.status, err.code, err.message)
        except Exception:
            log.exception("fake discord handler crashed for %s %s", method, path)
            response = error_response(500, 0, "500: Internal Server Error (fake)")
        if verdict is not None and verdict.allowed:
            response.headers.update(verdict.headers)
        record.status = response.status
        await self._notify()
        return response

    async def _route(
        self, request: web.Request, method: str, path: str, body: JSON
    ) -> web.StreamResponse:
        for m, rx, handler in self._routes:
            if m != method:
                continue
            match = rx.match(path)
            if match is not None:
                return await handler(request, match, body)
        self.unknown_routes.append((method, path))
        return error_response(404, 0, "404: Not Found")

    @staticmethod
    def _rate_limited(verdict: Any) -> web.Response:
        body = {
            "message": "You are being rate limited.",
            "retry_after": round(verdict.retry_after, 3),
            "global": verdict.is_global,
            "code": 0,
        }
        return json_response(body, status=429, headers=verdict.headers)

    async def _fault_response(self, request: web.Request, fault: Fault) -> web.StreamResponse:
        if fault.drop:
            transport = request.transport
            if transport is not None:
                transport.abort()
            raise asyncio.CancelledError()
        if fault.status == 429:
            reset = time.time() + fault.retry_after
            headers = {
                "Retry-After": str(fault.retry_after),
                "X-RateLimit-Limit": "5",
                "X-RateLimit-Remaining": "0",
                "X-RateLimit-Reset": f"{reset:.3f}",
                "X-RateLimit-Reset-After": f"{fault.retry_after:.3f}",
                "X-RateLimit-Bucket": "fakebucket",
                "X-RateLimit-Scope": "global" if fault.is_global else "user",
                "Via": "1.1 google",
            }
            if fault.is_global:
                headers["X-RateLimit-Global"] = "true"
            body = fault.body or {
                "message": "You are being rate limited.",
                "retry_after": fault.retry_after,
                "global": fault.is_global,
                "code": 0,
            }
            return json_response(body, status=429, headers=headers)
        body = fault.body or {"code": 0, "message": f"{fault.status}: injected fault"}
        return json_response(body, status=fault.status)

    # ------------------------------------------------------------------ helpers for handlers
    def _channel(self, channel_id: int, *, for_bot: bool = True) -> FakeChannel:
        channel = self.channels.get(channel_id)
        if channel is None or channel.deleted:
            raise DiscordError(404, 10003, "Unknown Channel")
        if for_bot and not channel.bot_has_access:
            raise DiscordError(403, 50001, "Missing Access")
        return channel

    def _message(self, channel_id: int, message_id: int) -> FakeMessage:
        message = self._message_index.get(message_id)
        if message is None or message.deleted or message.channel_id != channel_id:
            raise DiscordError(404, 10008, "Unknown Message")
        return message

    @staticmethod
    def _no_content() -> web.Response:
        return web.Response(status=204)

    # ------------------------------------------------------------------ REST handlers
    async def _r_no_content(
        self, request: web.Request, m: re.Match[str], body: JSON
    ) -> web.StreamResponse:
        return self._no_content()

    async def _r_gateway(
        self, request: web.Request, m: re.Match[str], body: JSON
    ) -> web.StreamResponse:
        return json_response({"url": self.gateway_url})

    async def _r_gateway_bot(
        self, request: web.Request, m: re.Match[str], body: JSON
    ) -> web.StreamResponse:
        return json_response(
            {
                "url": self.gateway_url,
                "shards": 1,
                "session_start_limit": {
                    "total": 1000,
                    "remaining": 999,
                    "reset_after": 0,
                    "max_concurrency": 1,
                },
            }
        )

    async def _r_me(self, request: web.Request, m: re.Match[str], body: JSON) -> web.StreamResponse:
        bearer = self.oauth.bearer_user(request)
        if bearer is not None:  # an OAuth2 user token: that user, not the bot
            return json_response(self.users[bearer].payload())
        if self.token is not None and request.headers.get("Authorization") != f"Bot {self.token}":
            return error_response(401, 0, "401: Unauthorized")
        return json_response(self.bot_user.payload() | {"verified": True, "mfa_enabled": False})

    async def _r_my_guilds(
        self, request: web.Request, m: re.Match[str], body: JSON
    ) -> web.StreamResponse:
        bearer = self.oauth.bearer_user(request)
        if bearer is None:
            return error_response(401, 0, "401: Unauthorized")
        return json_response(self.oauth.guilds_of(self, bearer))

    async def _r_oauth_token(
        self, request: web.Request, m: re.Match[str], body: JSON
    ) -> web.StreamResponse:
        form = dict(urllib.parse.parse_qsl(body)) if isinstance(body, str) else {}
        status, payload = self.oauth.token(form)
        return json_response(payload, status=status)

    async def _r_user(
        self, request: web.Request, m: re.Match[str], body: JSON
    ) -> web.StreamResponse:
        user = self.users.get(int(m.group(1)))
        if user is None:
            raise DiscordError(404, 10013, "Unknown User")
        return json_response(user.payload())

    async def _r_app_info(
        self, request: web.Request, m: re.Match[str], body: JSON
    ) -> web.StreamResponse:
        return json_response(self._app_info_payload())

    def _store_commands(self, body: JSON, guild_id: int | None) -> list[dict[str, Any]]:
        existing = self.guild_commands.get(guild_id, []) if guild_id else self.global_commands
        old_ids = {(c["name"], int(c.get("type", 1))): c["id"] for c in existing}
        stored: list[dict[str, Any]] = []
        for cmd in body or []:
            ctype = int(cmd.get("type", 1))
            full = {
                "type": ctype,
                "description": "",
                "options": [],
                "default_member_permissions": None,
                "dm_permission": True,
                "nsfw": False,
                "contexts": None,
                "integration_types": [0],
                "name_localizations": None,
                "description_localizations": None,
                **cmd,
                "id": old_ids.get((cmd["name"], ctype)) or str(self.snowflake()),
                "application_id": str(self.application_id),
                "version": str(self.snowflake()),
            }
            if guild_id:
                full["guild_id"] = str(guild_id)
            stored.append(full)
        if guild_id:
            self.guild_commands[guild_id] = stored
        else:
            self.global_commands = stored
        return stored

    async def _r_put_global_commands(
        self, request: web.Request, m: re.Match[str], body: JSON
    ) -> web.StreamResponse:
        return json_response(self._store_commands(body, None))

    async def _r_get_global_commands(
        self, request: web.Request, m: re.Match[str], body: JSON
    ) -> web.StreamResponse:
        return json_response(self.global_commands)

    async def _r_put_guild_commands(
        self, request: web.Request, m: re.Match[str], body: JSON
    ) -> web.StreamResponse:
        return json_response(self._store_commands(body, int(m.group(2))))

    async def _r_get_guild_commands(
        self, request: web.Request, m: re.Match[str], body: JSON
    ) -> web.StreamResponse:
        return json_response(self.guild_commands.get(int(m.group(2)), []))

    def _guild(self, guild_id: int) -> FakeGuild:
        guild = self.guilds.get(guild_id)
        if guild is None:
            raise DiscordError(404, 10004, "Unknown Guild")
        return guild

    async def _r_guild(
        self, request: web.Request, m: re.Match[str], body: JSON
    ) -> web.StreamResponse:
        data = self._guild_create_payload(self._guild(int(m.group(1))))
        for key in (
            "members",
            "channels",
            "threads",
            "voice_states",
            "presences",
            "joined_at",
            "large",
            "member_count",
            "unavailable",
        ):
            data.pop(key, None)
        return json_response(data)

    async def _r_guild_channels(
        self, request: web.Request, m: re.Match[str], body: JSON
    ) -> web.StreamResponse:
        gid = self._guild(int(m.group(1))).id
        return json_response(
            [
                c.payload()
                for c in self.channels.values()
                if c.guild_id == gid and not c.deleted and not c.is_thread
            ]
        )

    async def _r_guild_roles(
        self, request: web.Request, m: re.Match[str], body: JSON
    ) -> web.StreamResponse:
        return json_response([r.payload() for r in self._guild(int(m.group(1))).roles.values()])

    async def _r_guild_member(
        self, request: web.Request, m: re.Match[str], body: JSON
    ) -> web.StreamResponse:
        guild = self._guild(int(m.group(1)))
        uid = int(m.group(2))
        if uid not in guild.members:
            raise DiscordError(404, 10007, "Unknown Member")
        return json_response(self._member_payload(guild, uid))

    async def _r_create_dm(
        self, request: web.Request, m: re.Match[str], body: JSON
    ) -> web.StreamResponse:
        uid = int(body["recipient_id"])
        if uid not in self.users:
            raise DiscordError(400, 50033, "Invalid Recipient(s)")
        return json_response(self.dm_channel(uid).payload(self.users))

    async def _r_get_channel(
        self, request: web.Request, m: re.Match[str], body: JSON
    ) -> web.StreamResponse:
        channel = self._channel(int(m.group(1)))
        data = channel.payload(self.users)
        if channel.is_thread and self.bot_user.id in channel.thread_member_ids:
            data["member"] = {
                "id": str(channel.id),
                "user_id": str(self.bot_user.id),
                "join_timestamp": channel.create_timestamp,
                "flags": 0,
            }
        return json_response(data)

    async def _r_patch_channel(
        self, request: web.Request, m: re.Match[str], body: JSON
    ) -> web.StreamResponse:
        channel = self._channel(int(m.group(1)))
        body = body or {}
        for key in ("name", "topic"):
            if key in body:
                setattr(channel, key, body[key])
        if channel.is_thread:
            if "archived" in body:
                channel.archived = bool(body["archived"])
                channel.archive_timestamp = iso_now()
            if "locked" in body:
                channel.locked = bool(body["locked"])
            if "auto_archive_duration" in body:
                channel.auto_archive_duration = int(body["auto_archive_duration"])
            await self.dispatch("THREAD_UPDATE", channel.payload(), channel.guild_id)
        elif channel.type != DM:
            await self.dispatch("CHANNEL_UPDATE", channel.payload(), channel.guild_id)
        return json_response(channel.payload(self.users))

    async def _r_delete_channel(
        self, request: web.Request, m: re.Match[str], body: JSON
    ) -> web.StreamResponse:
        channel = self._channel(int(m.group(1)))
        data = channel.payload(self.users)
        await self.delete_channel(channel.id)
        return json_response(data)

    async def _r_typing(
        self, request: web.Request, m: re.Match[str], body: JSON
    ) -> web.StreamResponse:
        self._channel(int(m.group(1)))
        return self._no_content()

    async def _r_history(
        self, request: web.Request, m: re.Match[str], body: JSON
    ) -> web.StreamResponse:
        channel = self._channel(int(m.group(1)))
        q = request.query
        limit = max(1, min(100, int(q.get("limit", "50"))))
        msgs = self.messages(channel.id)  # oldest first
        if "around" in q:
            around = int(q["around"])
            older = [x for x in msgs if x.id <= around][-(limit // 2 + 1) :]
            newer = [x for x in msgs if x.id > around][: limit - len(older)]
            selected = older + newer
        elif "after" in q:
            after = int(q["after"])
            selected = [x for x in msgs if x.id > after][:limit]
        else:
            before = int(q["before"]) if "before" in q else None
            candidates = [x for x in msgs if before is None or x.id < before]
            selected = candidates[-limit:]
        return json_response(
            [x.payload for x in sorted(selected, key=lambda x: x.id, reverse=True)]
        )

    async def _check_can_send(self, channel: FakeChannel) -> None:
        guild = self.guilds.get(channel.guild_id or 0)
        if guild is not None and not channel.is_thread:
            perms = guild.channel_permissions(self.bot_user.id, channel)
            if not (perms & VIEW_CHANNEL and perms & SEND_MESSAGES):
                raise DiscordError(403, 50013, "Missing Permissions")
        if channel.type == DM:
            user = self.users.get(channel.recipient_id or 0)
            if user is None or user.dms_closed or user.bot:
                raise DiscordError(403, 50007, "Cannot send messages to this user")
            return
        if channel.is_thread:
            if channel.locked and channel.archived:
                raise DiscordError(403, 50083, "Thread is archived")
            if channel.locked:
                raise DiscordError(403, 160005, "Thread is locked")
            if channel.archived:
                channel.archived = False
                channel.archive_timestamp = iso_now()
                await self.dispatch("THREAD_UPDATE", channel.payload(), channel.guild_id)

    async def _r_send(
        self, request: web.Request, m: re.Match[str], body: JSON
    ) -> web.StreamResponse:
        channel = self._channel(int(m.group(1)))
        body = dict(body or {})
        nonce = body.get("nonce")
        if nonce is not None and body.get("enforce_nonce"):
            key = (channel.id, str(nonce))
            seen = self._nonces.get(key)
            if seen is not None and self.clock() - seen[0] <= self.nonce_window:
                existing = self._message_index.get(seen[1])
                if existing is not None:
                    self.nonce_dedup_hits += 1
                    return json_response(existing.payload)
        await self._check_can_send(channel)
        if len(str(body.get("content") or "")) > MAX_CONTENT:
            raise DiscordError(400, 50035, "Invalid Form Body: content must be 2000 or fewer")
        if not (
            body.get("content")
            or body.get("embeds")
            or body.get("components")
            or body.get("_files")
            or body.get("sticker_ids")
            or body.get("poll")
        ):
            raise DiscordError(400, 50006, "Cannot send an empty message")
        files = body.pop("_files", [])
        if files:
            body["attachments"] = [
                {
                    "id": str(self.snowflake()),
                    "filename": f["filename"],
                    "size": f["size"],
                    "url": f"{self.base_url}/attachments/{f['filename']}",
                    "proxy_url": f"{self.base_url}/attachments/{f['filename']}",
                }
                for f in files
            ]
        payload = self._new_message(channel, self.bot_user, body)
        message = FakeMessage(
            payload=payload,
            allowed_mentions=body.get("allowed_mentions"),
            nonce=nonce,
            request_body=body,
        )
        self._store(message)
        if nonce is not None:
            self._nonces[(channel.id, str(nonce))] = (self.clock(), message.id)
        await self.dispatch("MESSAGE_CREATE", payload, channel.guild_id)
        return json_response(payload)

    async def _r_get_message(
        self, request: web.Request, m: re.Match[str], body: JSON
    ) -> web.StreamResponse:
        channel = self._channel(int(m.group(1)))
        return json_response(self._message(channel.id, int(m.group(2))).payload)

    async def _edit(self, message: FakeMessage, body: dict[str, Any]) -> None:
        for key in ("content", "embeds", "components", "flags", "attachments"):
            if key in body and body[key] is not None:
                message.payload[key] = body[key]
        if "content" in body and body["content"] is None:
            message.payload["content"] = ""
        if "flags" in body:
            message.payload["flags"] = int(body.get("flags") or 0) & ~LOADING
        elif message.flags & LOADING:
            message.payload["flags"] = message.flags & ~LOADING
        if "allowed_mentions" in body:
            message.allowed_mentions = body["allowed_mentions"]
        message.payload["edited_timestamp"] = iso_now()
        channel = self.channels.get(message.channel_id)
        if not message.ephemeral:
            await self.dispatch(
                "MESSAGE_UPDATE", message.payload, channel.guild_id if channel else None
            )
        else:
            await self._notify()

    async def _r_edit_message(
        self, request: web.Request, m: re.Match[str], body: JSON
    ) -> web.StreamResponse:
        channel = self._channel(int(m.group(1)))
        message = self._message(channel.id, int(m.group(2)))
        if message.author_id != self.bot_user.id:
            raise DiscordError(403, 50005, "Cannot edit a message authored by another user")
        await self._edit(message, dict(body or {}))
        return json_response(message.payload)

    async def _delete(self, message: FakeMessage) -> None:
        message.deleted = True
        channel = self.channels.get(message.channel_id)
        data: dict[str, Any] = {"id": str(message.id), "channel_id": str(message.channel_id)}
        guild_id = channel.guild_id if channel else None
        if guild_id:
            data["guild_id"] = str(guild_id)
        if not message.ephemeral:
            await self.dispatch("MESSAGE_DELETE", data, guild_id)
        else:
            await self._notify()

    async def _r_delete_message(
        self, request: web.Request, m: re.Match[str], body: JSON
    ) -> web.StreamResponse:
        channel = self._channel(int(m.group(1)))
        message = self._message(channel.id, int(m.group(2)))
        if message.author_id != self.bot_user.id and channel.guild_id is not None:
            guild = self.guilds[channel.guild_id]
            if not guild.permissions_for(self.bot_user.id) & MANAGE_MESSAGES:
                raise DiscordError(403, 50013, "Missing Permissions")
        await self._delete(message)
        return self._no_content()

    async def _create_thread(
        self, parent: FakeChannel, thread_id: int, body: dict[str, Any], ttype: int
    ) -> FakeChannel:
        if parent.is_thread or parent.type == DM:
            raise DiscordError(400, 50024, "Cannot execute action on this channel type")
        thread = FakeChannel(
            id=thread_id,
            type=ttype,
            name=str(body.get("name") or "thread"),
            guild_id=parent.guild_id,
            parent_id=parent.id,
            owner_id=self.bot_user.id,
            auto_archive_duration=int(body.get("auto_archive_duration") or 1440),
        )
        thread.thread_member_ids.add(self.bot_user.id)
        self.channels[thread.id] = thread
        data = thread.payload() | {
            "newly_created": True,
            "member": {
                "id": str(thread.id),
                "user_id": str(self.bot_user.id),
                "join_timestamp": thread.create_timestamp,
                "flags": 0,
            },
        }
        await self.dispatch("THREAD_CREATE", data, thread.guild_id)
        return thread

    async def _r_thread_from_message(
        self, request: web.Request, m: re.Match[str], body: JSON
    ) -> web.StreamResponse:
        parent = self._channel(int(m.group(1)))
        message = self._message(parent.id, int(m.group(2)))
        if message.id in self.channels:
            raise DiscordError(400, 160004, "A thread has already been created for this message")
        thread = await self._create_thread(parent, message.id, dict(body or {}), PUBLIC_THREAD)
        message.payload["thread"] = thread.payload()
        return json_response(thread.payload())

    async def _r_thread_without_message(
        self, request: web.Request, m: re.Match[str], body: JSON
    ) -> web.StreamResponse:
        parent = self._channel(int(m.group(1)))
        body = dict(body or {})
        thread = await self._create_thread(
            parent, self.snowflake(), body, int(body.get("type") or 12)
        )
        return json_response(thread.payload())

    async def _r_join_thread(
        self, request: web.Request, m: re.Match[str], body: JSON
    ) -> web.StreamResponse:
        thread = self._channel(int(m.group(1)))
        if not thread.is_thread:
            raise DiscordError(400, 50024, "Cannot execute action on this channel type")
        if thread.archived:
            raise DiscordError(400, 50083, "Thread is archived")
        thread.thread_member_ids.add(self.bot_user.id)
        return self._no_content()

    async def _r_leave_thread(
        self, request: web.Request, m: re.Match[str], body: JSON
    ) -> web.StreamResponse:
        thread = self._channel(int(m.group(1)))
        thread.thread_member_ids.discard(self.bot_user.id)
        return self._no_content()

    # --- interactions ------------------------------------------------------
    def _interaction_message(
        self, handle: InteractionHandle, data: dict[str, Any], *, followup: bool
    ) -> FakeMessage:
        channel = self.channels.get(handle.channel_id) or FakeChannel(
            id=handle.channel_id, type=GUILD_TEXT
        )
        payload = self._new_message(channel, self.bot_user, data)
        payload["webhook_id"] = str(self.application_id)
        payload["application_id"] = str(self.application_id)
        payload["type"] = 20 if handle.type == 2 and not followup else payload["type"]
        payload["interaction_metadata"] = {
            "id": str(handle.id),
            "type": handle.type,
            "user": self.users[handle.user_id].payload(),
            "authorizing_integration_owners": handle.payload.get(
                "authorizing_integration_owners", {}
            ),
        }
        ephemeral = bool(int(data.get("flags") or 0) & EPHEMERAL)
        return FakeMessage(
            payload=payload,
            allowed_mentions=data.get("allowed_mentions"),
            ephemeral=ephemeral,
            request_body=data,
            interaction_id=handle.id,
        )

    async def _publish(self, message: FakeMessage) -> None:
        if message.ephemeral:
            self._message_index[message.id] = message
            await self._notify()
            return
        self._store(message)
        channel = self.channels.get(message.channel_id)
        await self.dispatch(
            "MESSAGE_CREATE", message.payload, channel.guild_id if channel else None
        )

    def _handle_for(self, iid: int | None, token: str) -> InteractionHandle:
        handle = self._interactions_by_token.get(token)
        if handle is None or (iid is not None and handle.id != iid):
            raise DiscordError(404, 10062, "Unknown interaction")
        return handle

    async def _r_interaction_callback(
        self, request: web.Request, m: re.Match[str], body: JSON
    ) -> web.StreamResponse:
        handle = self._handle_for(int(m.group(1)), m.group(2))
        if handle.callbacks:
            raise DiscordError(400, 40060, "Interaction has already been acknowledged.")
        body = dict(body or {})
        body.pop("_files", None)
        ctype = int(body.get("type", 0))
        data = dict(body.get("data") or {})
        handle.callbacks.append(body)
        message: FakeMessage | None = None
        if ctype == 4:
            message = self._interaction_message(handle, data, followup=False)
            handle.original = message
            await self._publish(message)
        elif ctype == 5:
            message = self._interaction_message(
                handle,
                {"content": "", "flags": int(data.get("flags") or 0) | LOADING},
                followup=False,
            )
            message.ephemeral = bool(int(data.get("flags") or 0) & EPHEMERAL)
            handle.original = message
            await self._publish(message)
        elif ctype in (6, 7) and handle.component_message_id is not None:
            message = self._message_index.get(handle.component_message_id)
            if message is not None:
                handle.original = message
                if ctype == 7:
                    await self._edit(message, data)
        elif ctype not in (1, 6, 7, 8, 9, 10, 12):
            handle.callbacks.pop()
            raise DiscordError(400, 50035, f"Invalid Form Body (callback type {ctype})")
        await handle._notify()
        await self._notify()
        if request.query.get("with_response") in ("1", "true", "True"):
            resource: dict[str, Any] = {"type": ctype}
            if message is not None:
                resource["message"] = message.payload
            return json_response(
                {
                    "interaction": {
                        "id": str(handle.id),
                        "type": handle.type,
                        "activity_instance_id": None,
                        "response_message_id": str(message.id) if message is not None else None,
                        "response_message_loading": ctype == 5,
                        "response_message_ephemeral": bool(message.ephemeral)
                        if message is not None
                        else False,
                    },
                    "resource": resource,
                }
            )
        return self._no_content()

    async def _r_followup(
        self, request: web.Request, m: re.Match[str], body: JSON
    ) -> web.StreamResponse:
        handle = self._handle_for(None, m.group(2))
        body = dict(body or {})
        files = body.pop("_files", [])
        if files:
            body["attachments"] = [
                {
                    "id": str(self.snowflake()),
                    "filename": f["filename"],
                    "size": f["size"],
                    "url": "",
                    "proxy_url": "",
                }
                for f in files
            ]
        message = self._interaction_message(handle, body, followup=True)
        handle.followups.append(message)
        await self._publish(message)
        await handle._notify()
        if request.query.get("wait") in ("1", "true", "True"):
            return json_response(message.payload)
        return self._no_content()

    def _webhook_target(self, m: re.Match[str]) -> tuple[InteractionHandle, FakeMessage]:
        handle = self._handle_for(None, m.group(2))
        which = m.group(3)
        message = handle.original if which == "@original" else self._message_index.get(int(which))
        if message is None or message.deleted:
            raise DiscordError(404, 10008, "Unknown Message")
        return handle, message

    async def _r_webhook_get(
        self, request: web.Request, m: re.Match[str], body: JSON
    ) -> web.StreamResponse:
        _, message = self._webhook_target(m)
        return json_response(message.payload)

    async def _r_webhook_edit(
        self, request: web.Request, m: re.Match[str], body: JSON
    ) -> web.StreamResponse:
        handle, message = self._webhook_target(m)
        body = dict(body or {})
        body.pop("_files", None)
        await self._edit(message, body)
        handle.edits += 1
        await handle._notify()
        return json_response(message.payload)

    async def _r_webhook_delete(
        self, request: web.Request, m: re.Match[str], body: JSON
    ) -> web.StreamResponse:
        handle, message = self._webhook_target(m)
        await self._delete(message)
        await handle._notify()
        return self._no_content()

    # ------------------------------------------------------------------ misc
    def iter_events(self, name: str) -> Iterator[dict[str, Any]]:
        return (d for e, d in self.events if e == name)
