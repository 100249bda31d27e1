"""Dispatcher: wake-ups, outcomes, retries and exactly-once delivery across crashes."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta

import pytest

from bot.clock import ManualClock
from bot.dispatcher import Delivered, Delivery, DeliveryError, Dispatcher
from storage.db import Database
from storage.jobs import JobStore
from storage.models import JobStatus, RunOutcome
from tools.jobs.engine import Engine
from tools.jobs.model import Target
from tools.schedule import Cron, Every, Once, Schedule

ALICE = Target(owner_id=1, channel_id=100, guild_id=10)


class FakeDiscord:
    """Posts messages; a repeated nonce returns the earlier message, like Discord does."""

    def __init__(self) -> None:
        self.by_nonce: dict[str, int] = {}
        self.posts: list[Delivery] = []

    def post(self, delivery: Delivery) -> int:
        assert len(delivery.run.nonce) <= 25
        if delivery.run.nonce not in self.by_nonce:
            self.by_nonce[delivery.run.nonce] = len(self.by_nonce) + 1
            self.posts.append(delivery)
        return self.by_nonce[delivery.run.nonce]


class Recording:
    """A transport: posts to the fake Discord, optionally failing or 'crashing' around it."""

    def __init__(self, discord: FakeDiscord, mode: str = "ok") -> None:
        self.discord = discord
        self.mode = mode
        self.calls: list[Delivery] = []
        self.errors: list[DeliveryError] = []
        self.reached = asyncio.Event()

    async def deliver(self, delivery: Delivery) -> Delivered:
        self.calls.append(delivery)
        if self.errors:
            raise self.errors.pop(0)
        if self.mode == "crash_before_post":
            self.reached.set()
            await asyncio.Event().wait()  # the process dies here
        message_id = self.discord.post(delivery)
        if self.mode == "crash_after_post":
            self.reached.set()
            await asyncio.Event().wait()
        return Delivered(message_id=message_id)


class Harness:
    def __init__(self, db: Database, clock: ManualClock) -> None:
        self.db = db
        self.clock = clock
        self.engine = Engine(JobStore(db), clock=clock.now)
        self.discord = FakeDiscord()
        self.dispatchers: list[Dispatcher] = []

    async def start(self, mode: str = "ok", **kwargs: object) -> tuple[Dispatcher, Recording]:
        transport = Recording(self.discord, mode)
        d = Dispatcher(self.engine, transport, clock=self.clock, **kwargs)  # type: ignore[arg-type]
        self.engine.waker = d
        self.dispatchers.append(d)
        await d.start()
        await settle(d)
        return d, transport

    async def move(self, d: Dispatcher, when: datetime | timedelta) -> None:
        if isinstance(when, timedelta):
            await self.clock.advance(when)
        else:
            await self.clock.set(when)
        await settle(d)


async def settle(d: Dispatcher) -> None:
    """Let the loop notice a clock move or wake-up and record everything it claimed."""
    for _ in range(3):
        for _ in range(20):
            await asyncio.sleep(0)
        await asyncio.wait_for(d.idle(), 5)


@pytest.fixture
async def h(db: Database, clock: ManualClock) -> AsyncIterator[Harness]:
    harness = Harness(db, clock)
    yield harness
    for d in harness.dispatchers:
        await d.stop()


async def once(h: Harness, delta: timedelta, command: str = "ping") -> int:
    job = await h.engine.create(
        target=ALICE,
        command=command,
        kind="delayed",
        schedule=Schedule(Once(h.clock.now() + delta)),
        check_limits=False,
    )
    return job.id


# ---------------------------------------------------------------- basics


async def test_sleeps_until_due_and_delivers_once(h: Harness) -> None:
    job_id = await once(h, timedelta(minutes=5))
    d, t = await h.start()
    assert d.first_sleep_at is not None and d.sleeping.is_set()
    await h.move(d, timedelta(minutes=4, seconds=59))
    assert t.calls == []
    await h.move(d, timedelta(seconds=1))
    [delivery] = t.calls
    assert delivery.job.id == job_id and delivery.text == "[DELAYED_COMMAND] ping"
    assert not delivery.late and delivery.run.attempt == 1
    job = await h.engine.get(job_id)
    assert job.status == JobStatus.COMPLETED
    [run] = await h.engine.history(job_id)
    assert run.outcome == RunOutcome.DELIVERED and run.nonce == delivery.run.nonce
    assert run.message_id == 1


async def test_a_run_claimed_ahead_is_delivered_as_built_at_claim_time(h: Harness) -> None:
    job_id = await once(h, timedelta(minutes=5))
    d, t = await h.start()
    await h.move(d, timedelta(minutes=5) - timedelta(milliseconds=100))  # within look-ahead
    assert t.calls == [] and d.busy  # claimed, waiting for its moment
    _, built = d._built[job_id]
    await h.move(d, timedelta(milliseconds=100))
    [delivery] = t.calls
    assert delivery is built and not delivery.late
    [run] = await h.engine.history(job_id)
    assert run.delivered_at == h.clock.now() and run.lateness_ms == 0


async def test_a_moment_missed_after_the_claim_is_decided_again(h: Harness) -> None:
    """Built on time, fired more than the lateness allowance late (a stalled loop): the
    delivery says it is late, as one decided at the moment does."""
    job_id = await once(h, timedelta(minutes=5))
    d, t = await h.start()
    await h.move(d, timedelta(minutes=5) - timedelta(milliseconds=100))
    assert job_id in d._built
    await h.move(d, timedelta(seconds=70))  # past late_after (60 s), within the lease
    [delivery] = t.calls
    assert delivery.late and delivery.late_by >= timedelta(seconds=69)
    [run] = await h.engine.history(job_id)
    assert run.outcome == RunOutcome.DELIVERED and run.lateness_ms >= 69_000
    assert not d._built


async def test_woken_early_by_an_earlier_job(h: Harness) -> None:
    await once(h, timedelta(hours=5), "later")
    d, t = await h.start()
    await once(h, timedelta(minutes=1), "sooner")  # created while the loop sleeps until +5 h
    await settle(d)
    await h.move(d, timedelta(minutes=1))
    assert [x.job.command for x in t.calls] == ["sooner"]


async def test_woken_by_reschedule(h: Harness) -> None:
    job_id = await once(h, timedelta(hours=5))
    d, t = await h.start()
    await h.engine.update(job_id, schedule=Schedule(Once(h.clock.now() + timedelta(seconds=30))))
    await settle(d)
    await h.move(d, timedelta(seconds=30))
    assert [x.job.id for x in t.calls] == [job_id]


async def test_recurring_advances_and_ends_with_max_runs(h: Harness) -> None:
    job = await h.engine.create(
        target=ALICE,
        command="tick",
        kind="interval",
        check_limits=False,
        schedule=Schedule(Every(60, h.clock.now() + timedelta(minutes=1)), max_runs=3),
    )
    d, t = await h.start()
    for _ in range(4):
        await h.move(d, timedelta(minutes=1))
    assert [x.scheduled_for for x in t.calls] == [
        h.clock.now() - timedelta(minutes=m) for m in (3, 2, 1)
    ]
    done = await h.engine.get(job.id)
    assert done.status == JobStatus.COMPLETED and done.run_count == 3


async def test_batches_and_bounded_concurrency(h: Harness) -> None:
    for i in range(25):
        await once(h, timedelta(minutes=1), f"job {i}")
    d, t = await h.start(batch=7, concurrency=3)
    await h.move(d, timedelta(minutes=1))
    assert len(t.calls) == 25 and len(h.discord.posts) == 25
    assert len(await h.engine.list_jobs(owner_id=1)) == 0


async def test_transport_error_retried_with_backoff(h: Harness) -> None:
    job_id = await once(h, timedelta(minutes=1))
    d, t = await h.start()
    t.errors = [DeliveryError("502 Bad Gateway", retryable=True)] * 2
    await h.move(d, timedelta(minutes=1))
    assert len(t.calls) == 1 and h.discord.posts == []
    await h.move(d, timedelta(seconds=2))  # first backoff: 2 s
    assert len(t.calls) == 2
    await h.move(d, timedelta(seconds=3))
    assert len(t.calls) == 2  # second backoff is 4 s
    await h.move(d, timedelta(seconds=1))
    assert len(t.calls) == 3 and len(h.discord.posts) == 1
    assert len({c.run.nonce for c in t.calls}) == 1 and [c.run.attempt for c in t.calls] == [
        1,
        2,
        3,
    ]
    [run] = await h.engine.history(job_id)
    assert run.outcome == RunOutcome.DELIVERED
    assert [e["error"] for e in run.details["errors"]] == ["502 Bad Gateway"] * 2


async def test_permanent_error_fails_one_shot(h: Harness) -> None:
    job_id = await once(h, timedelta(minutes=1))
    d, t = await h.start()
    t.errors = [DeliveryError("Missing Access", retryable=False)]
    await h.move(d, timedelta(minutes=1))
    job = await h.engine.get(job_id)
    assert job.status == JobStatus.FAILED and job.fail_reason == "Missing Access"


async def test_recurring_job_wakes_loop_for_its_next_slot(h: Harness) -> None:
    """After a run the job's next slot may be earlier than what the loop sleeps on."""
    await h.engine.create(
        target=ALICE,
        command="tick",
        kind="interval",
        check_limits=False,
        schedule=Schedule(Every(60, h.clock.now() + timedelta(minutes=1))),
    )
    d, t = await h.start()
    for n in range(1, 4):
        await h.move(d, timedelta(minutes=1))
        assert len(t.calls) == n
        assert all(not c.late for c in t.calls)


