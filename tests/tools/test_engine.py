"""Engine API: create/validate, list, cancel/pause/resume/update/run_now, and run outcomes."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from bot.clock import ManualClock
from storage.db import Database
from storage.jobs import Claim, JobStore
from storage.models import JobStatus, RunOutcome
from tests.tools import lifecycle
from tools.errors import JobNotFound, LimitReached, NotAllowed, UserError
from tools.jobs.engine import Engine
from tools.jobs.limits import Limits
from tools.jobs.model import Actor, Target
from tools.schedule import Cron, Every, Once, Schedule

LEASE = timedelta(seconds=90)
ALICE = Target(owner_id=1, channel_id=100, guild_id=10)
BOB = Target(owner_id=2, channel_id=200, guild_id=10)


@pytest.fixture
def db(any_db: Database) -> Database:
    """Overrides tests/tools/conftest.py: the engine runs on SQLite and PostgreSQL."""
    return any_db


@pytest.fixture
def engine(db: Database, clock: ManualClock) -> Engine:
    """Overrides tests/tools/conftest.py's fixed-clock engine: these tests move the clock."""
    return Engine(JobStore(db), clock=clock.now)


class RecordingWaker:
    def __init__(self) -> None:
        self.calls: list[datetime | None] = []

    def wake(self, at: datetime | None = None) -> None:
        self.calls.append(at)


def once(clock: ManualClock, **delta: float) -> Schedule:
    return Schedule(Once(clock.now() + timedelta(**delta)))


async def fail(engine: Engine, claim: Claim, error: str, *, retryable: bool) -> datetime | None:
    """Record a failed delivery attempt, as the dispatcher does."""
    outcome, retry_at = engine.failed(claim, error, retryable=retryable)
    await engine.record([outcome])
    return retry_at


async def fire(engine: Engine) -> list[tuple[int, datetime]]:
    """Fire what is due through the real dispatcher; the delivered runs' jobs and slots."""
    return [(f.job_id, f.slot) for f in await lifecycle.fire(engine) if f.delivered]


# ---------------------------------------------------------------- create and validate


async def test_create_one_shot(engine: Engine, clock: ManualClock) -> None:
    waker = RecordingWaker()
    engine.waker = waker
    job = await engine.create(
        target=ALICE, command="  call \u200bmom  ", schedule=once(clock, minutes=30), kind="delayed"
    )
    assert job.id is not None
    got = await engine.get(job.id)
    assert got.command == "call mom"
    assert got.status == JobStatus.ACTIVE
    assert got.next_run_at == clock.now() + timedelta(minutes=30)
    assert got.created_by == "user"
    assert waker.calls == [got.next_run_at]


async def test_create_recurring_starts_at_next_slot(engine: Engine, clock: ManualClock) -> None:
    job = await engine.create(
        target=ALICE,
        command="stretch",
        schedule=Schedule(Cron("0 9 * * 1-5"), "Europe/Berlin"),
        kind="recurring",
    )
    # "now" (Mon 09:00 Berlin) is exactly a slot: a recurring job starts with the *next* one
    assert (await engine.get(job.id)).next_run_at == datetime(2026, 11, 24, 8, tzinfo=UTC)


@pytest.mark.parametrize(
    ("make", "fragment"),
    [
        (lambda now: Schedule(Cron("61 * * * *")), "out of range"),
        (lambda now: Schedule(Every(0, now)), "longer than zero"),
        (lambda now: Schedule(Cron("0 9 * * *"), "Nowhere/Atlantis"), "IANA"),
        (lambda now: Schedule(Cron("0 9 * * *"), until=now - timedelta(days=1)), "past"),
        (lambda now: Schedule(Once(now - timedelta(minutes=1))), "past"),
        (lambda now: Schedule(Every(30, now)), "at least 60 seconds"),
        (lambda now: Schedule(Cron("* * * * *"), until=now + timedelta(seconds=30)), "never"),
        (lambda now: Schedule(Once(now + timedelta(days=6 * 365))), "too far"),
    ],
)
async def test_invalid_input_raises_user_error(
    engine: Engine,
    clock: ManualClock,
    make,
    fragment: str,  # type: ignore[no-untyped-def]
) -> None:
    with pytest.raises(UserError) as info:
        await engine.create(target=ALICE, command="x", schedule=make(clock.now()), kind="recurring")
    assert fragment in info.value.message
    assert await engine.list_jobs(owner_id=ALICE.owner_id) == []


