"""Concurrent changes to one job are serialized in the database, not by luck.

Each race is made deterministic: the interloper runs right after the change under test
has read the job, which is exactly the window a second moderator, a client retry or the
dispatcher can hit.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from datetime import timedelta
from typing import Any

import pytest

from bot.clock import ManualClock
from storage.models import JobStatus
from tests.tools.test_engine import ALICE, LEASE, fire
from tools.errors import UserError
from tools.jobs.engine import Engine
from tools.jobs.model import Actor
from tools.schedule import Every, Once, Schedule

OWNER = Actor(ALICE.owner_id, ALICE.guild_id)


@pytest.fixture
def db(any_db: Any) -> Any:
    return any_db


@pytest.fixture
def engine(db: Any, clock: ManualClock) -> Engine:
    from storage.jobs import JobStore

    return Engine(JobStore(db), clock=clock.now)


def after_next_read(engine: Engine, interloper: Callable[[], Awaitable[Any]]) -> None:
    """Run `interloper` once, just after the next time the engine reads a job."""
    original = engine.store.get

    async def read_then_interlope(job_id: int) -> Any:
        row = await original(job_id)
        engine.store.get = original  # type: ignore[method-assign]
        await interloper()
        return row

    engine.store.get = read_then_interlope  # type: ignore[method-assign]


async def hourly(engine: Engine, clock: ManualClock) -> int:
    start = clock.now() + timedelta(minutes=30)
    job = await engine.create(
        target=ALICE,
        command="water the plants",
        kind="interval",
        schedule=Schedule(Every(3600, start)),
    )
    return job.id


async def test_five_run_nows_at_once_run_the_job_once(engine: Engine, clock: ManualClock) -> None:
    job_id = await hourly(engine, clock)
    regular = (await engine.get(job_id)).next_run_at
    results = await asyncio.gather(
        *(engine.run_now(job_id, OWNER) for _ in range(5)), return_exceptions=True
    )
    assert sum(not isinstance(r, BaseException) for r in results) == 1
    assert all(isinstance(r, UserError) for r in results if isinstance(r, BaseException))
    fired = await fire(engine)
    fired += await fire(engine)
    assert len(fired) == 1
    job = await engine.get(job_id)
    assert job.next_run_at == regular  # back on its schedule, not run again


async def test_a_client_retry_after_the_run_does_not_run_it_again(
    engine: Engine, clock: ManualClock
) -> None:
    job_id = await hourly(engine, clock)
    await engine.run_now(job_id, OWNER)
    assert len(await fire(engine)) == 1
    await clock.advance(2)
    with pytest.raises(UserError, match="just ran"):
        await engine.run_now(job_id, OWNER)
    assert await fire(engine) == []
    await clock.advance(120)  # a minute later it is a new request, and runs
    await engine.run_now(job_id, OWNER)
    assert len(await fire(engine)) == 1


@pytest.mark.parametrize("change", ["run_now", "pause", "resume"])
async def test_a_change_racing_a_cancel_never_revives_the_job(
    engine: Engine, clock: ManualClock, change: str
) -> None:
    job_id = await hourly(engine, clock)
    if change == "resume":
        await engine.pause(job_id, OWNER)
    after_next_read(engine, lambda: engine.cancel(job_id, OWNER))
    with pytest.raises(UserError):
        await getattr(engine, change)(job_id, OWNER)
    job = await engine.get(job_id)
    assert job.status == JobStatus.CANCELLED and job.next_run_at is None
    await clock.advance(3 * 3600)
    assert await fire(engine) == []


async def test_an_edit_racing_a_claim_keeps_the_claims_lease(
    engine: Engine, clock: ManualClock
) -> None:
    job = await engine.create(
        target=ALICE,
        command="stretch",
        kind="delayed",
        schedule=Schedule(Once(clock.now() + timedelta(seconds=5))),
    )
    await clock.advance(5)
    claims: list[Any] = []

    async def dispatcher_claims() -> None:
        claims.extend(await engine.claim_due(limit=10, lease=LEASE))

    after_next_read(engine, dispatcher_claims)
    later = Schedule(Once(clock.now() + timedelta(hours=1)))
    edited = await engine.update(job.id, OWNER, schedule=later)
    assert [c.job.id for c in claims] == [job.id]
    # Still claimed: the lease stands, so no other process re-delivers the run meanwhile.
    assert edited.claimed_slot == claims[0].slot
    assert edited.next_run_at == claims[0].lease_until
