"""Operating Homar: a hung model, sharding, /healthz and /metrics, and structured logs."""

from __future__ import annotations

import asyncio
import json
import logging
import socket
import time
from datetime import timedelta

import aiohttp
import pytest
from pydantic_ai.messages import ModelMessage, ModelResponse
from pydantic_ai.models.function import AgentInfo, FunctionModel

import bot.runtime
from bot.app import ShardedHomarBot
from bot.logs import JsonFormatter, TextFormatter
from bot.settings import SettingsError
from bot.wiring import discord_bot
from tests.bot.harness import World, running_bot, settle
from tests.fakediscord import running_client
from tools.jobs.model import Target
from tools.schedule import Once, Schedule


async def test_a_hung_model_never_holds_a_reminder_past_its_deadline(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The real budget is 45 s after the due time; scaled down here to 0.3 s."""
    monkeypatch.setattr(bot.runtime, "FIRED_DEADLINE", 0.3)
    monkeypatch.setattr(bot.runtime, "FIRED_MIN_BUDGET", 0.3)

    async def hang(_messages: list[ModelMessage], _info: AgentInfo) -> ModelResponse:
        await asyncio.Event().wait()
        raise AssertionError("unreachable")

    async with running_bot(world, model=FunctionModel(hang)) as homar:
        await homar.runtime.engine.create(
            target=Target(world.alice.id, world.channel.id, world.guild.id),
            command="take the cake out",
            kind="reminder",
            schedule=Schedule(Once(world.clock.now() + timedelta(minutes=1))),
            check_limits=False,
        )
        started = time.perf_counter()
        await world.clock.advance(60)
        reply = await world.bot_says(world.channel.id, lambda m: "Reminder" in m.content)
        waited = time.perf_counter() - started
        await settle(homar)
    assert "take the cake out" in reply.content and f"<@{world.alice.id}>" in reply.content
    assert waited < 5
    samples = homar.runtime.metrics.model_requests.labels("timeout")._value.get()
    assert samples == 1


async def test_sharded_bot_connects_each_shard_and_answers(world: World) -> None:
    homar = discord_bot(world.settings(shard_count=2), clock=world.clock, guild_ready_timeout=0.01)
    assert isinstance(homar, ShardedHomarBot)

    async def no_wait(_shard_id: int | None, *, initial: bool = False) -> None:
        return None  # discord.py waits 5 s between shards to respect Discord's identify limit

    homar.before_identify_hook = no_wait  # type: ignore[method-assign]
    async with running_client(homar, timeout=10.0):
        await world.fake.wait_for(lambda: len(world.fake.connected_sessions) == 2, timeout=5)
        assert sorted(homar.shards) == [0, 1]
        # The guild's shard gets the mention; the bot starts a thread and answers there.
        msg = await world.fake.user_says(world.channel.id, world.alice.id, f"{world.mention()} hi")
        reply = await world.bot_says(msg.id, timeout=5.0)
        assert reply.content
        await settle(homar)


async def test_shard_settings_are_checked(world: World) -> None:
    with pytest.raises(SettingsError, match="SHARD_COUNT"):
        discord_bot(world.settings(shard_ids="1"), clock=world.clock)
    with pytest.raises(SettingsError, match="0 to 1"):
        discord_bot(world.settings(shard_count=2, shard_ids="2"), clock=world.clock)
    one = discord_bot(world.settings(shard_count=4, shard_ids="1,3"), clock=world.clock)
    assert isinstance(one, ShardedHomarBot) and one.shard_ids == [1, 3] and one.shard_count == 4


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def test_health_and_metrics_endpoints(world: World) -> None:
    port = free_port()
    async with running_bot(world, health_port=port) as homar:
        await homar.runtime.engine.create(
            target=Target(world.alice.id, world.channel.id, world.guild.id),
            command="stretch",
            kind="reminder",
            schedule=Schedule(Once(world.clock.now() + timedelta(minutes=1))),
            check_limits=False,
        )
        await world.clock.advance(61)
        await settle(homar)
        async with aiohttp.ClientSession() as http:
            async with http.get(f"http://127.0.0.1:{port}/healthz") as resp:
                health = await resp.json()
                assert resp.status == 200
            async with http.get(f"http://127.0.0.1:{port}/metrics") as resp:
                metrics = await resp.text()
    assert health == {"status": "ok", "db": True, "dispatcher": "sleeping", "discord": True}
    assert 'homar_deliveries_total{route="thread"} 1.0' in metrics
    assert "homar_delivery_lateness_seconds_bucket" in metrics
    assert 'homar_jobs{status="completed"} 1.0' in metrics
    assert "homar_model_requests_total" in metrics and "homar_model_latency_seconds" in metrics


def record(**extra: object) -> logging.LogRecord:
    rec = logging.LogRecord(
        "bot.dispatcher", logging.WARNING, __file__, 1, "job %s failed", (7,), None
    )
    rec.__dict__.update(extra)
    return rec


def test_logs_carry_job_run_and_thread_ids() -> None:
    ids = {"job_id": 7, "run_id": 12, "thread_id": 555}
    line = TextFormatter().format(record(**ids))
    assert line.endswith("job 7 failed [job=7 run=12 thread=555]")
    assert "[" not in TextFormatter().format(record())
    entry = json.loads(JsonFormatter().format(record(**ids)))
    assert entry["message"] == "job 7 failed" and entry["level"] == "WARNING"
    assert (entry["job_id"], entry["run_id"], entry["thread_id"]) == (7, 12, 555)