async def test_bad_command_and_kind(engine: Engine, clock: ManualClock) -> None:
    with pytest.raises(UserError, match="Tell me"):
        await engine.create(
            target=ALICE, command=" \u200b ", schedule=once(clock, hours=1), kind="delayed"
        )
    with pytest.raises(UserError, match="characters"):
        await engine.create(
            target=ALICE, command="x" * 2001, schedule=once(clock, hours=1), kind="delayed"
        )
    with pytest.raises(UserError, match="kind"):
        await engine.create(target=ALICE, command="x", schedule=once(clock, hours=1), kind="nope")


async def test_limits_quota_rate_duplicate(db: Database, clock: ManualClock) -> None:
    engine = Engine(
        JobStore(db), clock=clock.now, limits=Limits(max_jobs_per_user=3, creations_per_minute=2)
    )
    await engine.create(target=ALICE, command="a", schedule=once(clock, hours=1), kind="delayed")
    with pytest.raises(UserError, match="already have this"):
        await engine.create(
            target=ALICE, command="A!", schedule=once(clock, hours=1), kind="delayed"
        )
    await engine.create(target=ALICE, command="b", schedule=once(clock, hours=1), kind="delayed")
    with pytest.raises(LimitReached, match="last minute"):
        await engine.create(
            target=ALICE, command="c", schedule=once(clock, hours=1), kind="delayed"
        )
    await clock.advance(61)
    await engine.create(target=ALICE, command="c", schedule=once(clock, hours=1), kind="delayed")
    with pytest.raises(LimitReached, match="limit is 3"):
        await engine.create(
            target=ALICE, command="d", schedule=once(clock, hours=1), kind="delayed"
        )
    # system jobs skip the limits
    await engine.create(
        target=ALICE, command="d", schedule=once(clock, hours=1), kind="delayed", check_limits=False
    )


# ---------------------------------------------------------------- read


async def test_list_by_owner_thread_guild(engine: Engine, clock: ManualClock) -> None:
    a1 = await engine.create(
        target=ALICE, command="a1", schedule=once(clock, hours=2), kind="delayed"
    )
    a2 = await engine.create(
        target=ALICE, command="a2", schedule=once(clock, hours=1), kind="delayed"
    )
    b1 = await engine.create(
        target=BOB, command="b1", schedule=once(clock, hours=3), kind="delayed"
    )
    dm = await engine.create(
        target=Target(owner_id=1, channel_id=300),
        command="dm",
        schedule=once(clock, hours=4),
        kind="delayed",
    )
    ids = lambda jobs: [j.id for j in jobs]  # noqa: E731
    assert ids(await engine.list_jobs(owner_id=1)) == [a2.id, a1.id, dm.id]  # soonest first
    assert ids(await engine.list_jobs(channel_id=200)) == [b1.id]
    assert ids(await engine.list_jobs(guild_id=10)) == [a2.id, a1.id, b1.id]
    assert ids(await engine.list_jobs(owner_id=1, channel_id=100)) == [a2.id, a1.id]
    assert ids(await engine.list_jobs(owner_id=1, limit=1, offset=1)) == [a1.id]
    await engine.cancel(a1.id)
    assert ids(await engine.list_jobs(owner_id=1)) == [a2.id, dm.id]
    assert a1.id in ids(await engine.list_jobs(owner_id=1, include_closed=True))


async def test_get_missing_and_permissions(engine: Engine, clock: ManualClock) -> None:
    job = await engine.create(
        target=ALICE, command="a", schedule=once(clock, hours=1), kind="delayed"
    )
    with pytest.raises(JobNotFound):
        await engine.get(9999)
    with pytest.raises(NotAllowed):
        await engine.cancel(job.id, Actor(user_id=2, guild_id=10))
    with pytest.raises(NotAllowed):
        await engine.history(job.id, Actor(user_id=2, guild_id=11, manage_messages=True))
    # a moderator of the job's guild may manage it
    await engine.pause(job.id, Actor(user_id=2, guild_id=10, manage_messages=True))


