"""All of the agent's hands in one place: MCP servers, plugins, and the thread's own actions.

`Actions.from_settings(mcp_config, plugins)` loads (raising a clear error for a bad file or
module); `start()` connects the MCP servers, `stop()` closes them; `toolsets` go to every
model run; `catalogue()` names the tools for the scheduling confirmation.
"""

from __future__ import annotations

import asyncio
from typing import Any

from pydantic_ai.toolsets import AbstractToolset

from tools.actions import native
from tools.actions.mcp import McpServer, load_servers, offered
from tools.actions.plugins import Plugin, load_plugins
from tools.actions.recording import DEFAULT_TIMEOUT, Recorded


class Actions:
    def __init__(
        self,
        servers: list[McpServer] | None = None,
        plugins: list[Plugin] | None = None,
        *,
        timeout: float = DEFAULT_TIMEOUT,
    ) -> None:
        self.servers = list(servers or [])
        self.plugins = list(plugins or [])
        self.toolsets: list[AbstractToolset[Any]] = [
            Recorded(native.thread_toolset(), timeout=timeout),
            *(offered(s) for s in self.servers),
            *(Recorded(p.toolset, timeout=timeout) for p in self.plugins),
        ]

    @classmethod
    def from_settings(cls, mcp_config: str | None, plugins: str | None) -> Actions:
        """Raises McpConfigError or PluginError with a message for the operator."""
        servers = load_servers(mcp_config) if mcp_config else []
        return cls(servers, load_plugins(plugins))

    async def start(self) -> None:
        """Connect every MCP server; one that can't be reached is retried on use."""
        await asyncio.gather(*(s.connect() for s in self.servers))

    async def stop(self) -> None:
        await asyncio.gather(*(s.close() for s in self.servers), return_exceptions=True)

    def catalogue(self) -> dict[str, str]:
        """Configured tools (name → description); empty when only the built-in ones exist."""
        tools: dict[str, str] = {}
        for s in self.servers:
            tools.update({f"{s.name}_{n}": d for n, d in s.tools.items()})
        for p in self.plugins:
            tools.update(p.tools())
        return {**native.catalogue(), **tools} if self.servers or self.plugins else {}
