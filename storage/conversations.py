"""The `conversations` table: one thread's message history as a JSON text blob."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import cast

from sqlalchemy import Table, bindparam, delete, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection

from storage.db import Database
from storage.models import Conversation
from storage.prepared import Prepared

_table = cast(Table, Conversation.__table__)
# Every fired run and every message reads and writes its thread's history: plain
# statements, one round trip each (a save is one upsert, not a read and then a write).
_LOAD = Prepared(
    select(_table.c.messages).where(_table.c.channel_id == bindparam("channel_id")),
    result=[_table.c.messages],
)
_EXISTS = Prepared(
    select(_table.c.channel_id).where(_table.c.channel_id == bindparam("channel_id")),
    result=[_table.c.channel_id],
)


def _upsert(insert: type[sqlite.Insert] | type[postgresql.Insert]) -> Prepared:
    row = insert(_table).values(
        channel_id=bindparam("channel_id"),
        messages=bindparam("messages"),
        updated_at=bindparam("updated_at"),
    )
    return Prepared(
        row.on_conflict_do_update(
            index_elements=[_table.c.channel_id],
            set_={"messages": row.excluded.messages, "updated_at": row.excluded.updated_at},
        )
    )


_SAVE = {"sqlite": _upsert(sqlite.Insert), "postgresql": _upsert(postgresql.Insert)}


class ConversationStore:
    """Load, save and forget a thread's stored message history (opaque JSON text)."""

    def __init__(self, db: Database) -> None:
        self.db = db

    async def load(self, channel_id: int) -> str | None:
        def work(conn: Connection) -> str | None:
            rows = _LOAD.rows(conn, {"channel_id": channel_id})
            return str(rows[0][0]) if rows else None

        return await self.db.run_core(work)

    async def save(self, channel_id: int, messages: str, now: datetime | None = None) -> None:
        values = {"channel_id": channel_id, "messages": messages, "updated_at": now or _now()}
        save = _SAVE[self.db.dialect]
        await self.db.run_core(lambda conn: save.many(conn, [values]))

    async def exists(self, channel_id: int) -> bool:
        """Whether Homar has talked in this thread before (it keeps listening there)."""
        return await self.db.run_core(
            lambda conn: bool(_EXISTS.rows(conn, {"channel_id": channel_id}))
        )

    async def delete(self, channel_id: int) -> None:
        stmt = delete(Conversation).where(Conversation.channel_id == channel_id)
        await self.db.run_core(lambda conn: conn.execute(stmt))


def _now() -> datetime:
    return datetime.now(UTC)