# ---------------------------------------------------------------- change


async def test_cancel(engine: Engine, clock: ManualClock) -> None:
    job = await engine.create(
        target=ALICE, command="a", schedule=once(clock, minutes=5), kind="delayed"
    )
    cancelled = await engine.cancel(job.id, Actor(user_id=1))
    assert cancelled.status == JobStatus.CANCELLED and cancelled.next_run_at is None
    with pytest.raises(UserError, match="already cancelled"):
        await engine.cancel(job.id)
    await clock.advance(600)
    assert await fire(engine) == []


async def test_pause_resume_recurring_skips_paused_slots(
    engine: Engine, clock: ManualClock
) -> None:
    job = await engine.create(
        target=ALICE, command="tick", schedule=Schedule(Cron("0 * * * *")), kind="recurring"
    )
    await engine.pause(job.id)
    with pytest.raises(UserError, match="can't be paused"):
        await engine.pause(job.id)
    await clock.advance(timedelta(hours=3, minutes=10))
    assert await fire(engine) == []  # paused jobs are not claimed
    waker = RecordingWaker()
    engine.waker = waker
    resumed = await engine.resume(job.id)
    assert resumed.status == JobStatus.ACTIVE
    assert resumed.next_run_at == datetime(2026, 11, 23, 12, tzinfo=UTC)
    assert waker.calls == [resumed.next_run_at]
    with pytest.raises(UserError, match="not paused"):
        await engine.resume(job.id)


async def test_resume_overdue_one_shot_runs_now_marked_late(
    engine: Engine, clock: ManualClock
) -> None:
    job = await engine.create(
        target=ALICE, command="a", schedule=once(clock, minutes=5), kind="delayed"
    )
    await engine.pause(job.id)
    await clock.advance(timedelta(hours=1))
    resumed = await engine.resume(job.id)
    assert resumed.next_run_at == clock.now() - timedelta(minutes=55)  # its own slot
    [claim] = await engine.claim_due(limit=10, lease=LEASE)
    decision = engine.decide(claim)
    assert decision.deliver and decision.late and decision.late_by == timedelta(minutes=55)


async def test_update_reschedule_and_text(engine: Engine, clock: ManualClock) -> None:
    job = await engine.create(
        target=ALICE, command="a", schedule=once(clock, hours=5), kind="delayed"
    )
    waker = RecordingWaker()
    engine.waker = waker
    new = await engine.update(job.id, command="b", schedule=once(clock, minutes=10))
    assert new.command == "b"
    assert new.next_run_at == clock.now() + timedelta(minutes=10)
    assert waker.calls == [new.next_run_at]
    rec = await engine.update(job.id, schedule=Schedule(Every(3600, clock.now()), max_runs=2))
    assert rec.kind == "interval" and rec.max_runs == 2
    with pytest.raises(UserError, match="Nothing to change"):
        await engine.update(job.id)
    with pytest.raises(UserError, match="out of range"):
        await engine.update(job.id, schedule=Schedule(Cron("61 * * * *")))
    await engine.cancel(job.id)
    with pytest.raises(UserError, match="only scheduled jobs"):
        await engine.update(job.id, command="c")


async def test_run_now_then_continues_on_schedule(engine: Engine, clock: ManualClock) -> None:
    job = await engine.create(
        target=ALICE, command="r", schedule=Schedule(Cron("0 12 * * *")), kind="recurring"
    )
    assert job.next_run_at == datetime(2026, 11, 23, 12, tzinfo=UTC)
    await engine.run_now(job.id)
    assert await fire(engine) == [(job.id, clock.now())]
    after = await engine.get(job.id)
    assert after.next_run_at == datetime(2026, 11, 23, 12, tzinfo=UTC)
    assert after.run_count == 1 and not (after.meta or {}).get("resume_at")


async def test_history(engine: Engine, clock: ManualClock) -> None:
    job = await engine.create(
        target=ALICE, command="r", schedule=Schedule(Every(3600, clock.now())), kind="interval"
    )
    for _ in range(3):
        await clock.advance(3600)
        assert len(await fire(engine)) == 1
    runs = await engine.history(job.id, Actor(user_id=1))
    assert [r.scheduled_for for r in runs] == [clock.now() - timedelta(hours=i) for i in range(3)]
    assert {r.outcome for r in runs} == {RunOutcome.DELIVERED}
    assert len({r.nonce for r in runs}) == 3 and all(len(r.nonce) <= 25 for r in runs)


