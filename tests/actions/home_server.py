"""A tiny stdio MCP server for tests: a home with lights that records every call.

Each `set_light` call is appended as a JSON line to the file named by `HOME_CALLS`.
`set_light(name="crash", ...)` kills the process mid-call, like a server that dies.
"""

from __future__ import annotations

import json
import os

from mcp.server.mcpserver import MCPServer

home = MCPServer("home")


@home.tool()
def set_light(name: str, on: bool) -> str:
    """Turn a light on or off by its name (e.g. "porch")."""
    if name == "crash":
        os._exit(3)  # die mid-call without answering
    with open(os.environ["HOME_CALLS"], "a", encoding="utf-8") as out:
        out.write(json.dumps([name, on]) + "\n")
    return f"{name} light is now {'on' if on else 'off'}"


@home.tool()
def unlock_door(name: str) -> str:
    """Unlock a door by its name."""
    with open(os.environ["HOME_CALLS"], "a", encoding="utf-8") as out:
        out.write(json.dumps(["unlock", name]) + "\n")
    return f"{name} door unlocked"


if __name__ == "__main__":
    home.run("stdio")
