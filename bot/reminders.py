"""Done and Snooze on every delivered reminder, working across restarts.

Custom ids carry the job and run, so no state lives in memory:

- `homar:done:<job_id>:<run_id>` — the owner saw it: follow-ups stop.
- `homar:snooze:<job_id>:<run_id>:<choice>` — `10m`, `1h`, `tomorrow` (09:00 in the
  owner's zone) or `custom`, which opens a form taking any time phrase.
- `homar:snoozeat:<job_id>:<run_id>` — that form; its submission is handled by an
  `on_interaction` listener rather than the in-memory modal, so it survives a restart.

Only the reminder's owner may press them; anyone else is told privately.
"""

from __future__ import annotations

import logging
import re
from datetime import datetime
from typing import TYPE_CHECKING, Any

import discord

from bot import choices
from bot.clicks import Ack, acknowledged, before_form, edit_clicked, report
from bot.slash.context import reply_private, runtime_of
from tools.message_size import with_note

if TYPE_CHECKING:
    from bot.app import HomarBot

log = logging.getLogger(__name__)

NOT_YOURS = "This reminder isn't yours, so its buttons aren't for you."
SNOOZE_LABELS = {"10m": "10 min", "1h": "1 hour", "tomorrow": "Tomorrow 9:00", "custom": "Custom…"}
_FORM = re.compile(r"homar:snoozeat:(?P<job>\d+):(?P<run>\d+)")
_NOTE = re.compile(r"\n(✅ \*\*Done\*\*|💤 \*\*Snoozed\*\*).*$", re.S)


def reminder_view(job_id: int, run_id: int) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    view.add_item(DoneButton(job_id, run_id))
    for choice in SNOOZE_LABELS:
        view.add_item(SnoozeButton(job_id, run_id, choice))
    return view


def install_reminder_buttons(bot: HomarBot) -> None:
    bot.add_dynamic_items(DoneButton, SnoozeButton)
    bot.add_listener(on_snooze_form, "on_interaction")


async def _answer(interaction: discord.Interaction[Any], text: str) -> None:
    try:
        await reply_private(interaction, text)
    except discord.HTTPException:
        log.warning("could not answer a reminder button privately")


async def _close(interaction: discord.Interaction[Any], note: str) -> None:
    """Drop the buttons from the reminder and say what was done (or answer privately)."""
    message = interaction.message
    if message is None:
        await _answer(interaction, note)
        return
    content = _NOTE.sub("", message.content or "")
    await edit_clicked(
        interaction,
        content=with_note(content, f"\n{note}"),
        view=None,
        allowed_mentions=discord.AllowedMentions.none(),
    )


async def _owned(interaction: discord.Interaction[Any], job_id: int) -> str | None:
    """The owner's zone when the presser owns the reminder; otherwise refuse privately."""
    runtime = runtime_of(interaction)
    job = await runtime.store.get(job_id)
    if job is None:
        await _answer(interaction, f"Reminder #{job_id} no longer exists.")
        return None
    if job.owner_id != interaction.user.id:
        await _answer(interaction, NOT_YOURS)
        return None
    return await runtime.user_tz(job.owner_id)


async def _snooze(
    interaction: discord.Interaction[Any], job_id: int, run_id: int, until: datetime, choice: str
) -> None:
    runtime = runtime_of(interaction)
    note = await choices.snooze(runtime, job_id, run_id, interaction.user.id, until, choice)
    await _close(interaction, note)


class DoneButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"homar:done:(?P<job>\d+):(?P<run>\d+)",
):
    def __init__(self, job_id: int, run_id: int) -> None:
        super().__init__(
            discord.ui.Button(
                label="Done",
                emoji="✅",
                style=discord.ButtonStyle.success,
                custom_id=f"homar:done:{job_id}:{run_id}",
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
        runtime = runtime_of(interaction)
        note = await choices.done(runtime, self.job_id, self.run_id, interaction.user.id)
        await _close(interaction, note)


class SnoozeButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"homar:snooze:(?P<job>\d+):(?P<run>\d+):(?P<choice>10m|1h|tomorrow|custom)",
):
    def __init__(self, job_id: int, run_id: int, choice: str) -> None:
        super().__init__(
            discord.ui.Button(
                label=f"Snooze {SNOOZE_LABELS[choice]}" if choice != "custom" else "Snooze…",
                emoji="💤" if choice == "10m" else None,
                style=discord.ButtonStyle.secondary,
                custom_id=f"homar:snooze:{job_id}:{run_id}:{choice}",
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
            await self._open_form(interaction)
        else:
            await self._snooze_now(interaction)

    @acknowledged(Ack.UPDATE)
    async def _snooze_now(self, interaction: discord.Interaction[Any]) -> None:
        tz = await _owned(interaction, self.job_id)
        if tz is None:
            return
        now = runtime_of(interaction).clock.now()
        until = choices.snooze_until(self.choice, now, tz)
        await _snooze(interaction, self.job_id, self.run_id, until, self.choice)

    async def _open_form(self, interaction: discord.Interaction[Any]) -> None:
        """The form must be the first response, so no deferral: the ownership check is
        bounded (`before_form`) and made again when the form is submitted."""
        try:
            # None means refused (already answered) or too slow to tell (submission checks).
            await before_form(_owned(interaction, self.job_id))
            if interaction.response.is_done():  # refused privately
                return
            await interaction.response.send_modal(SnoozeForm(self.job_id, self.run_id))
        except Exception as exc:
            await report(interaction, exc)


class SnoozeForm(discord.ui.Modal):
    """Custom snooze: any phrase the time language understands, in the owner's zone.

    Submissions are handled by `on_snooze_form` (this modal's own `on_submit` does nothing),
    so a form opened before a restart still works after it.
    """

    def __init__(self, job_id: int, run_id: int) -> None:
        super().__init__(
            title="Snooze until…", custom_id=f"homar:snoozeat:{job_id}:{run_id}", timeout=900
        )
        self.add_item(
            discord.ui.TextInput(
                label="When should I remind you again?",
                custom_id="when",
                placeholder="in 45 minutes, tonight at 8, friday 10am",
                max_length=100,
            )
        )


def _form_value(data: Any) -> str:
    for row in (data or {}).get("components", []):
        for part in [row, *row.get("components", [])]:
            if part.get("custom_id") == "when":
                return str(part.get("value") or "")
        component = row.get("component")
        if isinstance(component, dict) and component.get("custom_id") == "when":
            return str(component.get("value") or "")
    return ""


async def on_snooze_form(interaction: discord.Interaction[Any]) -> None:
    """A submitted custom-snooze form (see `SnoozeForm`)."""
    if interaction.type != discord.InteractionType.modal_submit:
        return
    data: dict[str, Any] = dict(interaction.data or {})
    match = _FORM.fullmatch(str(data.get("custom_id", "")))
    if match is None:
        return
    await _submitted(int(match["job"]), int(match["run"]), _form_value(data), interaction)


@acknowledged(Ack.UPDATE)
async def _submitted(
    job_id: int, run_id: int, typed: str, interaction: discord.Interaction[Any]
) -> None:
    tz = await _owned(interaction, job_id)
    if tz is None:
        return
    now = runtime_of(interaction).clock.now()
    until = choices.read_snooze(typed.strip(), now, tz)  # a UserError answers what to type
    await _snooze(interaction, job_id, run_id, until, "custom")
