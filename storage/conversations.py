"""The `conversations` table: one thread's message history as a JSON text blob."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import delete
from sqlalchemy.orm import Session

from storage.db import Database
from storage.models import Conversation


class ConversationStore:
    """Load, save and forget a thread's stored message history (opaque JSON text)."""

    def __init__(self, db: Database) -> None:
        self.db = db

    async def load(self, channel_id: int) -> str | None:
        def work(s: Session) -> str | None:
            row = s.get(Conversation, channel_id)
            return row.messages if row is not None else None

        return await self.db.run(work)

    async def save(self, channel_id: int, messages: str, now: datetime | None = None) -> None:
        stamp = now or datetime.now(UTC)

        def work(s: Session) -> None:
            row = s.get(Conversation, channel_id)
            if row is None:
                s.add(Conversation(channel_id=channel_id, messages=messages, updated_at=stamp))
            else:
                row.messages = messages
                row.updated_at = stamp

        await self.db.run(work)

    async def exists(self, channel_id: int) -> bool:
        """Whether Homar has talked in this thread before (it keeps listening there)."""
        return await self.db.run(lambda s: s.get(Conversation, channel_id) is not None)

    async def delete(self, channel_id: int) -> None:
        stmt = delete(Conversation).where(Conversation.channel_id == channel_id)
        await self.db.run(lambda s: s.execute(stmt))
