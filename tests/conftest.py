"""Shared fixtures: a migrated temporary SQLite file, a hand-moved clock and an engine."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bot.clock import ManualClock
from storage.db import Database
from storage.jobs import JobStore
from tools.engine import Engine

START = datetime(2026, 11, 23, 8, 0, tzinfo=UTC)


@pytest.fixture
async def db(tmp_path: Path) -> AsyncIterator[Database]:
    database = Database(f"sqlite+aiosqlite:///{tmp_path / 'homar.db'}")
    await database.upgrade()
    yield database
    await database.close()


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(START)


@pytest.fixture
def engine(db: Database, clock: ManualClock) -> Engine:
    return Engine(JobStore(db), clock=clock.now)
