"""`ApprovalStore.count_pending`, on its own: only undecided approvals count, everywhere."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from storage.approvals import ApprovalStatus, ApprovalStore
from storage.db import Database

NOW = datetime(2026, 11, 23, 8, tzinfo=UTC)


async def test_count_pending_counts_undecided_approvals_in_every_channel(db: Database) -> None:
    store = ApprovalStore(db)
    assert await store.count_pending() == 0
    for channel in (1, 1, 2):
        await store.add(
            user_id=7,
            channel_id=channel,
            payload={"calls": []},
            created_at=NOW,
            expires_at=NOW + timedelta(hours=1),
        )
    assert await store.count_pending() == 3
    [first, *_] = await store.pending()
    await store.decide(first.id, ApprovalStatus.APPROVED, NOW)
    assert await store.count_pending() == 2
