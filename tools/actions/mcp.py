"""MCP servers from `MCP_CONFIG`: the `mcpServers` JSON, our approval/timeout keys, reconnects.

The file is the shape Claude Desktop, Cursor and friends use; pydantic-ai builds one
`MCPToolset` per server (stdio `command`/`args`/`env`, or streamable-HTTP `url`/`headers`,
`${VAR}` expanded) and ignores our extra keys, which we read here:

    "approval": true              every tool of this server waits for the owner's Approve
    "approval": ["unlock_door"]   only these tools do
    "tools": {"unlock_door": {"approval": true}}   the same, per tool
    "timeout": 30                 seconds per call (default 30)

Each server is connected once at start (`McpServer.connect`) and closed at stop; a server
that drops (crash, timeout) is reconnected on its next use, and one that is down offers
no tools meanwhile, so the bot itself is never affected.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic_ai import ApprovalRequired, CallDeferred, ModelRetry, RunContext, ToolFailed
from pydantic_ai.mcp import MCPToolset, load_mcp_toolsets
from pydantic_ai.toolsets import AbstractToolset, PrefixedToolset, WrapperToolset
from pydantic_ai.toolsets.abstract import ToolsetTool

from tools.actions.recording import DEFAULT_TIMEOUT, Recorded

log = logging.getLogger(__name__)

RETRY_EVERY = 30.0  # seconds between attempts to reach a server that is down
SHOWN_ARGS = 800


class McpConfigError(Exception):
    """MCP_CONFIG can't be used; the message names the file and what to fix."""


@dataclass(frozen=True)
class ServerPolicy:
    """Our keys for one server: which tools need approval, and the per-call timeout."""

    name: str
    approve_all: bool = False
    approve_tools: frozenset[str] = frozenset()
    timeout: float = DEFAULT_TIMEOUT

    def needs_approval(self, tool: str) -> bool:
        return self.approve_all or tool in self.approve_tools


def _policy(name: str, raw: dict[str, Any]) -> ServerPolicy:
    approval = raw.get("approval", False)
    tools = {str(t) for t in approval} if isinstance(approval, list) else set()
    for tool, opts in (raw.get("tools") or {}).items():
        if isinstance(opts, dict) and opts.get("approval"):
            tools.add(str(tool))
    timeout = raw.get("timeout", DEFAULT_TIMEOUT)
    if not isinstance(timeout, int | float) or timeout <= 0:
        raise McpConfigError(f"server {name!r}: timeout must be a number of seconds above 0")
    return ServerPolicy(name, approval is True, frozenset(tools), float(timeout))


def read_policies(path: str | Path) -> dict[str, ServerPolicy]:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        servers = data["mcpServers"]
        if not isinstance(servers, dict):
            raise TypeError("mcpServers must be an object")
        return {str(n): _policy(str(n), dict(raw)) for n, raw in servers.items()}
    except McpConfigError:
        raise
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise McpConfigError(_problem(path, exc)) from None


def _problem(path: str | Path, exc: BaseException) -> str:
    reason = str(exc) or type(exc).__name__
    if isinstance(exc, KeyError):
        reason = f"missing {reason}"
    elif isinstance(exc, FileNotFoundError):
        reason = "the file is missing"
    return (
        f"MCP_CONFIG {path} can't be used: {reason}. It must be JSON like "
        '{"mcpServers": {"home": {"command": "…", "args": […]}, "remote": {"url": "https://…/mcp"}}}.'
    )


def action_proposal(tool: str, args: dict[str, Any]) -> str:
    """What the owner sees on the approval message for an action."""
    shown = json.dumps(args, ensure_ascii=False, indent=1).replace("```", "'''")
    if len(shown) > SHOWN_ARGS:
        shown = shown[:SHOWN_ARGS] + "…"
    return f"**Action:** `{tool}`\n**With:**\n```\n{shown}\n```"


def _dropped(exc: ModelRetry) -> bool:
    """A ModelRetry that means the connection is gone, not that the call was wrong."""
    cause = exc.__cause__
    text = f"{exc.message} {cause or ''}".lower()
    return "connection closed" in text or ("closed" in text and cause is not None)


