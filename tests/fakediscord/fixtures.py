"""pytest plugin providing a ``fake_discord`` fixture.

Enable it in the root ``conftest.py`` with ``pytest_plugins = ["tests.fakediscord.fixtures"]``.

``fake_discord`` is a started :class:`FakeDiscord` with ``discord.http.Route.BASE`` and
``DiscordWebSocket.DEFAULT_GATEWAY`` pointed at it (restored afterwards).
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest_asyncio

from . import FakeDiscord, running_fake


@pytest_asyncio.fixture
async def fake_discord() -> AsyncIterator[FakeDiscord]:
    async with running_fake() as fake:
        yield fake
