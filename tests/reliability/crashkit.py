"""Kill the real bot process at random moments and count what reached the fake Discord.

Shared by `tests/reliability/test_crash.py` (short) and `bench/crash.py` (long). The
bot runs as `python -m bot run` against a fake Discord in this process, on a SQLite
file seeded with one-off jobs coming due over the run. Each cycle starts the bot and
SIGKILLs it: anywhere (start-up included); right after it has delivered something
(mid-delivery, mid-recording); or the moment a marker is posted whose answer is not
(between marker and answer, at a random point inside the re-feed). A last process then
finishes the work.

A job counts as delivered only when its answer (the reminder or action report after
the marker) was posted exactly once; markers are counted too.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import re
import signal
import sys
from collections import Counter
from dataclasses import asdict, dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from storage.db import Database
from storage.jobs import JobStore
from storage.models import JobStatus
from tests.fakediscord import FakeDiscord, running_fake
from tools.jobs.engine import Engine
from tools.jobs.marker import MARKER
from tools.jobs.model import Target
from tools.schedule import Once, Schedule

ROOT = Path(__file__).resolve().parents[2]
# Settings a developer's shell may carry that must not leak into the bot under test.
_SCRUB = ("DISCORD_", "DATABASE_URL", "HOMAR_", "HEALTH_PORT", "SHARD_", "MCP_CONFIG", "LOG_")


_JOB_NUMBER = re.compile(r"\bcrash job (\d+)\b")


@dataclass(frozen=True)
class CrashReport:
    cycles: int
    jobs: int
    lost: int  # jobs whose answer never reached its thread
    duplicates: int  # answers posted more than once
    marker_lost: int
    marker_duplicates: int
    refeed_kills: int  # kills between a marker and its answer
    dedup_hits: int  # re-sent messages Discord answered with the earlier message
    unfinished: int  # jobs the database does not show as completed
    seconds: float

    def summary(self) -> dict[str, int]:
        keys = ("cycles", "jobs", "lost", "duplicates", "marker_lost", "marker_duplicates")
        return {k: v for k, v in asdict(self).items() if k in (*keys, "refeed_kills")}


def bot_env(fake: FakeDiscord, database_url: str, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(_SCRUB)}
    env.update(
        DISCORD_TOKEN="fake-token",
        DISCORD_API_BASE=fake.api_base,
        DISCORD_GATEWAY_URL=fake.gateway_url,
        DATABASE_URL=database_url,
        DEFAULT_TIMEZONE="UTC",
        LOG_LEVEL="WARNING",
        PYTHONPATH=str(ROOT),
    )
    env.update(extra)
    return env


async def start_bot(env: dict[str, str], workdir: Path, name: str) -> asyncio.subprocess.Process:
    """`python -m bot run`, in `workdir` (so no `.env` is read), logging to `name`.log."""
    log = (workdir / f"{name}.log").open("wb")
    try:
        return await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "bot",
            "run",
            env=env,
            cwd=workdir,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=log,
            stderr=log,
        )
    finally:
        log.close()


async def kill(proc: asyncio.subprocess.Process) -> None:
    with contextlib.suppress(ProcessLookupError):
        proc.send_signal(signal.SIGKILL)
    await proc.wait()


async def seed(
    database_url: str, targets: list[Target], jobs: int, first: float, spread: float
) -> None:
    """One-off jobs due from `first` to `first + spread` seconds from now."""
    db = Database(database_url)
    await db.upgrade()
    engine = Engine(JobStore(db))
    now = datetime.now(UTC)
    for i in range(jobs):
        at = now + timedelta(seconds=first + spread * i / max(1, jobs - 1))
        await engine.create(
            target=targets[i % len(targets)],
            command=f"crash job {i}",
            kind="delayed",
            schedule=Schedule(Once(at)),
            check_limits=False,
        )
    await db.close()


async def unfinished_jobs(database_url: str) -> int:
    db = Database(database_url)
    counts = await JobStore(db).count_by_status()
    await db.close()
    return sum(n for status, n in counts.items() if status != JobStatus.COMPLETED)


async def crash_run(
    workdir: Path,
    *,
    jobs: int = 500,
    cycles: int = 10,
    spread: float | None = None,
    seed_value: int | None = None,
    finish_timeout: float = 60.0,
) -> CrashReport:
    rng = random.Random(seed_value)
    started = asyncio.get_running_loop().time()
    # Jobs keep coming due for about as long as the kill cycles last (~2.5 s each).
    spread = spread if spread is not None else max(5.0, cycles * 2.2)
    database_url = f"sqlite+aiosqlite:///{workdir / 'crash.db'}"
    async with running_fake() as fake:
        guild = fake.add_guild("Crash")
        owner = fake.add_user("alice")
        fake.add_member(guild.id, owner.id)
        # Many threads, as in real use: each thread's answers are worked one after another.
        channels = [fake.add_channel(guild.id, f"room-{i}") for i in range(40)]
        targets = [Target(owner.id, c.id, guild.id) for c in channels]
        await seed(database_url, targets, jobs, first=2.5, spread=spread)
        env = bot_env(fake, database_url)

        def markers() -> list[str]:
            return [
                str(m.nonce)
                for c in channels
                for m in fake.bot_messages(c.id)
                if m.content.startswith(MARKER)
            ]

        def answers() -> Counter[int]:
            """How many answers each job got (by the job's text, which each answer repeats)."""
            got: Counter[int] = Counter()
            for c in channels:
                for m in fake.bot_messages(c.id):
                    found = _JOB_NUMBER.search(m.content)
                    if found and not m.content.startswith(MARKER):
                        got[int(found.group(1))] += 1
            return got

        def unanswered_marker() -> bool:
            return len(set(markers())) > len(answers())

        async def up(identified: int) -> None:
            """Until this process has connected (start-up is slow on a loaded machine)."""
            with contextlib.suppress(TimeoutError):
                await fake.wait_for(lambda: fake.identify_count > identified, timeout=90)

        refeed_kills = 0
        for cycle in range(cycles):
            identified = fake.identify_count
            proc = await start_bot(env, workdir, f"bot-{cycle}")
            if cycle % 3 == 0:  # anywhere, start-up included
                await asyncio.sleep(rng.uniform(0.3, 3.0))
            elif cycle % 3 == 1:  # once this process is delivering: mid-delivery or recording
                await up(identified)
                before = len(markers())
                with contextlib.suppress(TimeoutError):
                    await fake.wait_for(lambda b=before: len(markers()) > b, timeout=8)
                await asyncio.sleep(rng.uniform(0.0, 0.6))
            else:  # a marker is out and its answer is not: somewhere inside the re-feed
                await up(identified)
                with contextlib.suppress(TimeoutError):
                    await fake.wait_for(unanswered_marker, timeout=8)
                if cycle % 2:  # at once, or a little later inside the re-feed
                    await asyncio.sleep(rng.uniform(0.0, 0.05))
                refeed_kills += int(unanswered_marker())
            await kill(proc)

        proc = await start_bot(env, workdir, "bot-final")
        try:
            with contextlib.suppress(TimeoutError):
                await fake.wait_for(lambda: len(answers()) >= jobs, timeout=finish_timeout)
            # Then until every run is recorded (and room for a duplicate to show up).
            deadline = asyncio.get_running_loop().time() + 15
            await asyncio.sleep(1.0)
            while (unfinished := await unfinished_jobs(database_url)) and (
                asyncio.get_running_loop().time() < deadline
            ):
                await asyncio.sleep(0.5)
        finally:
            await kill(proc)
        sent = Counter(markers())
        answered = answers()
    return CrashReport(
        cycles=cycles,
        jobs=jobs,
        lost=sum(1 for i in range(jobs) if answered[i] == 0),
        duplicates=sum(n - 1 for n in answered.values() if n > 1),
        marker_lost=max(0, jobs - len(sent)),
        marker_duplicates=sum(n - 1 for n in sent.values()),
        refeed_kills=refeed_kills,
        dedup_hits=fake.nonce_dedup_hits,
        unfinished=unfinished,
        seconds=round(asyncio.get_running_loop().time() - started, 1),
    )
