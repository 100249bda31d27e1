"""Approval messages in Discord: the proposal, persistent Approve/Deny buttons, and expiry.

Buttons are `DynamicItem`s (`ids.DECIDE`), so they keep working after a restart. Only the
requester may press them; the decision is taken once in the database, the buttons are
disabled, and the agent continues in the thread.
"""

from __future__ import annotations

import asyncio
import logging
import re
from datetime import datetime, timedelta
from typing import Any

import discord

from bot import choices
from bot.channels import messageable
from bot.components import ids
from bot.components.answers import Ack, acknowledged, edit_clicked
from bot.components.client import Client, client_of
from bot.mentions import NO_MENTIONS, owner_only
from bot.slash.context import reply_private
from tools.approval import Outcome, PendingApproval
from tools.message_size import trim, with_note

log = logging.getLogger(__name__)

SWEEP_EVERY = timedelta(minutes=1)


def _buttons(approval_id: int, *, disabled: bool = False) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    view.add_item(DecisionButton(approval_id, True, disabled=disabled))
    view.add_item(DecisionButton(approval_id, False, disabled=disabled))
    return view


async def post_approval(
    bot: Client,
    channel_id: int,
    guild_id: int | None,
    pending: PendingApproval,
    text: str,
    *,
    nonce: str | None = None,
) -> None:
    """Post the proposal with its buttons (pinging only the requester) and remember the message.

    A fired run's proposal carries the run's answer nonce, so posting it again is a no-op.
    """
    body = trim(f"<@{pending.user_id}> {text}")
    extra: dict[str, Any] = {"nonce": nonce} if nonce is not None else {}
    try:
        msg = await messageable(bot, channel_id, guild_id).send(
            body,
            view=_buttons(pending.approval_id),
            allowed_mentions=owner_only(pending.user_id),
            **extra,
        )
    except discord.HTTPException as exc:
        log.warning("could not post approval %s in %s: %s", pending.approval_id, channel_id, exc)
        return
    if pending.approval_id:
        await bot.runtime.approvals.store.set_message(pending.approval_id, msg.id)


async def close_message(
    bot: Client, channel_id: int, message_id: int | None, approval_id: int, note: str
) -> None:
    """Disable a decided or expired approval's buttons and say what happened."""
    if message_id is None:
        return
    try:
        partial = bot.get_partial_messageable(channel_id).get_partial_message(message_id)
        msg = await partial.fetch()
        await partial.edit(
            content=_noted(msg.content, note),
            view=_buttons(approval_id, disabled=True),
            allowed_mentions=NO_MENTIONS,
        )
    except discord.HTTPException as exc:
        log.warning("could not close approval message %s: %s", message_id, exc)


async def on_click(interaction: discord.Interaction, approval_id: int, approved: bool) -> None:
    """A button press: refuse privately unless it's the requester's first, timely click."""
    bot = client_of(interaction)
    runtime = bot.runtime
    row, note = await choices.decide(runtime, approval_id, interaction.user.id, approved)
    if row is None:
        await reply_private(interaction, note)
        return
    try:
        await edit_clicked(
            interaction,
            content=_noted(interaction.message.content if interaction.message else "", note),
            view=_buttons(approval_id, disabled=True),
            allowed_mentions=NO_MENTIONS,
        )
    except discord.HTTPException as exc:
        log.warning("could not update approval message %s: %s", row.message_id, exc)

    _carry_on(bot, row.id, row.channel_id, approved)


def _noted(content: str, note: str) -> str:
    """The proposal's text with what became of it (in place of an earlier note)."""
    base = re.sub(r"\n\*\*(Approved|Denied|Expired)\*\*.*$", "", content, flags=re.S)
    return with_note(base, f"\n**{note}**")


def _carry_on(
    bot: Client, approval_id: int, channel_id: int, approved: bool, *, expired: bool = False
) -> None:
    """After a decision: the agent continues in the thread (creates the jobs, or not)."""
    runtime = bot.runtime

    async def work() -> None:
        reply = await runtime.resume(approval_id, approved=approved, expired=expired)
        if reply is not None:
            await bot.post(channel_id, None, reply)

    runtime.queues.submit(channel_id, work)


async def decide_elsewhere(bot: Client, approval_id: int, user_id: int, approved: bool) -> Outcome:
    """A decision made outside Discord (the dashboard): the same checks as a click (only the
    requester, once, before expiry), then the message's buttons close and the agent goes on."""
    row, note = await choices.decide(bot.runtime, approval_id, user_id, approved)
    if row is None:
        return Outcome(False, note)
    await close_message(bot, row.channel_id, row.message_id, row.id, f"{note} on the dashboard")
    _carry_on(bot, row.id, row.channel_id, approved)
    return Outcome(True, approval=row)


class DecisionButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=ids.DECIDE.pattern,
):
    """Approve or Deny on an approval message; the custom id carries both, so the
    buttons keep working after a restart."""

    def __init__(self, approval_id: int, approve: bool, *, disabled: bool = False) -> None:
        super().__init__(
            discord.ui.Button(
                label="Approve" if approve else "Deny",
                style=discord.ButtonStyle.success if approve else discord.ButtonStyle.danger,
                custom_id=ids.DECIDE(verdict="approve" if approve else "deny", id=approval_id),
                disabled=disabled,
            )
        )
        self.approval_id = approval_id
        self.approve = approve

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> DecisionButton:
        return cls(int(match["id"]), match["verdict"] == "approve")

    @acknowledged(Ack.UPDATE)
    async def callback(self, interaction: discord.Interaction) -> None:
        await on_click(interaction, self.approval_id, approved=self.approve)


async def sweep_once(bot: Client) -> int:
    """Expire timed-out approvals: disable their buttons and let the agent acknowledge."""
    runtime = bot.runtime
    expired = await runtime.approvals.expire_due(runtime.clock.now())
    for row in expired:
        await close_message(bot, row.channel_id, row.message_id, row.id, "Expired")
        _carry_on(bot, row.id, row.channel_id, False, expired=True)
    return len(expired)


async def sweep_forever(bot: Client, wake: asyncio.Event) -> None:
    """On start and then every minute of the runtime clock (a hand-moved clock in tests)."""
    while not bot.is_closed():
        try:
            await sweep_once(bot)
        except Exception:
            log.exception("approval sweep failed")
        deadline: datetime = bot.runtime.clock.now() + SWEEP_EVERY
        await bot.runtime.clock.sleep_until(deadline, wake)
        wake.clear()
