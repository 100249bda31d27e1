"""Backing up a database and moving a deployment from one database to another.

`backup_sqlite` copies a live SQLite database with SQLite's online backup API (a
consistent snapshot while the bot keeps running). `copy_database` moves every row of
every table Homar owns — jobs, runs, approvals, to-dos, conversations, settings — into
a freshly migrated database (typically PostgreSQL), keeping ids, and verifies the move by
counting rows on both sides.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import Table, func, select, text
from sqlalchemy.engine import Connection, make_url

from storage.db import Database
from storage.models import Base

BATCH = 1000


class TransferError(Exception):
    """A backup or copy that cannot go ahead; the message says what to do instead."""


def sqlite_path(url: str) -> Path | None:
    """The file behind a SQLite URL, or None for another database (or an in-memory one)."""
    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite" or not parsed.database:
        return None
    if parsed.database == ":memory:":
        return None
    return Path(parsed.database).expanduser()


def backup_sqlite(url: str, target: Path, *, overwrite: bool = False) -> int:
    """Copy the SQLite database at `url` into the file `target`; returns its size in bytes.

    Safe while the bot runs: the backup API copies a consistent snapshot page by page,
    and the copy is complete (WAL content included) and opens on its own.
    """
    source = sqlite_path(url)
    if source is None:
        if make_url(url).get_backend_name() == "postgresql":
            raise TransferError(
                "DATABASE_URL is PostgreSQL: back it up with pg_dump, e.g. "
                '`pg_dump --format=custom --file homar.dump "$PGURL"` '
                "(restore with pg_restore)."
            )
        raise TransferError("DATABASE_URL does not name a SQLite file to back up.")
    if not source.exists():
        raise TransferError(f"There is no database at {source} yet (nothing to back up).")
    if target.resolve() == source.resolve():
        raise TransferError("The backup must go to another file than the database itself.")
    if target.exists() and not overwrite:
        raise TransferError(f"{target} already exists; pass --force to replace it.")
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(target.name + ".partial")
    partial.unlink(missing_ok=True)
    src = sqlite3.connect(f"file:{source}?mode=ro", uri=True)
    try:
        dst = sqlite3.connect(partial)
        try:
            src.backup(dst)
            dst.execute("PRAGMA journal_mode=DELETE")  # one self-contained file
        finally:
            dst.close()
    finally:
        src.close()
    partial.replace(target)  # only a finished backup ever carries the name
    return target.stat().st_size


@dataclass(frozen=True)
class TableCount:
    table: str
    source: int
    target: int

    @property
    def ok(self) -> bool:
        return self.source == self.target


def _tables() -> list[Table]:
    return list(Base.metadata.sorted_tables)  # parents before children (foreign keys)


def _count(conn: Connection, table: Table) -> int:
    return int(conn.execute(select(func.count()).select_from(table)).scalar_one())


async def copy_database(source_url: str, target_url: str) -> list[TableCount]:
    """Copy every row of Homar's tables from `source_url` into `target_url`.

    The target is migrated first and must hold no jobs, runs or other rows yet (a copy
    never merges into a live deployment). Ids are kept, so job numbers people know stay
    the same; PostgreSQL sequences are moved past the copied ids. Returns the per-table
    counts on both sides; the caller treats any mismatch as a failed copy.
    """
    if make_url(source_url) == make_url(target_url):
        raise TransferError("The source and the target are the same database.")
    source = Database(source_url)
    target = Database(target_url)
    try:
        if await source.current_revision() is None:
            raise TransferError("The source database has no Homar schema (nothing to copy).")
        await source.upgrade()  # read the rows in the shape the models describe
        await target.upgrade()
        tables = _tables()
        async with target.engine.begin() as conn:
            busy = [t.name for t in tables if await conn.run_sync(_count, t)]
        if busy:
            raise TransferError(
                "The target database already holds data (" + ", ".join(busy) + "); copy "
                "into an empty database."
            )
        async with source.engine.connect() as src, target.engine.begin() as dst:
            for table in tables:
                # Streamed in primary-key order: memory stays flat for millions of runs.
                key = list(table.primary_key.columns)
                rows = await src.stream(select(table).order_by(*key))
                async for batch in rows.mappings().partitions(BATCH):
                    await dst.execute(table.insert(), [dict(row) for row in batch])
            if target.is_postgres:
                for table in tables:
                    await dst.run_sync(_move_sequence, table)
        counts: list[TableCount] = []
        async with source.engine.connect() as src, target.engine.connect() as dst:
            for table in tables:
                counts.append(
                    TableCount(
                        table.name,
                        await src.run_sync(_count, table),
                        await dst.run_sync(_count, table),
                    )
                )
        return counts
    finally:
        await source.close()
        await target.close()


def _move_sequence(conn: Connection, table: Table) -> None:
    """After inserting explicit ids, the next generated id must come after them."""
    for column in table.primary_key.columns:
        if column.autoincrement is not True:  # only generated ids have a sequence
            continue
        conn.execute(
            text(
                "SELECT setval(pg_get_serial_sequence(:t, :c), "
                f'COALESCE((SELECT MAX("{column.name}") FROM "{table.name}"), 0) + 1, false) '
                "WHERE pg_get_serial_sequence(:t, :c) IS NOT NULL"
            ),
            {"t": table.name, "c": column.name},
        )
