"""Every button, select and form of Homar in Discord, and their one registration.

- `ids` — the custom-id table (strings stored on posted messages: never changed).
- `answers` — acknowledging a click, the owner check, opening a form, answering privately.
- `client` — the small protocol components type the bot against (no import of the bot).
- `forms` — one-field forms and reading their submissions.
- `jobs`, `reminders`, `approvals`, `templates`, `zones` — the components, by purpose.

`install(bot)` registers them all: the buttons as `DynamicItem`s (they survive a restart
because their custom id carries everything), the forms' submissions through one
`on_interaction` listener matched against the table.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from typing import Any

import discord
from discord.ext import commands

from bot.components import ids
from bot.components.approvals import DecisionButton
from bot.components.jobs import CancelJobButton, JobsPageButton
from bot.components.reminders import DoneButton, JoinButton, SnoozeButton, snooze_submitted
from bot.components.templates import SaveTemplateButton, template_submitted
from bot.components.zones import FollowZoneButton

Submitted = Callable[[re.Match[str], Any, discord.Interaction[Any]], Awaitable[None]]

BUTTONS: tuple[type[discord.ui.DynamicItem[Any]], ...] = (
    CancelJobButton,
    JobsPageButton,
    DoneButton,
    SnoozeButton,
    JoinButton,
    DecisionButton,
    SaveTemplateButton,
    FollowZoneButton,
)
FORMS: tuple[tuple[ids.CustomId, Submitted], ...] = (
    (ids.SNOOZE_FORM, snooze_submitted),
    (ids.TEMPLATE_FORM, template_submitted),
)


async def on_form(interaction: discord.Interaction[Any]) -> None:
    """A submitted form of ours, handed to its handler by its custom id."""
    if interaction.type != discord.InteractionType.modal_submit:
        return
    data: dict[str, Any] = dict(interaction.data or {})
    custom_id = str(data.get("custom_id", ""))
    for row, submitted in FORMS:
        match = row.match(custom_id)
        if match is not None:
            await submitted(match, data, interaction)
            return


def install(bot: commands.Bot) -> None:
    bot.add_dynamic_items(*BUTTONS)
    bot.add_listener(on_form, "on_interaction")
