"""The `approvals` table: jobs the agent proposed, waiting for their requester's decision."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import func, select, update
from sqlalchemy.orm import Session

from storage.db import Database
from storage.models import Approval


class ApprovalStatus:
    PENDING = "pending"
    APPROVED = "approved"
    DENIED = "denied"
    EXPIRED = "expired"


class ApprovalStore:
    """Open, read and decide approvals; a decision is taken once (compare-and-set on status)."""

    def __init__(self, db: Database) -> None:
        self.db = db

    async def add(
        self,
        *,
        channel_id: int,
        user_id: int,
        payload: dict[str, Any],
        created_at: datetime,
        expires_at: datetime,
    ) -> Approval:
        row = Approval(
            channel_id=channel_id,
            user_id=user_id,
            payload=payload,
            status=ApprovalStatus.PENDING,
            created_at=created_at,
            expires_at=expires_at,
        )

        def work(s: Session) -> Approval:
            s.add(row)
            s.flush()
            return row

        return await self.db.run(work)

    async def get(self, approval_id: int) -> Approval | None:
        return await self.db.run(lambda s: s.get(Approval, approval_id))

    async def set_message(self, approval_id: int, message_id: int) -> None:
        stmt = update(Approval).where(Approval.id == approval_id).values(message_id=message_id)
        await self.db.run(lambda s: s.execute(stmt))

    async def decide(self, approval_id: int, status: str, now: datetime) -> Approval | None:
        """Move a pending approval to `status`; None if it was already decided (a double click)."""
        stmt = (
            update(Approval)
            .where(Approval.id == approval_id, Approval.status == ApprovalStatus.PENDING)
            .values(status=status, decided_at=now)
        )

        def work(s: Session) -> Approval | None:
            done = s.execute(stmt)
            if getattr(done, "rowcount", 0) != 1:
                return None
            return s.get(Approval, approval_id)

        return await self.db.run(work)

    async def expired(self, now: datetime) -> list[Approval]:
        """Pending approvals whose time ran out (still pending: the caller decides them)."""
        q = (
            select(Approval)
            .where(Approval.status == ApprovalStatus.PENDING, Approval.expires_at <= now)
            .order_by(Approval.id)
        )
        return await self.db.run(lambda s: list(s.scalars(q)))

    async def in_channel(self, channel_id: int) -> list[Approval]:
        """Every approval ever opened in a thread, decided or not, oldest first."""
        q = select(Approval).where(Approval.channel_id == channel_id).order_by(Approval.id)
        return await self.db.run(lambda s: list(s.scalars(q)))

    async def count_pending(self) -> int:
        """How many approvals wait for an answer, everywhere."""
        q = select(func.count(Approval.id)).where(Approval.status == ApprovalStatus.PENDING)
        return await self.db.run(lambda s: int(s.scalar(q) or 0))

    async def pending(self, *, channel_id: int | None = None) -> list[Approval]:
        q = select(Approval).where(Approval.status == ApprovalStatus.PENDING)
        if channel_id is not None:
            q = q.where(Approval.channel_id == channel_id)
        return await self.db.run(lambda s: list(s.scalars(q.order_by(Approval.id))))
