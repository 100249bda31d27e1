"""The heartbeat end to end: silent when idle with nothing to do, one run per pending to-do."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Callable
from datetime import timedelta
from typing import Any

from pydantic_ai.messages import (
    ModelMessage,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel

from bot.app import HomarBot
from storage.models import JobKind
from storage.todos import TodoStore
from tests.bot.harness import World, running_bot, settle
from tests.fakediscord import InteractionHandle
from tools.jobs.model import Target
from tools.schedule import Once, Schedule

EVERY = 5 * 60  # seconds: the shortest heartbeat


class Worker:
    """A model that does each heartbeat task by completing it; it counts every request."""

    def __init__(self) -> None:
        self.requests = 0
        self.prompts: list[str] = []

    def __call__(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        self.requests += 1
        last = messages[-1].parts[-1]
        if isinstance(last, ToolReturnPart):
            return ModelResponse(parts=[TextPart(f"Finished: {last.content}")])
        assert isinstance(last, UserPromptPart)
        prompt = str(last.content)
        self.prompts.append(prompt)
        found = re.search(r"Heartbeat: work on task #(\d+)", prompt)
        if found is None:
            return ModelResponse(parts=[TextPart("Hello.")])
        return ModelResponse(parts=[ToolCallPart("complete_task", {"task_id": int(found[1])})])

    @property
    def runs(self) -> int:
        return sum("Heartbeat: work on task" in p for p in self.prompts)


def both(model: Callable[[list[ModelMessage], AgentInfo], Any]) -> dict[str, FunctionModel]:
    """`model` as the configured model and as the fallback: a fallback run is counted too."""
    return {"model": FunctionModel(model), "offline": FunctionModel(model)}


async def answer(handle: InteractionHandle) -> str:
    return str((await handle.wait_answer()).get("content") or "")


async def slash(world: World, name: str, sub: str, channel: int, **options: Any) -> str:
    handle = await world.fake.slash(
        name, options, subcommand=sub, user_id=world.alice.id, channel_id=channel
    )
    return await answer(handle)


def thread(world: World) -> int:
    return world.fake.add_thread(world.channel.id, "work", owner_id=world.bot_id).id


async def beat(world: World, bot: HomarBot) -> None:
    await world.clock.advance(EVERY)
    await settle(bot)


async def test_beat_with_empty_list_makes_no_request_and_posts_nothing(world: World) -> None:
    thread_id = thread(world)
    model = Worker()
    async with running_bot(world, **both(model)) as bot:
        text = await slash(world, "heartbeat", "on", thread_id, every="5 minutes")
        assert "Heartbeat on" in text and "every 5 minutes" in text
        for _ in range(3):
            await beat(world, bot)
        runs = await bot.runtime.store.runs((await _heartbeat_id(bot, thread_id)), limit=10)
    assert model.requests == 0
    assert world.bot_messages(thread_id) == []
    assert len(runs) == 3 and all(r.executed_at is not None for r in runs)


async def test_pending_task_starts_exactly_one_run_which_completes_it(world: World) -> None:
    thread_id = thread(world)
    model = Worker()
    async with running_bot(world, **both(model)) as bot:
        await slash(world, "heartbeat", "on", thread_id, every="5")
        added = await slash(world, "todo", "add", thread_id, description="water the plants")
        todo_id = int(re.search(r"#(\d+)", added)[1])  # type: ignore[index]
        await beat(world, bot)
        reply = await world.bot_says(thread_id, include_existing=True)
        assert model.runs == 1 and model.requests == 2
        # the fired-job prefix tells the agent nobody typed this (and new jobs need approval)
        [prompt] = model.prompts
        assert prompt.endswith(
            f"(heartbeat) fired] Heartbeat: work on task #{todo_id}: water the plants"
        )
        assert "[DELAYED_COMMAND]" not in reply.content and "Finished" in reply.content
        assert await TodoStore(bot.runtime.db).oldest_pending(thread_id) is None
        listed = await slash(world, "todo", "list", thread_id)
        assert f"✅ #{todo_id} water the plants" in listed
        # complete_task ended the work: the next beats are silent again
        await beat(world, bot)
        await beat(world, bot)
    assert model.runs == 1 and model.requests == 2
    assert len(world.bot_messages(thread_id)) == 1


async def test_busy_thread_defers_the_beat_to_the_next_one(world: World) -> None:
    thread_id = thread(world)
    model = Worker()
    async with running_bot(world, **both(model)) as bot:
        await slash(world, "heartbeat", "on", thread_id, every="5 minutes")
        await slash(world, "todo", "add", thread_id, description="tidy the docs")
        release = asyncio.Event()

        async def busy() -> None:
            await release.wait()

        bot.runtime.queues.submit(thread_id, busy)
        await world.clock.advance(EVERY)
        assert bot.runtime.dispatcher is not None
        await bot.runtime.dispatcher.idle()
        assert model.requests == 0  # busy: the beat did nothing
        release.set()
        await settle(bot)
        assert model.requests == 0 and world.bot_messages(thread_id) == []
        await beat(world, bot)
    assert model.runs == 1


async def test_heartbeat_survives_a_restart_and_old_beats_are_not_refed(world: World) -> None:
    thread_id = thread(world)
    model = Worker()
    async with running_bot(world, **both(model)) as bot:
        await slash(world, "heartbeat", "on", thread_id, every="5 minutes")
        await beat(world, bot)  # an empty beat, delivered before the restart
    assert model.requests == 0
    model = Worker()
    async with running_bot(world, **both(model)) as bot:
        await settle(bot)
        assert model.requests == 0  # the earlier beat is not re-fed as a plain job
        status = await slash(world, "heartbeat", "status", thread_id)
        assert "Heartbeat is on" in status and "every 5 minutes" in status
        await slash(world, "todo", "add", thread_id, description="call the plumber")
        await beat(world, bot)
    assert model.runs == 1 and model.requests == 2  # nothing else was re-fed to the model


async def test_slash_todo_and_heartbeat_off(world: World) -> None:
    thread_id = thread(world)
    model = Worker()
    async with running_bot(world, **both(model)) as bot:
        assert "empty" in await slash(world, "todo", "list", thread_id)
        await slash(world, "todo", "add", thread_id, description="one")
        two = await slash(world, "todo", "add", thread_id, description="two")
        two_id = int(re.search(r"#(\d+)", two)[1])  # type: ignore[index]
        bobs = await world.fake.slash(
            "todo", {"id": two_id}, subcommand="done", user_id=world.bob.id, channel_id=thread_id
        )
        assert "someone else" in await answer(bobs)
        assert "Removed" in await slash(world, "todo", "remove", thread_id, id=two_id)
        assert "already removed" in await slash(world, "todo", "done", thread_id, id=two_id)
        assert "no to-do #999" in await slash(world, "todo", "done", thread_id, id=999)
        assert "off here" in await slash(world, "heartbeat", "status", thread_id)
        assert "at most every 5 minutes" in await slash(
            world, "heartbeat", "on", thread_id, every="1 minute"
        )
        await slash(world, "heartbeat", "on", thread_id)
        assert "every 30 minutes" in await slash(world, "heartbeat", "status", thread_id)
        assert "Heartbeat off" in await slash(world, "heartbeat", "off", thread_id)
        assert "no heartbeat" in await slash(world, "heartbeat", "off", thread_id)
        await world.clock.advance(3600)
        await settle(bot)
    assert model.requests == 0
    assert world.bot_messages(thread_id) == []


async def _heartbeat_id(bot: HomarBot, channel_id: int) -> int:
    jobs = await bot.runtime.engine.list_jobs(channel_id=channel_id)
    [job] = [j for j in jobs if j.kind == JobKind.HEARTBEAT]
    return job.id


# ---------------------------------------------------------------- whose to-do it is (issue 14)


class Obedient(Worker):
    """A model that does whatever the to-do text says, when it is a tool call (a steered
    model), and otherwise never finishes the task."""

    def __call__(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        self.requests += 1
        last = messages[-1].parts[-1]
        if not isinstance(last, UserPromptPart):
            return ModelResponse(parts=[TextPart("I tried.")])
        prompt = str(last.content)
        self.prompts.append(prompt)
        planted = re.search(r"(\{.*\})", prompt)
        if planted is None:
            return ModelResponse(parts=[TextPart("I couldn't finish that.")])
        call = json.loads(planted[1])
        return ModelResponse(parts=[ToolCallPart(call["name"], call["arguments"])])


def buttons(world: World, thread_id: int) -> tuple[int, dict[str, str]]:
    [msg] = [m for m in world.bot_messages(thread_id) if m.custom_ids()]
    return msg.id, {c.split(":")[1]: c for c in msg.custom_ids() if c.startswith("homar:")}


async def test_someone_elses_todo_waits_for_the_owner_and_runs_as_its_author(
    world: World,
) -> None:
    thread_id = thread(world)
    other_thread = thread(world)
    model = Obedient()
    async with running_bot(world, **both(model)) as bot:
        await slash(world, "heartbeat", "on", thread_id, every="5 minutes")
        alices = await bot.runtime.engine.create(
            target=Target(world.alice.id, other_thread, world.guild.id),
            command="alice's private plan",
            schedule=Schedule(Once(world.clock.now() + timedelta(days=1)), "UTC"),
            kind="reminder",
        )
        planted = json.dumps(
            {"name": "delete_scheduled_action", "arguments": {"task_id": alices.id}}
        )
        handle = await world.fake.slash(
            "todo",
            {"description": planted},
            subcommand="add",
            user_id=world.bob.id,
            channel_id=thread_id,
        )
        await answer(handle)
        await beat(world, bot)
        await beat(world, bot)  # asked once, not on every beat
        assert model.requests == 0  # nothing ran before the owner's yes
        ask_id, ids = buttons(world, thread_id)
        ask = world.fake.get_message(ask_id)
        assert ask is not None and f"<@{world.alice.id}>" in ask.content
        assert [int(u) for u in (ask.allowed_mentions or {}).get("users", [])] == [world.alice.id]
        assert f"<@{world.bob.id}>" in ask.content  # whose to-do it is
        refused = await world.fake.click_button(ask_id, ids["approve"], world.bob.id)
        assert "Only the person" in (await refused.wait_answer())["content"]
        click = await world.fake.click_button(ask_id, ids["approve"], world.alice.id)
        await click.wait_answer()
        await settle(bot)
        await beat(world, bot)
        assert model.runs == 1  # it ran, as bob: bob cannot touch alice's job
        job = await bot.runtime.engine.get(alices.id)
        assert job.status == "active"
        said = " ".join(m.content for m in world.bot_messages(thread_id))
        assert "alice's private plan" not in said


async def test_denied_todo_is_never_worked(world: World) -> None:
    thread_id = thread(world)
    model = Worker()
    async with running_bot(world, **both(model)) as bot:
        await slash(world, "heartbeat", "on", thread_id, every="5 minutes")
        handle = await world.fake.slash(
            "todo",
            {"description": "rename the channel"},
            subcommand="add",
            user_id=world.bob.id,
            channel_id=thread_id,
        )
        await answer(handle)
        await beat(world, bot)
        ask_id, ids = buttons(world, thread_id)
        click = await world.fake.click_button(ask_id, ids["deny"], world.alice.id)
        await click.wait_answer()
        await settle(bot)
        for _ in range(3):
            await beat(world, bot)
    assert model.requests == 0
    assert len([m for m in world.bot_messages(thread_id) if m.custom_ids()]) == 1


async def test_heartbeat_gives_up_on_a_todo_and_says_so_once(world: World) -> None:
    thread_id = thread(world)
    model = Obedient()
    async with running_bot(world, **both(model)) as bot:
        await slash(world, "heartbeat", "on", thread_id, every="5 minutes")
        await slash(world, "todo", "add", thread_id, description="solve world hunger")
        for _ in range(8):
            await beat(world, bot)
        notes = [m for m in world.bot_messages(thread_id) if "stop trying" in m.content]
    assert model.runs == 3
    assert len(notes) == 1


async def test_many_todos_from_others_ask_the_owner_one_at_a_time(world: World) -> None:
    thread_id = thread(world)
    model = Worker()
    async with running_bot(world, **both(model)) as bot:
        await slash(world, "heartbeat", "on", thread_id, every="5 minutes")
        for i in range(5):
            handle = await world.fake.slash(
                "todo",
                {"description": f"chore {i}"},
                subcommand="add",
                user_id=world.bob.id,
                channel_id=thread_id,
            )
            await answer(handle)
        for _ in range(3):
            await beat(world, bot)
        asks = [m for m in world.bot_messages(thread_id) if m.custom_ids()]
        assert len(asks) == 1 and "chore 0" in asks[0].content
        ask_id, ids = buttons(world, thread_id)
        click = await world.fake.click_button(ask_id, ids["deny"], world.alice.id)
        await click.wait_answer()
        await settle(bot)
        await beat(world, bot)
        asks = [m for m in world.bot_messages(thread_id) if m.custom_ids()]
    assert len(asks) == 2 and "chore 1" in asks[1].content
    assert model.requests == 0


async def test_unanswered_todo_question_expires_as_a_no(world: World) -> None:
    thread_id = thread(world)
    model = Worker()
    async with running_bot(world, **both(model), approval_timeout="10m") as bot:
        await slash(world, "heartbeat", "on", thread_id, every="5 minutes")
        handle = await world.fake.slash(
            "todo",
            {"description": "reorganise the wiki"},
            subcommand="add",
            user_id=world.bob.id,
            channel_id=thread_id,
        )
        todo_id = int(re.search(r"#(\d+)", await answer(handle))[1])  # type: ignore[index]
        await beat(world, bot)
        await world.clock.advance(11 * 60)
        said = await world.bot_says(thread_id, lambda m: "in time" in m.content)
        await settle(bot)
        for _ in range(2):
            await beat(world, bot)
        item = await TodoStore(bot.runtime.db).get(thread_id, todo_id)
    assert f"to-do #{todo_id}" in said.content
    assert item is not None and item.status == "declined"
    assert model.requests == 0
    assert len([m for m in world.bot_messages(thread_id) if m.custom_ids()]) == 1
