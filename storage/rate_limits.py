"""Shared rate-limit counters (`web_rate_hits`): one row per key and time window.

Each hit is one atomic upsert that returns the window's new count, so two processes
counting the same key at once both see it (no read-then-write race). The limit is a
sliding window estimated from two fixed ones: this window's hits plus the previous
window's, weighted by how much of it still lies within the last `window` seconds.
"""

from __future__ import annotations

import math

from sqlalchemy import delete, select
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.orm import Session

from storage.db import Database
from storage.models import WebRateHit

MAX_KEY = 100


class RateCounter:
    """Counts hits per key in `window`-second windows, in the database."""

    def __init__(self, db: Database, window: float) -> None:
        self.db = db
        self.window = window
        self._swept: int | None = None  # the last window this process cleared old rows in

    async def hit(self, key: str, now: float) -> float:
        """Count one hit for `key` at `now` (Unix seconds, the same clock on every process)
        and return the hits in the last `window` seconds, this one included."""
        key = key[:MAX_KEY]
        current = math.floor(now / self.window)
        elapsed = now / self.window - current  # 0..1 through the current window
        sweep = self._swept != current
        insert = pg_insert if self.db.is_postgres else sqlite_insert

        def work(s: Session) -> float:
            upsert = insert(WebRateHit).values(key=key, window=current, hits=1)
            upsert = upsert.on_conflict_do_update(
                index_elements=[WebRateHit.key, WebRateHit.window],
                set_={"hits": WebRateHit.hits + 1},
            )
            hits = s.scalar(upsert.returning(WebRateHit.hits)) or 1
            before = s.scalar(
                select(WebRateHit.hits).where(
                    WebRateHit.key == key, WebRateHit.window == current - 1
                )
            )
            if sweep:  # windows before the previous one no longer count for anyone
                s.execute(delete(WebRateHit).where(WebRateHit.window < current - 1))
            return hits + (before or 0) * (1.0 - elapsed)

        counted = await self.db.run(work)
        self._swept = current
        return counted
