"""`JobStore.claim_due_next`: the claim and the next due time in one transaction."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from storage.db import Database
from storage.jobs import JobStore
from storage.models import JobStatus

NOW = datetime(2026, 11, 23, 8, tzinfo=UTC)
LEASE = timedelta(seconds=90)


def job(at: datetime, status: str = JobStatus.ACTIVE) -> dict[str, object]:
    return dict(
        owner_id=1,
        guild_id=None,
        channel_id=100,
        command=f"at {at:%H:%M}",
        kind="delayed",
        schedule={"type": "once", "at": at.isoformat()},
        tz="UTC",
        status=status,
        created_by="user",
        created_at=NOW,
        updated_at=NOW,
        next_run_at=at,
    )


async def test_claims_and_says_when_the_next_job_comes_due(db: Database) -> None:
    store = JobStore(db)
    due = await store.create(job(NOW))
    await store.create(job(NOW + timedelta(hours=1)))
    await store.create(job(NOW + timedelta(seconds=30), status=JobStatus.PAUSED))
    claims, after = await store.claim_due_next(NOW, limit=10, lease=timedelta(hours=2))
    assert [c.job.id for c in claims] == [due]
    assert after == NOW + timedelta(hours=1)  # paused jobs never come due
    # A claim's lease expiry counts: it comes due again then if never recorded.
    await store.create(job(NOW + timedelta(seconds=10)))
    claims, after = await store.claim_due_next(
        NOW, limit=10, lease=LEASE, ahead=timedelta(seconds=10)
    )
    assert len(claims) == 1 and after == NOW + LEASE
    assert await store.earliest_due() == after


async def test_nothing_due_and_nothing_pending(db: Database) -> None:
    assert await JobStore(db).claim_due_next(NOW, limit=10, lease=LEASE) == ([], None)
