"""The `approvals` table: jobs the agent proposed, waiting for their requester's decision."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import select, update

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
        async with self.db.session() as s, s.begin():
            s.add(row)
        return row

    async def get(self, approval_id: int) -> Approval | None:
        async with self.db.session() as s:
            return await s.get(Approval, approval_id)

    async def set_message(self, approval_id: int, message_id: int) -> None:
        async with self.db.session() as s, s.begin():
            await s.execute(
                update(Approval).where(Approval.id == approval_id).values(message_id=message_id)
            )

    async def decide(self, approval_id: int, status: str, now: datetime) -> Approval | None:
        """Move a pending approval to `status`; None if it was already decided (a double click)."""
        async with self.db.session() as s, s.begin():
            done = await s.execute(
                update(Approval)
                .where(Approval.id == approval_id, Approval.status == ApprovalStatus.PENDING)
                .values(status=status, decided_at=now)
            )
            if getattr(done, "rowcount", 0) != 1:
                return None
            return await s.get(Approval, approval_id)

    async def expired(self, now: datetime) -> list[Approval]:
        """Pending approvals whose time ran out (still pending: the caller decides them)."""
        async with self.db.session() as s:
            rows = await s.scalars(
                select(Approval)
                .where(Approval.status == ApprovalStatus.PENDING, Approval.expires_at <= now)
                .order_by(Approval.id)
            )
            return list(rows)

    async def pending(self, *, channel_id: int | None = None) -> list[Approval]:
        async with self.db.session() as s:
            q = select(Approval).where(Approval.status == ApprovalStatus.PENDING)
            if channel_id is not None:
                q = q.where(Approval.channel_id == channel_id)
            return list(await s.scalars(q.order_by(Approval.id)))
