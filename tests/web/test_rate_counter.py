"""The dashboard's shared rate-limit counters, on SQLite and PostgreSQL: two counters on
one database (two processes) count together, concurrently without losing a hit."""

from __future__ import annotations

import asyncio

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from storage.db import Database
from storage.models import WebRateHit
from storage.rate_limits import RateCounter

T0 = 1_800_000_000.0  # the start of a 60-second window


async def test_two_processes_count_the_same_key_together(db: Database) -> None:
    one, two = RateCounter(db, 60.0), RateCounter(db, 60.0)
    counts = await asyncio.gather(*(counter.hit("write:1", T0 + 1) for counter in [one, two] * 10))
    assert sorted(counts) == [float(n) for n in range(1, 21)]  # each hit saw its own count
    assert await one.hit("write:2", T0 + 2) == 1.0  # another key counts apart


async def test_the_previous_window_fades_out(db: Database) -> None:
    counter = RateCounter(db, 60.0)
    for _ in range(10):
        await counter.hit("k", T0 + 30)
    # a quarter into the next window, three quarters of the last one still count
    assert await counter.hit("k", T0 + 75) == 1 + 10 * 0.75
    # two windows on, the old hits are gone (and their rows swept)
    assert await counter.hit("k", T0 + 185) == 1.0

    def rows(s: Session) -> int:
        return int(s.scalar(select(func.count()).select_from(WebRateHit)) or 0)

    assert await db.run(rows) == 1
