"""The fake REST API: request recording, injected faults and optional rate limits applied
before routing, the route table, and one handler per Discord endpoint discord.py uses
(users, applications and commands, guilds, channels, messages, threads, reactions); the
bot's answers to interactions (callbacks, follow-ups, webhook edits) are in `answers.py`."""

from __future__ import annotations

import json
import logging
import re
import time
import urllib.parse
from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import BodyPartReader, web

from .answers import Answers
from .faults import Faults
from .models import (
    DM,
    MANAGE_MESSAGES,
    PUBLIC_THREAD,
    SEND_MESSAGES,
    VIEW_CHANNEL,
    FakeChannel,
    FakeGuild,
    FakeMessage,
    RecordedRequest,
    iso_now,
)
from .oauth import FakeOAuth
from .ratelimits import RateLimits
from .responses import JSON, DiscordError, error_response, json_response, no_content

# Discord refuses message content longer than this (characters).
MAX_CONTENT = 2000

log = logging.getLogger(__name__)

Handler = Callable[[web.Request, "re.Match[str]", JSON], Awaitable[web.StreamResponse]]


class Routes(Answers, Faults):
    """Every request is recorded in `requests`; unmatched ones in `unknown_routes`."""

    API_PREFIX = "/api/v10"

    def __init__(
        self, *, nonce_window: float, rate_limits: RateLimits | None, **gateway: Any
    ) -> None:
        super().__init__(**gateway)
        # Discord's documented limits, enforced only when switched on (see ratelimits.py).
        self.rate_limits = rate_limits
        self.nonce_window = nonce_window
        self.clock: Callable[[], float] = time.monotonic
        self._nonces: dict[tuple[int, str], tuple[float, int]] = {}
        self.nonce_dedup_hits = 0
        self.requests: list[RecordedRequest] = []
        self.unknown_routes: list[tuple[str, str]] = []
        self.oauth = FakeOAuth()
        self._routes: list[tuple[str, re.Pattern[str], Handler]] = []
        self._register_routes()

    @property
    def api_base(self) -> str:
        return self.base_url + self.API_PREFIX

    def distinct_nonces(self, channel_id: int | None = None) -> int:
        return len({k for k in self._nonces if channel_id is None or k[0] == channel_id})

    def requests_matching(self, method: str, path_regex: str) -> list[RecordedRequest]:
        rx = re.compile(path_regex)
        return [r for r in self.requests if r.method == method.upper() and rx.search(r.path)]

    async def wait_for_request(
        self, method: str, path_regex: str, timeout: float = 2.0, count: int = 1
    ) -> RecordedRequest:
        await self.wait_for(
            lambda: len(self.requests_matching(method, path_regex)) >= count, timeout
        )
        return self.requests_matching(method, path_regex)[count - 1]

    def enforce_rate_limits(self, **limits: float) -> RateLimits:
        """Switch on Discord's limits (50 requests/s globally, 5 messages per 5 s per
        channel by default; keywords as ``RateLimits``): headers, and 429 when over."""
        self.rate_limits = RateLimits(**limits)  # type: ignore[arg-type]
        return self.rate_limits

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

    async def _r_no_content(
        self, request: web.Request, m: re.Match[str], body: JSON
    ) -> web.StreamResponse:
        return no_content()

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
        return no_content()

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
            body["attachments"] = self._attachments(files, self.base_url)
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

    async def _r_edit_message(
        self, request: web.Request, m: re.Match[str], body: JSON
    ) -> web.StreamResponse:
        channel = self._channel(int(m.group(1)))
        message = self._message(channel.id, int(m.group(2)))
        if message.author_id != self.bot_user.id:
            raise DiscordError(403, 50005, "Cannot edit a message authored by another user")
        await self._edit(message, dict(body or {}))
        return json_response(message.payload)

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
        return no_content()

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
        return no_content()

    async def _r_leave_thread(
        self, request: web.Request, m: re.Match[str], body: JSON
    ) -> web.StreamResponse:
        thread = self._channel(int(m.group(1)))
        thread.thread_member_ids.discard(self.bot_user.id)
        return no_content()
