"""fakediscord — an in-process fake Discord (REST + websocket gateway) for offline e2e tests.

The REAL discord.py 2.7 client connects to it over 127.0.0.1 on a random free port. Nothing
touches the network.

Quick start::

    from tests.fakediscord import running_client, running_fake

    async with running_fake() as fake:          # started + discord.py patched to use it
        guild = fake.add_guild("G")
        chan = fake.add_channel(guild.id, "general")
        alice = fake.add_user("alice")
        fake.add_member(guild.id, alice.id)

        client = discord.Client(intents=intents, guild_ready_timeout=0.01)
        async with running_client(client):     # login + connect + wait for on_ready
            await fake.user_says(chan.id, alice.id, f"<@{fake.bot_user.id}> hi")
            reply = await fake.wait_for_message(chan.id, lambda m: m.author_id == fake.bot_user.id)

``FakeDiscord.wait_for(predicate)`` re-checks ``predicate`` whenever the FAKE's state changes
(request served, event dispatched); to wait for client-side state use ``client.wait_for(...)``.

``patched_discord(fake)`` points ``discord.http.Route.BASE`` and
``discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY`` at the fake and restores them afterwards.
The app itself can instead be configured with ``DISCORD_API_BASE=fake.api_base`` and
``DISCORD_GATEWAY_URL=fake.gateway_url``.

State (messages, nonces, threads, registered commands) lives in the ``FakeDiscord`` object, so it
survives client disconnects/reconnects and multiple concurrent bot connections (each event is
dispatched to every live gateway session; shard routing ``(guild_id >> 22) % shard_count``).

``FakeDiscord`` (``server.py``) is one object built from layers, each in its own module:
``world.py`` (state, set-up calls, queries, wire payloads), ``gateway.py`` (websocket
protocol, event dispatch, message events), ``answers.py`` (the REST endpoints that answer
interactions), ``faults.py`` (injected failures), ``routes.py`` (the route table and the
other REST endpoints), ``actions.py`` (what tests do as users and admins);
``responses.py`` shapes HTTP answers, ``ratelimits.py`` and ``oauth.py`` are Discord's
rate limits and OAuth2 pages, and ``models.py`` holds the data classes.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Iterator
from typing import TYPE_CHECKING, Any

from .gateway import GatewaySession
from .models import (
    EPHEMERAL,
    MANAGE_MESSAGES,
    MENTION_EVERYONE,
    SEND_MESSAGES,
    VIEW_CHANNEL,
    FakeChannel,
    FakeGuild,
    FakeMember,
    FakeMessage,
    FakeRole,
    FakeUser,
    Fault,
    InteractionHandle,
    Pings,
    RecordedRequest,
)
from .responses import DiscordError
from .server import FakeDiscord

if TYPE_CHECKING:
    import discord

__all__ = [
    "EPHEMERAL",
    "MANAGE_MESSAGES",
    "MENTION_EVERYONE",
    "SEND_MESSAGES",
    "VIEW_CHANNEL",
    "DiscordError",
    "FakeChannel",
    "FakeDiscord",
    "FakeGuild",
    "FakeMember",
    "FakeMessage",
    "FakeRole",
    "FakeUser",
    "Fault",
    "GatewaySession",
    "InteractionHandle",
    "Pings",
    "RecordedRequest",
    "patched_discord",
    "running_client",
    "running_fake",
]


@contextlib.contextmanager
def patched_discord(fake: FakeDiscord) -> Iterator[None]:
    """Point discord.py's REST base and default gateway at ``fake``; restore on exit."""
    import discord.gateway
    import discord.http
    import yarl

    old_base = discord.http.Route.BASE
    old_gateway = discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY
    discord.http.Route.BASE = fake.api_base
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(fake.gateway_url)
    try:
        yield
    finally:
        discord.http.Route.BASE = old_base
        discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = old_gateway


@contextlib.asynccontextmanager
async def running_fake(**kwargs: Any) -> AsyncIterator[FakeDiscord]:
    """``async with running_fake() as fake:`` — started fake with discord.py patched to use it."""
    fake = FakeDiscord(**kwargs)
    await fake.start()
    try:
        with patched_discord(fake):
            yield fake
    finally:
        await fake.stop()


@contextlib.asynccontextmanager
async def running_client(
    client: discord.Client, token: str = "fake-token", *, timeout: float = 2.0
) -> AsyncIterator[discord.Client]:
    """Log ``client`` in, connect it in a background task, wait for ``on_ready``; close on exit.

    Create the client with ``guild_ready_timeout=0.01`` so READY is fast. For an
    ``AutoShardedClient`` override ``before_identify_hook`` (the default sleeps 5 s per shard).
    """
    await client.login(token)
    task = asyncio.create_task(client.connect())
    try:
        ready = asyncio.create_task(client.wait_until_ready())
        done, _ = await asyncio.wait(
            {ready, task}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED
        )
        if ready not in done:
            ready.cancel()
            if task in done:
                task.result()  # re-raise the connect() failure
            raise TimeoutError("discord client did not become ready")
        yield client
    finally:
        await client.close()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(task, timeout)
