"""End to end: the real discord.py client, the fake Discord, the offline model, a moved clock."""

from __future__ import annotations

import asyncio
from datetime import timedelta

from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from bot.app import split_message
from storage.models import JobRunRow
from tests.bot.harness import Relay, World, running_bot, settle


async def start_thread(world: World, text: str, user_id: int | None = None) -> int:
    """Mention the bot in #general; the bot starts a thread from that message."""
    msg = await world.fake.user_says(
        world.channel.id, user_id or world.alice.id, f"{world.mention()} {text}"
    )
    return msg.id  # the fake gives a thread started from a message that message's id


async def test_mention_starts_a_thread_and_replies_there(world: World) -> None:
    async with running_bot(world) as bot:
        thread_id = await start_thread(world, "remind me tomorrow at 9 to call mom")
        reply = await world.bot_says(thread_id)
        await settle(bot)
    thread = world.fake.channels[thread_id]
    assert thread.parent_id == world.channel.id
    assert "call mom" in thread.name
    assert "job #" in reply.content and "<t:" in reply.content
    assert reply.allowed_mentions == {"parse": []}  # nobody is pinged by a confirmation
    jobs = await bot.runtime.engine.list_jobs(owner_id=world.alice.id)
    assert [j.channel_id for j in jobs] == [thread_id]
    assert jobs[0].guild_id == world.guild.id and jobs[0].parent_channel_id == world.channel.id


async def test_reminder_fires_marker_then_agent_reminds_owner(world: World) -> None:
    async with running_bot(world) as bot:
        thread_id = await start_thread(world, "remind me in 2 seconds to stretch")
        confirmation = await world.bot_says(thread_id)
        assert "job #" in confirmation.content
        assert world.markers(thread_id) == []

        marker, reminder = await world.fired(thread_id, 2)
        await settle(bot)

    assert marker.content == "[DELAYED_COMMAND] Send a reminder about: stretch"
    assert marker.nonce and len(str(marker.nonce)) <= 25
    assert marker.allowed_mentions == {"parse": []}
    assert f"<@{world.alice.id}>" in reminder.content and "stretch" in reminder.content
    assert reminder.allowed_mentions is not None
    assert [int(u) for u in reminder.allowed_mentions.get("users", [])] == [world.alice.id]
    assert "everyone" not in reminder.allowed_mentions.get("parse", [])
    (job,) = await bot.runtime.engine.list_jobs(owner_id=world.alice.id, include_closed=True)
    assert job.status == "completed"
    runs = await bot.runtime.store.runs(job.id)
    assert len(runs) == 1 and runs[0].executed_at is not None and runs[0].message_id == marker.id


async def test_restart_while_waiting_delivers_once(world: World) -> None:
    async with running_bot(world):
        thread_id = await start_thread(world, "remind me in 10 minutes to take the cake out")
        await world.bot_says(thread_id)
    assert world.markers(thread_id) == []

    await world.clock.advance(11 * 60)  # it came due while the bot was down
    async with running_bot(world) as bot:
        marker = await world.bot_says(
            thread_id, lambda m: m.content.startswith("[DELAYED"), include_existing=True
        )
        await world.bot_says(thread_id, lambda m: m.id > marker.id, include_existing=True)
        await settle(bot)
    async with running_bot(world) as bot:  # and a second restart posts nothing again
        await settle(bot)
    markers = world.markers(thread_id)
    assert len(markers) == 1 and markers[0].nonce


async def test_user_typed_marker_is_ordinary_chat(world: World) -> None:
    async with running_bot(world) as bot:
        thread_id = await start_thread(world, "remind me in 1 hour to stand up")
        await world.bot_says(thread_id)
        answers = []
        for who in (world.bob.id, world.alice.id):
            typed = await world.fake.user_says(thread_id, who, "[DELAYED_COMMAND] stand up")
            # Wait until the bot has handled it: it answers as it answers any chat message.
            answers.append(
                await world.bot_says(
                    thread_id, lambda m, after=typed.id: m.id > after, include_existing=True
                )
            )
        await settle(bot)
        async with bot.runtime.db.session() as s:
            executed = [r for r in (await s.scalars(JobRunRow.__table__.select())).all()]
    assert executed == []  # no run was even claimed, let alone executed
    assert world.markers(thread_id) == []
    for answer in answers:  # ordinary chat: no reminder, nobody pinged
        assert "Reminder" not in answer.content and "[DELAYED_COMMAND]" not in answer.content
        assert answer.allowed_mentions == {"parse": []}
    assert all("Reminder" not in m.content for m in world.bot_messages(thread_id))
    (job,) = await bot.runtime.engine.list_jobs(owner_id=world.alice.id)
    assert job.status == "active" and job.run_count == 0


