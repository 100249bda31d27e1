"""Buttons on a delivered reminder, working across restarts: Done, Snooze, Notify me too.

- Done (`ids.DONE`): the owner saw it; follow-ups stop.
- Snooze (`ids.SNOOZE`): `10m`, `1h`, `tomorrow` (09:00 in the owner's zone) or `custom`,
  which opens a form (`ids.SNOOZE_FORM`) taking any time phrase.
- Notify me too / Stop notifying me (`ids.JOIN`), on a reminder delivered to a channel or
  a role: anyone who sees it may join its next occurrences' audience, and leave again.

Only the reminder's owner may press Done and Snooze; anyone else is told privately.
"""

from __future__ import annotations

import logging
import re
from datetime import datetime
from typing import Any

import discord

from bot import choices
from bot.components import ids
from bot.components.answers import (
    Ack,
    acknowledged,
    edit_clicked,
    open_form,
    owned_job,
    say_privately,
)
from bot.components.client import client_of
from bot.components.forms import OneLineForm
from bot.mentions import NO_MENTIONS
from bot.slash.context import reply_private
from tools.message_size import with_note

log = logging.getLogger(__name__)

NOT_YOURS = "This reminder isn't yours, so its buttons aren't for you."
SNOOZE_LABELS = {"10m": "10 min", "1h": "1 hour", "tomorrow": "Tomorrow 9:00", "custom": "Custom…"}
SNOOZE_FORM = OneLineForm(
    title="Snooze until…",
    field="when",
    label="When should I remind you again?",
    placeholder="in 45 minutes, tonight at 8, friday 10am",
    max_length=100,
)
_JOIN_LABELS = {"join": ("Notify me too", "🔔"), "leave": ("Stop notifying me", "🔕")}
_NOTE = re.compile(r"\n(✅ \*\*Done\*\*|💤 \*\*Snoozed\*\*).*$", re.S)


def reminder_view(
    reminder: tuple[int, int] | None, *, join_job: int | None = None
) -> discord.ui.View | None:
    """Done and Snooze for a reminder's (job, run); Notify me too for a broadcast job."""
    if reminder is None and join_job is None:
        return None
    view = discord.ui.View(timeout=None)
    if reminder is not None:
        job_id, run_id = reminder
        view.add_item(DoneButton(job_id, run_id))
        for choice in SNOOZE_LABELS:
            view.add_item(SnoozeButton(job_id, run_id, choice))
    if join_job is not None:
        view.add_item(JoinButton(join_job, "join"))
        view.add_item(JoinButton(join_job, "leave"))
    return view


async def _close(interaction: discord.Interaction[Any], note: str) -> None:
    """Drop the buttons from the reminder and say what was done (or answer privately)."""
    message = interaction.message
    if message is None:
        await say_privately(interaction, note)
        return
    content = _NOTE.sub("", message.content or "")
    await edit_clicked(
        interaction,
        content=with_note(content, f"\n{note}"),
        view=None,
        allowed_mentions=NO_MENTIONS,
    )


async def _owner_zone(interaction: discord.Interaction[Any], job_id: int) -> str | None:
    """The owner's zone when the presser owns the reminder; otherwise refuse privately."""
    missing = f"Reminder #{job_id} no longer exists."
    job = await owned_job(interaction, job_id, refusal=NOT_YOURS, missing=missing)
    return None if job is None else await client_of(interaction).runtime.user_tz(job.owner_id)


async def _snooze(
    interaction: discord.Interaction[Any], job_id: int, run_id: int, until: datetime, choice: str
) -> None:
    runtime = client_of(interaction).runtime
    note = await choices.snooze(runtime, job_id, run_id, interaction.user.id, until, choice)
    await _close(interaction, note)


class DoneButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=ids.DONE.pattern):
    def __init__(self, job_id: int, run_id: int) -> None:
        super().__init__(
            discord.ui.Button(
                label="Done",
                emoji="✅",
                style=discord.ButtonStyle.success,
                custom_id=ids.DONE(job=job_id, run=run_id),
            )
        )
        self.job_id = job_id
        self.run_id = run_id

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[Any],
        item: discord.ui.Item[Any],
        match: re.Match[str],
        /,
    ) -> DoneButton:
        return cls(int(match["job"]), int(match["run"]))

    @acknowledged(Ack.UPDATE)
    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        runtime = client_of(interaction).runtime
        note = await choices.done(runtime, self.job_id, self.run_id, interaction.user.id)
        await _close(interaction, note)


class SnoozeButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=ids.SNOOZE.pattern):
    def __init__(self, job_id: int, run_id: int, choice: str) -> None:
        super().__init__(
            discord.ui.Button(
                label=f"Snooze {SNOOZE_LABELS[choice]}" if choice != "custom" else "Snooze…",
                emoji="💤" if choice == "10m" else None,
                style=discord.ButtonStyle.secondary,
                custom_id=ids.SNOOZE(job=job_id, run=run_id, choice=choice),
            )
        )
        self.job_id = job_id
        self.run_id = run_id
        self.choice = choice

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[Any],
        item: discord.ui.Item[Any],
        match: re.Match[str],
        /,
    ) -> SnoozeButton:
        return cls(int(match["job"]), int(match["run"]), match["choice"])

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        if self.choice == "custom":
            form = SNOOZE_FORM.modal(ids.SNOOZE_FORM(job=self.job_id, run=self.run_id))
            await open_form(interaction, _owner_zone(interaction, self.job_id), form)
        else:
            await self._snooze_now(interaction)

    @acknowledged(Ack.UPDATE)
    async def _snooze_now(self, interaction: discord.Interaction[Any]) -> None:
        tz = await _owner_zone(interaction, self.job_id)
        if tz is None:
            return
        now = client_of(interaction).runtime.clock.now()
        until = choices.snooze_until(self.choice, now, tz)
        await _snooze(interaction, self.job_id, self.run_id, until, self.choice)


@acknowledged(Ack.UPDATE)
async def snooze_submitted(
    match: re.Match[str], data: Any, interaction: discord.Interaction[Any]
) -> None:
    """A submitted custom-snooze form: any phrase the time language reads, in the owner's zone."""
    job_id, run_id = int(match["job"]), int(match["run"])
    tz = await _owner_zone(interaction, job_id)
    if tz is None:
        return
    now = client_of(interaction).runtime.clock.now()
    typed = SNOOZE_FORM.typed(data).strip()
    until = choices.read_snooze(typed, now, tz)  # a UserError answers what to type
    await _snooze(interaction, job_id, run_id, until, "custom")


class JoinButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=ids.JOIN.pattern):
    def __init__(self, job_id: int, how: str) -> None:
        label, emoji = _JOIN_LABELS[how]
        super().__init__(
            discord.ui.Button(
                label=label,
                emoji=emoji,
                style=discord.ButtonStyle.secondary,
                custom_id=ids.JOIN(how=how, job=job_id),
            )
        )
        self.job_id = job_id
        self.how = how

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[Any],
        item: discord.ui.Item[Any],
        match: re.Match[str],
        /,
    ) -> JoinButton:
        return cls(int(match["job"]), match["how"])

    @acknowledged(Ack.PRIVATE)
    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        joining = self.how == "join"
        engine = client_of(interaction).runtime.engine
        changed = await engine.join_audience(self.job_id, interaction.user.id, present=joining)
        if joining:
            text = (
                "🔔 I'll ping you on the next ones too. Press **Stop notifying me** to leave."
                if changed
                else "You're already on this one's list."
            )
        else:
            text = (
                "🔕 You won't be pinged on it any more."
                if changed
                else "You weren't on this one's list."
            )
        await reply_private(interaction, text)
