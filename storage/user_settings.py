"""A person's own settings by Discord user id: their time zone and today's model use."""

from __future__ import annotations

from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from storage.db import Database
from storage.models import UserSettings


class UserSettingsStore:
    """Reads and writes rows of `user_settings`."""

    def __init__(self, db: Database) -> None:
        self.db = db

    async def tz(self, user_id: int) -> str | None:
        """The zone the user chose, or None if they never set one."""

        def work(s: Session) -> str | None:
            row = s.get(UserSettings, user_id)
            return row.tz if row is not None and row.tz else None

        return await self.db.run(work)

    async def set_tz(self, user_id: int, tz: str) -> None:
        def work(s: Session) -> None:
            row = s.get(UserSettings, user_id)
            if row is None:
                s.add(UserSettings(user_id=user_id, tz=tz, usage_requests=0))
            else:
                row.tz = tz

        await self.db.run(work)

    async def requests_on(self, user_id: int, day: str) -> int:
        """Model requests the user caused on `day` (ISO date)."""

        def work(s: Session) -> int:
            row = s.get(UserSettings, user_id)
            return row.usage_requests if row is not None and row.usage_day == day else 0

        return await self.db.run(work)

    async def add_requests(self, user_id: int, day: str, requests: int) -> None:
        def work(s: Session) -> None:  # two first-ever requests at once: the loser retries
            row = s.get(UserSettings, user_id)
            if row is None:
                s.add(UserSettings(user_id=user_id, usage_day=day, usage_requests=requests))
            elif row.usage_day != day:
                row.usage_day, row.usage_requests = day, requests
            else:
                row.usage_requests = (row.usage_requests or 0) + requests

        try:
            await self.db.run(work)
        except IntegrityError:
            await self.db.run(work)
