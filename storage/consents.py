"""DM consent: whom a person lets remind them by DM (`/dm allow|block`)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from storage.db import Database
from storage.models import DmConsent

ANYONE = 0  # `from_user_id` for "anyone I share a server with"


class ConsentStore:
    """Rows of `dm_consents`; nobody may DM-remind anyone else unless allowed."""

    def __init__(self, db: Database) -> None:
        self.db = db

    async def set(self, user_id: int, from_user_id: int, *, allowed: bool, now: datetime) -> None:
        """Allow or block one person (or `ANYONE`); blocking everyone forgets single allows."""

        def work(s: Session) -> None:
            if from_user_id == ANYONE and not allowed:
                for row in s.scalars(select(DmConsent).where(DmConsent.user_id == user_id)):
                    if row.allowed:
                        s.delete(row)
            found = s.get(DmConsent, (user_id, from_user_id))
            if found is None:
                s.add(
                    DmConsent(
                        user_id=user_id, from_user_id=from_user_id, allowed=allowed, updated_at=now
                    )
                )
            else:
                found.allowed, found.updated_at = allowed, now

        await self.db.run(work)

    async def allows(self, user_id: int, from_user_id: int) -> bool:
        """Whether `from_user_id` may remind `user_id` by DM: a block of that person wins,
        then an allow of that person, then an allow of anyone; by default, no."""
        if user_id == from_user_id:
            return True

        def work(s: Session) -> bool:
            rows = {
                r.from_user_id: r.allowed
                for r in s.scalars(
                    select(DmConsent).where(
                        DmConsent.user_id == user_id,
                        DmConsent.from_user_id.in_((from_user_id, ANYONE)),
                    )
                )
            }
            if from_user_id in rows:
                return rows[from_user_id]
            return rows.get(ANYONE, False)

        return await self.db.run(work)
