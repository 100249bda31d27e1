"""A thread's to-do list: add, read and close items, one transaction per call."""

from __future__ import annotations

import builtins
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import func, or_, select
from sqlalchemy.orm import Session

from storage.db import Database
from storage.models import Todo


class TodoStatus:
    PENDING = "pending"
    DONE = "done"
    REMOVED = "removed"
    DECLINED = "declined"  # the heartbeat's owner said no to working on someone else's to-do


@dataclass(frozen=True, slots=True)
class TodoItem:
    """One to-do as plain values (safe to use after its session has closed)."""

    id: int
    channel_id: int
    description: str
    status: str
    created_by: int | None
    created_at: datetime
    completed_at: datetime | None
    attempts: int = 0
    approved_by: int | None = None

    @classmethod
    def of(cls, row: Todo) -> TodoItem:
        return cls(
            row.id,
            row.channel_id,
            row.description,
            row.status,
            row.created_by,
            row.created_at,
            row.completed_at,
            row.attempts or 0,
            row.approved_by,
        )


class TodoStore:
    """Rows of `todos`, always scoped to one thread (channel)."""

    def __init__(self, db: Database) -> None:
        self.db = db

    async def add(
        self, channel_id: int, description: str, created_by: int | None, now: datetime
    ) -> TodoItem:
        def work(s: Session) -> TodoItem:
            row = Todo(
                channel_id=channel_id,
                description=description,
                status=TodoStatus.PENDING,
                created_by=created_by,
                created_at=now,
            )
            s.add(row)
            s.flush()
            return TodoItem.of(row)

        return await self.db.run(work)

    async def list(
        self, channel_id: int, *, include_done: bool = False, limit: int = 50
    ) -> builtins.list[TodoItem]:
        """Pending items oldest first (then, if asked, done ones, most recent first)."""
        statuses = [TodoStatus.PENDING, TodoStatus.DONE] if include_done else [TodoStatus.PENDING]
        q = (
            select(Todo)
            .where(Todo.channel_id == channel_id, Todo.status.in_(statuses))
            .order_by(
                Todo.status != TodoStatus.PENDING,
                Todo.completed_at.desc(),
                Todo.id,
            )
            .limit(limit)
        )
        return await self.db.run(lambda s: [TodoItem.of(r) for r in s.scalars(q).all()])

    async def oldest_pending(self, channel_id: int) -> TodoItem | None:
        q = (
            select(Todo)
            .where(Todo.channel_id == channel_id, Todo.status == TodoStatus.PENDING)
            .order_by(Todo.id)
            .limit(1)
        )

        def work(s: Session) -> TodoItem | None:
            row = s.scalars(q).first()
            return TodoItem.of(row) if row is not None else None

        return await self.db.run(work)

    async def workable(
        self, channel_id: int, owner_id: int, max_attempts: int
    ) -> builtins.list[TodoItem]:
        """Pending items the heartbeat of `owner_id` may still try, oldest first: its own,
        or approved by it, and tried fewer than `max_attempts` times."""
        q = (
            select(Todo)
            .where(
                Todo.channel_id == channel_id,
                Todo.status == TodoStatus.PENDING,
                Todo.attempts < max_attempts,
                or_(Todo.created_by == owner_id, Todo.approved_by == owner_id),
            )
            .order_by(Todo.id)
        )
        return await self.db.run(lambda s: [TodoItem.of(r) for r in s.scalars(q).all()])

    async def awaiting_consent(self, channel_id: int, owner_id: int) -> builtins.list[TodoItem]:
        """Pending items someone other than `owner_id` added and `owner_id` hasn't approved."""
        q = (
            select(Todo)
            .where(
                Todo.channel_id == channel_id,
                Todo.status == TodoStatus.PENDING,
                or_(Todo.created_by.is_(None), Todo.created_by != owner_id),
                or_(Todo.approved_by.is_(None), Todo.approved_by != owner_id),
            )
            .order_by(Todo.id)
        )
        return await self.db.run(lambda s: [TodoItem.of(r) for r in s.scalars(q).all()])

    async def start_attempt(self, channel_id: int, todo_id: int) -> TodoItem | None:
        """Count one more heartbeat run on a pending item (before it starts, so a crash
        counts too); None if it is no longer pending."""

        def work(s: Session) -> TodoItem | None:
            row = s.get(Todo, todo_id)
            if row is None or row.channel_id != channel_id or row.status != TodoStatus.PENDING:
                return None
            row.attempts = (row.attempts or 0) + 1
            s.flush()
            return TodoItem.of(row)

        return await self.db.run(work)

    async def approve(self, channel_id: int, todo_id: int, by: int) -> TodoItem | None:
        """Record that `by` (the heartbeat's owner) lets the heartbeat work on this item."""

        def work(s: Session) -> TodoItem | None:
            row = s.get(Todo, todo_id)
            if row is None or row.channel_id != channel_id or row.status != TodoStatus.PENDING:
                return None
            row.approved_by = by
            s.flush()
            return TodoItem.of(row)

        return await self.db.run(work)

    async def count_pending(self, channel_id: int) -> int:
        q = select(func.count(Todo.id)).where(
            Todo.channel_id == channel_id, Todo.status == TodoStatus.PENDING
        )
        return await self.db.run(lambda s: int(s.scalar(q) or 0))

    async def get(self, channel_id: int, todo_id: int) -> TodoItem | None:
        def work(s: Session) -> TodoItem | None:
            row = s.get(Todo, todo_id)
            return TodoItem.of(row) if row is not None and row.channel_id == channel_id else None

        return await self.db.run(work)

    async def close(
        self, channel_id: int, todo_id: int, status: str, now: datetime
    ) -> TodoItem | None:
        """Mark a pending item done or removed; None if it isn't a pending item of this thread."""

        def work(s: Session) -> TodoItem | None:
            row = s.get(Todo, todo_id)
            if row is None or row.channel_id != channel_id or row.status != TodoStatus.PENDING:
                return None
            row.status = status
            row.completed_at = now
            s.flush()
            return TodoItem.of(row)

        return await self.db.run(work)

    async def channels_of(self, user_id: int, *, limit: int = 50) -> builtins.list[int]:
        """Threads where `user_id` wrote to-dos still pending (for the dashboard)."""
        q = (
            select(Todo.channel_id)
            .where(Todo.created_by == user_id, Todo.status == TodoStatus.PENDING)
            .distinct()
            .limit(limit)
        )
        return await self.db.run(lambda s: [int(c) for c in s.scalars(q).all()])
