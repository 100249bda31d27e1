"""Seed 001's escalation in the engine: one escalation run after the last unanswered nag."""

from __future__ import annotations

from datetime import timedelta

import pytest

from bot.clock import ManualClock
from storage.db import Database
from storage.jobs import JobStore
from storage.models import JobStatus
from tests.tools.test_followups import ALICE, LEASE, fire
from tools.jobs import reminders
from tools.jobs.engine import Engine
from tools.jobs.limits import Limits
from tools.jobs.model import AWAITING, ESCALATED, FollowUpState
from tools.schedule import Cron, Once, Schedule

ESCALATING = {"interval_s": 1800, "max": 2, "escalate": "dm"}


@pytest.fixture
def db(any_db: Database) -> Database:
    return any_db


@pytest.fixture
def engine(db: Database, clock: ManualClock) -> Engine:
    return Engine(
        JobStore(db), clock=clock.now, limits=Limits(follow_up_window=timedelta(hours=24))
    )


async def escalating(engine: Engine, clock: ManualClock, **extra: object) -> int:
    job = await engine.create(
        target=ALICE,
        command="submit the report",
        schedule=Schedule(Once(clock.now() + timedelta(minutes=10))),
        kind="reminder",
        follow_up={**ESCALATING, **extra},
    )
    return job.id


async def test_escalates_once_after_the_last_follow_up(engine: Engine, clock: ManualClock) -> None:
    job_id = await escalating(engine, clock)
    await clock.advance(600)
    assert await fire(engine) == ["run"]
    await clock.advance(1800)
    assert await fire(engine) == ["follow_up"]
    await clock.advance(1800)
    assert await fire(engine) == ["follow_up"]
    job = await engine.get(job_id)
    assert job.status == JobStatus.ACTIVE and (job.meta or {})["run_kind"] == "escalate"
    assert job.next_run_at == clock.now() + timedelta(minutes=30)
    await clock.advance(1800)
    assert await fire(engine) == ["escalate"]
    job = await engine.get(job_id)
    assert job.status == JobStatus.COMPLETED and job.next_run_at is None
    assert (job.meta or {}).get(ESCALATED) is not None
    assert job.run_count == 1  # neither follow-ups nor the escalation are new runs
    await clock.advance(3 * 3600)
    assert await fire(engine) == []  # exactly once
    runs = list(reversed(await engine.store.runs(job_id, limit=10)))
    assert [r.kind for r in runs] == ["run", "follow_up", "follow_up", "escalate"]
    assert (runs[-1].details or {})["escalation"] == "dm"


async def test_off_by_default(engine: Engine, clock: ManualClock) -> None:
    job = await engine.create(
        target=ALICE,
        command="call mom",
        schedule=Schedule(Once(clock.now() + timedelta(minutes=10))),
        kind="reminder",
        follow_up={"interval_s": 1800, "max": 1},
    )
    await clock.advance(600)
    assert await fire(engine) == ["run"]
    await clock.advance(1800)
    assert await fire(engine) == ["follow_up"]
    assert (await engine.get(job.id)).status == JobStatus.COMPLETED
    await clock.advance(3600)
    assert await fire(engine) == []


async def test_acknowledged_before_escalation_never_escalates(
    engine: Engine, clock: ManualClock
) -> None:
    job_id = await escalating(engine, clock, max=1)
    await clock.advance(600)
    await fire(engine)
    await clock.advance(1800)
    assert await fire(engine) == ["follow_up"]
    assert (await engine.get(job_id)).meta["run_kind"] == "escalate"  # type: ignore[index]
    await engine.acknowledge(job_id, ALICE.owner_id, how="message")
    job = await engine.get(job_id)
    assert job.status == JobStatus.COMPLETED and job.next_run_at is None
    await clock.advance(3600)
    assert await fire(engine) == []


async def test_escalation_survives_a_lost_delivery(engine: Engine, clock: ManualClock) -> None:
    """A crash after claiming: the lease expires and the same run (same nonce) is resumed."""
    job_id = await escalating(engine, clock, max=1)
    await clock.advance(600)
    await fire(engine)
    await clock.advance(1800)
    await fire(engine)
    await clock.advance(1800)
    (claim,) = await engine.claim_due(limit=10, lease=LEASE)  # claimed, then "crashed"
    assert claim.run.kind == "escalate"
    await clock.advance(LEASE.total_seconds() + 1)
    (again,) = await engine.claim_due(limit=10, lease=LEASE)
    assert again.run.id == claim.run.id and again.run.nonce == claim.run.nonce
    await engine.record([engine.delivered(again, engine.decide(again), message_id=1)])
    await clock.advance(3 * 3600)
    assert await fire(engine) == []
    runs = await engine.store.runs(job_id, limit=10)
    assert [r.kind for r in runs].count("escalate") == 1


async def test_recurring_reminder_escalates_per_occurrence(
    engine: Engine, clock: ManualClock
) -> None:
    job = await engine.create(
        target=ALICE,
        command="stretch",
        schedule=Schedule(Cron("0 */6 * * *")),
        kind="reminder",
        follow_up={"interval_s": 1800, "max": 1, "escalate": "dm"},
    )
    await clock.advance((job.next_run_at - clock.now()).total_seconds())  # type: ignore[operator]
    assert await fire(engine) == ["run"]
    await clock.advance(1800)
    assert await fire(engine) == ["follow_up"]
    await clock.advance(1800)
    assert await fire(engine) == ["escalate"]
    after = await engine.get(job.id)
    assert after.status == JobStatus.ACTIVE and after.next_run_at is not None
    assert FollowUpState.of(after).awaiting is None
    await clock.advance((after.next_run_at - clock.now()).total_seconds())
    assert await fire(engine) == ["run"]
    await clock.advance(1800)
    assert await fire(engine) == ["follow_up"]
    await clock.advance(1800)
    assert await fire(engine) == ["escalate"]  # the next occurrence has its own


def test_escalation_text_says_what_and_where() -> None:
    from datetime import UTC, datetime

    first = datetime(2026, 11, 23, 15, 0, tzinfo=UTC)
    text = reminders.escalation_text("submit the report", "<#100>", first, 3)
    assert "“submit the report”" in text and "<#100>" in text and "3 times" in text
    assert f"<t:{int(first.timestamp())}:R>" in text
    meta = {AWAITING: {"first_sent_at": first.isoformat(), "attempt": 4, "of": 3}}
    assert reminders.escalation_facts(meta) == (first, 3)
