"""`agent.override(model=...)` swaps the configured model and nothing else: the offline
fallback, the switch to the offline model over the daily cap and the reading of a model's
reply (text tool calls, repaired arguments) all still apply under it."""

from __future__ import annotations

from dataclasses import replace

from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from tests.tools.conftest import scripted
from tools.agent import AgentKit, run_agent
from tools.agent.scheduling import HomarDeps


def _broken(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    raise RuntimeError("provider down")


async def test_overridden_model_failing_falls_back_to_offline(
    runtime: AgentKit, deps: HomarDeps
) -> None:
    with runtime.agent.override(model=FunctionModel(_broken)):
        r = await run_agent(runtime, "remind me tomorrow at 9 to call mom", deps)
    assert r.offline and len(r.job_ids) == 1 and r.error and "provider down" in r.error


async def test_offline_switch_wins_over_an_override(runtime: AgentKit, deps: HomarDeps) -> None:
    """Over the daily cap the bot runs `replace(runtime, model=runtime.offline)`."""
    asked: list[int] = []

    def paid(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        asked.append(1)
        return ModelResponse(parts=[TextPart("the paid model")])

    capped = replace(runtime, model=runtime.offline)
    with runtime.agent.override(model=FunctionModel(paid)):
        r = await run_agent(capped, "remind me tomorrow at 9 to call mom", deps)
    assert not asked and len(r.job_ids) == 1 and r.text != "the paid model"


async def test_text_tool_calls_are_read_under_an_override(
    runtime: AgentKit, deps: HomarDeps
) -> None:
    call = '{"name": "send_delayed_message", "arguments": {"message": "tea", "minutes": 30}}'
    with runtime.agent.override(model=scripted(TextPart(f"<tool_call>{call}</tool_call>"))):
        r = await run_agent(runtime, "tea in half an hour", deps)
    assert not r.offline and len(r.job_ids) == 1 and "tool_call" not in r.text, r.text


async def test_arguments_are_repaired_under_an_override(runtime: AgentKit, deps: HomarDeps) -> None:
    bad = ToolCallPart("send_delayed_message", {"message": "tea", "minutes": "30 minutes"})
    with runtime.agent.override(model=scripted(bad, TextPart("ok"))):
        r = await run_agent(runtime, "tea in half an hour", deps)
    assert not r.offline and len(r.job_ids) == 1, r.text
