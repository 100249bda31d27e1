"""The `conversations` table: one thread's message history as a JSON text blob."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import delete

from storage.db import Database
from storage.models import Conversation


class ConversationStore:
    """Load, save and forget a thread's stored message history (opaque JSON text)."""

    def __init__(self, db: Database) -> None:
        self.db = db

    async def load(self, channel_id: int) -> str | None:
        async with self.db.session() as s:
            row = await s.get(Conversation, channel_id)
            return row.messages if row is not None else None

    async def save(self, channel_id: int, messages: str, now: datetime | None = None) -> None:
        stamp = now or datetime.now(UTC)
        async with self.db.session() as s, s.begin():
            row = await s.get(Conversation, channel_id)
            if row is None:
                s.add(Conversation(channel_id=channel_id, messages=messages, updated_at=stamp))
            else:
                row.messages = messages
                row.updated_at = stamp

    async def delete(self, channel_id: int) -> None:
        async with self.db.session() as s, s.begin():
            await s.execute(delete(Conversation).where(Conversation.channel_id == channel_id))