# ---------------------------------------------------------------- outcomes


async def test_one_shot_completes(engine: Engine, clock: ManualClock) -> None:
    job = await engine.create(
        target=ALICE, command="a", schedule=once(clock, minutes=5), kind="delayed"
    )
    await clock.advance(300)
    assert await fire(engine) == [(job.id, clock.now())]
    done = await engine.get(job.id)
    assert done.status == JobStatus.COMPLETED and done.next_run_at is None
    assert done.run_count == 1 and done.claimed_slot is None
    [run] = await engine.history(job.id)
    assert run.outcome == RunOutcome.DELIVERED and run.lateness_ms == 0


async def test_max_runs_completes(engine: Engine, clock: ManualClock) -> None:
    job = await engine.create(
        target=ALICE,
        command="a",
        kind="interval",
        schedule=Schedule(Every(3600, clock.now() + timedelta(hours=1)), max_runs=2),
    )
    await clock.advance(3600)
    assert len(await fire(engine)) == 1
    assert (await engine.get(job.id)).status == JobStatus.ACTIVE
    await clock.advance(3600)
    assert len(await fire(engine)) == 1
    done = await engine.get(job.id)
    assert done.status == JobStatus.COMPLETED and done.run_count == 2


async def test_until_completes(engine: Engine, clock: ManualClock) -> None:
    job = await engine.create(
        target=ALICE,
        command="a",
        kind="recurring",
        schedule=Schedule(Cron("0 9 * * *"), "UTC", until=clock.now() + timedelta(days=1, hours=2)),
    )
    await clock.set(datetime(2026, 11, 23, 9, tzinfo=UTC))
    assert len(await fire(engine)) == 1
    await clock.set(datetime(2026, 11, 24, 9, tzinfo=UTC))
    assert len(await fire(engine)) == 1
    assert (await engine.get(job.id)).status == JobStatus.COMPLETED


async def test_transport_error_retried_with_backoff_then_recorded(
    engine: Engine, clock: ManualClock
) -> None:
    job = await engine.create(
        target=ALICE, command="a", schedule=once(clock, minutes=1), kind="delayed"
    )
    await clock.advance(60)
    [claim] = await engine.claim_due(limit=10, lease=LEASE)
    retry_at = await fail(engine, claim, "503 from Discord", retryable=True)
    assert retry_at == clock.now() + timedelta(seconds=2)
    assert await engine.claim_due(limit=10, lease=LEASE) == []
    await clock.advance(2)
    [again] = await engine.claim_due(limit=10, lease=LEASE)
    assert again.run.id == claim.run.id and again.run.nonce == claim.run.nonce
    assert again.run.attempt == 2
    retry_at = await fail(engine, again, "503 again", retryable=True)
    assert retry_at == clock.now() + timedelta(seconds=4)
    [run] = await engine.history(job.id)
    assert run.error == "503 again" and len(run.details["errors"]) == 2
    # a permanent error gives up: a one-shot fails with the reason recorded
    await clock.advance(4)
    [third] = await engine.claim_due(limit=10, lease=LEASE)
    retry_at = await fail(engine, third, "403 Missing Access", retryable=False)
    assert retry_at is None
    failed = await engine.get(job.id)
    assert failed.status == JobStatus.FAILED and failed.fail_reason == "403 Missing Access"
    [run] = await engine.history(job.id)
    assert run.outcome == RunOutcome.FAILED


async def test_retry_window_is_bounded(engine: Engine, clock: ManualClock) -> None:
    job = await engine.create(
        target=ALICE, command="a", schedule=once(clock, minutes=1), kind="delayed"
    )
    await clock.advance(60)
    retries = 0
    while True:
        claims = await engine.claim_due(limit=10, lease=LEASE)
        if not claims:
            break
        retry_at = await fail(engine, claims[0], "timeout", retryable=True)
        if retry_at is None:
            break
        retries += 1
        await clock.set(retry_at)
    assert 5 <= retries <= 15
    assert clock.now() <= datetime(2026, 11, 23, 8, 16, tzinfo=UTC)
    assert (await engine.get(job.id)).status == JobStatus.FAILED


