"""Who may talk to the agent, and the daily model-request cap."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from bot.access import Usage, guild_allowed, roles_allowed
from bot.settings import load_settings
from storage.db import Database


def settings(**kw: object):  # type: ignore[no-untyped-def]
    return load_settings(_env_file=None, **kw)


def test_guilds_and_roles() -> None:
    open_ = settings()
    assert guild_allowed(open_, 5) and roles_allowed(open_, 5, [])
    only = settings(allowed_guild_ids="5,6", agent_role_ids="77")
    assert guild_allowed(only, 6) and not guild_allowed(only, 7) and guild_allowed(only, None)
    assert roles_allowed(only, 5, [1, 77]) and not roles_allowed(only, 5, [1])
    assert roles_allowed(only, None, [])  # DMs need no role


async def test_daily_cap_resets_next_day(tmp_path: Path) -> None:
    db = Database(f"sqlite+aiosqlite:///{tmp_path}/u.db")
    await db.upgrade()
    try:
        usage = Usage(db, cap=3)
        now = datetime(2026, 11, 23, 10, tzinfo=UTC)
        await usage.spend(1, now, 2)
        assert not await usage.over_cap(1, now)
        await usage.spend(1, now, 1)
        assert await usage.over_cap(1, now) and not await usage.over_cap(2, now)
        assert not await usage.over_cap(1, now + timedelta(days=1))
    finally:
        await db.close()
