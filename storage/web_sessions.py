"""Dashboard sign-ins (`web_sessions`) and the one-time links already used (`web_used_links`)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import delete, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from storage.db import Database
from storage.models import WebSession, WebUsedLink


@dataclass(frozen=True)
class SignedIn:
    """A live session: who, the guilds Discord listed at sign-in, and its CSRF token."""

    token_hash: str
    user_id: int
    user_name: str
    guild_ids: tuple[int, ...]
    csrf: str
    expires_at: datetime


def _signed_in(row: WebSession) -> SignedIn:
    ids = row.guild_ids.get("ids", []) if isinstance(row.guild_ids, dict) else []
    return SignedIn(
        row.token_hash,
        row.user_id,
        row.user_name,
        tuple(int(i) for i in ids),
        row.csrf,
        row.expires_at,
    )


class WebSessionStore:
    """Creates, finds and ends dashboard sessions; records used sign-in links."""

    def __init__(self, db: Database) -> None:
        self.db = db

    async def create(
        self,
        *,
        token_hash: str,
        user_id: int,
        user_name: str,
        guild_ids: list[int],
        csrf: str,
        now: datetime,
        expires_at: datetime,
    ) -> SignedIn:
        def work(s: Session) -> SignedIn:
            s.execute(delete(WebSession).where(WebSession.expires_at <= now))
            row = WebSession(
                token_hash=token_hash,
                user_id=user_id,
                user_name=user_name[:100],
                guild_ids={"ids": [str(g) for g in guild_ids]},
                csrf=csrf,
                created_at=now,
                expires_at=expires_at,
            )
            s.add(row)
            s.flush()
            return _signed_in(row)

        return await self.db.run(work)

    async def get(self, token_hash: str, now: datetime) -> SignedIn | None:
        def work(s: Session) -> SignedIn | None:
            row = s.get(WebSession, token_hash)
            if row is None or row.expires_at <= now:
                return None
            return _signed_in(row)

        return await self.db.run(work)

    async def end(self, token_hash: str) -> None:
        await self.db.run(
            lambda s: s.execute(delete(WebSession).where(WebSession.token_hash == token_hash))
        )

    async def end_all(self, user_id: int) -> int:
        """Sign the user out on every device; returns how many sessions ended."""

        def work(s: Session) -> int:
            hashes = s.scalars(
                select(WebSession.token_hash).where(WebSession.user_id == user_id)
            ).all()
            s.execute(delete(WebSession).where(WebSession.user_id == user_id))
            return len(hashes)

        return await self.db.run(work)

    async def use_link(self, link_id: str, expires_at: datetime, now: datetime) -> bool:
        """Mark a one-time link used; False if it was used before (on any process)."""

        def work(s: Session) -> None:
            s.execute(delete(WebUsedLink).where(WebUsedLink.expires_at <= now))
            s.add(WebUsedLink(link_id=link_id, expires_at=expires_at))

        try:
            await self.db.run(work)
        except IntegrityError:
            return False
        return True
