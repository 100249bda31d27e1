"""Every action call a run makes, recorded: tool, arguments, result or error, duration.

`Recorded` wraps a toolset; each call lands in the run's `deps.state.tool_calls`, so a fired
job's run can keep them (`job_runs.details["tool_calls"]`) and the thread can see a short
account. Failures reach the model as a plain-words `ToolFailed`, never as a crash.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from dataclasses import dataclass
from typing import Any

from pydantic_ai import ApprovalRequired, CallDeferred, ModelRetry, RunContext, ToolFailed
from pydantic_ai.toolsets import AbstractToolset, WrapperToolset
from pydantic_ai.toolsets.abstract import ToolsetTool

log = logging.getLogger(__name__)

DEFAULT_TIMEOUT = 30.0
SHOWN_RESULT = 300  # characters of a result kept on the run and shown in the thread


@dataclass(frozen=True)
class ToolCallRecord:
    """One call: `error` is None when it worked."""

    tool: str
    args: dict[str, Any]
    result: str | None
    error: str | None
    ms: int

    @property
    def ok(self) -> bool:
        return self.error is None

    def to_json(self) -> dict[str, Any]:
        return {
            "tool": self.tool,
            "args": self.args,
            "result": self.result,
            "error": self.error,
            "ms": self.ms,
        }

    def line(self) -> str:
        """One short line for the thread (Discord's small text)."""
        args = ", ".join(f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in self.args.items())
        call = f"`{self.tool}({args[:120]})`"
        if self.ok:
            return f"-# 🔧 {call} ✅"
        return f"-# 🔧 {call} ❌ {self.error}"


def _short(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, default=str, ensure_ascii=False)
    return text if len(text) <= SHOWN_RESULT else text[:SHOWN_RESULT] + "…"


def account(calls: list[ToolCallRecord]) -> str:
    """What the thread sees about a fired command's tool calls."""
    return "\n".join(c.line() for c in calls)


@dataclass
class Recorded(WrapperToolset[Any]):
    """Records each call on the run and bounds it by `timeout` seconds (None: no bound here)."""

    timeout: float | None = DEFAULT_TIMEOUT

    async def call_tool(
        self, name: str, tool_args: dict[str, Any], ctx: RunContext[Any], tool: ToolsetTool[Any]
    ) -> Any:
        start = time.monotonic()
        try:
            async with asyncio.timeout(self.timeout):
                result = await super().call_tool(name, tool_args, ctx, tool)
        except (ApprovalRequired, CallDeferred):
            raise  # not a call yet: it waits for the owner's decision
        except TimeoutError:
            error = f"{name} took longer than {self.timeout:g} s, so I stopped waiting."
            _remember(ctx, name, tool_args, None, error, start)
            raise ToolFailed(error) from None
        except (ToolFailed, ModelRetry) as exc:
            _remember(ctx, name, tool_args, None, exc.message, start)
            raise
        except Exception as exc:
            log.warning("action %s failed: %s: %s", name, type(exc).__name__, exc)
            error = f"{name} failed: {exc or type(exc).__name__}"
            _remember(ctx, name, tool_args, None, error, start)
            raise ToolFailed(error) from None
        _remember(ctx, name, tool_args, result, None, start)
        return result


def _remember(
    ctx: RunContext[Any], name: str, args: dict[str, Any], result: Any, error: str | None, t0: float
) -> None:
    calls = getattr(getattr(ctx.deps, "state", None), "tool_calls", None)
    if calls is None:
        return
    calls.append(
        ToolCallRecord(
            tool=name,
            args=dict(args),
            result=None if error is not None else _short(result),
            error=error,
            ms=int((time.monotonic() - t0) * 1000),
        )
    )


def recorded(toolset: AbstractToolset[Any], timeout: float | None = DEFAULT_TIMEOUT) -> Recorded:
    return Recorded(toolset, timeout=timeout)
