"""Escalating an unanswered reminder (seed 001): one DM to its owner, with Done/Snooze.

The engine schedules an escalation run after the last follow-up goes unanswered (see
`tools.jobs.reminders`); the transports hand those runs here instead of posting a marker. The
DM carries the run's nonce (so a resend after a crash is de-duplicated) and the run is
marked executed once it is sent, so it is never re-fed to the agent as a command.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime

import discord

from bot.channels import direct_messages
from bot.components.reminders import reminder_view
from bot.dispatcher import Delivered, Delivery
from bot.mentions import NO_MENTIONS, owner_only
from storage.jobs import JobStore
from tools.jobs import reminders as followups

log = logging.getLogger(__name__)

# Closed DMs, blocked bot, unknown user: the thread is the only place left to say it.
_NO_DM = (discord.Forbidden, discord.NotFound)


def where(delivery: Delivery) -> str:
    """A link to the reminder's thread that works from a DM."""
    guild = delivery.job.guild_id if delivery.job.guild_id is not None else "@me"
    return f"<#{delivery.job.channel_id}> (https://discord.com/channels/{guild}/{delivery.job.channel_id})"


def escalation_message(delivery: Delivery, place: str) -> str:
    first, sent = followups.escalation_facts(delivery.job.meta)
    return followups.escalation_text(delivery.job.command, place, first, sent)


class Escalation:
    """Sends escalation runs as DMs for one Discord client."""

    def __init__(
        self, client: discord.Client, store: JobStore, clock: Callable[[], datetime]
    ) -> None:
        self.client = client
        self.store = store
        self.clock = clock

    async def deliver(self, d: Delivery) -> Delivered:
        """DM the owner; if they can't be DMed, mention them in the thread instead.

        Discord errors other than a refused DM propagate (the transport retries them).
        """
        view = reminder_view((d.job.id, d.run.id))
        assert view is not None  # a reminder always has its Done/Snooze
        text = escalation_message(d, where(d))
        ids = {"job_id": d.job.id, "run_id": d.run.id, "thread_id": d.job.channel_id}
        try:
            dm = await direct_messages(self.client, d.job.owner_id)
            msg = await dm.send(text, nonce=d.run.nonce, view=view, allowed_mentions=NO_MENTIONS)
            result = Delivered(msg.id, dm.id, route="escalation-dm")
        except _NO_DM as exc:
            log.info("job %s: cannot DM the owner to escalate: %s", d.job.id, exc, extra=ids)
            channel = self.client.get_partial_messageable(d.job.channel_id, guild_id=d.job.guild_id)
            msg = await channel.send(
                f"<@{d.job.owner_id}> {escalation_message(d, 'this thread')}",
                nonce=d.run.nonce,
                view=view,
                allowed_mentions=owner_only(d.job.owner_id),
            )
            result = Delivered(msg.id, d.job.channel_id, route="escalation-thread")
        # Sent: never re-feed this run to the agent (it is not a command).
        await self.store.mark_executed(d.run.nonce, self.clock())
        return result
