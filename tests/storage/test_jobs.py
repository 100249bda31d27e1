"""Storage: migrations, atomic claims with leases, release on restart, listing indexes."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import text

from storage.db import HEAD_REVISION, Database
from storage.jobs import JobStore, run_nonce
from storage.models import JobStatus

NOW = datetime(2026, 11, 23, 8, tzinfo=UTC)
LEASE = timedelta(seconds=90)


def job(at: datetime, **kw: object) -> dict[str, object]:
    values: dict[str, object] = dict(
        owner_id=1,
        guild_id=10,
        channel_id=100,
        command="x",
        kind="delayed",
        schedule={"type": "once", "at": at.isoformat()},
        tz="UTC",
        status=JobStatus.ACTIVE,
        created_by="user",
        created_at=NOW,
        updated_at=NOW,
        next_run_at=at,
        run_count=0,
        failure_streak=0,
    )
    values.update(kw)
    return values


async def test_upgrade_is_idempotent(db: Database) -> None:
    assert await db.current_revision() == HEAD_REVISION
    assert await db.upgrade() is False


async def test_claim_is_atomic_across_concurrent_claimers(db: Database) -> None:
    store = JobStore(db)
    for i in range(40):
        await store.create(job(NOW - timedelta(seconds=i)))
    await store.create(job(NOW + timedelta(minutes=5)))
    batches = await asyncio.gather(*(store.claim_due(NOW, limit=7, lease=LEASE) for _ in range(8)))
    claimed = [c.job.id for b in batches for c in b]
    assert len(claimed) == len(set(claimed)) == 40
    c = batches[0][0]
    assert c.job.next_run_at == NOW + LEASE and c.job.claimed_slot == c.slot
    assert c.run.nonce == run_nonce(c.job.id, c.slot) and len(c.run.nonce) <= 25
    assert await store.claim_due(NOW, limit=100, lease=LEASE) == []
    assert await store.earliest_due() == NOW + LEASE


async def test_expired_lease_resumes_same_run(db: Database) -> None:
    store = JobStore(db)
    await store.create(job(NOW))
    [first] = await store.claim_due(NOW, limit=10, lease=LEASE)
    assert await store.claim_due(NOW + LEASE - timedelta(seconds=1), limit=10, lease=LEASE) == []
    [again] = await store.claim_due(NOW + LEASE, limit=10, lease=LEASE)
    assert (again.run.id, again.slot) == (first.run.id, first.slot)
    assert again.run.nonce == first.run.nonce
    assert again.run.attempt == 2


async def test_release_claims_only_active(db: Database) -> None:
    store = JobStore(db)
    a = await store.create(job(NOW))
    b = await store.create(job(NOW))
    await store.create(job(NOW + timedelta(hours=1)))
    await store.claim_due(NOW, limit=10, lease=LEASE)
    await store.update(b, status=JobStatus.PAUSED)
    later = NOW + timedelta(seconds=5)
    assert await store.release_claims(later) == 1
    assert (await store.get(a)).next_run_at == later  # type: ignore[union-attr]
    assert (await store.get(b)).next_run_at == NOW + LEASE  # type: ignore[union-attr]


@pytest.mark.sqlite_only("checks SQLite query plans")
async def test_listing_and_due_queries_use_indexes(db: Database) -> None:
    queries = {
        "SELECT id FROM jobs WHERE owner_id = 1": "ix_jobs_owner_id",
        "SELECT id FROM jobs WHERE channel_id = 1": "ix_jobs_channel_id",
        "SELECT id FROM jobs WHERE guild_id = 1": "ix_jobs_guild_id",
        # Bound, as the listing sends it: still implies the partial index's condition.
        "SELECT id FROM jobs WHERE guild_id = :g": "ix_jobs_guild_id",
        "SELECT min(next_run_at) FROM jobs WHERE status = 'active'": "ix_jobs_status_next_run_at",
        "SELECT id FROM jobs WHERE status = 'active' AND next_run_at <= '2026' "
        "ORDER BY next_run_at LIMIT 5": "ix_jobs_status_next_run_at",
        "SELECT id FROM jobs WHERE id IN "
        "(SELECT id FROM jobs WHERE claimed_slot IS NOT NULL)": "ix_jobs_claimed_slot",
    }
    async with db.engine.connect() as conn:
        for sql, index in queries.items():
            bound = {"g": 1} if ":g" in sql else {}
            rows = await conn.execute(text("EXPLAIN QUERY PLAN " + sql), bound)
            plan = " ".join(str(r[-1]) for r in rows)
            assert index in plan, (sql, plan)


async def test_claimed_and_server_indexes_are_partial(db: Database) -> None:
    """A new job (never claimed) in a DM (no server) costs no entry in either index."""
    if db.is_postgres:
        sql = "SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'jobs'"
    else:
        sql = "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'jobs'"
    async with db.engine.connect() as conn:
        defs = {str(name): str(create) for name, create in await conn.execute(text(sql))}
    assert "claimed_slot IS NOT NULL" in defs["ix_jobs_claimed_slot"]
    assert "guild_id IS NOT NULL" in defs["ix_jobs_guild_id"]
