"""SIGTERM mid-burst: the real bot finishes what it started, hands back what it had only
claimed, exits 0; the next start delivers the rest — nothing lost, nothing twice, and no
claim left waiting for its lease to expire."""

from __future__ import annotations

import asyncio
import contextlib
import signal
from collections import Counter
from pathlib import Path

from sqlalchemy import text

from storage.db import Database
from tests.fakediscord import running_fake
from tests.reliability.crashkit import bot_env, kill, seed, start_bot, unfinished_jobs
from tools.jobs.marker import MARKER
from tools.jobs.model import Target

JOBS = 200


async def leftover_claims(url: str) -> tuple[int, int]:
    """(jobs still waiting on a lease in the future, runs still holding a lease)."""
    db = Database(url)
    try:
        async with db.engine.connect() as conn:
            jobs = (
                await conn.execute(
                    text(
                        "SELECT COUNT(*) FROM jobs WHERE claimed_slot IS NOT NULL "
                        "AND next_run_at > claimed_slot"
                    )
                )
            ).scalar_one()
            runs = (
                await conn.execute(
                    text(
                        "SELECT COUNT(*) FROM job_runs WHERE lease_until IS NOT NULL "
                        "AND outcome = 'pending' AND delivered_at IS NULL"
                    )
                )
            ).scalar_one()
    finally:
        await db.close()
    return int(jobs), int(runs)


async def test_sigterm_mid_burst_finishes_hands_back_and_exits_zero(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'stop.db'}"
    async with running_fake() as fake:
        guild = fake.add_guild("Stop")
        owner = fake.add_user("alice")
        fake.add_member(guild.id, owner.id)
        channels = [fake.add_channel(guild.id, f"room-{i}") for i in range(5)]
        targets = [Target(owner.id, c.id, guild.id) for c in channels]
        # Due over 16 s from 4 s on: the stop lands while some are out and more are due.
        await seed(url, targets, JOBS, first=4.0, spread=16.0)
        env = bot_env(fake, url, SHUTDOWN_GRACE="15")

        def markers() -> list[str]:
            return [
                str(m.nonce)
                for c in channels
                for m in fake.bot_messages(c.id)
                if m.content.startswith(MARKER)
            ]

        proc = await start_bot(env, tmp_path, "first")
        try:
            await fake.wait_for(lambda: len(markers()) >= 20, timeout=30)
            proc.send_signal(signal.SIGTERM)
            code = await asyncio.wait_for(proc.wait(), 30)
        finally:
            with contextlib.suppress(ProcessLookupError):
                await kill(proc)
        log = (tmp_path / "first.log").read_text()
        assert code == 0, log
        assert "Traceback" not in log, log
        first = len(markers())
        assert 0 < first < JOBS, "stopped mid-burst"
        assert await leftover_claims(url) == (0, 0)

        proc = await start_bot(env, tmp_path, "second")
        try:
            await fake.wait_for(lambda: len(set(markers())) >= JOBS, timeout=60)
            deadline = asyncio.get_running_loop().time() + 15
            while await unfinished_jobs(url) and asyncio.get_running_loop().time() < deadline:
                await asyncio.sleep(0.3)
        finally:
            await kill(proc)
        sent = Counter(markers())
        assert len(sent) == JOBS  # nothing lost
        assert max(sent.values()) == 1  # nothing twice
        # A graceful stop never re-sends: Discord had nothing to de-duplicate.
        assert fake.nonce_dedup_hits == 0
        assert await unfinished_jobs(url) == 0
