"""Reminder templates per server: "Save as template" on a /remind confirmation, and
`/remind template:` (with autocomplete) to make one again.

The button (`homar:tplsave:<job_id>`) opens a form (`homar:tplname:<job_id>`) whose
submission is handled by an `on_interaction` listener, so both survive a restart.
A template's audience is checked again for whoever uses it.
"""

from __future__ import annotations

import logging
import re
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands

from bot.clicks import Ack, acknowledged, before_form, report
from bot.slash.context import reply_private, runtime_of
from storage.templates import SavedTemplate, TemplateExists, TemplateStore, TooManyTemplates
from tools.errors import UserError

if TYPE_CHECKING:
    from discord.ext import commands

log = logging.getLogger(__name__)

_FORM = re.compile(r"homar:tplname:(?P<job>\d+)")
MAX_NAME = 100
NOT_OWNER = "Only the reminder's owner can save it, in its server."


async def template_choices(
    interaction: discord.Interaction[Any], current: str
) -> list[app_commands.Choice[str]]:
    if interaction.guild_id is None:
        return []
    names = await TemplateStore(runtime_of(interaction).db).names(interaction.guild_id, current)
    return [app_commands.Choice(name=n, value=n) for n in names]


async def load_template(interaction: discord.Interaction[Any], name: str) -> SavedTemplate:
    if interaction.guild_id is None:
        raise UserError("Templates belong to a server; use `template:` in one.")
    found = await TemplateStore(runtime_of(interaction).db).get(interaction.guild_id, name)
    if found is None:
        raise UserError(f"There's no template called {name[:100]!r} here; pick one from the list.")
    return found


class SaveTemplateButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"homar:tplsave:(?P<job>\d+)",
):
    def __init__(self, job_id: int) -> None:
        super().__init__(
            discord.ui.Button(
                label="Save as template",
                emoji="📌",
                style=discord.ButtonStyle.secondary,
                custom_id=f"homar:tplsave:{job_id}",
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
        """The form must be the first response, so no deferral: the ownership check is
        bounded (`before_form`) and made again when the form is submitted."""
        try:
            if await before_form(self._may_save(interaction)) is False:
                await reply_private(interaction, NOT_OWNER)
                return
            await interaction.response.send_modal(self._form())
        except Exception as exc:
            await report(interaction, exc)

    async def _may_save(self, interaction: discord.Interaction[Any]) -> bool:
        job = await runtime_of(interaction).store.get(self.job_id)
        return job is not None and job.owner_id == interaction.user.id and job.guild_id is not None

    def _form(self) -> discord.ui.Modal:
        form = discord.ui.Modal(
            title="Save as template", custom_id=f"homar:tplname:{self.job_id}", timeout=900
        )
        form.add_item(
            discord.ui.TextInput(
                label="Template name",
                custom_id="name",
                placeholder="standup, rent, water the plants",
                max_length=MAX_NAME,
            )
        )
        return form


def _form_value(data: Any) -> str:
    for row in (data or {}).get("components", []):
        for part in [row, *row.get("components", [])]:
            if part.get("custom_id") == "name":
                return str(part.get("value") or "")
        component = row.get("component")
        if isinstance(component, dict) and component.get("custom_id") == "name":
            return str(component.get("value") or "")
    return ""


async def on_template_form(interaction: discord.Interaction[Any]) -> None:
    """A submitted "Save as template" form."""
    if interaction.type != discord.InteractionType.modal_submit:
        return
    data: dict[str, Any] = dict(interaction.data or {})
    match = _FORM.fullmatch(str(data.get("custom_id", "")))
    if match is None:
        return
    await _save(int(match["job"]), _form_value(data), interaction)


@acknowledged(Ack.PRIVATE)
async def _save(job_id: int, typed_name: str, interaction: discord.Interaction[Any]) -> None:
    runtime = runtime_of(interaction)
    job = await runtime.store.get(job_id)
    name = " ".join(typed_name.split())[:MAX_NAME]
    if job is None or job.owner_id != interaction.user.id or job.guild_id is None:
        text = NOT_OWNER
    elif not name:
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


def install_template_buttons(bot: commands.Bot) -> None:
    bot.add_dynamic_items(SaveTemplateButton)
    bot.add_listener(on_template_form, "on_interaction")
