"""'Notify me too' on a reminder delivered to a channel or a role: anyone who sees it may
join its next occurrences' audience, and leave again.

Custom ids carry the job (`homar:join:<job_id>` / `homar:leave:<job_id>`), so the buttons
keep working after a restart without stored views.
"""

from __future__ import annotations

import logging
import re
from typing import TYPE_CHECKING, Any

import discord

from bot.clicks import Ack, acknowledged
from bot.slash.context import reply_private, runtime_of

if TYPE_CHECKING:
    from bot.app import HomarBot

log = logging.getLogger(__name__)


def join_buttons(job_id: int, view: discord.ui.View | None = None) -> discord.ui.View:
    """The reminder's buttons (if any) plus Notify me too / Stop notifying me."""
    view = view or discord.ui.View(timeout=None)
    view.add_item(JoinButton(job_id, "join"))
    view.add_item(JoinButton(job_id, "leave"))
    return view


def install_join_buttons(bot: HomarBot) -> None:
    bot.add_dynamic_items(JoinButton)


_LABELS = {"join": ("Notify me too", "🔔"), "leave": ("Stop notifying me", "🔕")}


class JoinButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"homar:(?P<how>join|leave):(?P<job>\d+)",
):
    def __init__(self, job_id: int, how: str) -> None:
        label, emoji = _LABELS[how]
        super().__init__(
            discord.ui.Button(
                label=label,
                emoji=emoji,
                style=discord.ButtonStyle.secondary,
                custom_id=f"homar:{how}:{job_id}",
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
        engine = runtime_of(interaction).engine
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
                else ("You weren't on this one's list.")
            )
        await reply_private(interaction, text)
