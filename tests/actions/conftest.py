"""A stdio MCP home server (tests/actions/home_server.py) and an MCP_CONFIG pointing at it."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

SERVER = Path(__file__).with_name("home_server.py")


@pytest.fixture
def home_calls(tmp_path: Path) -> Path:
    return tmp_path / "home_calls.jsonl"


@pytest.fixture
def mcp_config(tmp_path: Path, home_calls: Path) -> Callable[..., str]:
    """Write an MCP_CONFIG with the home server; keyword args are our extra keys (approval…)."""

    def write(**extra: Any) -> str:
        server = {
            "command": sys.executable,
            "args": [str(SERVER)],
            "env": {"HOME_CALLS": str(home_calls)},
            **extra,
        }
        path = tmp_path / "mcp.json"
        path.write_text(json.dumps({"mcpServers": {"home": server}}))
        return str(path)

    return write


def recorded_calls(path: Path) -> list[list[Any]]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
