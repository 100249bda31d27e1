"""Shared fixtures: a migrated database, a hand-moved clock, an engine, the fake-Discord
world, and one guard that forbids real model requests in every test.

`db` runs every test on SQLite and, when `HOMAR_TEST_PG_URL` names a PostgreSQL
server (e.g. `postgresql+asyncpg://homar:homar@127.0.0.1/homar_test`), again on
PostgreSQL: one scratch database per test session, emptied before each test.
"""

from __future__ import annotations

import asyncio
import os
import uuid
from collections.abc import AsyncIterator, Coroutine, Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pydantic_ai.models
import pytest
from sqlalchemy import text
from sqlalchemy.engine import make_url

from bot.clock import ManualClock
from storage.db import Database
from storage.jobs import JobStore
from tools.jobs.engine import Engine

if TYPE_CHECKING:
    from tests.bot.harness import World

START = datetime(2026, 11, 23, 8, 0, tzinfo=UTC)
PG_ENV = "HOMAR_TEST_PG_URL"
NO_PG = f"PostgreSQL tests need {PG_ENV}=postgresql+asyncpg://user:pass@host/db (.ci/run sets it)"


@pytest.fixture(autouse=True)
def _no_model_requests() -> Iterator[None]:
    """No test may reach a real model: pydantic-ai raises on any request a `FunctionModel`
    or the offline model does not answer. Restored afterwards for whatever runs next."""
    old = pydantic_ai.models.ALLOW_MODEL_REQUESTS
    pydantic_ai.models.ALLOW_MODEL_REQUESTS = False
    yield
    pydantic_ai.models.ALLOW_MODEL_REQUESTS = old


def pg_admin_url() -> str | None:
    return os.environ.get(PG_ENV) or None


def _blocking(coro: Coroutine[Any, Any, None]) -> None:
    """Run `coro` to completion on its own loop (the session fixture may be set up inside one)."""
    with ThreadPoolExecutor(1) as pool:
        pool.submit(asyncio.run, coro).result()


async def _admin(url: str, sql: str) -> None:
    import asyncpg

    parsed = make_url(url)
    conn = await asyncpg.connect(
        user=parsed.username,
        password=parsed.password,
        host=parsed.host or "127.0.0.1",
        port=parsed.port or 5432,
        database=parsed.database,
    )
    try:
        await conn.execute(sql)
    finally:
        await conn.close()


@pytest.fixture(scope="session")
def pg_url() -> Iterator[str]:
    """A PostgreSQL database of this test session's own, migrated once, dropped at the end."""
    admin = pg_admin_url()
    if admin is None:
        pytest.skip(NO_PG)
    name = f"homar_t_{uuid.uuid4().hex[:12]}"
    _blocking(_admin(admin, f'CREATE DATABASE "{name}"'))
    url = make_url(admin).set(database=name).render_as_string(hide_password=False)

    async def migrate() -> None:
        database = Database(url)
        await database.upgrade()
        await database.close()

    _blocking(migrate())
    yield url
    _blocking(_admin(admin, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


async def fresh_pg(url: str) -> Database:
    """The session's PostgreSQL database, emptied (ids restart at 1)."""
    database = Database(url)
    async with database.engine.begin() as conn:
        rows = await conn.execute(
            text(
                "SELECT tablename FROM pg_tables WHERE schemaname = 'public' "
                "AND tablename <> 'alembic_version'"
            )
        )
        tables = ", ".join(f'"{r[0]}"' for r in rows)
        if tables:
            await conn.execute(text(f"TRUNCATE {tables} RESTART IDENTITY CASCADE"))
    return database


@pytest.fixture(params=["sqlite", "postgresql"])
async def any_db(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Database]:
    if request.param == "postgresql":
        only = request.node.get_closest_marker("sqlite_only")
        if only is not None:
            pytest.skip(f"SQLite only: {only.args[0] if only.args else 'SQLite behaviour'}")
        database = await fresh_pg(request.getfixturevalue("pg_url"))
    else:
        database = Database(f"sqlite+aiosqlite:///{tmp_path / 'homar.db'}")
        await database.upgrade()
    yield database
    await database.close()


@pytest.fixture
def db(any_db: Database) -> Database:
    return any_db


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(START)


@pytest.fixture
def engine(db: Database, clock: ManualClock) -> Engine:
    return Engine(JobStore(db), clock=clock.now)


@pytest.fixture
async def world(tmp_path: Path) -> AsyncIterator[World]:
    """A started fake Discord (discord.py pointed at it) with a server, #general, alice and
    bob, a SQLite file for the bot and a hand-moved clock; start the bot with `running_bot`."""
    # Imported here so tests that never touch Discord don't load discord.py through conftest.
    from tests.bot.harness import make_world
    from tests.fakediscord import running_fake

    async with running_fake() as fake:
        yield make_world(fake, tmp_path)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "sqlite_only: runs on SQLite only (not PostgreSQL)")
