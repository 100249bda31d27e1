"""Loading actions without Discord: plugins, MCP_CONFIG keys and errors, the scheduling fit."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from storage.db import Database
from storage.jobs import JobStore
from tests.actions import sample_plugin
from tools.actions.fit import capability_note, matching_tools
from tools.actions.kit import Actions
from tools.actions.mcp import McpConfigError, load_servers, read_policies
from tools.actions.plugins import PluginError, load_plugins
from tools.agent import build_agent_kit, run_agent
from tools.agent.scheduling import HomarDeps
from tools.jobs.engine import Engine

NOW = datetime(2026, 11, 23, 8, 0, tzinfo=UTC)


@pytest.fixture
async def deps(tmp_path: Path) -> AsyncIterator[HomarDeps]:
    db = Database(f"sqlite+aiosqlite:///{tmp_path}/t.db")
    await db.upgrade()
    yield HomarDeps(user_id=1, channel_id=100, engine=Engine(JobStore(db), clock=lambda: NOW))
    await db.close()


def last_return(messages: list[ModelMessage]) -> str | None:
    for part in messages[-1].parts:
        if isinstance(part, ToolReturnPart):
            return str(part.content)
    return None


async def test_plugin_toolset_loads_and_is_callable(deps: HomarDeps) -> None:
    actions = Actions(plugins=load_plugins("tests.actions.sample_plugin"))
    runtime = build_agent_kit(toolsets=actions.toolsets, catalogue=actions.catalogue)

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        done = last_return(messages)
        if done is not None:
            return ModelResponse(parts=[TextPart(f"{done} ✅")])
        assert "water_plants" in [t.name for t in info.function_tools]
        return ModelResponse(parts=[ToolCallPart("water_plants", {"room": "kitchen"})])

    with runtime.agent.override(model=FunctionModel(model)):
        sample_plugin.WATERED.clear()
        reply = await run_agent(runtime, "water the kitchen plants", deps)
        assert sample_plugin.WATERED == ["kitchen"]
        assert reply.text == "Watered the plants in the kitchen. ✅"
        (call,) = reply.tool_calls
        assert call.tool == "water_plants" and call.args == {"room": "kitchen"} and call.ok
        assert "water_plants" in actions.catalogue()


def test_plugin_errors_name_the_module() -> None:
    with pytest.raises(PluginError, match=r"'tests\.actions\.no_such_plugin'.*failed to import"):
        load_plugins("tests.actions.sample_plugin, tests.actions.no_such_plugin")
    with pytest.raises(PluginError, match=r"'tests\.actions\.broken_plugin' .*has no `toolset`"):
        load_plugins("tests.actions.broken_plugin")
    assert load_plugins(" , ") == []


def test_mcp_config_keys_and_errors(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    path.write_text(
        json.dumps(
            {
                "mcpServers": {
                    "home": {"command": "x", "approval": ["unlock_door"], "timeout": 5},
                    "garage": {"command": "y", "tools": {"open": {"approval": True}}},
                    "remote": {
                        "url": "https://ha.example/mcp",
                        "headers": {"Authorization": "Bearer ${HA_TOKEN:-none}"},
                        "approval": True,
                    },
                }
            }
        )
    )
    got = read_policies(path)
    assert got["home"].needs_approval("unlock_door") and not got["home"].needs_approval("set_light")
    assert got["home"].timeout == 5 and got["garage"].needs_approval("open")
    assert got["remote"].needs_approval("anything")
    assert [s.name for s in load_servers(path)] == ["home", "garage", "remote"]

    path.write_text("{not json")
    with pytest.raises(McpConfigError, match=r"MCP_CONFIG .*mcp.json can't be used"):
        load_servers(path)
    path.write_text(json.dumps({"mcpServers": {"x": {"url": "https://a/${NO_SUCH_VAR_HOMAR}"}}}))
    with pytest.raises(McpConfigError, match="NO_SUCH_VAR_HOMAR"):
        load_servers(path)
    with pytest.raises(McpConfigError, match="missing"):
        load_servers(tmp_path / "absent.json")


def test_scheduling_fit_names_a_tool_or_offers_a_reminder() -> None:
    tools = {
        "home_set_light": "Turn a light on or off by its name.",
        "read_thread": "Read this thread's recent messages (to summarise the conversation).",
    }
    assert matching_tools("turn off the porch light", tools) == ["home_set_light"]
    assert "`home_set_light`" in capability_note("turn off the porch lights", tools)
    assert "reminder instead" in capability_note("order a pizza", tools)
    assert capability_note("turn off the porch light", {}) == ""
