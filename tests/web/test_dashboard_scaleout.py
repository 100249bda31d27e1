"""Several bot processes on one database (PostgreSQL scale-out) each serve the dashboard:
its sign-in and write limits hold across them, not per process."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import pydantic_ai.models
import pytest
from aiohttp import web

from bot.web.dashboard import Dashboard
from bot.web.discord_view import BotGuildView
from tests.bot.harness import World, make_world
from tests.fakediscord import running_fake
from tests.web.site import Site, free_port, running_site
from tools.approval import Outcome


@pytest.fixture(autouse=True)
def _no_model_requests() -> None:
    pydantic_ai.models.ALLOW_MODEL_REQUESTS = False


@pytest.fixture
async def world(tmp_path: Path) -> AsyncIterator[World]:
    async with running_fake() as fake:
        yield make_world(fake, tmp_path)


@contextlib.asynccontextmanager
async def another_process(site: Site) -> AsyncIterator[str]:
    """A second dashboard over the same database and settings, with memory of its own (as
    another process behind the same WEB_BASE_URL would be)."""

    async def decide(approval_id: int, user_id: int, approved: bool) -> Outcome:
        raise AssertionError("not used here")

    app = web.Application()
    Dashboard(site.bot.runtime, BotGuildView(site.bot), decide).install(app)
    runner = web.AppRunner(app)
    await runner.setup()
    port = free_port()
    await web.TCPSite(runner, "127.0.0.1", port).start()
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        await runner.cleanup()


async def test_write_limit_holds_across_processes(world: World) -> None:
    async with running_site(world) as site, another_process(site) as other, site.client() as web:
        await web.sign_in(world.alice.id)
        here = [(await web.post("/zone", {"zone": "UTC"}))[0] for _ in range(20)]
        there = [(await web.post("/zone", {"zone": "UTC"}, base=other))[0] for _ in range(11)]
        assert here == [302] * 20
        assert there[:10] == [302] * 10 and there[10] == 429  # 31st write in the minute


async def test_sign_in_limit_holds_across_processes(world: World) -> None:
    async with running_site(world) as site, another_process(site) as other:
        async with aiohttp.ClientSession() as http:
            statuses = []
            for base in [site.base] * 6 + [other] * 5:
                async with http.get(f"{base}/auth/discord", allow_redirects=False) as r:
                    statuses.append(r.status)
        assert statuses[:10] == [302] * 10 and statuses[10] == 429  # 11th from this address
