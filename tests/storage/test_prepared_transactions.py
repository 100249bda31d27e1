"""`Database.run_prepared`: prepared statements in a transaction begun and committed on
the SQLite driver itself; a failure writes nothing, a busy database is waited out."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest
from sqlalchemy import JSON, bindparam, insert, select
from sqlalchemy.engine import Connection

from storage.db import Database
from storage.models import Conversation, UTCDateTime
from storage.prepared import Prepared
from tests.conftest import START

_ADD = Prepared(
    insert(Conversation).values(
        channel_id=bindparam("channel_id"),
        messages=bindparam("messages", type_=JSON()),
        updated_at=bindparam("updated_at", type_=UTCDateTime()),
    )
)
_COUNT = Prepared(select(Conversation.channel_id))


def _add(channel_id: int):  # type: ignore[no-untyped-def]
    def work(conn: Connection) -> int:
        _ADD.many(conn, [{"channel_id": channel_id, "messages": [], "updated_at": START}])
        return len(_COUNT.rows(conn))

    return work


async def test_a_failure_writes_nothing_and_the_next_transaction_works(db: Database) -> None:
    def half_then_fail(conn: Connection) -> None:
        _add(1)(conn)
        raise RuntimeError("refused")

    with pytest.raises(RuntimeError):
        await db.run_prepared(half_then_fail)
    assert await db.run_prepared(lambda conn: len(_COUNT.rows(conn))) == 0
    assert await db.run_prepared(_add(2)) == 1
    assert await db.run_core(lambda conn: len(_COUNT.rows(conn))) == 1  # committed


async def test_a_constraint_failure_rolls_back_what_came_before(db: Database) -> None:
    def twice(conn: Connection) -> None:
        _add(1)(conn)
        _add(1)(conn)  # the same primary key

    with pytest.raises(Exception):  # noqa: B017 - each driver's integrity error
        await db.run_prepared(twice)
    assert await db.run_prepared(_add(3)) == 1


async def test_a_busy_database_is_waited_out_off_the_loop(tmp_path: Path) -> None:
    path = tmp_path / "homar.db"
    db = Database(f"sqlite+aiosqlite:///{path}")
    await db.upgrade()
    try:
        assert await db.run_prepared(_add(1)) == 1
        other = sqlite3.connect(path, isolation_level=None)
        other.execute("BEGIN IMMEDIATE")  # another process holds the write lock
        released = asyncio.Event()

        def release() -> None:
            other.execute("COMMIT")
            released.set()

        asyncio.get_running_loop().call_soon(release)  # runs while the worker waits
        assert await db.run_prepared(_add(2)) == 2
        assert released.is_set()
        other.close()
        assert await db.run_prepared(_add(3)) == 3  # the inline connection goes on
        assert await db.run_core(lambda conn: len(_COUNT.rows(conn))) == 3
    finally:
        await db.close()
