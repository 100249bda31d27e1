"""DM consent, per-server settings and templates as stored."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from storage.consents import ANYONE, ConsentStore
from storage.db import Database
from storage.guild_settings import GuildSettingsStore
from storage.templates import SavedTemplate, TemplateExists, TemplateStore

NOW = datetime(2026, 11, 23, 8, tzinfo=UTC)
ALICE, BOB, CAROL = 1, 2, 3


async def test_nobody_may_dm_remind_anyone_unless_allowed(db: Database) -> None:
    consents = ConsentStore(db)
    assert not await consents.allows(BOB, ALICE)
    assert await consents.allows(ALICE, ALICE)  # yourself, always
    await consents.set(BOB, ALICE, allowed=True, now=NOW)
    assert await consents.allows(BOB, ALICE) and not await consents.allows(BOB, CAROL)


async def test_a_block_of_one_person_wins_over_allowing_anyone(db: Database) -> None:
    consents = ConsentStore(db)
    await consents.set(BOB, ANYONE, allowed=True, now=NOW)
    await consents.set(BOB, CAROL, allowed=False, now=NOW)
    assert await consents.allows(BOB, ALICE) and not await consents.allows(BOB, CAROL)
    await consents.set(BOB, ANYONE, allowed=False, now=NOW)  # block everyone: allows go
    assert not await consents.allows(BOB, ALICE)
    await consents.set(BOB, ALICE, allowed=True, now=NOW)
    assert await consents.allows(BOB, ALICE)


async def test_everyone_pings_are_off_until_enabled(db: Database) -> None:
    settings = GuildSettingsStore(db)
    assert not await settings.everyone_pings(10)
    await settings.set_everyone_pings(10, True, NOW)
    assert await settings.everyone_pings(10) and not await settings.everyone_pings(11)
    await settings.set_everyone_pings(10, False, NOW)
    assert not await settings.everyone_pings(10)


async def test_templates_are_per_server_with_unique_names(db: Database) -> None:
    store = TemplateStore(db)
    saved = SavedTemplate("standup", ALICE, "standup", "every weekday", None, True, None)
    await store.save(10, saved, NOW)
    await store.save(11, saved, NOW)  # the same name in another server is another template
    with pytest.raises(TemplateExists):
        await store.save(10, saved, NOW)
    await store.save(10, SavedTemplate("rent", BOB, "pay rent", "monthly", None, False, None), NOW)
    assert await store.names(10, "") == ["rent", "standup"]
    assert await store.names(10, "st") == ["standup"]
    assert await store.get(10, "standup") == saved
    assert await store.get(12, "standup") is None
