"""A person's own settings (their time zone) by Discord user id."""

from __future__ import annotations

from storage.db import Database
from storage.models import UserSettings


class UserSettingsStore:
    """Reads and writes rows of `user_settings`."""

    def __init__(self, db: Database) -> None:
        self.db = db

    async def tz(self, user_id: int) -> str | None:
        """The zone the user chose, or None if they never set one."""
        async with self.db.session() as s:
            row = await s.get(UserSettings, user_id)
        return row.tz if row is not None and row.tz else None

    async def set_tz(self, user_id: int, tz: str) -> None:
        async with self.db.sessions.begin() as s:
            row = await s.get(UserSettings, user_id)
            if row is None:
                s.add(UserSettings(user_id=user_id, tz=tz, usage_requests=0))
            else:
                row.tz = tz
