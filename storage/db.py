"""Database connection: engine, sessions and migrations for SQLite or PostgreSQL."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from sqlalchemy import event, text
from sqlalchemy.engine import Connection, make_url
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker, create_async_engine

log = logging.getLogger(__name__)

MIGRATIONS = Path(__file__).with_name("migrations")
HEAD_REVISION = "0001"


class Database:
    """One database: an async engine, a session factory and its migrations."""

    def __init__(self, url: str, *, echo: bool = False) -> None:
        parsed = make_url(url)
        self.url = url
        self.dialect = parsed.get_backend_name()
        kwargs: dict[str, Any] = {"echo": echo}
        if self.dialect == "sqlite":
            path = parsed.database
            if path and path != ":memory:":
                Path(path).expanduser().parent.mkdir(parents=True, exist_ok=True)
            kwargs["connect_args"] = {"timeout": 30}
        else:
            kwargs["pool_pre_ping"] = True
        self.engine: AsyncEngine = create_async_engine(url, **kwargs)
        if self.dialect == "sqlite":
            event.listen(self.engine.sync_engine, "connect", _sqlite_pragmas)
        self.sessions = async_sessionmaker(self.engine, expire_on_commit=False)

    @property
    def is_postgres(self) -> bool:
        return self.dialect == "postgresql"

    def session(self) -> AsyncSession:
        return self.sessions()

    async def current_revision(self) -> str | None:
        try:
            async with self.engine.connect() as conn:
                row = (await conn.execute(text("SELECT version_num FROM alembic_version"))).first()
        except DBAPIError:
            return None
        return str(row[0]) if row else None

    async def upgrade(self) -> bool:
        """Bring the schema to the newest revision; False if it already was."""
        if await self.current_revision() == HEAD_REVISION:
            return False
        async with self.engine.begin() as conn:
            await conn.run_sync(_alembic_upgrade)
        log.info("database migrated to revision %s", HEAD_REVISION)
        return True

    async def close(self) -> None:
        await self.engine.dispose()


def _sqlite_pragmas(dbapi_conn: Any, _record: Any) -> None:
    cursor = dbapi_conn.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA busy_timeout=30000")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()


def _alembic_upgrade(conn: Connection) -> None:
    from alembic import command
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    cfg.attributes["connection"] = conn
    command.upgrade(cfg, "head")
