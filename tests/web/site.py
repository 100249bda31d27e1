"""A running bot with the dashboard on, and an HTTP client that signs in through the fake
Discord's OAuth pages (the same redirects a browser follows)."""

from __future__ import annotations

import contextlib
import re
import socket
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import aiohttp

from bot.app import HomarBot
from storage.jobs import Job
from tests.bot.harness import World, running_bot
from tools.jobs.model import Target
from tools.schedule import Every, Once, Schedule


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def web_settings(world: World, port: int) -> dict[str, Any]:
    return {
        "health_port": port,
        "web_base_url": f"http://127.0.0.1:{port}",
        "discord_client_id": world.fake.oauth.client_id,
        "discord_client_secret": world.fake.oauth.client_secret,
        "discord_oauth_authorize_url": f"{world.fake.base_url}/oauth2/authorize",
        "web_live_poll": 0.05,
    }


@dataclass
class Site:
    world: World
    bot: HomarBot
    base: str

    def client(self) -> Browser:
        return Browser(self)

    async def job(
        self,
        owner: int,
        text: str,
        *,
        guild: int | None = None,
        channel: int | None = None,
        every: bool = False,
    ) -> Job:
        """A job as chat or /remind would make it (through the engine)."""
        now = self.world.clock.now()
        spec = Every(3600, now + timedelta(hours=1)) if every else Once(now + timedelta(hours=2))
        return await self.bot.runtime.engine.create(
            target=Target(owner, channel or self.world.channel.id, guild),
            command=text,
            schedule=Schedule(spec, "UTC"),
            kind="interval" if every else "reminder",
        )


@contextlib.asynccontextmanager
async def running_site(world: World, **extra: Any) -> AsyncIterator[Site]:
    port = free_port()
    async with running_bot(world, **web_settings(world, port), **extra) as bot:
        yield Site(world, bot, f"http://127.0.0.1:{port}")


class Browser:
    """An aiohttp session with cookies (IP hosts allowed), like one browser profile."""

    def __init__(self, site: Site) -> None:
        self.site = site
        self.http = aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True))
        self.csrf = ""

    async def close(self) -> None:
        await self.http.close()

    async def __aenter__(self) -> Browser:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def sign_in(self, user_id: int) -> None:
        """Through /auth/discord → the fake's authorize page → its button → /auth/callback."""
        self.site.world.fake.oauth.sign_in_as = user_id
        async with self.http.get(f"{self.site.base}/auth/discord", allow_redirects=False) as r:
            assert r.status == 302, await r.text()
            authorize = r.headers["Location"]
        async with self.http.get(authorize) as r:
            assert r.status == 200, await r.text()
            page = await r.text()
        fields = dict(re.findall(r'name="([^"]+)" value="([^"]*)"', page))
        fields = {k: v.replace("&amp;", "&") for k, v in fields.items()}
        submit = f"{self.site.world.fake.base_url}/oauth2/authorize"
        async with self.http.post(submit, data=fields, allow_redirects=False) as r:
            assert r.status == 302
            callback = r.headers["Location"]
        async with self.http.get(callback, allow_redirects=False) as r:
            assert r.status == 302 and r.headers["Location"] == "/jobs", await r.text()
        await self.page("/jobs")

    async def page(self, path: str) -> tuple[int, str]:
        async with self.http.get(f"{self.site.base}{path}", allow_redirects=False) as r:
            text = await r.text()
            found = re.search(r'name="csrf" value="([^"]+)"', text)
            if found:
                self.csrf = found.group(1)
            return r.status, text

    async def post(
        self,
        path: str,
        data: dict[str, str] | None = None,
        *,
        csrf: bool = True,
        origin: str | None = None,
        base: str | None = None,
    ) -> tuple[int, str]:
        """POST a form; `base`: another process serving the same dashboard."""
        form = dict(data or {})
        if csrf:
            form["csrf"] = self.csrf
        headers = {"Origin": origin if origin is not None else self.site.base}
        async with self.http.post(
            f"{base or self.site.base}{path}", data=form, headers=headers, allow_redirects=False
        ) as r:
            return r.status, await r.text()
