"""Reminder follow-ups in the engine: cycle state, acknowledgement, snooze, window, wake-up text."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from bot.clock import ManualClock
from storage.db import Database
from storage.jobs import JobStore
from storage.models import JobStatus
from tests.tools import lifecycle
from tools.agent.offline import _fired
from tools.errors import NotAllowed, UserError
from tools.jobs import reminders
from tools.jobs.engine import Engine
from tools.jobs.limits import Limits
from tools.jobs.marker import wake_text
from tools.jobs.model import FollowUpState, Target
from tools.schedule import Cron, Once, Schedule

LEASE = timedelta(seconds=90)
ALICE = Target(owner_id=1, channel_id=100, guild_id=10)
NAG = {"interval_s": 1800, "max": 2}


@pytest.fixture
def db(any_db: Database) -> Database:
    return any_db


@pytest.fixture
def engine(db: Database, clock: ManualClock) -> Engine:
    return Engine(
        JobStore(db), clock=clock.now, limits=Limits(follow_up_window=timedelta(hours=24))
    )


async def fire(engine: Engine) -> list[str]:
    """Fire what is due through the real dispatcher; the kinds of the runs fired."""
    return [f.run_kind if f.delivered else "skipped" for f in await lifecycle.fire(engine)]


async def reminder(engine: Engine, clock: ManualClock, **follow: int) -> int:
    job = await engine.create(
        target=ALICE,
        command="call mom",
        schedule=Schedule(Once(clock.now() + timedelta(minutes=10))),
        kind="reminder",
        follow_up={**NAG, **follow},
    )
    return job.id


async def test_cycle_state_then_completed_after_max(engine: Engine, clock: ManualClock) -> None:
    job_id = await reminder(engine, clock)
    await clock.advance(600)
    sent = clock.now()
    assert await fire(engine) == ["run"]
    job = await engine.get(job_id)
    state = FollowUpState.of(job).awaiting
    assert job.status == JobStatus.ACTIVE and job.next_run_at == sent + timedelta(minutes=30)
    assert state is not None and state.attempt == 2 and state.of == 3
    assert (job.meta or {})["run_kind"] == "follow_up" and job.run_count == 1
    await clock.advance(1800)
    assert await fire(engine) == ["follow_up"]
    assert FollowUpState.of(await engine.get(job_id)).awaiting.attempt == 3  # type: ignore[union-attr]
    await clock.advance(1800)
    assert await fire(engine) == ["follow_up"]
    job = await engine.get(job_id)
    assert job.status == JobStatus.COMPLETED and job.next_run_at is None and not job.meta
    assert job.run_count == 1  # follow-ups are not new runs of the job


async def test_window_stops_follow_ups(engine: Engine, clock: ManualClock) -> None:
    engine.limits = Limits(follow_up_window=timedelta(minutes=45))
    job_id = await reminder(engine, clock)
    await clock.advance(600)
    await fire(engine)
    await clock.advance(1800)
    assert await fire(engine) == ["follow_up"]  # 30 min in; the next (60 min) is past 45
    assert (await engine.get(job_id)).status == JobStatus.COMPLETED


async def test_stale_follow_up_after_downtime_is_skipped(
    engine: Engine, clock: ManualClock
) -> None:
    job_id = await reminder(engine, clock)
    await clock.advance(600)
    await fire(engine)
    await clock.advance(timedelta(hours=30))  # the bot was down past the window
    assert await fire(engine) == ["skipped"]
    assert (await engine.get(job_id)).status == JobStatus.COMPLETED


async def test_acknowledge_ends_cycle_and_records(engine: Engine, clock: ManualClock) -> None:
    job_id = await reminder(engine, clock)
    await clock.advance(600)
    await fire(engine)
    with pytest.raises(NotAllowed):
        await engine.acknowledge(job_id, 2, how="done")
    assert await engine.awaiting_acknowledgement(100, 1)
    job, ended = await engine.acknowledge(job_id, 1, how="message", note={"text": "ok"})
    assert ended and job.status == JobStatus.COMPLETED and job.next_run_at is None
    assert await engine.awaiting_acknowledgement(100, 1) == []
    (run,) = await engine.history(job_id)
    assert (run.details or {})["acknowledged"]["how"] == "message"
    _, again = await engine.acknowledge(job_id, 1, how="done")
    assert not again  # nothing left to end, but still recorded
    (run,) = await engine.history(job_id)
    assert (run.details or {})["acknowledged"]["how"] == "done"


async def test_acknowledge_while_follow_up_in_flight(engine: Engine, clock: ManualClock) -> None:
    job_id = await reminder(engine, clock)
    await clock.advance(600)
    await fire(engine)
    await clock.advance(1800)
    (claim,) = await engine.claim_due(limit=10, lease=LEASE)
    _, ended = await engine.acknowledge(job_id, 1, how="message")
    assert ended
    await engine.record([engine.delivered(claim, engine.decide(claim), message_id=2)])
    job = await engine.get(job_id)
    assert job.status == JobStatus.COMPLETED and FollowUpState.of(job).awaiting is None


async def test_no_follow_up_without_config(engine: Engine, clock: ManualClock) -> None:
    job = await engine.create(
        target=ALICE,
        command="stretch",
        schedule=Schedule(Once(clock.now() + timedelta(minutes=1))),
        kind="reminder",
    )
    await clock.advance(60)
    await fire(engine)
    assert (await engine.get(job.id)).status == JobStatus.COMPLETED


async def test_failed_delivery_has_no_follow_up(engine: Engine, clock: ManualClock) -> None:
    job_id = await reminder(engine, clock)
    await clock.advance(600)
    (claim,) = await engine.claim_due(limit=10, lease=LEASE)
    outcome, _ = engine.failed(claim, "thread gone", retryable=False)
    await engine.record([outcome])
    job = await engine.get(job_id)
    assert job.status == JobStatus.FAILED and FollowUpState.of(job).awaiting is None


async def test_snooze_completed_one_off_refires(engine: Engine, clock: ManualClock) -> None:
    job = await engine.create(
        target=ALICE,
        command="stretch",
        schedule=Schedule(Once(clock.now() + timedelta(minutes=1))),
        kind="reminder",
    )
    await clock.advance(60)
    await fire(engine)
    with pytest.raises(UserError):
        await engine.snooze(job.id, 1, clock.now() - timedelta(minutes=1))
    with pytest.raises(NotAllowed):
        await engine.snooze(job.id, 2, clock.now() + timedelta(minutes=10))
    snoozed = await engine.snooze(job.id, 1, clock.now() + timedelta(minutes=10), choice="10m")
    assert snoozed.status == JobStatus.ACTIVE
    await clock.advance(600)
    assert await fire(engine) == ["run"]
    done = await engine.get(job.id)
    assert done.status == JobStatus.COMPLETED and done.run_count == 1 and not done.meta


async def test_recurring_snooze_and_cycle_resume(engine: Engine, clock: ManualClock) -> None:
    start = clock.now()  # 2026-11-23 08:00 UTC
    job = await engine.create(
        target=ALICE,
        command="pills",
        schedule=Schedule(Cron("0 9 * * *"), "UTC"),
        kind="reminder",
        follow_up={"interval_s": 3600, "max": 5},
    )
    await clock.advance(3600)
    assert await fire(engine) == ["run"]
    nine_tomorrow = datetime(2026, 11, 24, 9, 0, tzinfo=UTC)
    assert (await engine.get(job.id)).meta["resume_at"] == nine_tomorrow.isoformat()  # type: ignore[index]
    # snoozed past the next occurrence: the snoozed one stands in for it
    await engine.snooze(job.id, 1, start + timedelta(days=1, hours=3))
    current = await engine.get(job.id)
    assert current.next_run_at == start + timedelta(days=1, hours=3)
    assert current.meta["resume_at"] == (nine_tomorrow + timedelta(days=1)).isoformat()  # type: ignore[index]
    assert FollowUpState.of(current).awaiting is None


def test_wake_up_text_and_offline_reply() -> None:
    class Run:
        def __init__(self, kind: str, minutes: int) -> None:
            self.kind = kind
            self.scheduled_for = datetime(2026, 1, 1, 9, tzinfo=UTC) + timedelta(minutes=minutes)
            self.delivered_at = self.scheduled_for

    class Job:
        follow_up = NAG

    runs = [Run("run", 0), Run("follow_up", 30), Run("follow_up", 60)]
    wake = reminders.wake_up(Job(), runs[2], runs)  # type: ignore[arg-type]
    assert (wake.attempt, wake.of, wake.previous_sent_at) == (3, 3, runs[1].delivered_at)
    text = wake_text("call mom", wake, "Europe/Berlin")
    assert text.startswith("Follow-up reminder triggered (attempt 3 of 3).")
    assert (
        "Original reminder: call mom" in text and "sent at 2026-01-01 10:30 Europe/Berlin" in text
    )
    assert _fired(f"[Scheduled job #1 (reminder) fired] {text}") == (
        "⏰ Just checking in — call mom (reminder 3 of 3)"
    )
    first = wake_text("call mom", reminders.wake_up(Job(), runs[0], runs), "UTC")  # type: ignore[arg-type]
    assert first == "Reminder triggered.\nTask: Send a reminder about: call mom"
    assert _fired(f"[Scheduled job #1 (reminder) fired] {first}") == "⏰ call mom"