async def test_recurring_failures_pause_after_streak(db: Database, clock: ManualClock) -> None:
    engine = Engine(JobStore(db), clock=clock.now, limits=Limits(pause_after_failures=2))
    job = await engine.create(
        target=ALICE,
        command="a",
        kind="interval",
        schedule=Schedule(Every(3600, clock.now() + timedelta(hours=1))),
    )
    for _ in range(2):
        await clock.advance(3600)
        [claim] = await engine.claim_due(limit=10, lease=LEASE)
        await fail(engine, claim, "thread deleted", retryable=False)
    paused = await engine.get(job.id)
    assert paused.status == JobStatus.PAUSED and "2 failed runs" in (paused.fail_reason or "")


# ---------------------------------------------------------------- downtime


async def test_downtime_one_shot_delivered_late(engine: Engine, clock: ManualClock) -> None:
    job = await engine.create(
        target=ALICE, command="a", schedule=once(clock, minutes=5), kind="delayed"
    )
    await clock.advance(timedelta(days=2))
    assert await fire(engine) == [(job.id, clock.now() - timedelta(days=2) + timedelta(minutes=5))]
    [run] = await engine.history(job.id)
    assert run.lateness_ms == int(timedelta(days=2, minutes=-5).total_seconds() * 1000)


async def test_downtime_recurring_catch_up_within_half_period(
    engine: Engine, clock: ManualClock
) -> None:
    job = await engine.create(
        target=ALICE, command="a", kind="recurring", schedule=Schedule(Cron("0 * * * *"))
    )
    # down 09:00 → 12:20: slots 09, 10, 11, 12 missed; newest (12:00) is 20 min old < 30 min
    await clock.set(datetime(2026, 11, 23, 12, 20, tzinfo=UTC))
    [claim] = await engine.claim_due(limit=10, lease=LEASE)
    decision = engine.decide(claim)
    assert decision.deliver and decision.catch_up
    assert decision.slot == datetime(2026, 11, 23, 12, tzinfo=UTC)
    assert decision.skipped == 3
    await engine.record([engine.delivered(claim, decision, message_id=5)])
    after = await engine.get(job.id)
    assert after.next_run_at == datetime(2026, 11, 23, 13, tzinfo=UTC)
    [run] = await engine.history(job.id)
    assert run.details == {"catch_up": True, "skipped": 3}


async def test_downtime_recurring_skips_when_newest_slot_too_old(
    engine: Engine, clock: ManualClock
) -> None:
    job = await engine.create(
        target=ALICE, command="a", kind="recurring", schedule=Schedule(Cron("0 * * * *"))
    )
    await clock.set(datetime(2026, 11, 23, 12, 40, tzinfo=UTC))  # 40 min > half an hour
    assert await fire(engine) == []
    after = await engine.get(job.id)
    assert after.next_run_at == datetime(2026, 11, 23, 13, tzinfo=UTC)
    assert after.run_count == 0 and after.status == JobStatus.ACTIVE
    [run] = await engine.history(job.id)
    assert run.outcome == RunOutcome.SKIPPED
    assert run.details["skipped"] == 4
    assert run.details["last_missed"] == "2026-11-23T12:00:00+00:00"


@pytest.mark.parametrize(
    ("late", "catch_up"),
    [
        (timedelta(hours=1, minutes=59), True),  # daily: half a period clamps to 2 h
        (timedelta(hours=2, minutes=1), False),
    ],
)
async def test_downtime_grace_clamped_to_two_hours(
    engine: Engine, clock: ManualClock, late: timedelta, catch_up: bool
) -> None:
    await engine.create(
        target=ALICE, command="a", kind="recurring", schedule=Schedule(Cron("0 9 * * *"))
    )
    await clock.set(datetime(2026, 11, 23, 9, tzinfo=UTC) + late)
    [claim] = await engine.claim_due(limit=10, lease=LEASE)
    assert engine.decide(claim).deliver is catch_up


