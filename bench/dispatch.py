"""Dispatcher benchmark: SQLite file, no-op transport, real clock.

Run without arguments (``python -m bench.dispatch`` or ``python bench/dispatch.py``)
it measures, on fresh SQLite files in a temporary directory:

- ``start_ms`` / ``rss_mb``: 1,000,000 pending jobs; a fresh subprocess that imports
  only what the dispatcher needs opens the database and runs the dispatcher until its
  first sleep (from before opening the DB; ``start_ms_process`` counts from the
  subprocess's launch, imports included). ``rss_mb`` is that subprocess's peak RSS.
- ``create_per_s``: jobs created one commit each through ``Engine.create``, with its
  quota and duplicate checks (1,000 owners).
- ``burst_p50_ms`` / ``burst_p99_ms``: 2,000 jobs due in the same second; lateness is
  the transport's real-clock delivery time minus the scheduled slot.
- ``spread_p99_ms``: 200 jobs spread over 20 seconds.

Human-readable lines go first, the JSON line last. Targets (2-core machine): start
<= 1,000 ms, RSS <= 150 MB, create >= 3,000/s, burst p99 <= 100 ms, spread p99 <= 20 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import resource
import sqlite3
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

TARGETS = {
    "start_ms": 1000.0,
    "rss_mb": 150.0,
    "create_per_s": 3000.0,
    "burst_p99_ms": 100.0,
    "spread_p99_ms": 20.0,
}

_JOB_COLUMNS = (
    "owner_id, guild_id, channel_id, parent_channel_id, command, kind, schedule, tz, status, "
    "created_by, created_at, updated_at, next_run_at, run_count, failure_streak"
)


def _sql_time(at: datetime) -> str:
    """The text SQLAlchemy's SQLite DateTime stores (naive UTC, microseconds)."""
    return at.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S.%f")


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    k = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[k]


async def _open(path: Path):  # type: ignore[no-untyped-def]
    from storage.db import Database

    db = Database(f"sqlite+aiosqlite:///{path}")
    await db.upgrade()
    return db


def seed(path: Path, slots: list[datetime], *, chunk: int = 50_000) -> float:
    """Bulk-insert one-shot jobs due at `slots` with plain sqlite3 (schema must exist)."""
    t0 = time.perf_counter()
    now = _sql_time(datetime.now(UTC))
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=OFF")
    conn.execute("PRAGMA cache_size=-200000")
    sql = f"INSERT INTO jobs ({_JOB_COLUMNS}) VALUES ({', '.join('?' * 15)})"
    for start in range(0, len(slots), chunk):
        rows = []
        for i, at in enumerate(slots[start : start + chunk], start):
            schedule = json.dumps({"type": "once", "at": at.isoformat()})
            rows.append(
                (
                    1000 + i % 5000,  # owner
                    42,  # guild
                    10_000 + i % 20_000,  # thread
                    7,
                    f"bench job {i}",
                    "scheduled",
                    schedule,
                    "UTC",
                    "active",
                    "user",
                    now,
                    now,
                    _sql_time(at),
                    0,
                    0,
                )
            )
        with conn:
            conn.executemany(sql, rows)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    return time.perf_counter() - t0


# ------------------------------------------------------------------ start-up (child process)


