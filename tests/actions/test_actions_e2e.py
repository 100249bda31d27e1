"""Delayed commands with real hands, end to end on the fake Discord with a stdio MCP server.

The model is a FunctionModel: asked to schedule, it calls `send_delayed_message`; fired, it
calls the home server's `home_set_light`, then reports what the tool answered.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    RetryPromptPart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel

from bot.app import HomarBot
from tests.actions.conftest import recorded_calls
from tests.bot.harness import World, running_bot, settle
from tests.fakediscord import FakeMessage


def prompt_of(messages: list[ModelMessage]) -> str:
    for m in reversed(messages):
        for p in m.parts if isinstance(m, ModelRequest) else []:
            if isinstance(p, UserPromptPart):
                return str(p.content)
    return ""


def tool_outcome(messages: list[ModelMessage]) -> str | None:
    """What the last tool call came back with (its result, or the failure it reported)."""
    last = messages[-1]
    parts = last.parts if isinstance(last, ModelRequest) else []
    if any(isinstance(p, UserPromptPart) for p in parts):
        return None  # a new prompt (history may end with an earlier tool's return)
    for p in parts:
        if isinstance(p, ToolReturnPart):
            return f"{'❌' if p.outcome == 'failed' else '✅'} {p.content}"
        if isinstance(p, RetryPromptPart):
            return f"❌ {p.content}"
    return None


Act = Callable[[str], ToolCallPart]


def home_model(act: Act, *, when: dict[str, Any] | None = None) -> FunctionModel:
    """Schedules the user's command in 2 seconds; when fired, calls `act(command)`."""

    def fn(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        done = tool_outcome(messages)
        if done is not None:
            return ModelResponse(parts=[TextPart(f"Done: {done}")])
        prompt = prompt_of(messages)
        if prompt.startswith("[Scheduled job"):
            assert "home_set_light" in [t.name for t in info.function_tools]
            return ModelResponse(parts=[act(prompt.split("] ", 1)[1])])
        command = prompt.removesuffix(" in 2 seconds")
        args = {"message": command, **(when or {"seconds": 2})}
        return ModelResponse(parts=[ToolCallPart("send_delayed_message", args)])

    return FunctionModel(fn)


def set_light(command: str) -> ToolCallPart:
    name = "crash" if "crash" in command else "porch"
    return ToolCallPart("home_set_light", {"name": name, "on": " on" in f" {command} "})


async def schedule(world: World, bot: HomarBot, text: str) -> tuple[int, FakeMessage]:
    await bot.runtime.actions.start()  # the background connect, finished
    msg = await world.fake.user_says(world.channel.id, world.alice.id, f"{world.mention()} {text}")
    confirmation = await world.bot_says(msg.id)
    await settle(bot)
    return msg.id, confirmation


async def fire(world: World, bot: HomarBot, thread_id: int) -> FakeMessage:
    _marker, said = await world.fired(thread_id, 2, timeout=15)
    await settle(bot)
    return said


async def test_delayed_command_turns_off_the_porch_light(
    world: World, mcp_config: Callable[..., str], home_calls: Path
) -> None:
    async with running_bot(world, mcp_config=mcp_config(), model=home_model(set_light)) as bot:
        thread_id, confirmation = await schedule(
            world, bot, "turn off the porch light in 2 seconds"
        )
        assert "job #" in confirmation.content and "`home_set_light`" in confirmation.content
        assert recorded_calls(home_calls) == []

        said = await fire(world, bot, thread_id)
        assert recorded_calls(home_calls) == [["porch", False]], said.content
        assert "Done: ✅ porch light is now off" in said.content
        assert '🔧 `home_set_light(name="porch", on=false)` ✅' in said.content
        assert f"<@{world.alice.id}>" in said.content

        (job,) = await bot.runtime.engine.list_jobs(owner_id=world.alice.id, include_closed=True)
        (run,) = await bot.runtime.store.runs(job.id)
        (call,) = (run.details or {})["tool_calls"]
        assert call["tool"] == "home_set_light" and call["args"] == {"name": "porch", "on": False}
        assert call["error"] is None and "off" in call["result"]


async def test_server_crash_mid_call_is_reported_and_the_bot_carries_on(
    world: World, mcp_config: Callable[..., str], home_calls: Path
) -> None:
    async with running_bot(world, mcp_config=mcp_config(), model=home_model(set_light)) as bot:
        thread_id, _ = await schedule(world, bot, "turn off the crash light in 2 seconds")
        said = await fire(world, bot, thread_id)
        assert "stopped responding" in said.content and "❌" in said.content
        (job,) = await bot.runtime.engine.list_jobs(owner_id=world.alice.id, include_closed=True)
        (run,) = await bot.runtime.store.runs(job.id)
        (call,) = (run.details or {})["tool_calls"]
        assert call["tool"] == "home_set_light" and "stopped responding" in call["error"]

        # The bot is fine and the server is reconnected for the next command.
        again, _ = await schedule(world, bot, "turn on the porch light in 2 seconds")
        said = await fire(world, bot, again)
        assert "porch light is now on" in said.content
        assert recorded_calls(home_calls) == [["porch", True]]


async def test_approval_marked_tool_waits_for_approve(
    world: World, mcp_config: Callable[..., str], home_calls: Path
) -> None:
    def unlock(command: str) -> ToolCallPart:
        return ToolCallPart("home_unlock_door", {"name": "front"})

    async with running_bot(
        world, mcp_config=mcp_config(approval=["unlock_door"]), model=home_model(unlock)
    ) as bot:
        thread_id, _ = await schedule(world, bot, "unlock the front door in 2 seconds")
        ask = await fire(world, bot, thread_id)
        assert "Before I do this" in ask.content and "`home_unlock_door`" in ask.content
        assert recorded_calls(home_calls) == []
        approve = next(c for c in ask.custom_ids() if c.startswith("homar:approve"))
        click = await world.fake.click_button(ask.id, approve, world.alice.id)
        await click.wait_response()
        done = await world.bot_says(thread_id, lambda m: "front door unlocked" in m.content)
        await settle(bot)
        assert done and recorded_calls(home_calls) == [["unlock", "front"]]


async def test_read_thread_and_poll_act_in_the_thread(world: World) -> None:
    def fn(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        done = tool_outcome(messages)
        if done is not None:
            return ModelResponse(parts=[TextPart(f"Summary: {done}")])
        prompt = prompt_of(messages)
        if "summarise" in prompt:
            return ModelResponse(parts=[ToolCallPart("read_thread", {"limit": 10})])
        if "poll" in prompt:
            args = {"question": "Lunch?", "answers": ["tacos", "soup"], "hours": 2}
            return ModelResponse(parts=[ToolCallPart("create_poll", args)])
        return ModelResponse(parts=[TextPart("Noted.")])

    async with running_bot(world, model=FunctionModel(fn)) as bot:
        first = await world.fake.user_says(
            world.channel.id, world.alice.id, f"{world.mention()} lunch plans"
        )
        thread_id = first.id
        await world.bot_says(thread_id)
        await world.fake.user_says(thread_id, world.bob.id, "we decided on tacos")
        await world.bot_says(thread_id, lambda m: m.content == "Noted.", include_existing=False)
        await world.fake.user_says(thread_id, world.alice.id, "please summarise")
        summary = await world.bot_says(thread_id, lambda m: m.content.startswith("Summary"))
        await world.fake.user_says(thread_id, world.alice.id, "start a poll")
        await world.bot_says(thread_id, lambda m: "Poll started" in m.content)
        await settle(bot)
    assert "bob: we decided on tacos" in summary.content
    assert "(bot): Noted." in summary.content and "[DELAYED" not in summary.content
    polls = [m for m in world.bot_messages(thread_id) if (m.request_body or {}).get("poll")]
    assert len(polls) == 1
    poll = (polls[0].request_body or {})["poll"]
    assert poll["question"]["text"] == "Lunch?" and len(poll["answers"]) == 2
