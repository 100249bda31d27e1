"""One page of `/jobs list` for a scope: mine, this thread, or the whole server."""

from __future__ import annotations

from typing import Any

import discord

from bot.slash.context import actor_of, runtime_of
from bot.slash.render import page
from storage.models import Job
from tools.errors import NotAllowed, UserError

PAGE_SIZE = 10
SCOPES = ("mine", "thread", "server")


def check_scope(interaction: discord.Interaction[Any], scope: str) -> None:
    if scope not in SCOPES:
        raise UserError("Pick a scope: `mine`, `thread` or `server`.")
    if scope == "server":
        if interaction.guild_id is None:
            raise UserError("`server` only works inside a server; try `/jobs list scope: mine`.")
        if not actor_of(interaction).manage_messages:
            raise NotAllowed(
                "Listing everyone's jobs needs the Manage Messages permission; "
                "try `/jobs list scope: mine`."
            )


async def fetch_page(
    interaction: discord.Interaction[Any], scope: str, page_no: int
) -> tuple[list[Job], bool]:
    """The jobs on `page_no` (soonest due first) and whether another page follows."""
    check_scope(interaction, scope)
    engine = runtime_of(interaction).engine
    offset = max(0, page_no) * PAGE_SIZE
    if scope == "thread":
        jobs = await engine.list_jobs(
            channel_id=interaction.channel_id, limit=PAGE_SIZE + 1, offset=offset
        )
    elif scope == "server":
        jobs = await engine.list_jobs(
            guild_id=interaction.guild_id, limit=PAGE_SIZE + 1, offset=offset
        )
    else:
        jobs = await engine.list_jobs(
            owner_id=interaction.user.id, limit=PAGE_SIZE + 1, offset=offset
        )
    return jobs[:PAGE_SIZE], len(jobs) > PAGE_SIZE


async def page_embed(
    interaction: discord.Interaction[Any], scope: str, page_no: int
) -> tuple[discord.Embed, bool]:
    jobs, more = await fetch_page(interaction, scope, page_no)
    return page(jobs, scope=scope, page_no=page_no), more
