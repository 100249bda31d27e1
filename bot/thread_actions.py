"""The agent's thread actions with discord.py: post, read back, and start a native poll."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

import discord

from bot.channels import messageable
from bot.mentions import NO_MENTIONS
from tools.actions.thread import ThreadActions, ThreadMessage
from tools.jobs.marker import MARKER


class DiscordThread:
    """One thread (or DM) of a bot, as `ThreadActions`."""

    def __init__(self, client: discord.Client, channel_id: int, guild_id: int | None) -> None:
        self.client = client
        self.channel_id = channel_id
        self.guild_id = guild_id

    def _channel(self) -> Any:
        return messageable(self.client, self.channel_id, self.guild_id)

    async def post_message(self, text: str) -> int:
        # What the agent posts never pings anyone, whatever the text says.
        message = await self._channel().send(text, allowed_mentions=NO_MENTIONS)
        return int(message.id)

    async def read_thread(self, limit: int) -> list[ThreadMessage]:
        got: list[ThreadMessage] = []
        async for m in self._channel().history(limit=limit):
            if m.content.startswith(MARKER):
                continue  # our own job markers are plumbing, not conversation
            got.append(
                ThreadMessage(
                    author=m.author.display_name,
                    text=m.content or ("(poll)" if m.poll else "(attachment or embed)"),
                    at=m.created_at,
                    bot=m.author.bot,
                )
            )
        return list(reversed(got))

    async def create_poll(self, question: str, answers: list[str], hours: int) -> int:
        poll = discord.Poll(question=question, duration=timedelta(hours=hours))
        for answer in answers:
            poll.add_answer(text=answer)
        message = await self._channel().send(poll=poll, allowed_mentions=NO_MENTIONS)
        return int(message.id)


def thread_actions(client: discord.Client) -> Callable[[int, int | None], ThreadActions]:
    """The factory the runtime uses to give each run its thread."""

    def make(channel_id: int, guild_id: int | None) -> ThreadActions:
        return DiscordThread(client, channel_id, guild_id)

    return make
