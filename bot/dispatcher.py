"""The dispatcher: one loop that sleeps until the next job, claims it and hands it to a transport."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Protocol

from bot.clock import Clock, SystemClock
from storage.jobs import Claim
from tools.engine import Decision, Engine

log = logging.getLogger(__name__)

MARKER = "[DELAYED_COMMAND]"


def command_text(kind: str, command: str) -> str:
    """What a fired job asks the agent to do (after the marker)."""
    if kind == "reminder":
        return f"Send a reminder about: {command}"
    return command


@dataclass(frozen=True)
class Delivery:
    """One run to put in front of its owner: the marker message and where it goes."""

    job_id: int
    run_id: int
    nonce: str
    owner_id: int
    guild_id: int | None
    channel_id: int
    parent_channel_id: int | None
    command: str
    kind: str
    scheduled_for: datetime
    late_by: timedelta
    attempt: int
    run_kind: str = "run"
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def text(self) -> str:
        return f"{MARKER} {command_text(self.kind, self.command)}"

    @property
    def late(self) -> bool:
        return self.late_by > timedelta(0)


@dataclass(frozen=True)
class Delivered:
    """Where a delivery landed (a fallback path says so in `route`)."""

    message_id: int | None
    channel_id: int | None = None
    route: str = "thread"


class DeliveryError(Exception):
    """A delivery attempt failed; `retryable` says whether trying again may help."""

    def __init__(self, message: str, *, retryable: bool) -> None:
        super().__init__(message)
        self.retryable = retryable


class Transport(Protocol):
    async def deliver(self, delivery: Delivery) -> Delivered: ...


DeliveredHook = Callable[[Delivery, Delivered], Awaitable[None]]


class Dispatcher:
    """Fires due jobs exactly once: claim (leased), deliver (stable nonce), record."""

    def __init__(
        self,
        engine: Engine,
        transport: Transport,
        *,
        clock: Clock | None = None,
        batch: int = 200,
        concurrency: int = 64,
        lease: timedelta = timedelta(seconds=90),
        release_claims_on_start: bool = True,
    ) -> None:
        self.engine = engine
        self.transport = transport
        self.clock: Clock = clock or SystemClock()
        self.batch = batch
        self.lease = lease
        self.release_claims_on_start = release_claims_on_start
        self.hooks: list[DeliveredHook] = []
        self.sleeping = asyncio.Event()
        self.first_sleep_at: float | None = None
        self._wake = asyncio.Event()
        self._sleep_deadline: datetime | None = None
        self._slots = asyncio.Semaphore(concurrency)
        self._in_flight: dict[int, asyncio.Task[None]] = {}
        self._task: asyncio.Task[None] | None = None

    # The engine calls this when a job is created or changed.
    def wake(self, at: datetime | None = None) -> None:
        if at is None or self._sleep_deadline is None or at < self._sleep_deadline:
            self._wake.set()

    async def start(self) -> None:
        if self._task is None:
            self._task = asyncio.create_task(self.run(), name="homar-dispatcher")

    async def stop(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        pending = list(self._in_flight.values())
        for t in pending:
            t.cancel()
        for t in pending:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await t

    async def idle(self) -> None:
        """Wait until every claimed run is recorded and the loop is asleep (for tests)."""
        while True:
            await self.sleeping.wait()
            if self._in_flight:
                await asyncio.gather(*self._in_flight.values(), return_exceptions=True)
                continue
            if self.sleeping.is_set():
                return

    async def run(self) -> None:
        if self.release_claims_on_start and not self.engine.store.db.is_postgres:
            # SQLite means one process: any claim still held is from a crashed run of ours.
            released = await self.engine.store.release_claims(self.clock.now())
            if released:
                log.info("resuming %d deliveries interrupted by a restart", released)
        while True:
            try:
                await self._tick()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("dispatcher loop error; retrying in 1 s")
                self.sleeping.set()
                await asyncio.sleep(1)

    async def _tick(self) -> None:
        self._wake.clear()
        self.sleeping.clear()
        claims = await self.engine.claim_due(limit=self.batch, lease=self.lease)
        for claim in claims:
            if claim.job.id in self._in_flight:
                continue  # still delivering the previous attempt; its lease was just renewed
            await self._slots.acquire()
            task = asyncio.create_task(self._fire(claim), name=f"deliver-job-{claim.job.id}")
            self._in_flight[claim.job.id] = task
        if len(claims) >= self.batch:
            await asyncio.sleep(0)
            return
        deadline = await self.engine.next_due()
        self._sleep_deadline = deadline
        if self.first_sleep_at is None:
            self.first_sleep_at = time.perf_counter()
        if self._wake.is_set():
            return
        self.sleeping.set()
        await self.clock.sleep_until(deadline, self._wake)
        self._sleep_deadline = None

    async def _fire(self, claim: Claim) -> None:
        job = claim.job
        try:
            decision = self.engine.decide(claim, self.clock.now())
            if not decision.deliver:
                log.info(
                    "job %s: skipped %d missed slots", job.id, decision.skipped,
                    extra={"job_id": job.id, "run_id": claim.run.id},
                )
                skipped = await self.engine.skip(claim, decision)
                if skipped is not None and skipped.next_run_at is not None:
                    self.wake(skipped.next_run_at)  # may be sooner than what the loop sleeps on
                return
            delivery = self._delivery(claim, decision)
            try:
                result = await self.transport.deliver(delivery)
            except DeliveryError as exc:
                await self._failed(claim, str(exc), retryable=exc.retryable)
                return
            except Exception as exc:  # a transport bug must not lose the job
                log.exception("job %s: transport error", job.id)
                await self._failed(claim, f"{type(exc).__name__}: {exc}", retryable=True)
                return
            advanced = await self.engine.delivered(
                claim,
                decision,
                message_id=result.message_id,
                details={"route": result.route} if result.route != "thread" else None,
            )
            if advanced is not None and advanced.next_run_at is not None:
                # A recurring job's next slot may be sooner than the loop's deadline (which
                # was this run's lease expiry while it was in flight).
                self.wake(advanced.next_run_at)
            for hook in self.hooks:
                try:
                    await hook(delivery, result)
                except Exception:
                    log.exception("delivered-hook failed for job %s", job.id)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("job %s: could not record its run; it will be retried", job.id)
        finally:
            self._in_flight.pop(job.id, None)
            self._slots.release()

    async def _failed(self, claim: Claim, error: str, *, retryable: bool) -> None:
        _, retry_at = await self.engine.failed(claim, error, retryable=retryable)
        log.warning(
            "job %s run %s failed (%s): %s",
            claim.job.id,
            claim.run.id,
            f"retry at {retry_at:%H:%M:%S}" if retry_at else "gave up",
            error,
            extra={"job_id": claim.job.id, "run_id": claim.run.id},
        )

    def _delivery(self, claim: Claim, decision: Decision) -> Delivery:
        job, run = claim.job, claim.run
        return Delivery(
            job_id=job.id,
            run_id=run.id,
            nonce=run.nonce,
            owner_id=job.owner_id,
            guild_id=job.guild_id,
            channel_id=job.channel_id,
            parent_channel_id=job.parent_channel_id,
            command=job.command,
            kind=job.kind,
            scheduled_for=decision.slot,
            late_by=decision.late_by,
            attempt=run.attempt,
            run_kind=run.kind,
            meta=dict(job.meta or {}),
        )
