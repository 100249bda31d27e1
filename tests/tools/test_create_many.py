"""Bulk creation (an import): validated like `create`, stored all or none."""

from __future__ import annotations

import gc
from datetime import timedelta

import pytest

from bot.clock import ManualClock
from storage.db import Database
from storage.jobs import JobStore
from tests.conftest import START
from tools.errors import LimitReached, UserError
from tools.jobs.commands import NewJob
from tools.jobs.engine import Engine
from tools.jobs.model import Target
from tools.schedule import Every, Once, Schedule

ALICE = Target(owner_id=1, channel_id=10, guild_id=5)
BOB = Target(owner_id=2, channel_id=20, guild_id=5)


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(START)


@pytest.fixture
def engine(db: Database, clock: ManualClock) -> Engine:
    return Engine(JobStore(db), clock=clock.now)


def once(clock: ManualClock, minutes: int, command: str, target: Target = ALICE) -> NewJob:
    when = clock.now() + timedelta(minutes=minutes)
    return NewJob(target, command, Schedule(Once(when)), "reminder")


async def test_stores_every_job_with_its_first_run(engine: Engine, clock: ManualClock) -> None:
    jobs = [once(clock, i + 1, f"water plant {i}") for i in range(3)]
    jobs.append(NewJob(BOB, "stretch", Schedule(Every(3600, clock.now())), "recurring"))
    assert await engine.create_many(jobs) == 4
    stored = sorted(await engine.store.find(owner_id=1), key=lambda j: j.id)
    assert [j.command for j in stored] == ["water plant 0", "water plant 1", "water plant 2"]
    assert stored[1].next_run_at == clock.now() + timedelta(minutes=2)
    assert len(await engine.store.find(owner_id=2)) == 1


async def test_one_bad_job_refuses_the_batch_and_says_which(
    engine: Engine, clock: ManualClock
) -> None:
    past = NewJob(ALICE, "too late", Schedule(Once(clock.now() - timedelta(minutes=1))), "reminder")
    marker = once(clock, 5, "[DELAYED_COMMAND] sneaky")
    for bad in (past, marker):
        with pytest.raises(UserError, match=r"^Job 2 of 3: "):
            await engine.create_many([once(clock, 1, "fine"), bad, once(clock, 2, "also fine")])
    with pytest.raises(UserError, match="Unknown job kind"):
        await engine.create_many([NewJob(ALICE, "x", Schedule(Once(clock.now())), "nonsense")])
    assert await engine.store.find(owner_id=1) == []


async def test_the_collector_runs_again_after_an_import_stored_or_refused(
    engine: Engine, clock: ManualClock
) -> None:
    # An import pauses the cyclic collector while it builds its rows; it must come back on
    # every way out, or the process would leak every reference cycle from then on.
    assert gc.isenabled()
    assert await engine.create_many([once(clock, 1, "fine")]) == 1
    assert gc.isenabled()
    with pytest.raises(UserError):
        await engine.create_many([once(clock, 1, "[DELAYED_COMMAND] sneaky")])
    assert gc.isenabled()
    with pytest.raises(UserError):
        await engine.create_many([once(clock, 2, "dupe"), once(clock, 2, "dupe")])
    assert gc.isenabled()
    gc.disable()  # a caller that paused it itself gets it back paused
    try:
        assert await engine.create_many([once(clock, 3, "later")]) == 1
        assert not gc.isenabled()
    finally:
        gc.enable()


async def test_limits_count_the_batch_itself(engine: Engine, clock: ManualClock) -> None:
    await engine.create(
        target=ALICE, command="call mom", schedule=once(clock, 9, "x").schedule, kind="reminder"
    )
    existing = NewJob(ALICE, "Call mom", once(clock, 9, "x").schedule, "reminder")
    with pytest.raises(UserError, match=r"Job 1 of 1: You already have this"):
        await engine.create_many([existing])
    twice = [once(clock, 3, "feed cat"), once(clock, 3, "feed cat")]
    with pytest.raises(UserError, match=r"Job 2 of 2: It repeats job 1"):
        await engine.create_many(twice)
    many = [once(clock, i + 1, f"thing {i}") for i in range(engine.limits.max_jobs_per_user)]
    with pytest.raises(LimitReached, match=f"Job {engine.limits.max_jobs_per_user} of"):
        await engine.create_many(many)
    assert len(await engine.store.find(owner_id=1)) == 1
    # An import by an operator may skip the per-person limits (not the validation).
    assert await engine.create_many(twice, check_limits=False) == 2
