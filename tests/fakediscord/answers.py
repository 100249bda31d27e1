"""The fake REST API's answers to interactions: the callback (reply, defer, update), follow-ups,
and the webhook routes that read, edit and delete an interaction's messages.

`Routes` lists these handlers in its route table with the others.
"""

from __future__ import annotations

import re
from typing import Any

from aiohttp import web

from .gateway import Gateway
from .models import EPHEMERAL, GUILD_TEXT, LOADING, FakeChannel, FakeMessage, InteractionHandle
from .responses import JSON, DiscordError, json_response, no_content


class Answers(Gateway):
    """How the bot answers an interaction it was sent (see `Actions` for sending them)."""

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
        return no_content()

    async def _r_followup(
        self, request: web.Request, m: re.Match[str], body: JSON
    ) -> web.StreamResponse:
        handle = self._handle_for(None, m.group(2))
        body = dict(body or {})
        files = body.pop("_files", [])
        if files:
            body["attachments"] = self._attachments(files, None)
        message = self._interaction_message(handle, body, followup=True)
        handle.followups.append(message)
        await self._publish(message)
        await handle._notify()
        if request.query.get("wait") in ("1", "true", "True"):
            return json_response(message.payload)
        return no_content()

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
        return no_content()
