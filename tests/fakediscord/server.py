"""The fake Discord server (REST + gateway) for offline end-to-end tests: one object made
of the layers in this package, served by aiohttp on 127.0.0.1 at a free port.

See ``tests/fakediscord/__init__.py`` for an overview and usage example.
"""

from __future__ import annotations

from typing import Self

from aiohttp import web

from .actions import Actions
from .ratelimits import RateLimits
from .routes import Routes


class FakeDiscord(Actions, Routes):
    """A fake Discord API + gateway server. See module docstring of the package for usage.

    The layers, bottom up: `World` (state, set-up, queries), `Gateway` (websocket protocol,
    dispatch), `Answers` (REST answers to interactions), `Faults` (injected failures),
    `Routes` (the route table, the rest of REST), `Actions` (users and admins).
    """

    def __init__(
        self,
        *,
        bot_name: str = "Homar",
        token: str | None = None,
        heartbeat_interval_ms: int = 41250,
        nonce_window: float = 300.0,
        rate_limits: RateLimits | None = None,
    ) -> None:
        super().__init__(
            bot_name=bot_name,
            token=token,
            heartbeat_interval_ms=heartbeat_interval_ms,
            nonce_window=nonce_window,
            rate_limits=rate_limits,
        )
        self._runner: web.AppRunner | None = None
        self._site: web.TCPSite | None = None

    async def start(self) -> Self:
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_get("/gateway", self._gateway_handler)
        app.router.add_get("/oauth2/authorize", self.oauth.authorize_page)
        app.router.add_post("/oauth2/authorize", self.oauth.authorize_submit)
        app.router.add_route("*", self.API_PREFIX + "/{tail:.*}", self._rest_handler)
        self._runner = web.AppRunner(app, access_log=None, handle_signals=False)
        await self._runner.setup()
        self._site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await self._site.start()
        server = self._site._server
        assert server is not None
        sockets = getattr(server, "sockets", None)
        assert sockets
        self.port = int(sockets[0].getsockname()[1])
        return self

    async def stop(self) -> None:
        for session in list(self.sessions.values()):
            if session.ws is not None and not session.ws.closed:
                await session.ws.close(code=1001)
        for task in list(self._bg_tasks):
            task.cancel()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> Self:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()
