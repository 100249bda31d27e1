"""Several dispatcher processes on one PostgreSQL database: count what each delivered.

Shared by `tests/reliability/test_pg_multi.py` and `bench/pg_multi.py`.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import os
import signal
import sys
from collections import Counter
from dataclasses import asdict, dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import insert

from bot.wakeups import Wakeups
from storage.db import Database
from storage.models import JobRow, JobStatus
from tools.schedule import Once, spec_to_json

ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class MultiReport:
    processes: int
    jobs: int
    lost: int
    duplicates: int
    p99_ms: float

    def summary(self) -> dict[str, Any]:
        return asdict(self)


def job_row(n: int, at: datetime, now: datetime) -> dict[str, Any]:
    """A one-off job's row, as `Engine.create` would write it (bulk-inserted here for speed)."""
    return {
        "owner_id": 1 + n % 50,
        "guild_id": 10,
        "channel_id": 100 + n % 20,
        "parent_channel_id": None,
        "command": f"job {n}",
        "kind": "delayed",
        "schedule": spec_to_json(Once(at)),
        "tz": "UTC",
        "status": JobStatus.ACTIVE,
        "fail_reason": None,
        "created_by": "user",
        "created_at": now,
        "updated_at": now,
        "next_run_at": at,
        "claimed_slot": None,
        "run_count": 0,
        "failure_streak": 0,
        "until": None,
        "max_runs": None,
        "follow_up": None,
        "meta": None,
    }


async def seed(url: str, jobs: int, first: float, spread: float) -> None:
    db = Database(url)
    await db.upgrade()
    now = datetime.now(UTC)
    rows = [
        job_row(i, now + timedelta(seconds=first + spread * i / max(1, jobs - 1)), now)
        for i in range(jobs)
    ]
    async with db.engine.begin() as conn:
        for start in range(0, len(rows), 1000):
            await conn.execute(insert(JobRow), rows[start : start + 1000])
    # Tell the dispatchers, as the engine does for each job it creates.
    wakeups = Wakeups(db, _Nobody())
    wakeups.wake(rows[0]["next_run_at"])
    await asyncio.sleep(0.05)
    await wakeups.stop()
    await db.close()


class _Nobody:
    """No dispatcher in this process."""

    def wake(self, at: datetime | None = None) -> None:
        pass


async def open_jobs(url: str) -> int:
    db = Database(url)
    try:
        counts = await db.run(
            lambda s: s.query(JobRow).filter(JobRow.status == JobStatus.ACTIVE).count()
        )
    finally:
        await db.close()
    return int(counts)


async def start_worker(
    url: str, out: Path, max_sleep: float | None = None
) -> asyncio.subprocess.Process:
    args = [sys.executable, "-m", "tests.reliability.pg_worker", url, str(out)]
    if max_sleep is not None:
        args += ["--max-sleep", str(max_sleep)]
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = await asyncio.create_subprocess_exec(
        *args, cwd=ROOT, env=env, stdout=asyncio.subprocess.PIPE, stdin=asyncio.subprocess.DEVNULL
    )
    assert proc.stdout is not None
    line = await asyncio.wait_for(proc.stdout.readline(), 30)
    if line.strip() != b"ready":
        raise RuntimeError(f"worker did not start: {line!r}")
    return proc


async def stop_worker(proc: asyncio.subprocess.Process) -> None:
    with contextlib.suppress(ProcessLookupError):
        proc.send_signal(signal.SIGTERM)
    try:
        await asyncio.wait_for(proc.wait(), 10)
    except TimeoutError:
        proc.kill()
        await proc.wait()


def deliveries(outs: list[Path]) -> list[tuple[int, str, float]]:
    found = []
    for out in outs:
        if out.exists():
            for line in out.read_text().splitlines():
                job_id, nonce, late = line.split()
                found.append((int(job_id), nonce, float(late)))
    return found


def p99(values: list[float]) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, math.ceil(0.99 * len(ordered)) - 1)], 1)


async def multi_run(
    url: str, workdir: Path, *, processes: int = 2, jobs: int = 5000, spread: float = 5.0
) -> MultiReport:
    outs = [workdir / f"worker-{i}.txt" for i in range(processes)]
    db = Database(url)
    await db.upgrade()
    await db.close()
    workers = [await start_worker(url, out) for out in outs]
    try:
        await seed(url, jobs, first=1.0, spread=spread)
        deadline = asyncio.get_running_loop().time() + spread + 60
        while await open_jobs(url) and asyncio.get_running_loop().time() < deadline:
            await asyncio.sleep(0.5)
        await asyncio.sleep(0.5)
    finally:
        for w in workers:
            await stop_worker(w)
    found = deliveries(outs)
    per_job = Counter(job_id for job_id, _, _ in found)
    return MultiReport(
        processes=processes,
        jobs=jobs,
        lost=jobs - len(per_job),
        duplicates=sum(n - 1 for n in per_job.values()),
        p99_ms=p99([late for _, _, late in found]),
    )
