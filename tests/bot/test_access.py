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


async def test_offline_answers_are_free(tmp_path: Path) -> None:
    """Without a model configured the offline model answers, and "offline replies are
    free" (.env.example): neither a conversation nor a fired job spends the daily cap."""
    from bot.clock import ManualClock
    from bot.console import CONSOLE_USER
    from bot.wiring import console

    now = datetime(2026, 11, 23, 14, tzinfo=UTC)
    clock = ManualClock(now)
    settings = load_settings(
        _env_file=None, database_url=f"sqlite+aiosqlite:///{tmp_path}/c.db", homar_model=None
    )
    lines: list[str] = []
    chat = console(settings, clock=clock, write=lines.append)
    runtime = chat.runtime
    await runtime.open()
    await runtime.start()
    try:
        await chat.submit("remind me in 1 minute to stretch")
        assert any("stretch" in line for line in lines)
        await clock.advance(timedelta(minutes=1))
        assert runtime.dispatcher is not None
        for _ in range(50):  # the fired job: delivered, re-fed, answered
            await runtime.dispatcher.idle()
            await runtime.queues.join()
            if not runtime.dispatcher.busy:
                break
        assert any("⏰" in line and "stretch" in line for line in lines)
        assert await runtime.usage.used(CONSOLE_USER, clock.now()) == 0
    finally:
        await runtime.close()
