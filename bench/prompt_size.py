"""Print the size of what every model request carries: instructions + tool schemas.

Estimate: characters / 4 tokens. Runs the agent once against a capturing FunctionModel
(no network, throwaway in-memory engine). The last line is JSON.
"""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from storage.db import Database
from storage.jobs import JobStore
from tools.agent import build_agent
from tools.agent.scheduling import HomarDeps
from tools.agent.words import read_words
from tools.jobs.engine import Engine

TARGET = 2000
TYPICAL = "remind me tomorrow at 9 to call mom"


async def measure() -> dict[str, object]:
    captured: list[AgentInfo] = []

    def capture(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        captured.append(info)
        return ModelResponse(parts=[TextPart("ok")])

    with tempfile.TemporaryDirectory() as tmp:
        db = Database(f"sqlite+aiosqlite:///{tmp}/bench.db")
        await db.upgrade()
        now = datetime(2026, 11, 23, 15, 0, tzinfo=UTC)
        deps = HomarDeps(
            user_id=1,
            channel_id=1,
            engine=Engine(JobStore(db), clock=lambda: now),
            tz="Europe/Berlin",
            user_name="alice",
        )
        await build_agent().run("hi", deps=deps, model=FunctionModel(capture))
        # A typical turn: the person asks for a reminder; tools it doesn't need are not offered.
        deps.state.words = read_words(TYPICAL, now, deps.zone)
        await build_agent().run(TYPICAL, deps=deps, model=FunctionModel(capture))
        await db.close()
    turn = captured[1]
    turn_chars = len(turn.instructions or "") + len(
        json.dumps(
            [
                {
                    "name": t.name,
                    "description": t.description,
                    "parameters": t.parameters_json_schema,
                }
                for t in [*turn.function_tools, *turn.output_tools]
            ],
            separators=(",", ":"),
        )
    )
    info = captured[0]
    tools = [*info.function_tools, *info.output_tools]
    schema = json.dumps(
        [
            {"name": t.name, "description": t.description, "parameters": t.parameters_json_schema}
            for t in tools
        ],
        separators=(",", ":"),
    )
    system = info.instructions or ""
    chars = len(system) + len(schema)
    per_tool = {
        t.name: len(json.dumps({"d": t.description, "p": t.parameters_json_schema})) // 4
        for t in tools
    }
    return {
        "system_chars": len(system),
        "tools_chars": len(schema),
        "tools": len(tools),
        "tokens_est": chars // 4,
        "target": TARGET,
        "ok": chars // 4 <= TARGET,
        "per_tool_tokens": per_tool,
        "turn_tools": len(turn.function_tools) + len(turn.output_tools),
        "turn_tokens_est": turn_chars // 4,
    }


def main() -> None:
    result = asyncio.run(measure())
    print(f"system prompt: {result['system_chars']} chars")
    print(f"tool schemas:  {result['tools_chars']} chars ({result['tools']} tools)")
    print(f"estimate:      {result['tokens_est']} tokens (target <= {TARGET})")
    print(f"typical turn:  {result['turn_tokens_est']} tokens ({result['turn_tools']} tools)")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
