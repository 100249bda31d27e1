"""SQLite transactions: one kept connection per engine, and a busy database waited out
off the event loop (another process holding the write lock)."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

from sqlalchemy import text
from sqlalchemy.engine import Connection

from storage.db import Database


def _count(conn: Connection) -> int:
    return int(conn.execute(text("SELECT count(*) FROM conversations")).scalar_one())


def _insert(channel_id: int):  # type: ignore[no-untyped-def]
    def work(conn: Connection) -> int:
        conn.execute(
            text(
                "INSERT INTO conversations (channel_id, messages, updated_at) "
                "VALUES (:c, '[]', '2026-11-23 08:00:00.000000')"
            ),
            {"c": channel_id},
        )
        return _count(conn)

    return work


async def test_a_locked_database_is_waited_out_then_the_kept_connection_goes_on(
    tmp_path: Path,
) -> None:
    path = tmp_path / "homar.db"
    db = Database(f"sqlite+aiosqlite:///{path}")
    await db.upgrade()
    try:
        assert await db.run_core(_insert(1)) == 1
        other = sqlite3.connect(path, isolation_level=None)
        other.execute("BEGIN IMMEDIATE")  # another process holds the write lock
        loop = asyncio.get_running_loop()
        loop.call_later(0.2, other.execute, "COMMIT")
        assert await db.run_core(_insert(2)) == 2  # waited for on the worker thread
        other.close()
        # The inline connection whose BEGIN found the database busy is fine afterwards.
        assert await db.run_core(_insert(3)) == 3
        assert await db.run(lambda s: s.connection().execute(text("SELECT 1")).scalar()) == 1
        assert await db.run_core(_count) == 3
    finally:
        await db.close()


async def test_a_failed_transaction_writes_nothing_and_the_next_one_works(
    tmp_path: Path,
) -> None:
    db = Database(f"sqlite+aiosqlite:///{tmp_path / 'homar.db'}")
    await db.upgrade()

    def half_then_fail(conn: Connection) -> None:
        _insert(1)(conn)
        raise RuntimeError("refused")

    try:
        try:
            await db.run_core(half_then_fail)
        except RuntimeError:
            pass
        assert await db.run_core(_count) == 0
        assert await db.run_core(_insert(2)) == 1
    finally:
        await db.close()
