"""Storage that is down, full or read-only never drops a person's request: every message
and command gets a clear answer, nothing is half-written, and the bot recovers by itself."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import storage.db
from tests.bot.harness import World, running_bot, settle
from tests.bot.test_cli import homar

CANT_SAVE = "I can't save anything right now"


class DiskFull:
    """While on, every transaction fails as SQLite does when the disk is full."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.on = False
        transaction, core = storage.db._transaction, storage.db._core_transaction

        def failing(real: Any) -> Any:
            def run(*args: Any) -> Any:
                if self.on:
                    raise sqlite3.OperationalError("database or disk is full")
                return real(*args)

            return run

        monkeypatch.setattr(storage.db, "_transaction", failing(transaction))
        monkeypatch.setattr(storage.db, "_core_transaction", failing(core))


@pytest.fixture
def disk(monkeypatch: pytest.MonkeyPatch) -> Iterator[DiskFull]:
    yield DiskFull(monkeypatch)


async def test_chat_while_the_disk_is_full_gets_an_answer_and_recovers(
    world: World, disk: DiskFull
) -> None:
    async with running_bot(world) as bot:
        first = await world.fake.user_says(
            world.channel.id, world.alice.id, f"{world.mention()} hello"
        )
        thread_id = first.id
        await world.bot_says(thread_id)
        disk.on = True
        await world.fake.user_says(thread_id, world.alice.id, "remind me in 1 hour to stretch")
        down = await world.bot_says(thread_id, lambda m: CANT_SAVE in m.content)
        assert "nothing was scheduled" in down.content
        disk.on = False
        await settle(bot)
        assert await bot.runtime.engine.list_jobs(owner_id=world.alice.id) == []
        await world.fake.user_says(thread_id, world.alice.id, "remind me in 1 hour to stretch")
        back = await world.bot_says(thread_id, lambda m: "job #" in m.content)
        await settle(bot)
        (job,) = await bot.runtime.engine.list_jobs(owner_id=world.alice.id)
    assert "stretch" in back.content and job.command == "stretch"


async def test_slash_command_while_the_disk_is_full_says_so(world: World, disk: DiskFull) -> None:
    async with running_bot(world) as bot:
        disk.on = True
        handle = await world.fake.slash(
            "remind",
            {"when": "in 1 hour", "what": "stretch"},
            user_id=world.alice.id,
            channel_id=world.channel.id,
        )
        data = await handle.wait_answer(timeout=5)
        disk.on = False
        await settle(bot)
        assert await bot.runtime.engine.list_jobs(owner_id=world.alice.id) == []
    assert handle.ephemeral and CANT_SAVE in str(data.get("content"))


@pytest.mark.parametrize("command", ["run", "chat", "status"])
@pytest.mark.parametrize(
    "url",
    [
        "postgresql+asyncpg://homar:homar@127.0.0.1:1/nowhere",  # nothing listens on port 1
        "sqlite+aiosqlite:////proc/homar-cannot-write-here/h.db",
    ],
)
def test_a_database_that_cannot_be_reached_at_start_is_one_line(
    tmp_path: Path, command: str, url: str
) -> None:
    env = {"DATABASE_URL": url, "DISCORD_TOKEN": "x", "DISCORD_API_BASE": "http://127.0.0.1:1"}
    result = homar(command, env=env, cwd=tmp_path)
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "database" in lines[0] and "DATABASE_URL" in lines[0]
    assert "Traceback" not in result.stderr
