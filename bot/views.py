"""Buttons that keep working after a restart (`discord.ui.DynamicItem`), grouped by purpose.

Custom ids carry everything a click needs, so no view state lives in memory:

- `homar:cancel:<job_id>` — Cancel on a job confirmation.
- `homar:jobs:page:<scope>:<page>` — Previous/Next on a private `/jobs list`.

Every callback checks the presser may act and answers refusals privately. Register
the classes with `bot.add_dynamic_items(*DYNAMIC_ITEMS)`.
"""

from __future__ import annotations

import logging
import re
from typing import Any

import discord

from bot.slash.context import actor_of, reply_private, runtime_of
from bot.slash.listing import page_embed
from tools.errors import UserError

log = logging.getLogger(__name__)


async def _refuse_or_report(interaction: discord.Interaction[Any], exc: Exception) -> None:
    """A click must always be answered; user mistakes get their message, bugs a short apology."""
    if isinstance(exc, UserError):
        text = exc.message
    else:
        log.exception("button %s failed", interaction.data, exc_info=exc)
        text = "Something went wrong on my side; please try again in a moment."
    try:
        await reply_private(interaction, text)
    except discord.HTTPException:
        log.warning("could not answer a button click privately")


# ------------------------------------------------------------------ job confirmations


class CancelJobButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]], template=r"homar:cancel:(?P<job_id>\d+)"
):
    """Cancel on a confirmation; only someone who may manage the job can press it."""

    def __init__(self, job_id: int) -> None:
        super().__init__(
            discord.ui.Button(
                label="Cancel",
                style=discord.ButtonStyle.danger,
                custom_id=f"homar:cancel:{job_id}",
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
    ) -> CancelJobButton:
        return cls(int(match["job_id"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        try:
            engine = runtime_of(interaction).engine
            job = await engine.cancel(self.job_id, actor_of(interaction))
        except Exception as exc:  # every click is answered, whatever happens
            await _refuse_or_report(interaction, exc)
            return
        # Dropping the button (rather than a disabled one) keeps no view state in memory.
        await interaction.response.edit_message(
            content=f"Cancelled job #{job.id}: “{job.command[:200]}”.", view=None
        )


def cancel_view(job_id: int) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    view.add_item(CancelJobButton(job_id))
    return view


# ------------------------------------------------------------------ /jobs list pages


class JobsPageButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"homar:jobs:page:(?P<scope>mine|thread|server):(?P<page>\d+)",
):
    """Previous/Next on a job list: re-reads that page for whoever presses it."""

    def __init__(
        self, scope: str, page: int, *, label: str = "Next", disabled: bool = False
    ) -> None:
        super().__init__(
            discord.ui.Button(
                label=label,
                style=discord.ButtonStyle.secondary,
                disabled=disabled,
                custom_id=f"homar:jobs:page:{scope}:{page}",
            )
        )
        self.scope = scope
        self.page = page

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[Any],
        item: discord.ui.Item[Any],
        match: re.Match[str],
        /,
    ) -> JobsPageButton:
        return cls(match["scope"], int(match["page"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        try:
            embed, more = await page_embed(interaction, self.scope, self.page)
        except Exception as exc:
            await _refuse_or_report(interaction, exc)
            return
        await interaction.response.edit_message(
            embed=embed, view=pager(self.scope, self.page, more=more)
        )


def pager(scope: str, page: int, *, more: bool) -> discord.ui.View:
    """Previous/Next for page `page` (custom ids differ because they name different pages)."""
    view = discord.ui.View(timeout=None)
    view.add_item(JobsPageButton(scope, max(page - 1, 0), label="◀ Previous", disabled=page == 0))
    view.add_item(JobsPageButton(scope, page + 1, label="Next ▶", disabled=not more))
    return view


DYNAMIC_ITEMS: tuple[type[discord.ui.DynamicItem[Any]], ...] = (CancelJobButton, JobsPageButton)
