"""Delivering fired jobs into Discord, with fallbacks when the thread is gone."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import aiohttp
import discord

from bot.channels import direct_messages, fetched
from bot.dispatcher import Delivered, Delivery, DeliveryError
from bot.fired_routes import FiredRoutes
from bot.mentions import NO_MENTIONS, owner_only
from bot.pacing import Pacer, marker_lane
from storage.jobs import Job
from storage.models import JobStatus
from tools.audience import Addressing, Audience
from tools.message_size import trim, with_note

if TYPE_CHECKING:
    from bot.audience import AudienceGate
    from bot.escalation import Escalation
    from bot.heartbeat import Heartbeat

log = logging.getLogger(__name__)

# Discord JSON error codes (https://discord.com/developers/docs/topics/opcodes-and-status-codes).
UNKNOWN_CHANNEL = 10003
MISSING_ACCESS = 50001
CANNOT_DM = 50007
MISSING_PERMISSIONS = 50013
THREAD_ARCHIVED = 50083
THREAD_LOCKED = 160005


class DiscordTransport(FiredRoutes):
    """Posts `[DELAYED_COMMAND] …` with the run's nonce; thread → owner's DM → parent channel.

    Beats and escalations are routed by `FiredRoutes`; escalations are DMs.
    """

    # Deliveries wait in the pacer, not in the dispatcher: it must see every due marker
    # to order them fairly across threads (a batch of claims is 500).
    concurrency = 512

    def __init__(
        self,
        client: discord.Client,
        *,
        heartbeat: Heartbeat,
        escalation: Escalation,
        gate: AudienceGate,
        pacer: Pacer | None = None,
    ) -> None:
        super().__init__(heartbeat)
        self.client = client
        # Every request the client makes, not just markers, shares Discord's budget.
        self.pacer = pacer or Pacer()
        self.pacer.install(client.http)
        self.escalation = escalation
        self.gate = gate  # checks jobs' audiences again at delivery
        self._notices: set[asyncio.Task[None]] = set()

    def failure_notice(self, job: Job, error: str) -> None:
        """Engine hook: a recurring job keeps failing (or was paused for it); tell its owner."""
        task = asyncio.get_running_loop().create_task(self._tell_owner(job, error))
        self._notices.add(task)
        task.add_done_callback(self._notices.discard)

    async def _tell_owner(self, job: Job, error: str) -> None:
        what = f"job #{job.id} (“{trim(job.command, 80)}”)"
        if job.status == JobStatus.PAUSED:
            text = (
                f"⏸️ I paused your {what} after {job.failure_streak} failed runs in a row. "
                f"Last problem: {trim(error, 300)}. Fix that, then `/jobs resume id: {job.id}`."
            )
        else:
            text = (
                f"⚠️ Your {what} has failed {job.failure_streak} times in a row. "
                f"Last problem: {trim(error, 300)}. "
                f"`/jobs history id: {job.id}` shows each attempt; "
                "I'll keep trying and pause it if this goes on."
            )
        try:
            dm = await direct_messages(self.client, job.owner_id)
            await dm.send(text, allowed_mentions=NO_MENTIONS)
            return
        except discord.HTTPException as exc:
            log.info("job %s: cannot DM the owner about failures: %s", job.id, exc)
        try:
            channel = self.client.get_partial_messageable(job.channel_id, guild_id=job.guild_id)
            await channel.send(
                f"<@{job.owner_id}> {text}", allowed_mentions=owner_only(job.owner_id)
            )
        except discord.HTTPException:
            log.warning("job %s: could not tell the owner it keeps failing", job.id, exc_info=True)

    async def escalate(self, delivery: Delivery) -> Delivered:
        with _posting(delivery):
            return await self.escalation.deliver(delivery)

    async def post_marker(self, delivery: Delivery) -> Delivered:
        with _posting(delivery):
            return await self._deliver(delivery)

    async def _where(self, d: Delivery) -> int:
        """The job's thread, or its audience's channel or DM if the owner may still address
        it (checked again now); if not, the thread, where the owner is told why."""
        if not d.job.audience:
            return d.job.channel_id
        where = Addressing(d.job.owner_id, d.job.guild_id, d.job.channel_id)
        target, _ = await self.gate.route(Audience.from_json(d.job.audience), where)
        return target

    async def _deliver(self, d: Delivery) -> Delivered:
        channel, problem = await fetched(self.client, await self._where(d))
        # The marker's words are for people: the run is re-fed from the job, so a text too
        # long for a message (stored before the limit) is shortened, never split.
        text = trim(d.text)
        if channel is not None:
            for reopened in (False, True):
                try:
                    msg = await self._send(channel, text, d.run.nonce)
                    return Delivered(msg.id, channel.id)
                except discord.HTTPException as exc:
                    if retryable(exc):
                        raise
                    problem = _describe(exc)
                    # An archived thread is reopened once; a locked one was closed by a
                    # moderator.
                    archived = exc.code == THREAD_ARCHIVED and isinstance(channel, discord.Thread)
                    if reopened or not archived or channel.locked:
                        break
                    if not await self._unarchive(channel):
                        break
            ids = {"job_id": d.job.id, "run_id": d.run.id, "thread_id": d.job.channel_id}
            log.warning("job %s: cannot post in its thread: %s", d.job.id, problem, extra=ids)
        return await self._fallback(d, problem)

    async def _fallback(self, d: Delivery, problem: str) -> Delivered:
        where = f"<#{d.job.channel_id}>"
        note = f"\n(This was meant for {where}, but {problem}.)"
        try:
            dm = await direct_messages(self.client, d.job.owner_id)
            msg = await self._send(dm, with_note(d.text, note), d.run.nonce)
            return Delivered(msg.id, dm.id, route="dm")
        except discord.HTTPException as exc:
            if retryable(exc):
                raise
            dm_problem = _describe(exc)
        if d.job.parent_channel_id:
            parent, _ = await fetched(self.client, d.job.parent_channel_id)
            if parent is not None:
                try:
                    why = f"this was meant for {where}, but {problem}"
                    text = with_note(d.text, f"\n(<@{d.job.owner_id}>: {why}.)")
                    msg = await self._send(parent, text, d.run.nonce, owner_only(d.job.owner_id))
                    return Delivered(msg.id, parent.id, route="parent")
                except discord.HTTPException as exc:
                    if retryable(exc):
                        raise
        raise DeliveryError(
            f"could not deliver: {problem}; DM failed: {dm_problem}", retryable=False
        )

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


@contextlib.contextmanager
def _posting(delivery: Delivery) -> Iterator[None]:
    """A delivery's requests: paced in the marker lane by its due time; what Discord or the
    network answered turned into a `DeliveryError` that says whether to retry."""
    try:
        with marker_lane(delivery.scheduled_for):
            yield
    except DeliveryError:
        raise
    except (TimeoutError, aiohttp.ClientError, OSError) as exc:
        raise DeliveryError(f"connection error: {exc}", retryable=True) from exc
    except discord.HTTPException as exc:
        raise DeliveryError(_describe(exc), retryable=retryable(exc)) from exc


def retryable(exc: discord.HTTPException) -> bool:
    """Whether Discord may take the same request later (server trouble or a rate limit)."""
    return exc.status >= 500 or exc.status == 429


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
