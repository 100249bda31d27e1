"""The migrations build exactly the schema the models describe."""

from __future__ import annotations

from typing import Any

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy.engine import Connection

from storage.db import Database
from storage.models import Base


def _diff(conn: Connection) -> list[Any]:
    return compare_metadata(MigrationContext.configure(conn), Base.metadata)


async def test_migrated_schema_matches_models(db: Database) -> None:
    async with db.engine.connect() as conn:
        diff = await conn.run_sync(_diff)
    assert diff == []
