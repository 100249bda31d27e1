"""The fake gateway: the websocket protocol (HELLO, IDENTIFY → READY + GUILD_CREATE,
heartbeats, RESUME with replay, RECONNECT / INVALID_SESSION) and event dispatch to every
live session, respecting shard routing ``(guild_id >> 22) % shard_count``."""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from aiohttp import WSMsgType, web

from .models import DM, LOADING, FakeMessage, iso_now
from .world import World

log = logging.getLogger(__name__)


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


class Gateway(World):
    """Sessions survive disconnects (RESUME replays what was missed); every event is kept in
    `events` for tests that look at what the bots were told."""

    def __init__(self, *, token: str | None, heartbeat_interval_ms: int, **world: Any) -> None:
        super().__init__(**world)
        self.token = token
        self.heartbeat_interval_ms = heartbeat_interval_ms
        self.events: list[tuple[str, dict[str, Any]]] = []
        self.identify_count = 0
        self.resume_count = 0
        self.sessions: dict[str, GatewaySession] = {}
        self._bg_tasks: set[asyncio.Task[Any]] = set()
        self.port: int = 0

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def gateway_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/gateway"

    @property
    def connected_sessions(self) -> list[GatewaySession]:
        return [s for s in self.sessions.values() if s.ws is not None and not s.ws.closed]

    async def wait_for_connections(self, count: int = 1, timeout: float = 2.0) -> None:
        await self.wait_for(lambda: len(self.connected_sessions) >= count, timeout)

    def iter_events(self, name: str) -> Iterator[dict[str, Any]]:
        return (d for e, d in self.events if e == name)

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

    async def _flush_soon(self) -> None:
        """Wait for events queued by `_dispatch_soon`, so later ones keep Discord's order."""
        if self._bg_tasks:
            await asyncio.gather(*list(self._bg_tasks), return_exceptions=True)

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

    # ---- message events (what a posted, edited or deleted message tells the sessions)

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

    async def delete_channel(self, channel_id: int) -> None:
        """Delete a channel (a test's admin, or the bot over REST): bots are told at once."""
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

    async def reconnect_all(self) -> None:
        """Send op 7 RECONNECT to every connected session (the client should RESUME)."""
        for session in self.connected_sessions:
            await session.send({"op": 7, "d": None, "s": None, "t": None})

    async def invalidate_all(self) -> None:
        """Send op 9 INVALID_SESSION (not resumable) to every session and forget them."""
        for session in list(self.sessions.values()):
            await session.send({"op": 9, "d": False, "s": None, "t": None})
        self.sessions.clear()