# ---------------------------------------------------------------- downtime


async def test_downtime_one_shot_late_recurring_catch_up_or_skip(h: Harness) -> None:
    late = await once(h, timedelta(minutes=5), "one-off")
    hourly = await h.engine.create(
        target=ALICE,
        command="hourly",
        kind="recurring",
        check_limits=False,
        schedule=Schedule(Cron("0 * * * *")),
    )
    daily = await h.engine.create(
        target=ALICE,
        command="daily",
        kind="recurring",
        check_limits=False,
        schedule=Schedule(Cron("0 6 * * *")),
    )
    # the bot was off from 08:00 until the next day 06:40
    await h.clock.set(datetime(2026, 11, 24, 6, 40, tzinfo=UTC))
    _d, t = await h.start()
    by_job = {c.job.id: c for c in t.calls}
    assert by_job[late].late
    assert by_job[daily.id].scheduled_for == datetime(2026, 11, 24, 6, tzinfo=UTC)  # catch-up
    assert hourly.id not in by_job  # newest hourly slot (06:00) is 40 min old > half an hour
    [skip] = await h.engine.history(hourly.id)
    assert skip.outcome == RunOutcome.SKIPPED
    assert (await h.engine.get(hourly.id)).next_run_at == datetime(2026, 11, 24, 7, tzinfo=UTC)