def _peak_rss_kb() -> float:
    """This process's peak RSS. On Linux ru_maxrss can carry the parent's high-water mark
    across fork+exec, so prefer VmHWM (reset by exec)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return float(line.split()[1])
    except OSError:
        pass
    return float(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)


def child_start(path: str) -> None:
    """Open the DB and run a dispatcher to its first sleep; print timings as JSON."""
    t_open = time.perf_counter()
    from bot.clock import SystemClock
    from bot.dispatcher import Delivered, Delivery, Dispatcher
    from storage.db import Database
    from storage.jobs import JobStore
    from tools.engine import Engine

    class Noop:
        async def deliver(self, delivery: Delivery) -> Delivered:
            return Delivered(message_id=None)

    async def main() -> dict[str, float]:
        t_db = time.perf_counter()
        db = Database(f"sqlite+aiosqlite:///{path}")
        await db.upgrade()
        clock = SystemClock()
        engine = Engine(JobStore(db), clock=clock.now)
        dispatcher = Dispatcher(engine, Noop(), clock=clock)
        engine.waker = dispatcher
        await dispatcher.start()
        await dispatcher.sleeping.wait()
        first = dispatcher.first_sleep_at
        assert first is not None
        await dispatcher.stop()
        await db.close()
        return {"t_db": t_db, "first_sleep_at": first}

    out = asyncio.run(main())
    out["t_open"] = t_open
    out["maxrss_kb"] = _peak_rss_kb()
    out["modules"] = sorted(
        m for m in sys.modules if m.split(".")[0] in ("discord", "pydantic_ai", "pydantic")
    )  # type: ignore[assignment]
    print(json.dumps(out))


def measure_start(path: Path) -> dict[str, float]:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    launched = time.perf_counter()  # CLOCK_MONOTONIC: comparable across processes on Linux
    proc = subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), "--child-start", str(path)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    data = json.loads(proc.stdout.strip().splitlines()[-1])
    if data["modules"]:
        print(f"  warning: start-up imported {data['modules'][:5]}")
    return {
        "start_ms": (data["first_sleep_at"] - data["t_db"]) * 1000,
        "start_ms_process": (data["first_sleep_at"] - launched) * 1000,
        "rss_mb": data["maxrss_kb"] / 1024,
    }


# ------------------------------------------------------------------ create rate


async def measure_create(path: Path, n: int) -> float:
    from storage.jobs import JobStore
    from tools.engine import Engine, Target
    from tools.schedule import Once, Schedule

    db = await _open(path)
    engine = Engine(JobStore(db))
    base = datetime.now(UTC) + timedelta(days=1)
    specs = [Schedule(Once(base + timedelta(seconds=i))) for i in range(n)]
    # Warm up (connection pool, statement cache) outside the timing.
    for i in range(50):
        await engine.create(
            target=Target(owner_id=1, channel_id=2),
            command=f"warm {i}",
            schedule=Schedule(Once(base - timedelta(seconds=i + 1))),
            kind="scheduled",
            check_limits=False,
        )
    t0 = time.perf_counter()
    for i, schedule in enumerate(specs):
        await engine.create(
            target=Target(owner_id=100 + i % 1000, channel_id=5000 + i % 300, guild_id=9),
            command=f"remind me about thing {i}",
            schedule=schedule,
            kind="scheduled",
        )
    elapsed = time.perf_counter() - t0
    await db.close()
    return n / elapsed


# ------------------------------------------------------------------ lateness


async def measure_lateness(path: Path, slots: list[datetime]) -> list[float]:
    """Run a dispatcher (real clock) over jobs due at `slots`; lateness in ms per delivery."""
    from bot.clock import SystemClock
    from bot.dispatcher import Delivered, Delivery, Dispatcher
    from storage.jobs import JobStore
    from tools.engine import Engine

    db = await _open(path)
    seed(path, slots)
    clock = SystemClock()
    engine = Engine(JobStore(db), clock=clock.now)
    lateness: list[float] = []
    done = asyncio.Event()
    total = len(slots)

    class Recording:
        async def deliver(self, delivery: Delivery) -> Delivered:
            late = datetime.now(UTC) - delivery.scheduled_for
            lateness.append(late.total_seconds() * 1000)
            if len(lateness) >= total:
                done.set()
            return Delivered(message_id=None)

    dispatcher = Dispatcher(engine, Recording(), clock=clock)
    engine.waker = dispatcher
    await dispatcher.start()
    await dispatcher.sleeping.wait()
    last = max(slots)
    await asyncio.wait_for(done.wait(), (last - datetime.now(UTC)).total_seconds() + 60)
    await dispatcher.idle()
    await dispatcher.stop()
    from sqlalchemy import text

    async with db.engine.connect() as conn:
        recorded = (
            await conn.execute(text("SELECT count(*) FROM job_runs WHERE outcome='delivered'"))
        ).scalar_one()
    await db.close()
    if recorded != total:
        print(f"  warning: {recorded} of {total} runs recorded as delivered")
    return lateness


# ------------------------------------------------------------------ main


async def run_all(args: argparse.Namespace, tmp: Path) -> dict[str, float]:
    result: dict[str, float] = {"pending": args.pending}

    # 1. start-up with N pending jobs
    big = tmp / "pending.db"
    db = await _open(big)
    await db.close()
    now = datetime.now(UTC)
    rng = random.Random(1)
    horizon = 365 * 86400
    slots = [now + timedelta(hours=1, seconds=rng.uniform(0, horizon)) for _ in range(args.pending)]
    took = seed(big, slots)
    del slots
    print(f"seeded {args.pending:,} pending jobs in {took:.1f} s ({big.stat().st_size >> 20} MB)")
    runs = [measure_start(big) for _ in range(args.start_runs)]
    best = min(runs, key=lambda r: r["start_ms"])
    result["start_ms"] = round(best["start_ms"], 1)
    result["start_ms_process"] = round(best["start_ms_process"], 1)
    result["rss_mb"] = round(max(r["rss_mb"] for r in runs), 1)
    print(
        f"start to first sleep: {best['start_ms']:.0f} ms from opening the DB, "
        f"{best['start_ms_process']:.0f} ms from process launch "
        f"(all runs: {[round(r['start_ms']) for r in runs]}); peak RSS {result['rss_mb']} MB"
    )

    # 2. create rate
    rate = await measure_create(tmp / "create.db", args.creates)
    result["create_per_s"] = round(rate)
    print(f"Engine.create, one commit each: {rate:,.0f} jobs/s over {args.creates:,} jobs")

    # 3. burst: N jobs due in the same second
    at = datetime.now(UTC).replace(microsecond=0) + timedelta(seconds=3)
    burst = await measure_lateness(tmp / "burst.db", [at] * args.burst)
    result["burst_p50_ms"] = round(_percentile(burst, 50), 1)
    result["burst_p99_ms"] = round(_percentile(burst, 99), 1)
    print(
        f"{args.burst:,} due at once: lateness p50 {result['burst_p50_ms']} ms, "
        f"p99 {result['burst_p99_ms']} ms, max {max(burst):.1f} ms"
    )

    # 4. spread: N jobs over S seconds
    start = datetime.now(UTC) + timedelta(seconds=2)
    spread_slots = sorted(
        start + timedelta(seconds=rng.uniform(0, args.spread_seconds)) for _ in range(args.spread)
    )
    spread = await measure_lateness(tmp / "spread.db", spread_slots)
    result["spread_p50_ms"] = round(_percentile(spread, 50), 1)
    result["spread_p99_ms"] = round(_percentile(spread, 99), 1)
    print(
        f"{args.spread} spread over {args.spread_seconds:.0f} s: lateness p50 "
        f"{result['spread_p50_ms']} ms, p99 {result['spread_p99_ms']} ms, max {max(spread):.1f} ms"
    )
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pending", type=int, default=1_000_000)
    parser.add_argument("--creates", type=int, default=5_000)
    parser.add_argument("--burst", type=int, default=2_000)
    parser.add_argument("--spread", type=int, default=200)
    parser.add_argument("--spread-seconds", type=float, default=20.0)
    parser.add_argument("--start-runs", type=int, default=3)
    parser.add_argument("--child-start", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child_start:
        child_start(args.child_start)
        return
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="homar-bench-") as tmp:
        result = asyncio.run(run_all(args, Path(tmp)))
    checks = []
    for key, target in TARGETS.items():
        value = result[key]
        ok = value >= target if key == "create_per_s" else value <= target
        checks.append(f"{key} {'ok' if ok else 'MISSED'} ({value} vs {target})")
    print("targets: " + "; ".join(checks))
    print(f"total {time.perf_counter() - t0:.0f} s")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
