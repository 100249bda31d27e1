"""One agent run at a time per thread: a thread's work queues in order; threads run in parallel."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable

log = logging.getLogger(__name__)

Work = Callable[[], Awaitable[object]]  # what it returns is not read


class ThreadQueues:
    """Per-thread FIFO queues with one worker each; never skips, never runs two at once."""

    def __init__(self) -> None:
        self._queues: dict[int, asyncio.Queue[Work]] = {}
        self._workers: dict[int, asyncio.Task[None]] = {}
        self._busy: set[int] = set()

    def submit(self, channel_id: int, work: Work) -> None:
        queue = self._queues.setdefault(channel_id, asyncio.Queue())
        queue.put_nowait(work)
        worker = self._workers.get(channel_id)
        if worker is None or worker.done():
            self._workers[channel_id] = asyncio.create_task(
                self._drain(channel_id, queue), name=f"thread-{channel_id}"
            )

    def is_idle(self, channel_id: int) -> bool:
        """No run in progress and nothing queued for this thread."""
        queue = self._queues.get(channel_id)
        return channel_id not in self._busy and (queue is None or queue.empty())

    def has_waiting(self, channel_id: int) -> bool:
        """Work is queued behind whatever runs now in this thread."""
        queue = self._queues.get(channel_id)
        return queue is not None and not queue.empty()

    async def _drain(self, channel_id: int, queue: asyncio.Queue[Work]) -> None:
        while not queue.empty():
            work = queue.get_nowait()
            self._busy.add(channel_id)
            try:
                await work()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("thread %s: work failed", channel_id, extra={"thread_id": channel_id})
            finally:
                self._busy.discard(channel_id)
                queue.task_done()

    async def join(self) -> None:
        """Wait until every queued piece of work has finished (for tests and shutdown)."""
        while any(not w.done() for w in self._workers.values()):
            await asyncio.gather(*self._workers.values(), return_exceptions=True)

    async def close(self) -> None:
        for worker in self._workers.values():
            worker.cancel()
        for worker in self._workers.values():
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await worker
