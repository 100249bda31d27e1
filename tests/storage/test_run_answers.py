"""Storage: a delivered run is answered by one taker at a time, with a lease for takeover."""

from __future__ import annotations

import asyncio
from datetime import timedelta

from storage.db import Database
from storage.jobs import JobStore
from storage.models import JobRow
from tests.storage.test_jobs import LEASE, NOW, job

REPLY_LEASE = timedelta(seconds=120)


async def delivered_run(store: JobStore) -> str:
    await store.create(job(NOW))
    [claim] = await store.claim_due(NOW, limit=10, lease=LEASE)
    await store.update_run(claim.run.id, delivered_at=NOW, outcome="delivered")
    return claim.run.nonce


async def test_two_takers_at_once_answer_a_run_once(db: Database) -> None:
    store = JobStore(db)
    nonce = await delivered_run(store)
    taken = await asyncio.gather(*(store.claim_reply(nonce, NOW, REPLY_LEASE) for _ in range(6)))
    winners = [run for run in taken if run is not None]
    assert len(winners) == 1
    assert winners[0].reply_lease_until == NOW + REPLY_LEASE and winners[0].executed_at == NOW


async def test_a_dead_takers_run_is_taken_over_after_its_lease(db: Database) -> None:
    store = JobStore(db)
    nonce = await delivered_run(store)
    first = await store.claim_reply(nonce, NOW, REPLY_LEASE)
    assert first is not None and first.reply_lease_until is not None
    later = NOW + REPLY_LEASE - timedelta(seconds=1)
    assert await store.claim_reply(nonce, later, REPLY_LEASE) is None
    assert await store.unreplied_nonces(later) == []  # held: the sweep leaves it alone
    assert await store.unreplied_nonces(NOW + REPLY_LEASE) == [nonce]
    second = await store.claim_reply(nonce, NOW + REPLY_LEASE, REPLY_LEASE)
    assert second is not None and second.executed_at == NOW  # first taken then, kept
    # The first taker lost its lease: it may not keep (so never posts) its answer.
    assert not await store.keep_reply(first.id, first.reply_lease_until, {"text": "late"})
    assert second.reply_lease_until is not None
    assert await store.keep_reply(second.id, second.reply_lease_until, {"text": "hi"})
    assert await store.replied(second.id, NOW + REPLY_LEASE)
    assert not await store.replied(second.id, NOW + REPLY_LEASE)  # done once
    assert await store.claim_reply(nonce, NOW + 3 * REPLY_LEASE, REPLY_LEASE) is None
    assert await store.unreplied_nonces(NOW + 3 * REPLY_LEASE) == []
    run = await store.run_by_nonce(nonce)
    assert run is not None and run.reply == {"text": "hi"} and run.replied_at is not None


async def test_release_reply_leases_frees_held_runs(db: Database) -> None:
    store = JobStore(db)
    nonce = await delivered_run(store)
    assert await store.claim_reply(nonce, NOW, REPLY_LEASE) is not None
    assert await store.release_reply_leases() == 1
    assert await store.claim_reply(nonce, NOW, REPLY_LEASE) is not None


async def test_update_if_changes_only_an_unchanged_job(db: Database) -> None:
    store = JobStore(db)
    job_id = await store.create(job(NOW + timedelta(hours=1)))
    seen = {"status": "active", "claimed_slot": None, "next_run_at": NOW + timedelta(hours=1)}
    assert await store.update_if(job_id, seen, {"status": "paused"}) is not None
    assert await store.update_if(job_id, seen, {"status": "cancelled"}) is None
    current = await store.get(job_id)
    assert current is not None and current.status == "paused"


async def test_take_reply_takes_the_run_with_its_job_at_once(db: Database) -> None:
    store = JobStore(db)
    nonce = await delivered_run(store)
    taken = await store.take_reply(nonce, NOW, REPLY_LEASE)
    assert taken is not None
    run, job = taken
    stored = await store.get(run.job_id)
    assert job is not None and stored is not None
    assert {c.key: getattr(job, c.key) for c in JobRow.__table__.columns} == {
        c.key: getattr(stored, c.key) for c in JobRow.__table__.columns
    }
    assert run.nonce == nonce and run.reply_lease_until == NOW + REPLY_LEASE
    assert run.executed_at == NOW and run.scheduled_for == NOW
    assert await store.take_reply(nonce, NOW, REPLY_LEASE) is None  # held
    assert await store.replied(run.id, NOW, failure="the thread was gone")
    again = await store.run_by_nonce(nonce)
    assert again is not None and again.error == "the thread was gone"
