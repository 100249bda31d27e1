"""The `approvals` table: jobs the agent proposed, waiting for their requester's decision."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast

from sqlalchemy import Table, func, insert, select, update
from sqlalchemy.orm import Session

from storage.db import Database
from storage.models import ApprovalRow


@dataclass(frozen=True, slots=True)
class Approval:
    """An approval as storage hands it out: plain values, never a live row."""

    id: int
    channel_id: int
    user_id: int
    message_id: int | None
    status: str
    payload: dict[str, Any]
    created_at: datetime
    expires_at: datetime
    decided_at: datetime | None


_approvals = cast(Table, ApprovalRow.__table__)
_COLUMNS = [_approvals.c[f] for f in Approval.__slots__]


def _approvals_of(s: Session, q: Any) -> list[Approval]:
    return [Approval(*row) for row in s.execute(q)]


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
        stmt = (
            insert(ApprovalRow)
            .values(
                channel_id=channel_id,
                user_id=user_id,
                payload=payload,
                status=ApprovalStatus.PENDING,
                created_at=created_at,
                expires_at=expires_at,
            )
            .returning(*_COLUMNS)
        )
        return await self.db.run(lambda s: _approvals_of(s, stmt)[0])

    async def get(self, approval_id: int) -> Approval | None:
        q = select(*_COLUMNS).where(ApprovalRow.id == approval_id)
        return await self.db.run(lambda s: next(iter(_approvals_of(s, q)), None))

    async def set_message(self, approval_id: int, message_id: int) -> None:
        stmt = (
            update(ApprovalRow).where(ApprovalRow.id == approval_id).values(message_id=message_id)
        )
        await self.db.run(lambda s: s.execute(stmt))

    async def decide(self, approval_id: int, status: str, now: datetime) -> Approval | None:
        """Move a pending approval to `status`; None if it was already decided (a double click)."""
        stmt = (
            update(ApprovalRow)
            .where(ApprovalRow.id == approval_id, ApprovalRow.status == ApprovalStatus.PENDING)
            .values(status=status, decided_at=now)
            .returning(*_COLUMNS)
        )
        return await self.db.run(lambda s: next(iter(_approvals_of(s, stmt)), None))

    async def expired(self, now: datetime) -> list[Approval]:
        """Pending approvals whose time ran out (still pending: the caller decides them)."""
        q = (
            select(*_COLUMNS)
            .where(ApprovalRow.status == ApprovalStatus.PENDING, ApprovalRow.expires_at <= now)
            .order_by(ApprovalRow.id)
        )
        return await self.db.run(lambda s: _approvals_of(s, q))

    async def in_channel(self, channel_id: int) -> list[Approval]:
        """Every approval ever opened in a thread, decided or not, oldest first."""
        q = select(*_COLUMNS).where(ApprovalRow.channel_id == channel_id).order_by(ApprovalRow.id)
        return await self.db.run(lambda s: _approvals_of(s, q))

    async def count_pending(self) -> int:
        """How many approvals wait for an answer, everywhere."""
        q = select(func.count(ApprovalRow.id)).where(ApprovalRow.status == ApprovalStatus.PENDING)
        return await self.db.run(lambda s: int(s.scalar(q) or 0))

    async def pending(self, *, channel_id: int | None = None) -> list[Approval]:
        q = select(*_COLUMNS).where(ApprovalRow.status == ApprovalStatus.PENDING)
        if channel_id is not None:
            q = q.where(ApprovalRow.channel_id == channel_id)
        return await self.db.run(lambda s: _approvals_of(s, q.order_by(ApprovalRow.id)))
