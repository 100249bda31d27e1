"""Conversation memory across runs and restarts, and model selection with the offline fallback."""

from __future__ import annotations

import asyncio
from dataclasses import replace

from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.fallback import FallbackModel
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.models.openai import OpenAIChatModel

from storage.conversations import ConversationStore
from storage.db import Database
from tools.agent import AgentKit, build_agent, run_agent
from tools.agent.offline import offline_model
from tools.agent.scheduling import HomarDeps
from tools.memory import Memory, trim
from tools.models import ContinuingModel, build_model


async def test_history_persists_and_restores(
    runtime: AgentKit, deps: HomarDeps, db: Database
) -> None:
    seen: list[list[ModelMessage]] = []

    def fn(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.append(list(messages))
        if len(seen) == 1:
            return ModelResponse(
                parts=[ToolCallPart("send_delayed_message", {"message": "tea", "minutes": 5})]
            )
        return ModelResponse(parts=[TextPart("ok")])

    with runtime.agent.override(model=FunctionModel(fn)):
        first = await run_agent(runtime, "tea in 5 minutes", deps)
        # a new runtime and memory object: as after a restart
        fresh = AgentKit(
            agent=build_agent(),
            model=FunctionModel(fn),
            offline=offline_model(),
            memory=Memory(ConversationStore(db)),
        )
        await run_agent(fresh, "what did you schedule?", deps)
        history_text = str(seen[1])
        assert "tea in 5 minutes" in history_text
        assert (
            f"job #{first.job_ids[0]}" in history_text
            and "2026-11-23T16:05:00+01:00" in history_text
        )


async def test_memory_is_bounded(memory: Memory, deps: HomarDeps, runtime: AgentKit) -> None:
    memory.max_turns = 3
    with runtime.agent.override(
        model=FunctionModel(lambda m, i: ModelResponse(parts=[TextPart("ok")]))
    ):
        for i in range(6):
            await run_agent(runtime, f"message {i}", deps)
        kept = await memory.load(deps.channel_id)
        text = str(kept)
        assert "message 5" in text and "message 3" in text and "message 2" not in text
        assert isinstance(kept[0], ModelRequest)
        assert trim(kept, max_turns=1, max_chars=10)[0] is kept[-2]  # the last turn always stays


async def test_broken_memory_reads_empty(memory: Memory) -> None:
    await memory.store.save(5, "not json")
    assert await memory.load(5) == []


def test_build_model_choices() -> None:
    assert isinstance(build_model(None), FunctionModel)  # offline by default
    local = build_model("qwen2.5:7b", base_url="http://127.0.0.1:11434/v1")
    assert isinstance(local, FallbackModel)
    first = local.models[0]  # the server's model, which may be handed a reply's beginning
    assert isinstance(first, ContinuingModel) and isinstance(first.wrapped, OpenAIChatModel)
    assert first.model_name == "qwen2.5:7b" and first.props_url == "http://127.0.0.1:11434/props"
    assert isinstance(local.models[-1], FunctionModel)
    assert isinstance(build_model("no-such-provider:x"), FunctionModel)  # unusable → offline
    chain = build_model(
        "qwen2.5:7b", base_url="http://x/v1", fallback="openai-chat:gpt-4o-mini", api_key="k"
    )
    assert isinstance(chain, FallbackModel) and len(chain.models) in (2, 3)


async def test_slow_model_times_out_to_offline(runtime: AgentKit, deps: HomarDeps) -> None:
    async def slow(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        await asyncio.sleep(5)
        return ModelResponse(parts=[TextPart("too late")])

    runtime = replace(runtime, model_settings={"request_timeout": 0.1})
    with runtime.agent.override(
        model=FallbackModel(FunctionModel(slow), offline_model(), fallback_on=(Exception,))
    ):
        r = await run_agent(runtime, "in 30 minutes check the oven", deps)
        assert len(r.job_ids) == 1 and r.requests == 1


async def test_prompt_size_within_target() -> None:
    from bench.prompt_size import TARGET, measure

    result = await measure()
    assert result["ok"] and isinstance(result["tokens_est"], int) and result["tokens_est"] <= TARGET
    # 10 scheduling + 5 to-do/heartbeat (issues 9, 23) + time zone (issue 15)
    assert result["tools"] == 16
    # a scheduling turn is offered neither the to-do tools nor set_timezone (issue 15)
    assert result["turn_tools"] == 10 and result["turn_tokens_est"] < result["tokens_est"]


def _history(turns: int) -> list[ModelMessage]:
    """A thread's history: each turn a prompt, a tool call and its return, an answer."""
    from pydantic_ai.messages import ToolReturnPart, UserPromptPart

    out: list[ModelMessage] = []
    for i in range(turns):
        out += [
            ModelRequest(parts=[UserPromptPart(f"message {i} " + "é" * (i * 37 % 90))]),
            ModelResponse(parts=[ToolCallPart("list_scheduled_actions", {"n": i}, f"c{i}")]),
            ModelRequest(parts=[ToolReturnPart("list_scheduled_actions", "jobs " * i, f"c{i}")]),
            ModelResponse(parts=[TextPart(f"answer {i}")]),
        ]
    return out


def _trim_by_every_suffix(
    messages: list[ModelMessage], max_turns: int, max_chars: int
) -> list[ModelMessage]:
    """The plain definition: the longest suffix of whole turns that fits, newest first."""
    from pydantic_ai.messages import ModelMessagesTypeAdapter, UserPromptPart

    starts = [
        i
        for i, m in enumerate(messages)
        if isinstance(m, ModelRequest) and any(isinstance(p, UserPromptPart) for p in m.parts)
    ]
    if not starts:
        return []
    kept = messages[starts[-1] :]
    for start in reversed(starts[:-1][-(max_turns - 1) :] if max_turns > 1 else []):
        if len(ModelMessagesTypeAdapter.dump_json(messages[start:])) > max_chars:
            break
        kept = messages[start:]
    return kept


def test_trim_in_one_pass_keeps_what_every_suffix_would() -> None:
    from pydantic_ai.messages import ModelMessagesTypeAdapter

    from tools.memory import trimmed_json

    history = [ModelResponse(parts=[TextPart("before any turn")]), *_history(15)]
    total = len(ModelMessagesTypeAdapter.dump_json(history))
    for max_turns in (0, 1, 2, 3, 12, 40):
        for max_chars in (0, 10, 500, 1_000, 2_000, total // 2, total, total * 2):
            kept, raw = trimmed_json(history, max_turns=max_turns, max_chars=max_chars)
            assert kept == _trim_by_every_suffix(history, max_turns, max_chars)
            assert raw == ModelMessagesTypeAdapter.dump_json(kept)
    assert trimmed_json([], max_turns=3, max_chars=100) == ([], b"[]")
