"""Delivering fired jobs into Discord, with fallbacks when the thread is gone."""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any

import aiohttp
import discord

from bot.dispatcher import Delivered, Delivery, DeliveryError
from storage.models import JobKind

if TYPE_CHECKING:
    from bot.heartbeat import Heartbeat

log = logging.getLogger(__name__)

# Discord JSON error codes (https://discord.com/developers/docs/topics/opcodes-and-status-codes).
UNKNOWN_CHANNEL = 10003
MISSING_ACCESS = 50001
CANNOT_DM = 50007
MISSING_PERMISSIONS = 50013
THREAD_ARCHIVED = 50083
THREAD_LOCKED = 160005

NO_MENTIONS = discord.AllowedMentions.none()


class DiscordTransport:
    """Posts `[DELAYED_COMMAND] …` with the run's nonce; thread → owner's DM → parent channel."""

    def __init__(self, client: discord.Client) -> None:
        self.client = client
        self.heartbeat: Heartbeat | None = None  # set by the bot

    async def deliver(self, delivery: Delivery) -> Delivered:
        if delivery.kind == JobKind.HEARTBEAT:  # handled in-process, never posted as a marker
            if self.heartbeat is None:
                return Delivered(message_id=None, route="heartbeat")
            return await self.heartbeat.beat(delivery)
        try:
            return await self._deliver(delivery)
        except DeliveryError:
            raise
        except (aiohttp.ClientError, asyncio.TimeoutError, OSError) as exc:
            raise DeliveryError(f"connection error: {exc}", retryable=True) from exc
        except discord.HTTPException as exc:
            retryable = exc.status >= 500 or exc.status == 429
            raise DeliveryError(_describe(exc), retryable=retryable) from exc

    async def _deliver(self, d: Delivery) -> Delivered:
        channel = await self._channel(d.channel_id)
        problem = "the thread no longer exists"
        if channel is not None:
            try:
                msg = await self._send(channel, d.text, d.nonce)
                return Delivered(msg.id, channel.id)
            except discord.HTTPException as exc:
                if exc.status >= 500 or exc.status == 429:
                    raise
                if exc.code == THREAD_ARCHIVED and isinstance(channel, discord.Thread):
                    unarchived = await self._unarchive(channel)
                    if unarchived:
                        msg = await self._send(channel, d.text, d.nonce)
                        return Delivered(msg.id, channel.id)
                problem = _describe(exc)
                log.warning("job %s: cannot post in %s: %s", d.job_id, d.channel_id, problem)
        return await self._fallback(d, problem)

    async def _fallback(self, d: Delivery, problem: str) -> Delivered:
        where = f"<#{d.channel_id}>"
        note = f"\n(This was meant for {where}, but {problem}.)"
        try:
            user = self.client.get_user(d.owner_id) or await self.client.fetch_user(d.owner_id)
            dm = user.dm_channel or await user.create_dm()
            msg = await self._send(dm, d.text + note, d.nonce)
            return Delivered(msg.id, dm.id, route="dm")
        except discord.HTTPException as exc:
            if exc.status >= 500 or exc.status == 429:
                raise
            dm_problem = _describe(exc)
        if d.parent_channel_id:
            parent = await self._channel(d.parent_channel_id)
            if parent is not None:
                try:
                    text = f"{d.text}\n(<@{d.owner_id}>: this was meant for {where}, but {problem}.)"
                    mentions = discord.AllowedMentions(
                        everyone=False, roles=False, users=[discord.Object(d.owner_id)]
                    )
                    msg = await self._send(parent, text, d.nonce, mentions)
                    return Delivered(msg.id, parent.id, route="parent")
                except discord.HTTPException as exc:
                    if exc.status >= 500 or exc.status == 429:
                        raise
        raise DeliveryError(
            f"could not deliver: {problem}; DM failed: {dm_problem}", retryable=False
        )

    async def _channel(self, channel_id: int) -> Any:
        channel = self.client.get_channel(channel_id)
        if channel is not None:
            return channel
        # Archived threads are not cached; ask Discord.
        try:
            return await self.client.fetch_channel(channel_id)
        except discord.NotFound:
            return None
        except discord.Forbidden:
            return None

    async def _unarchive(self, thread: discord.Thread) -> bool:
        try:
            await thread.edit(archived=False)
            return True
        except discord.HTTPException as exc:
            log.info("could not unarchive thread %s: %s", thread.id, _describe(exc))
            return False

    async def _send(
        self,
        channel: Any,
        text: str,
        nonce: str,
        mentions: discord.AllowedMentions = NO_MENTIONS,
    ) -> discord.Message:
        msg: discord.Message = await channel.send(text, nonce=nonce, allowed_mentions=mentions)
        return msg


def _describe(exc: discord.HTTPException) -> str:
    reasons = {
        UNKNOWN_CHANNEL: "the channel was deleted",
        MISSING_ACCESS: "I no longer have access to it",
        CANNOT_DM: "their DMs are closed",
        MISSING_PERMISSIONS: "I'm missing permissions there",
        THREAD_ARCHIVED: "the thread is archived and locked",
        THREAD_LOCKED: "the thread is locked",
    }
    return reasons.get(exc.code, f"Discord said {exc.status} {exc.text or ''}".strip())
