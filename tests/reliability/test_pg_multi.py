"""Two dispatcher processes on one PostgreSQL: 5,000 jobs, none lost or twice; prompt wake-ups."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from pathlib import Path

from bot.wakeups import Wakeups
from storage.jobs import JobStore
from tests.conftest import fresh_pg
from tests.reliability.pgkit import deliveries, multi_run, start_worker, stop_worker
from tools.engine import Engine, Target
from tools.schedule import Once, Schedule


class NoDispatcher:
    def wake(self, at: datetime | None = None) -> None:
        pass


async def test_two_processes_deliver_5000_jobs_exactly_once(pg_url: str, tmp_path: Path) -> None:
    await (await fresh_pg(pg_url)).close()
    report = await multi_run(pg_url, tmp_path, processes=2, jobs=5000, spread=5.0)
    assert report.lost == 0, report
    assert report.duplicates == 0, report


async def test_a_job_created_elsewhere_wakes_a_sleeping_process(
    pg_url: str, tmp_path: Path
) -> None:
    """The worker would sleep 30 s; only the NOTIFY can make it deliver on time."""
    db = await fresh_pg(pg_url)
    out = tmp_path / "worker.txt"
    worker = await start_worker(pg_url, out, max_sleep=30)
    try:
        engine = Engine(JobStore(db))
        engine.waker = wakeups = Wakeups(db, NoDispatcher())
        await asyncio.sleep(0.3)  # the worker is asleep now
        due = datetime.now(UTC) + timedelta(milliseconds=500)
        await engine.create(
            target=Target(1, 100, 10),
            command="wake up",
            kind="delayed",
            schedule=Schedule(Once(due)),
            check_limits=False,
        )
        for _ in range(40):
            if deliveries([out]):
                break
            await asyncio.sleep(0.1)
        [(_job, _nonce, late_ms)] = deliveries([out])
        assert late_ms < 500
        await wakeups.stop()
    finally:
        await stop_worker(worker)
        await db.close()
