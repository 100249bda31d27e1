"""`HEALTH_PORT`: `/healthz` (liveness), `/readyz` (readiness) and `/metrics` over HTTP.

Liveness says the process works (database reachable, dispatcher loop running): an
orchestrator restarts a process that fails it. Readiness says it is doing its job right
now (also connected to Discord's gateway, and not shutting down): a load balancer or a
rolling upgrade waits for it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

from aiohttp import web
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
from sqlalchemy import text

if TYPE_CHECKING:
    from bot.runtime import Runtime

log = logging.getLogger(__name__)


class Health:
    """A small web server next to the bot; `connected()` says whether Discord is up."""

    def __init__(
        self,
        runtime: Runtime,
        connected: Callable[[], bool],
        port: int,
        *,
        also: tuple[int, ...] = (),
        mounts: tuple[Callable[[web.Application], None], ...] = (),
        host: str = "0.0.0.0",
    ) -> None:
        """Serves on `port` and on each of `also` (the dashboard's WEB_PORT, if different);
        `mounts` add more routes to the same server (the dashboard's)."""
        self.runtime = runtime
        self.connected = connected
        self._ports = (port, *also)
        self._host = host
        self._mounted = mounts
        self._runner: web.AppRunner | None = None
        self.port: int | None = None  # the port bound for `port` (0 picks a free one)
        self.stopping = False  # set at the start of a graceful shutdown

    async def start(self) -> None:
        """Bind the ports (in the running loop, so not in the constructor)."""
        host = self._host
        app = web.Application()
        app.router.add_get("/healthz", self.healthz)
        app.router.add_get("/readyz", self.readyz)
        app.router.add_get("/metrics", self.metrics)
        for install in self._mounted:
            install(app)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        for number in self._ports:
            site = web.TCPSite(self._runner, host, number)
            await site.start()
            server = site._server
            sockets = getattr(server, "sockets", None) or []
            bound = sockets[0].getsockname()[1] if sockets else number
            if number == self._ports[0]:
                self.port = bound
            log.info("serving /healthz, /metrics (and the dashboard, if on) on %s:%s", host, bound)

    async def stop(self) -> None:
        runner, self._runner = self._runner, None
        if runner is not None:
            await runner.cleanup()

    async def _db_ok(self) -> bool:
        try:
            async with self.runtime.db.engine.connect() as conn:
                await conn.execute(text("SELECT 1"))
        except Exception:
            log.warning("health check: database unreachable", exc_info=True)
            return False
        return True

    async def healthz(self, _request: web.Request) -> web.Response:
        dispatcher = self.runtime.dispatcher
        if dispatcher._task is None:
            loop = "stopped"
        else:
            loop = "sleeping" if dispatcher.sleeping.is_set() else "awake"
        db_ok = await self._db_ok()
        discord_ok = self.connected()
        healthy = db_ok and loop != "stopped"
        body = {
            "status": "ok" if healthy and discord_ok else ("degraded" if healthy else "down"),
            "db": db_ok,
            "dispatcher": loop,
            "discord": discord_ok,
        }
        return web.json_response(body, status=200 if healthy else 503)

    async def readyz(self, _request: web.Request) -> web.Response:
        db_ok = await self._db_ok()
        discord_ok = self.connected()
        ready = db_ok and discord_ok and not self.stopping
        body = {
            "ready": ready,
            "db": db_ok,
            "discord": discord_ok,
            "stopping": self.stopping,
        }
        return web.json_response(body, status=200 if ready else 503)

    async def metrics(self, _request: web.Request) -> web.Response:
        metrics = self.runtime.metrics
        try:
            await metrics.refresh(self.runtime.store, self.runtime.clock.now())
        except Exception:
            log.warning("metrics: could not count jobs", exc_info=True)
        return web.Response(
            body=generate_latest(metrics.registry),
            headers={"Content-Type": CONTENT_TYPE_LATEST},
        )
