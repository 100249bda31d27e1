"""Several bot processes on one database (PostgreSQL scale-out) each serve the dashboard:
its sign-in and write limits hold across them, not per process."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

import aiohttp
from aiohttp import web

from bot.web.dashboard import Dashboard
from bot.web.discord_view import BotGuildView
from tests.bot.harness import World
from tests.web.site import Site, free_port, running_site
from tools.approval import Outcome


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


async def test_behind_a_trusted_proxy_each_person_has_their_own_sign_in_limit(
    world: World,
) -> None:
    async with running_site(world, web_trusted_proxies="127.0.0.1") as site:
        async with aiohttp.ClientSession() as http:

            async def start(forwarded: str) -> int:
                headers = {"X-Forwarded-For": forwarded}
                async with http.get(
                    f"{site.base}/auth/discord", headers=headers, allow_redirects=False
                ) as r:
                    return r.status

            # two people behind the same proxy (a spoofed hop in front is not believed)
            first = [await start("6.6.6.6, 203.0.113.1") for _ in range(11)]
            second = [await start("203.0.113.2") for _ in range(10)]
        assert first[:10] == [302] * 10 and first[10] == 429
        assert second == [302] * 10


async def test_forwarded_for_from_anyone_else_is_not_believed(world: World) -> None:
    async with running_site(world) as site, aiohttp.ClientSession() as http:
        statuses = []
        for n in range(11):  # a new made-up address each time: still the same client
            headers = {"X-Forwarded-For": f"198.51.100.{n}"}
            async with http.get(
                f"{site.base}/auth/discord", headers=headers, allow_redirects=False
            ) as r:
                statuses.append(r.status)
        assert statuses[:10] == [302] * 10 and statuses[10] == 429
