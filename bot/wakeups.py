"""Cross-process wake-ups on PostgreSQL: NOTIFY when a job is created or changed, LISTEN for it.

Several bot processes may share one PostgreSQL database. A job created in one of them
must wake the dispatchers of the others, which may be asleep until a later job. Each
change sends `NOTIFY homar_jobs, '<due time>'`; every process listens on its own
connection and wakes its dispatcher. If a notification is lost (the listener is
reconnecting), the dispatcher's capped sleep (`POLL_SECONDS`) still finds the job.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from datetime import datetime
from typing import Any

from sqlalchemy import text
from sqlalchemy.engine import make_url

from storage.db import Database
from tools.jobs.model import Waker

log = logging.getLogger(__name__)

CHANNEL = "homar_jobs"
POLL_SECONDS = 1.0  # the dispatcher's longest sleep on PostgreSQL, should a NOTIFY be missed
RECONNECT_SECONDS = 2.0


class Wakeups:
    """A waker for the engine: wakes this process's dispatcher and NOTIFYs the others.

    On SQLite (one process) it only wakes the local dispatcher.
    """

    def __init__(self, db: Database, local: Waker) -> None:
        self.db = db
        self.local = local
        self.listening = asyncio.Event()
        self._earliest: datetime | None = None
        self._flusher: asyncio.Task[None] | None = None
        self._listener: asyncio.Task[None] | None = None

    def wake(self, at: datetime | None = None) -> None:
        self.local.wake(at)
        if not self.db.is_postgres:
            return
        if at is not None and (self._earliest is None or at < self._earliest):
            self._earliest = at
        if self._flusher is None or self._flusher.done():
            # One NOTIFY per loop turn: a burst of changes sends the earliest time once.
            self._flusher = asyncio.get_running_loop().create_task(self._notify())

    async def _notify(self) -> None:
        await asyncio.sleep(0)
        at, self._earliest = self._earliest, None
        payload = at.isoformat() if at is not None else ""
        try:
            async with self.db.engine.connect() as conn:
                await conn.execute(text("SELECT pg_notify(:c, :p)"), {"c": CHANNEL, "p": payload})
                await conn.commit()
        except Exception:
            log.warning("could not notify other processes of a job change", exc_info=True)

    async def start(self) -> None:
        if self.db.is_postgres and self._listener is None:
            self._listener = asyncio.create_task(self._listen(), name="homar-wakeups")

    async def stop(self) -> None:
        for task in (self._listener, self._flusher):
            if task is not None and not task.done():
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
        self._listener = self._flusher = None

    async def _listen(self) -> None:
        import asyncpg

        url = make_url(self.db.url)
        while True:
            conn: Any = None
            try:
                conn = await asyncpg.connect(
                    user=url.username,
                    password=url.password,
                    host=url.host or "localhost",
                    port=url.port or 5432,
                    database=url.database,
                )
                lost = asyncio.Event()
                conn.add_termination_listener(lambda _c, lost=lost: lost.set())
                await conn.add_listener(CHANNEL, self._heard)
                self.listening.set()
                # A notification sent while we were not listening may be missed: look again.
                self.local.wake(None)
                await lost.wait()
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.warning("job wake-up listener lost (%s); reconnecting", exc)
            finally:
                self.listening.clear()
                if conn is not None:
                    with contextlib.suppress(Exception):
                        await asyncio.wait_for(conn.close(), 2)
            await asyncio.sleep(RECONNECT_SECONDS)

    def _heard(self, _conn: Any, _pid: int, _channel: str, payload: str) -> None:
        at: datetime | None = None
        if payload:
            with contextlib.suppress(ValueError):
                at = datetime.fromisoformat(payload)
        self.local.wake(at)