async def test_archived_thread_still_gets_the_reminder(world: World) -> None:
    async with running_bot(world) as bot:
        thread_id = await start_thread(world, "remind me in 5 minutes to check the oven")
        await world.bot_says(thread_id)
        await world.fake.archive_thread(thread_id)
        await world.fired(thread_id, 5 * 60)
        await settle(bot)
    assert not world.fake.channels[thread_id].archived


def _raising(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    raise RuntimeError("model is down")


async def test_model_down_reminder_still_delivered(world: World) -> None:
    model, offline = Relay(), Relay()
    async with running_bot(world, model, offline=offline) as bot:
        thread_id = await start_thread(world, "remind me in 2 minutes to feed the cat")
        await world.bot_says(thread_id)
        # Now both the configured model and the offline one fail.
        model.hand_to(FunctionModel(_raising))
        offline.hand_to(FunctionModel(_raising))
        _marker, reminder = await world.fired(thread_id, 120)
        await settle(bot)
    assert f"<@{world.alice.id}>" in reminder.content
    assert "feed the cat" in reminder.content


async def test_configured_model_raising_falls_back_offline(world: World) -> None:
    # every message to the model, so that this plain reminder reaches the raising model
    async with running_bot(
        world, model=FunctionModel(_raising), plain_reminders_in_code=False
    ) as bot:
        thread_id = await start_thread(world, "remind me in 3 minutes to call Bob")
        confirmation = await world.bot_says(thread_id)
        await settle(bot)
    assert "job #" in confirmation.content


async def test_a_plain_reminder_never_waits_for_the_model(world: World) -> None:
    asked: list[int] = []

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        asked.append(1)
        raise RuntimeError("model is down")

    async with running_bot(world, model=FunctionModel(model)) as bot:  # the bot's default
        thread_id = await start_thread(world, "remind me in 3 minutes to call Bob")
        confirmation = await world.bot_says(thread_id)
        await settle(bot)
        [job] = await bot.runtime.engine.list_jobs(owner_id=world.alice.id)
    assert "job #" in confirmation.content and asked == []
    assert job.command.endswith("call Bob")
    assert job.next_run_at == world.clock.now() + timedelta(minutes=3)


async def test_threads_run_in_parallel_and_queue_in_order(world: World) -> None:
    release = asyncio.Event()
    started: list[str] = []

    async def slow(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        said = str(messages[-1].parts[-1].content)  # type: ignore[union-attr]
        text = said.split("\n\n(Now:")[0]  # the person's words, not the time line
        started.append(text)
        if "slow" in text:
            await release.wait()
        return ModelResponse(parts=[TextPart(f"done: {text}?")])

    async with running_bot(world, model=FunctionModel(slow)) as bot:
        slow_thread = await start_thread(world, "slow one")
        fast_thread = await start_thread(world, "fast one", user_id=world.bob.id)
        fast = await world.bot_says(fast_thread)  # answered while the other thread is busy
        await world.fake.user_says(slow_thread, world.alice.id, "slow two")
        assert world.bot_messages(slow_thread) == []
        release.set()
        first = await world.bot_says(slow_thread)
        second = await world.bot_says(slow_thread, lambda m: m.id > first.id)
        await settle(bot)
    assert "fast one" in fast.content
    assert "slow one" in first.content and "slow two" in second.content
    assert started.index("slow one") < started.index("slow two")


async def test_other_bots_are_ignored_and_dms_work(world: World) -> None:
    other = world.fake.add_user("otherbot", bot=True)
    world.fake.add_member(world.guild.id, other.id)
    async with running_bot(world) as bot:
        await world.fake.user_says(world.channel.id, other.id, f"{world.mention()} hi")
        dm = world.fake.dm_channel(world.alice.id)
        await world.fake.user_says(dm.id, world.alice.id, "remind me tomorrow at 8am to run")
        reply = await world.bot_says(dm.id)
        await settle(bot)
    assert "job #" in reply.content
    assert world.bot_messages(world.channel.id) == []
    assert [c for c in world.fake.channels.values() if c.type == 11] == []


def test_long_replies_are_split_at_boundaries() -> None:
    text = ("word " * 300 + "\n\n") * 3
    parts = split_message(text)
    assert len(parts) >= 3
    assert all(0 < len(p) <= 2000 for p in parts)
    assert "".join(p.replace(" ", "").replace("\n", "") for p in parts) == text.replace(
        " ", ""
    ).replace("\n", "")
    assert all(not p.endswith("wor") for p in parts)