async def test_downtime_short_interval_grace_at_least_two_minutes(
    engine: Engine, clock: ManualClock
) -> None:
    await engine.create(
        target=ALICE, command="a", kind="interval", schedule=Schedule(Every(60, clock.now()))
    )
    await clock.advance(timedelta(minutes=10, seconds=90))  # newest slot 30 s old
    [claim] = await engine.claim_due(limit=10, lease=LEASE)
    decision = engine.decide(claim)
    assert decision.deliver and decision.catch_up and decision.skipped == 10


async def test_catch_up_never_delivers_a_slot_past_until(
    engine: Engine, clock: ManualClock
) -> None:
    job = await engine.create(
        target=ALICE,
        command="a",
        kind="interval",
        schedule=Schedule(
            Every(3600, clock.now() + timedelta(hours=1)),
            until=clock.now() + timedelta(hours=2, minutes=30),
        ),
    )
    # down from 08:00 to 11:10: slots 09:00 and 10:00 were within `until` (10:30); 11:00 is not
    await clock.set(datetime(2026, 11, 23, 11, 10, tzinfo=UTC))
    delivered = await fire(engine)
    assert all(slot <= datetime(2026, 11, 23, 10, 30, tzinfo=UTC) for _, slot in delivered)
    assert (await engine.get(job.id)).status == JobStatus.COMPLETED


async def test_catch_up_grace_measured_in_real_time_across_dst(
    engine: Engine, clock: ManualClock
) -> None:
    # Hourly in Berlin on the autumn change: 02:00 CEST (00:00Z) is followed by 03:00 CET
    # (02:00Z), a real period of two hours (one on the wall clock), so the grace is 1 h.
    await clock.set(datetime(2026, 10, 24, 22, 30, tzinfo=UTC))
    job = await engine.create(
        target=ALICE,
        command="hourly",
        schedule=Schedule(Cron("0 * * * *"), "Europe/Berlin"),
        kind="recurring",
    )
    assert job.next_run_at == datetime(2026, 10, 24, 23, tzinfo=UTC)
    await clock.set(datetime(2026, 10, 25, 0, 50, tzinfo=UTC))  # missed 01:00 and 02:00 CEST
    (claim,) = await engine.claim_due(limit=10, lease=LEASE)
    decision = engine.decide(claim)
    assert decision.deliver and decision.catch_up and decision.skipped == 1
    assert decision.slot == datetime(2026, 10, 25, 0, tzinfo=UTC)
    assert decision.late_by == timedelta(minutes=50)


async def test_cancel_while_in_flight_stays_cancelled(engine: Engine, clock: ManualClock) -> None:
    job = await engine.create(
        target=ALICE, command="x", schedule=once(clock, minutes=1), kind="reminder"
    )
    recurring = await engine.create(
        target=ALICE, command="y", kind="recurring", schedule=Schedule(Cron("*/5 * * * *"))
    )
    await clock.advance(300)
    claims = await engine.claim_due(limit=10, lease=LEASE)
    assert {c.job.id for c in claims} == {job.id, recurring.id}
    await engine.cancel(job.id)
    await engine.cancel(recurring.id)
    await engine.record([engine.delivered(c, engine.decide(c), message_id=1) for c in claims])
    for j in (job, recurring):
        after = await engine.get(j.id)
        assert after.status == JobStatus.CANCELLED and after.next_run_at is None
        assert after.claimed_slot is None
    assert await engine.claim_due(limit=10, lease=LEASE) == []


async def test_edit_while_in_flight_keeps_the_new_schedule(
    engine: Engine, clock: ManualClock
) -> None:
    job = await engine.create(
        target=ALICE, command="x", kind="recurring", schedule=Schedule(Cron("0 * * * *"))
    )
    await clock.set(datetime(2026, 11, 23, 9, tzinfo=UTC))
    (claim,) = await engine.claim_due(limit=10, lease=LEASE)
    await engine.update(job.id, schedule=Schedule(Cron("30 12 * * *")), command="new text")
    await engine.record([engine.delivered(claim, engine.decide(claim), message_id=1)])
    after = await engine.get(job.id)
    assert after.status == JobStatus.ACTIVE and after.command == "new text"
    assert after.next_run_at == datetime(2026, 11, 23, 12, 30, tzinfo=UTC)
