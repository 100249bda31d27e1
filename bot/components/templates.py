"""Reminder templates per server: "Save as template" on a /remind confirmation
(`ids.SAVE_TEMPLATE`), which opens a form (`ids.TEMPLATE_FORM`) naming it.

`/remind template:` makes one again (`bot.slash.remind`); a template's audience is
checked again for whoever uses it.
"""

from __future__ import annotations

import logging
import re
from typing import TYPE_CHECKING, Any

import discord

from bot.components import ids
from bot.components.answers import Ack, acknowledged, open_form, owned_job, say_privately
from bot.components.client import client_of
from bot.components.forms import OneLineForm
from bot.slash.context import reply_private
from storage.templates import SavedTemplate, TemplateExists, TemplateStore, TooManyTemplates

if TYPE_CHECKING:
    from storage.jobs import Job

log = logging.getLogger(__name__)

MAX_NAME = 100
NOT_OWNER = "Only the reminder's owner can save it, in its server."
NAME_FORM = OneLineForm(
    title="Save as template",
    field="name",
    label="Template name",
    placeholder="standup, rent, water the plants",
    max_length=MAX_NAME,
)


class SaveTemplateButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]], template=ids.SAVE_TEMPLATE.pattern
):
    def __init__(self, job_id: int) -> None:
        super().__init__(
            discord.ui.Button(
                label="Save as template",
                emoji="📌",
                style=discord.ButtonStyle.secondary,
                custom_id=ids.SAVE_TEMPLATE(job=job_id),
            )
        )
        self.job_id = job_id

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[Any],
        item: discord.ui.Item[Any],
        match: re.Match[str],
        /,
    ) -> SaveTemplateButton:
        return cls(int(match["job"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        form = NAME_FORM.modal(ids.TEMPLATE_FORM(job=self.job_id))
        await open_form(interaction, _savable(interaction, self.job_id), form)


async def _savable(interaction: discord.Interaction[Any], job_id: int) -> Job | None:
    """Only the owner saves a reminder, and only one made in a server; else refuse privately."""
    job = await owned_job(interaction, job_id, refusal=NOT_OWNER, missing=NOT_OWNER)
    if job is not None and job.guild_id is None:
        await say_privately(interaction, NOT_OWNER)
        return None
    return job


@acknowledged(Ack.PRIVATE)
async def template_submitted(
    match: re.Match[str], data: Any, interaction: discord.Interaction[Any]
) -> None:
    """A submitted "Save as template" form."""
    runtime = client_of(interaction).runtime
    job = await _savable(interaction, int(match["job"]))
    if job is None or job.guild_id is None:  # refused privately
        return
    name = " ".join(NAME_FORM.typed(data).split())[:MAX_NAME]
    if not name:
        text = "Give the template a name, e.g. `standup`."
    else:
        typed = (job.meta or {}).get("slash") or {}
        saved = SavedTemplate(
            name=name,
            owner_id=job.owner_id,
            command=job.command,
            repeat=typed.get("repeat"),
            until=typed.get("until"),
            follow_up=job.follow_up is not None,
            audience=job.audience,
        )
        try:
            await TemplateStore(runtime.db).save(job.guild_id, saved, runtime.clock.now())
            text = f"📌 Saved as template **{name}**: `/remind template: {name}` makes it again."
        except TemplateExists:
            text = f"This server already has a template called **{name}**; pick another name."
        except TooManyTemplates:
            text = "This server has as many templates as I keep; reuse one of them."
    await reply_private(interaction, text)
