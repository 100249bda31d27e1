"""Storage: a thread's history is read, written over (one upsert) and forgotten."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlalchemy import select

from storage.conversations import ConversationStore
from storage.db import Database
from storage.models import Conversation

AT = datetime(2026, 11, 23, 8, 0, 1, 250_000, tzinfo=UTC)


async def test_save_writes_over_and_load_reads_back(db: Database) -> None:
    store = ConversationStore(db)
    assert await store.load(7) is None and not await store.exists(7)
    await store.save(7, '[{"a": 1}]', AT)
    await store.save(8, "[]", AT)
    await store.save(7, '[{"a": 2}]', AT + timedelta(minutes=1))
    assert await store.load(7) == '[{"a": 2}]' and await store.load(8) == "[]"
    assert await store.exists(7) and await store.exists(8)
    rows = await db.run(lambda s: list(s.scalars(select(Conversation))))
    stamps = {row.channel_id: row.updated_at for row in rows}
    assert stamps == {7: AT + timedelta(minutes=1), 8: AT}
    await store.delete(7)
    assert await store.load(7) is None and not await store.exists(7)
    assert await store.load(8) == "[]"
