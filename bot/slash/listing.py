"""One page of `/jobs list` for a scope (mine, this thread, the server), as an embed."""

from __future__ import annotations

from typing import Any

import discord

from bot.commands import jobs
from bot.slash.context import caller_of
from bot.slash.render import embed_of


async def page_embed(
    interaction: discord.Interaction[Any], scope: str, page_no: int
) -> tuple[discord.Embed, bool]:
    reply = await jobs.list_page(await caller_of(interaction), scope, page_no)
    assert reply.card is not None and reply.page is not None
    return embed_of(reply.card), reply.page.more
