"""Creation limits hold even when the engine's picture of an owner's open jobs is stale:
an edit, a cancel or another process's creation since the engine last looked."""

from __future__ import annotations

from datetime import timedelta

import pytest

from storage.jobs import JobStore
from tests.tools.conftest import FIXED_NOW
from tools.errors import LimitReached, UserError
from tools.jobs.engine import Engine
from tools.jobs.limits import Limits
from tools.jobs.model import Target
from tools.schedule import Once, Schedule

ALICE = Target(1, 100, 10)


def once(minutes: int) -> Schedule:
    return Schedule(Once(FIXED_NOW + timedelta(minutes=minutes)), "UTC")


async def test_a_job_edited_since_is_still_a_duplicate(engine: Engine) -> None:
    first = await engine.create(target=ALICE, command="call mom", schedule=once(5), kind="delayed")
    await engine.update(first.id, command="water the plants")
    with pytest.raises(UserError, match=f"#{first.id}"):
        await engine.create(
            target=ALICE, command="Water the plants", schedule=once(5), kind="delayed"
        )


async def test_another_process_creations_count_against_the_quota(engine: Engine) -> None:
    limits = Limits(max_jobs_per_user=3, creations_per_minute=100)
    engine.limits = limits
    other = Engine(JobStore(engine.store.db), clock=engine.clock, limits=limits)
    await engine.create(target=ALICE, command="a", schedule=once(1), kind="delayed")
    await other.create(target=ALICE, command="b", schedule=once(2), kind="delayed")
    await other.create(target=ALICE, command="c", schedule=once(3), kind="delayed")
    with pytest.raises(LimitReached, match="limit is 3"):
        await engine.create(target=ALICE, command="d", schedule=once(4), kind="delayed")


async def test_a_cancelled_job_frees_its_place(engine: Engine) -> None:
    engine.limits = Limits(max_jobs_per_user=1, creations_per_minute=100)
    first = await engine.create(target=ALICE, command="a", schedule=once(1), kind="delayed")
    other = Engine(JobStore(engine.store.db), clock=engine.clock, limits=engine.limits)
    await other.cancel(first.id)
    again = await engine.create(target=ALICE, command="a", schedule=once(1), kind="delayed")
    assert again.id != first.id
