"""Injected clocks: the wall clock in production, a hand-moved one in tests."""

from __future__ import annotations

import asyncio
import contextlib
from datetime import UTC, datetime, timedelta
from typing import Protocol


class Clock(Protocol):
    def now(self) -> datetime: ...

    async def sleep_until(self, deadline: datetime | None, wake: asyncio.Event) -> None:
        """Return at `deadline` (never, if None) or as soon as `wake` is set."""
        ...


class SystemClock:
    """Real time; sleeps are capped so a missed wake-up can never stall the loop for long."""

    def __init__(self, max_sleep: float = 30.0) -> None:
        self.max_sleep = max_sleep

    def now(self) -> datetime:
        return datetime.now(UTC)

    async def sleep_until(self, deadline: datetime | None, wake: asyncio.Event) -> None:
        timeout = self.max_sleep
        if deadline is not None:
            timeout = min(timeout, max(0.0, (deadline - self.now()).total_seconds()))
        if timeout <= 0:
            return
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(wake.wait(), timeout)


class ManualClock:
    """A clock that only moves when told to; sleepers wake when it passes their deadline."""

    def __init__(self, start: datetime) -> None:
        self._now = start
        self._tick = asyncio.Event()

    def now(self) -> datetime:
        return self._now

    async def advance(self, delta: timedelta | float) -> None:
        step = delta if isinstance(delta, timedelta) else timedelta(seconds=delta)
        await self.set(self._now + step)

    async def set(self, when: datetime) -> None:
        self._now = when
        tick, self._tick = self._tick, asyncio.Event()
        tick.set()
        # Let woken tasks run before the caller continues.
        for _ in range(5):
            await asyncio.sleep(0)

    async def sleep_until(self, deadline: datetime | None, wake: asyncio.Event) -> None:
        while not wake.is_set() and (deadline is None or self._now < deadline):
            waiters = {
                asyncio.ensure_future(self._tick.wait()),
                asyncio.ensure_future(wake.wait()),
            }
            try:
                await asyncio.wait(waiters, return_when=asyncio.FIRST_COMPLETED)
            finally:
                for w in waiters:
                    w.cancel()
