"""Creations racing for one owner's limits, and the bulk (import) write."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import pytest

from storage.db import Database
from storage.jobs import Changed, JobStore
from storage.models import JobStatus

NOW = datetime(2026, 11, 23, 8, tzinfo=UTC)


def job(n: int, owner_id: int = 1, **kw: object) -> dict[str, object]:
    at = NOW + timedelta(minutes=n)
    values: dict[str, object] = dict(
        owner_id=owner_id,
        guild_id=10,
        channel_id=100,
        command=f"job {n}",
        kind="delayed",
        schedule={"type": "once", "at": at.isoformat()},
        tz="UTC",
        status=JobStatus.ACTIVE,
        created_by="user",
        created_at=NOW,
        updated_at=NOW,
        next_run_at=at,
    )
    values.update(kw)
    return values


async def test_concurrent_creations_for_one_owner_cannot_both_pass_its_check(
    db: Database,
) -> None:
    """Each checked the owner's open jobs (none) before the others stored theirs: only one
    may be stored; the rest are refused with the open jobs as they are now. On PostgreSQL
    the transactions really overlap (read committed), so this needs per-owner serialising."""
    store = JobStore(db)

    async def attempt(n: int) -> int | None:
        try:
            return await store.create(job(n), expect_open={1: []})
        except Changed as changed:
            assert len(changed.open_keys[1]) == 1
            return None

    stored = [r for r in await asyncio.gather(*(attempt(n) for n in range(8))) if r]
    assert len(stored) == 1
    assert await store.count(owner_id=1) == 1


async def test_concurrent_imports_for_one_owner_cannot_both_pass_its_check(
    db: Database,
) -> None:
    store = JobStore(db)

    async def attempt(n: int) -> int:
        try:
            return await store.create_many(
                [job(10 * n), job(10 * n + 1, owner_id=2)], expect_open={1: [], 2: []}
            )
        except Changed:
            return 0

    assert sorted(await asyncio.gather(*(attempt(n) for n in range(6)))) == [0] * 5 + [2]
    assert await store.count(owner_id=1) == 1 and await store.count(owner_id=2) == 1


async def test_create_many_stores_every_column_as_create_does(db: Database) -> None:
    store = JobStore(db)
    rows = [
        job(1, follow_up={"every_s": 60}, meta={"run_kind": "run"}, audience={"users": [5]}),
        job(2, owner_id=2, guild_id=None, until=NOW + timedelta(days=2), max_runs=3),
    ]
    assert await store.create_many(rows) == 2
    single = await store.create(job(3, **{k: v for k, v in rows[0].items() if k != "command"}))
    stored = {j.command: j for j in await store.find(statuses=None)}
    for row in rows:
        got = stored[str(row["command"])]
        for key, value in row.items():
            assert getattr(got, key) == value, key
        assert got.run_count == 0 and got.failure_streak == 0 and got.claimed_slot is None
    by_create = await store.get(single)
    assert by_create is not None
    assert by_create.follow_up == stored["job 1"].follow_up
    assert by_create.audience == stored["job 1"].audience


async def test_create_many_of_nothing_stores_nothing(db: Database) -> None:
    assert await JobStore(db).create_many([]) == 0


@pytest.mark.parametrize("count", [1, 2500])
async def test_create_many_stores_all_or_nothing(db: Database, count: int) -> None:
    store = JobStore(db)
    rows = [job(n, owner_id=n % 7) for n in range(count)]
    rows.append(job(count, owner_id=3, status=None))  # NOT NULL: the whole batch fails
    with pytest.raises(Exception):  # noqa: B017 - any driver's integrity error
        await store.create_many(rows)
    assert await store.count_by_status() == {}
    assert await store.create_many(rows[:-1]) == count
    assert sum((await store.count_by_status()).values()) == count
