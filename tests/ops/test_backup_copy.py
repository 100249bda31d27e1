"""`homar db backup` and `homar db copy`: a consistent copy of a live SQLite database, and
moving a whole deployment to PostgreSQL with every row, verified by counts."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import func, select

from storage.approvals import ApprovalStore
from storage.conversations import ConversationStore
from storage.db import Database
from storage.jobs import JobStore
from storage.models import Base
from storage.todos import TodoStore
from storage.transfer import TransferError, backup_sqlite, copy_database
from storage.user_settings import UserSettingsStore
from tests.bot.test_cli import homar
from tests.conftest import fresh_pg
from tools.jobs.engine import Engine
from tools.jobs.model import Actor, Target
from tools.schedule import Every, Once, Schedule

NOW = datetime(2026, 11, 23, 8, 0, tzinfo=UTC)


async def populate(url: str) -> dict[str, int]:
    """A small deployment: jobs of each shape, a run, an approval, to-dos, a zone, a chat."""
    db = Database(url)
    await db.upgrade()
    engine = Engine(JobStore(db), clock=lambda: NOW)
    target = Target(owner_id=7, channel_id=50, guild_id=9)
    once = await engine.create(
        target=target,
        command="call the dentist 🦷",
        schedule=Schedule(Once(NOW + timedelta(hours=1))),
        kind="reminder",
        check_limits=False,
    )
    await engine.create(
        target=target,
        command="standup",
        schedule=Schedule(Every(86400, NOW + timedelta(hours=2))),
        kind="recurring",
        check_limits=False,
    )
    await engine.cancel(once.id, Actor(7))
    await ApprovalStore(db).add(
        channel_id=50,
        user_id=7,
        payload={"tool": "schedule_action", "args": {"when": "every day"}},
        created_at=NOW,
        expires_at=NOW + timedelta(hours=24),
    )
    todos = TodoStore(db)
    await todos.add(50, "draft the newsletter", 7, NOW)
    await todos.add(50, "send invoices", 8, NOW)
    await UserSettingsStore(db).set_tz(7, "Europe/Berlin")
    await ConversationStore(db).save(50, '[{"kind": "request"}]', NOW)
    counts = {}
    async with db.engine.connect() as conn:
        for table in Base.metadata.sorted_tables:
            counts[table.name] = int(
                (await conn.execute(select(func.count()).select_from(table))).scalar_one()
            )
    await db.close()
    return counts


async def test_backup_is_a_complete_standalone_copy(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path}/live.db"
    counts = await populate(url)
    # The bot keeps a connection open (WAL mode): the backup must still see everything.
    holder = sqlite3.connect(tmp_path / "live.db")
    try:
        result = homar("db", "backup", str(tmp_path / "b" / "copy.db"), env={"DATABASE_URL": url})
    finally:
        holder.close()
    assert result.returncode == 0, result.stderr
    assert "Backed up to" in result.stdout
    copy = sqlite3.connect(tmp_path / "b" / "copy.db")
    try:
        assert copy.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        for table, n in counts.items():
            assert copy.execute(f'SELECT COUNT(*) FROM "{table}"').fetchone() == (n,), table
        text = copy.execute("SELECT command FROM jobs ORDER BY id").fetchone()[0]
        assert text == "call the dentist 🦷"
    finally:
        copy.close()
    assert not (tmp_path / "b" / "copy.db.partial").exists()

    again = homar("db", "backup", str(tmp_path / "b" / "copy.db"), env={"DATABASE_URL": url})
    assert again.returncode == 2 and "--force" in again.stderr and "Traceback" not in again.stderr
    forced = homar(
        "db", "backup", str(tmp_path / "b" / "copy.db"), "--force", env={"DATABASE_URL": url}
    )
    assert forced.returncode == 0


def test_backup_refuses_what_it_cannot_do(tmp_path: Path) -> None:
    pg = "postgresql+asyncpg://u:p@127.0.0.1/homar"
    with pytest.raises(TransferError, match="pg_dump"):
        backup_sqlite(pg, tmp_path / "x.db")
    with pytest.raises(TransferError, match="nothing to back up"):
        backup_sqlite(f"sqlite+aiosqlite:///{tmp_path}/none.db", tmp_path / "x.db")
    live = tmp_path / "live.db"
    sqlite3.connect(live).close()
    with pytest.raises(TransferError, match="another file"):
        backup_sqlite(f"sqlite+aiosqlite:///{live}", live)
    result = homar("db", "backup", str(tmp_path / "y.db"), env={"DATABASE_URL": pg})
    assert result.returncode == 2 and "pg_dump" in result.stderr


async def test_copy_sqlite_to_postgres_keeps_every_row_and_id(tmp_path: Path, pg_url: str) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path}/live.db"
    counts = await populate(url)
    await (await fresh_pg(pg_url)).close()  # empty, migrated

    result = homar("db", "copy", "--to", pg_url, env={"DATABASE_URL": url})
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Copied and verified" in result.stdout
    for table, n in counts.items():
        assert f"{table}: {n} → {n}  ok" in result.stdout

    target = Database(pg_url)
    try:
        jobs = JobStore(target)
        first = await jobs.get(1)
        assert first is not None and first.command == "call the dentist 🦷"
        assert first.status == "cancelled" and first.created_at == NOW
        assert await UserSettingsStore(target).tz(7) == "Europe/Berlin"
        assert [t.description for t in await TodoStore(target).list(50)] == [
            "draft the newsletter",
            "send invoices",
        ]
        # New ids continue after the copied ones (the sequences moved).
        engine = Engine(jobs, clock=lambda: NOW)
        new = await engine.create(
            target=Target(owner_id=7, channel_id=50),
            command="after the move",
            schedule=Schedule(Once(NOW + timedelta(hours=3))),
            kind="reminder",
            check_limits=False,
        )
        assert new.id == counts["jobs"] + 1
    finally:
        await target.close()

    # A second copy would merge into live data: refused, nothing changed.
    again = homar("db", "copy", "--to", pg_url, env={"DATABASE_URL": url})
    assert again.returncode == 2 and "already holds data" in again.stderr


async def test_copy_refuses_same_database_and_empty_source(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path}/a.db"
    with pytest.raises(TransferError, match="same database"):
        await copy_database(url, url)
    with pytest.raises(TransferError, match="no Homar schema"):
        await copy_database(url, f"sqlite+aiosqlite:///{tmp_path}/b.db")


async def test_copy_between_sqlite_files_round_trips(tmp_path: Path) -> None:
    src = f"sqlite+aiosqlite:///{tmp_path}/a.db"
    dst = f"sqlite+aiosqlite:///{tmp_path}/b.db"
    counts = await populate(src)
    result = await copy_database(src, dst)
    assert {c.table: c.target for c in result} == counts
    assert all(c.ok for c in result)
