"""Buttons on job answers: Cancel on a confirmation (`ids.CANCEL`) and Previous/Next on a
private `/jobs list` (`ids.JOBS_PAGE`).

Cancel is refused (privately) unless the presser may manage the job (the engine checks).
"""

from __future__ import annotations

import logging
import re
from typing import Any

import discord

from bot.components import ids
from bot.components.answers import Ack, acknowledged, edit_clicked
from bot.components.client import client_of
from bot.slash.context import actor_of
from bot.slash.listing import page_embed

log = logging.getLogger(__name__)


# ------------------------------------------------------------------ job confirmations


class CancelJobButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=ids.CANCEL.pattern):
    """Cancel on a confirmation; only someone who may manage the job can press it."""

    def __init__(self, job_id: int) -> None:
        super().__init__(
            discord.ui.Button(
                label="Cancel",
                style=discord.ButtonStyle.danger,
                custom_id=ids.CANCEL(job_id=job_id),
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

    @acknowledged(Ack.UPDATE)
    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        engine = client_of(interaction).runtime.engine
        job = await engine.cancel(self.job_id, actor_of(interaction))
        # Dropping the button (rather than a disabled one) keeps no view state in memory.
        await edit_clicked(
            interaction, content=f"Cancelled job #{job.id}: “{job.command[:200]}”.", view=None
        )


def cancel_view(job_id: int) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    view.add_item(CancelJobButton(job_id))
    return view


# ------------------------------------------------------------------ /jobs list pages


class JobsPageButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]], template=ids.JOBS_PAGE.pattern
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
                custom_id=ids.JOBS_PAGE(scope=scope, page=page),
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

    @acknowledged(Ack.UPDATE)
    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        embed, more = await page_embed(interaction, self.scope, self.page)
        await edit_clicked(interaction, embed=embed, view=pager(self.scope, self.page, more=more))


def pager(scope: str, page: int, *, more: bool) -> discord.ui.View:
    """Previous/Next for page `page` (custom ids differ because they name different pages)."""
    view = discord.ui.View(timeout=None)
    view.add_item(JobsPageButton(scope, max(page - 1, 0), label="◀ Previous", disabled=page == 0))
    view.add_item(JobsPageButton(scope, page + 1, label="Next ▶", disabled=not more))
    return view
