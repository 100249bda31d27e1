"""A running Homar bot against the fake Discord, with a hand-moved clock."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from pydantic_ai.models import Model
from pydantic_ai.models.wrapper import WrapperModel

from bot.app import HomarBot
from bot.clock import ManualClock
from bot.settings import Settings, load_settings
from bot.wiring import discord_bot
from tests.fakediscord import (
    FakeChannel,
    FakeDiscord,
    FakeGuild,
    FakeMessage,
    FakeUser,
    running_client,
)
from tools.agent.offline import offline_model

START = datetime(2026, 11, 23, 8, 0, tzinfo=UTC)


@dataclass
class World:
    fake: FakeDiscord
    guild: FakeGuild
    channel: FakeChannel
    alice: FakeUser
    bob: FakeUser
    db_url: str
    clock: ManualClock

    def settings(self, **overrides: object) -> Settings:
        values: dict[str, object] = {
            "_env_file": None,
            "discord_token": "fake-token",
            "discord_api_base": self.fake.api_base,
            "discord_gateway_url": self.fake.gateway_url,
            "database_url": self.db_url,
            "default_timezone": "UTC",
        }
        values.update(overrides)
        return load_settings(**values)

    @property
    def bot_id(self) -> int:
        return self.fake.bot_user.id

    def mention(self) -> str:
        return f"<@{self.bot_id}>"

    def bot_messages(self, channel_id: int) -> list[FakeMessage]:
        return self.fake.bot_messages(channel_id)

    def markers(self, channel_id: int) -> list[FakeMessage]:
        return [
            m for m in self.bot_messages(channel_id) if m.content.startswith("[DELAYED_COMMAND]")
        ]

    async def bot_says(
        self,
        channel_id: int,
        pred: Callable[[FakeMessage], bool] | None = None,
        timeout: float = 5.0,
        *,
        include_existing: bool = False,
    ) -> FakeMessage:
        def check(m: FakeMessage) -> bool:
            return m.author_id == self.bot_id and (pred is None or pred(m))

        return await self.fake.wait_for_message(
            channel_id, check, timeout=timeout, include_existing=include_existing
        )

    async def fired(
        self, channel_id: int, seconds: float, timeout: float = 5.0
    ) -> tuple[FakeMessage, FakeMessage]:
        """Move the clock by `seconds`; the new `[DELAYED_COMMAND]` marker that lands in
        `channel_id` and the bot's next message there (the fired run's answer)."""
        before = {m.id for m in self.bot_messages(channel_id)}
        await self.clock.advance(seconds)
        marker = await self.bot_says(
            channel_id,
            lambda m: m.content.startswith("[DELAYED") and m.id not in before,
            include_existing=True,
        )
        reply = await self.bot_says(
            channel_id, lambda m: m.id > marker.id, timeout=timeout, include_existing=True
        )
        return marker, reply


def make_world(fake: FakeDiscord, tmp_path: Path) -> World:
    guild = fake.add_guild("Homar Test")
    channel = fake.add_channel(guild.id, "general")
    alice = fake.add_user("alice")
    bob = fake.add_user("bob")
    fake.add_member(guild.id, alice.id)
    fake.add_member(guild.id, bob.id)
    return World(
        fake=fake,
        guild=guild,
        channel=channel,
        alice=alice,
        bob=bob,
        db_url=f"sqlite+aiosqlite:///{tmp_path}/homar.db",
        clock=ManualClock(START),
    )


class Relay(WrapperModel):
    """A model a test hands over to another mid-test (`hand_to`); until then it answers as
    the tests' configured model does (the built-in offline one, under its name).

    The bot's tasks keep the override they started with (see `running_bot`), so a test that
    changes models after connecting changes what this relay forwards to, never the bot.
    """

    def __init__(self) -> None:
        super().__init__(offline_model())

    def hand_to(self, model: Model) -> None:
        self.wrapped = model


@contextlib.asynccontextmanager
async def running_bot(
    world: World,
    model: Model | None = None,
    *,
    offline: Model | None = None,
    **settings: object,
) -> AsyncIterator[HomarBot]:
    """The bot connected to the fake Discord; `model` answers in place of the configured
    one, `offline` in place of the built-in fallback (given to the bot at construction).

    The swap is `agent.override(model=...)`, entered before the client connects: the
    override is a context variable, and the bot's gateway and worker tasks copy the context
    when they are created, so an override entered after the bot connected never reaches
    them (measured: the offline model answered instead). To switch models mid-test, pass a
    `Relay`.
    """
    bot = discord_bot(
        world.settings(**settings), clock=world.clock, offline=offline, guild_ready_timeout=0.01
    )
    with contextlib.ExitStack() as swapped:
        if model is not None:
            swapped.enter_context(bot.runtime.agent.agent.override(model=model))
        async with running_client(bot, timeout=5.0):
            yield bot
            await settle(bot)


async def settle(bot: HomarBot, timeout: float = 30.0) -> None:
    """Wait until queued agent runs are done and the dispatcher is asleep.

    Bounded, so a bug that keeps the bot busy fails the test instead of hanging the suite.
    """
    async with asyncio.timeout(timeout):
        for _ in range(3):
            await bot.runtime.queues.join()
            if bot.runtime.dispatcher is not None:
                await bot.runtime.dispatcher.idle()
