"""What a server's admins allow Homar to do there (`/server everyone-pings`)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.orm import Session

from storage.db import Database
from storage.models import GuildSettings


class GuildSettingsStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def everyone_pings(self, guild_id: int) -> bool:
        """Whether reminders may ping @everyone/@here in this server (off unless enabled)."""

        def work(s: Session) -> bool:
            row = s.get(GuildSettings, guild_id)
            return bool(row is not None and row.everyone_pings)

        return await self.db.run(work)

    async def set_everyone_pings(self, guild_id: int, enabled: bool, now: datetime) -> None:
        def work(s: Session) -> None:
            row = s.get(GuildSettings, guild_id)
            if row is None:
                s.add(GuildSettings(guild_id=guild_id, everyone_pings=enabled, updated_at=now))
            else:
                row.everyone_pings, row.updated_at = enabled, now

        await self.db.run(work)