# ---------------------------------------------------------------- crashes


# PostgreSQL may be shared by several processes, so a restart never releases claims there.
_RELEASE = pytest.param("release_claims", marks=pytest.mark.sqlite_only("claims released at start"))


@pytest.mark.parametrize("mode", ["crash_before_post", "crash_after_post"])
@pytest.mark.parametrize("restart", [_RELEASE, "lease_expiry"])
async def test_crash_and_restart_delivers_exactly_once(h: Harness, mode: str, restart: str) -> None:
    ids = [await once(h, timedelta(minutes=1), f"job {i}") for i in range(5)]
    d, t = await h.start(mode)
    await h.clock.advance(timedelta(minutes=1))
    await asyncio.wait_for(t.reached.wait(), 5)
    for _ in range(50):
        await asyncio.sleep(0)
    await d.stop()  # the process dies mid-delivery
    posted_before = len(h.discord.posts)
    assert posted_before == (5 if mode == "crash_after_post" else 0)
    if restart == "release_claims":
        d2, t2 = await h.start()
    else:
        d2, t2 = await h.start(release_claims_on_start=False)
        assert t2.calls == []  # still leased to the dead process
        await h.move(d2, timedelta(seconds=90))
    assert sorted(c.job.id for c in t2.calls) == ids
    assert sorted(p.job.id for p in h.discord.posts) == ids  # one message per job slot
    for job_id in ids:
        assert (await h.engine.get(job_id)).status == JobStatus.COMPLETED
        [run] = await h.engine.history(job_id)
        assert run.outcome == RunOutcome.DELIVERED and run.attempt == 2
    # the re-delivery reused each run's nonce
    assert {c.run.nonce for c in t.calls} == {c.run.nonce for c in t2.calls}


async def test_crash_after_recording_does_not_redeliver(h: Harness) -> None:
    job_id = await once(h, timedelta(minutes=1))
    d, _t = await h.start()
    await h.move(d, timedelta(minutes=1))
    await d.stop()
    d2, t2 = await h.start()
    await h.move(d2, timedelta(minutes=5))
    assert t2.calls == [] and len(h.discord.posts) == 1
    assert (await h.engine.get(job_id)).status == JobStatus.COMPLETED


@pytest.mark.sqlite_only("claims released at start")
async def test_recurring_crash_keeps_slot_and_nonce(h: Harness) -> None:
    job = await h.engine.create(
        target=ALICE,
        command="tick",
        kind="interval",
        check_limits=False,
        schedule=Schedule(Every(3600, h.clock.now() + timedelta(hours=1))),
    )
    d, t = await h.start("crash_after_post")
    await h.clock.advance(timedelta(hours=1))
    await asyncio.wait_for(t.reached.wait(), 5)
    await d.stop()
    _d2, t2 = await h.start()
    assert [c.run.nonce for c in t2.calls] == [t.calls[0].run.nonce]
    assert len(h.discord.posts) == 1
    after = await h.engine.get(job.id)
    assert after.run_count == 1 and after.claimed_slot is None
    assert after.next_run_at == datetime(2026, 11, 23, 10, tzinfo=UTC)
