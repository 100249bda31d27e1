"""Two dispatcher processes on one PostgreSQL: 5,000 jobs, none lost or twice; prompt wake-ups."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from pathlib import Path

from bot.operator import list_jobs
from bot.settings import load_settings
from bot.wakeups import Wakeups
from storage.jobs import JobStore
from tests.conftest import fresh_pg
from tests.fakediscord import running_fake
from tests.reliability.crashkit import bot_env, kill, seed, start_bot, unfinished_jobs
from tests.reliability.pgkit import deliveries, multi_run, start_worker, stop_worker
from tools.jobs.engine import Engine
from tools.jobs.model import Target
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


async def test_the_bot_runs_end_to_end_on_postgresql(pg_url: str, tmp_path: Path) -> None:
    """`homar run` with DATABASE_URL=postgresql+asyncpg://…: migrations, delivery, listing."""
    await (await fresh_pg(pg_url)).close()
    async with running_fake() as fake:
        guild = fake.add_guild("PG")
        owner = fake.add_user("alice")
        fake.add_member(guild.id, owner.id)
        channel = fake.add_channel(guild.id, "general")
        await seed(pg_url, [Target(owner.id, channel.id, guild.id)], 20, first=2.0, spread=1.0)
        bot = await start_bot(bot_env(fake, pg_url), tmp_path, "bot")
        try:

            def markers() -> set[str]:
                return {str(m.nonce) for m in fake.bot_messages(channel.id) if m.nonce}

            await fake.wait_for(lambda: len(markers()) >= 20, timeout=30)
            for _ in range(50):  # and recorded
                if not await unfinished_jobs(pg_url):
                    break
                await asyncio.sleep(0.2)
        finally:
            await kill(bot)
    assert await unfinished_jobs(pg_url) == 0
    listing = await list_jobs(
        load_settings(_env_file=None, database_url=pg_url), user=owner.id, include_closed=True
    )
    assert len(listing) >= 20