@dataclass
class McpServer(WrapperToolset[Any]):
    """One MCP server whose connection lives from `connect()` to `close()`, reconnecting on drops.

    Runs entering the toolset do not open or close the connection (a run is short; a
    connection is for the life of the bot).
    """

    policy: ServerPolicy = field(default_factory=lambda: ServerPolicy("mcp"))
    connected: bool = False
    stale: bool = False
    retry_at: float = 0.0
    tools: dict[str, str] = field(default_factory=dict)  # unprefixed name → description
    _lock: asyncio.Lock | None = None

    @property
    def name(self) -> str:
        return self.policy.name

    async def __aenter__(self) -> McpServer:
        return self

    async def __aexit__(self, *args: Any) -> bool | None:
        return None

    async def connect(self) -> bool:
        """Open (or reopen) the connection; False, logged, if the server can't be reached."""
        if self._lock is None:
            self._lock = asyncio.Lock()
        async with self._lock:
            if self.connected and not self.stale:
                return True
            await self._close_quietly()
            try:
                async with asyncio.timeout(self.policy.timeout):
                    await self.wrapped.__aenter__()
                    self.connected = True
                    listed = await self._list()
            except Exception as exc:
                await self._close_quietly()
                self.retry_at = time.monotonic() + RETRY_EVERY
                log.warning(
                    "MCP server %r can't be reached (%s: %s); its tools are off until it answers",
                    self.name,
                    type(exc).__name__,
                    exc,
                )
                return False
            self.stale = False
            self.tools = listed
            log.info("MCP server %r connected: %s", self.name, ", ".join(listed) or "no tools")
            return True

    async def _list(self) -> dict[str, str]:
        if not isinstance(self.wrapped, MCPToolset):
            return {}
        return {t.name: t.description or "" for t in await self.wrapped.list_tools()}

    async def _close_quietly(self) -> None:
        if not self.connected:
            return
        self.connected = False
        try:
            await self.wrapped.__aexit__(None, None, None)
        except BaseException as exc:  # a dead server's pipes may fail to close; it's gone anyway
            if isinstance(exc, asyncio.CancelledError):
                raise
            log.debug("closing MCP server %r: %s", self.name, exc)

    async def close(self) -> None:
        if self._lock is None:
            self._lock = asyncio.Lock()
        async with self._lock:
            await self._close_quietly()

    async def _ready(self) -> bool:
        if self.connected and not self.stale:
            return True
        if time.monotonic() < self.retry_at:
            return False
        return await self.connect()

    async def get_tools(self, ctx: RunContext[Any]) -> dict[str, ToolsetTool[Any]]:
        if not await self._ready():
            return {}
        try:
            return await self.wrapped.get_tools(ctx)
        except Exception as exc:
            log.warning("MCP server %r failed to list tools: %s", self.name, exc)
            self.stale = True
            return {}

    async def call_tool(
        self, name: str, tool_args: dict[str, Any], ctx: RunContext[Any], tool: ToolsetTool[Any]
    ) -> Any:
        if not await self._ready():
            raise ToolFailed(
                f'The "{self.name}" server can\'t be reached right now; nothing was done.'
            )
        try:
            async with asyncio.timeout(self.policy.timeout):
                return await self.wrapped.call_tool(name, tool_args, ctx, tool)
        except TimeoutError:
            self.stale = True
            raise ToolFailed(
                f'The "{self.name}" server didn\'t answer {name} within '
                f"{self.policy.timeout:g} s, so I stopped waiting."
            ) from None
        except ModelRetry as exc:
            if not _dropped(exc):
                raise
            self.stale = True
            raise ToolFailed(
                f'The "{self.name}" server stopped responding during {name} '
                f"({exc.message}); I'll reconnect next time."
            ) from None
        except (ToolFailed, ApprovalRequired, CallDeferred):
            raise
        except Exception as exc:
            self.stale = True
            raise ToolFailed(f'The "{self.name}" server failed during {name}: {exc}') from None


@dataclass
class NeedsApproval(WrapperToolset[Any]):
    """Calls to the policy's approval-marked tools wait for the owner's Approve/Deny."""

    policy: ServerPolicy = field(default_factory=lambda: ServerPolicy("mcp"))

    async def call_tool(
        self, name: str, tool_args: dict[str, Any], ctx: RunContext[Any], tool: ToolsetTool[Any]
    ) -> Any:
        if not ctx.tool_call_approved and self.policy.needs_approval(name):
            full = f"{self.policy.name}_{name}"
            raise ApprovalRequired(metadata={"proposal": action_proposal(full, tool_args)})
        return await super().call_tool(name, tool_args, ctx, tool)


def load_servers(path: str | Path) -> list[McpServer]:
    """The servers in an MCP_CONFIG file, not yet connected; raises McpConfigError."""
    policies = read_policies(path)
    try:
        toolsets = load_mcp_toolsets(path)
    except Exception as exc:  # bad shape, a ${VAR} that isn't set, neither command nor url
        raise McpConfigError(_problem(path, exc)) from None
    servers = []
    for ts in toolsets:
        inner = ts.wrapped if isinstance(ts, PrefixedToolset) else ts
        name = ts.prefix if isinstance(ts, PrefixedToolset) else str(ts.id)
        servers.append(McpServer(inner, policy=policies.get(name, ServerPolicy(name))))
    return servers


def offered(server: McpServer) -> AbstractToolset[Any]:
    """How a server's tools are offered: `<server>_<tool>`, approval where marked, recorded."""
    gated = NeedsApproval(server, policy=server.policy)
    return Recorded(PrefixedToolset(gated, prefix=server.name), timeout=None)
