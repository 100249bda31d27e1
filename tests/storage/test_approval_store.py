"""`ApprovalStore`, method by method, on its own: opening, reading and deciding approvals."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from storage.approvals import Approval, ApprovalStatus, ApprovalStore
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


async def add(store: ApprovalStore, channel: int, expires: timedelta) -> int:
    approval = await store.add(
        user_id=7,
        channel_id=channel,
        payload={"calls": [channel]},
        created_at=NOW,
        expires_at=NOW + expires,
    )
    return approval.id


async def test_reads_and_decisions_hand_out_frozen_approvals(db: Database) -> None:
    store = ApprovalStore(db)
    soon = await add(store, 1, timedelta(minutes=5))
    later = await add(store, 2, timedelta(hours=1))
    got = await store.get(soon)
    assert got is not None and isinstance(got, Approval)
    assert (got.channel_id, got.user_id, got.payload, got.status) == (
        1,
        7,
        {"calls": [1]},
        "pending",
    )
    assert got.message_id is None and got.decided_at is None and got.expires_at > NOW
    with pytest.raises(AttributeError):  # a value: decide through the store
        got.status = ApprovalStatus.APPROVED  # type: ignore[misc]
    await store.set_message(soon, 555)
    assert (await store.get(soon)).message_id == 555  # type: ignore[union-attr]
    assert await store.get(later + 100) is None
    assert [a.id for a in await store.pending()] == [soon, later]
    assert [a.id for a in await store.pending(channel_id=2)] == [later]
    assert [a.id for a in await store.expired(NOW + timedelta(minutes=10))] == [soon]
    decided = await store.decide(soon, ApprovalStatus.DENIED, NOW)
    assert decided is not None and decided.status == "denied" and decided.decided_at == NOW
    assert await store.decide(soon, ApprovalStatus.APPROVED, NOW) is None  # taken once
    assert [a.status for a in await store.in_channel(1)] == ["denied"]
    assert await store.expired(NOW + timedelta(minutes=10)) == []
