"""One dispatcher process on a shared PostgreSQL database, for the multi-process test and bench.

    python -m tests.reliability.pg_worker DATABASE_URL OUT_FILE [--max-sleep SECONDS]

Delivers due jobs with a transport that appends `job_id nonce lateness_ms` to OUT_FILE
(one line per delivery, flushed), wakes on NOTIFY like the bot does, and runs until
SIGTERM. It prints `ready` once it is listening.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import signal
import sys
from datetime import UTC, datetime
from typing import TextIO

from bot.clock import SystemClock
from bot.dispatcher import Delivered, Delivery, Dispatcher
from bot.wakeups import POLL_SECONDS, Wakeups
from storage.db import Database
from storage.jobs import JobStore
from tools.jobs.engine import Engine


class FileTransport:
    """Records each delivery with its real-clock lateness."""

    def __init__(self, out: TextIO) -> None:
        self.out = out

    async def deliver(self, delivery: Delivery) -> Delivered:
        late = (datetime.now(UTC) - delivery.scheduled_for).total_seconds() * 1000
        self.out.write(f"{delivery.job.id} {delivery.run.nonce} {late:.1f}\n")
        self.out.flush()
        return Delivered(message_id=delivery.job.id)


async def main(url: str, out_path: str, max_sleep: float) -> None:
    db = Database(url)
    await db.upgrade()
    clock = SystemClock(max_sleep=max_sleep)
    engine = Engine(JobStore(db), clock=clock.now)
    with open(out_path, "a", encoding="utf-8") as out:  # noqa: ASYNC230 (once, at start)
        dispatcher = Dispatcher(engine, FileTransport(out), clock=clock)
        wakeups = Wakeups(db, dispatcher)
        engine.waker = wakeups
        await wakeups.start()
        await dispatcher.start()
        await asyncio.wait_for(wakeups.listening.wait(), 10)
        print("ready", flush=True)
        stop = asyncio.Event()
        asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
        await stop.wait()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(dispatcher.idle(), 5)
        await wakeups.stop()
        await dispatcher.stop()
    await db.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("url")
    parser.add_argument("out")
    parser.add_argument("--max-sleep", type=float, default=POLL_SECONDS)
    args = parser.parse_args()
    asyncio.run(main(args.url, args.out, args.max_sleep))
    sys.exit(0)
