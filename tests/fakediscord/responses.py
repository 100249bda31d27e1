"""What a Discord HTTP answer looks like: JSON with the exact content type discord.py
expects, and Discord-style errors (`{"code", "message"}`) raised from any REST handler."""

from __future__ import annotations

import json
from typing import Any

from aiohttp import web

JSON = Any


class DiscordError(Exception):
    """Raised inside a REST handler to produce a Discord-style JSON error."""

    def __init__(self, status: int, code: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message


def json_response(
    data: JSON, status: int = 200, headers: dict[str, str] | None = None
) -> web.Response:
    """JSON response with Content-Type exactly ``application/json`` (discord.py requires it)."""
    all_headers = {"Content-Type": "application/json"}
    if headers:
        all_headers.update(headers)
    return web.Response(body=json.dumps(data).encode(), status=status, headers=all_headers)


def error_response(status: int, code: int, message: str) -> web.Response:
    return json_response({"code": code, "message": message}, status=status)


def no_content() -> web.Response:
    return web.Response(status=204)
