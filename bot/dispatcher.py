"""The dispatcher: one loop sleeps until the next job, claims it, hands it to a transport."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import time
from collections import deque
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import partial
from typing import Protocol

from bot.clock import Clock, SystemClock
from storage.jobs import Claim, Job, Run
from tools.jobs.engine import Engine
from tools.jobs.marker import marker_text
from tools.jobs.runs import Decision, Outcome

log = logging.getLogger(__name__)

RECORD_DELAY = 0.5  # seconds recording may wait while a burst is claimed and delivered
# Claim jobs this long before they are due and fire each at its exact time, so the
# database work of a burst happens before the moment rather than after it.
LOOKAHEAD = timedelta(milliseconds=250)
YOUNG_COLLECTION_EVERY = 50_000  # allocations between young garbage collections


@dataclass(frozen=True, slots=True)
class Delivery:
    """One run to put in front of its owner: the job and run storage handed out, the slot
    it is for and how late it fires. Its marker message is `text`; where it goes is the
    job's thread."""

    job: Job
    run: Run
    scheduled_for: datetime
    late_by: timedelta

    @property
    def text(self) -> str:
        return marker_text(self.job.kind, self.job.command, self.run.kind)

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
# A finished run as the recorder gets it: its outcome, or (a delivery) what works it out
# when recorded, with the time it was delivered, off a burst's critical path.
Finished = tuple[int, Outcome | Callable[[], Outcome], Delivery | None, Delivered | None]


class Alarm:
    """Wakes the dispatcher early when a job it should fire sooner is created or changed.

    The engine's waker: it exists before the dispatcher (which needs the engine), so the
    dispatcher is built with the alarm the engine already rings.
    """

    def __init__(self, lookahead: timedelta = LOOKAHEAD) -> None:
        self.lookahead = lookahead
        self.event = asyncio.Event()
        self.deadline: datetime | None = None  # when the dispatcher wakes on its own

    def wake(self, at: datetime | None = None) -> None:
        deadline = self.deadline
        if at is None or deadline is None or at - self.lookahead < deadline:
            self.event.set()


class Dispatcher:
    """Fires due jobs exactly once: claim (leased), deliver (stable nonce), record.

    Claims and records are batched (one transaction each), and only the transport
    calls are bounded by `concurrency`, so a burst of due jobs is not serialised
    behind per-job database round trips.
    """

    def __init__(
        self,
        engine: Engine,
        transport: Transport,
        *,
        clock: Clock | None = None,
        batch: int = 500,
        concurrency: int | None = None,
        lease: timedelta = timedelta(seconds=90),
        lookahead: timedelta = LOOKAHEAD,
        release_claims_on_start: bool = True,
        alarm: Alarm | None = None,
        hooks: Sequence[DeliveredHook] = (),
    ) -> None:
        self.engine = engine
        self.transport = transport
        self.clock: Clock = clock or SystemClock()
        self.batch = batch
        self.lease = lease
        self.lookahead = lookahead
        self.release_claims_on_start = release_claims_on_start
        # Told of each recorded delivery (the bot answers a resumed one from here).
        self.hooks: list[DeliveredHook] = list(hooks)
        self.sleeping = asyncio.Event()
        self.first_sleep_at: float | None = None
        self.alarm = alarm if alarm is not None else Alarm(lookahead)
        # A transport that paces its own sends (Discord's) holds more deliveries waiting.
        held = getattr(transport, "concurrency", 64)
        self.concurrency: int = concurrency if concurrency is not None else int(held)
        # Claims ready to deliver, worked off by at most `concurrency` worker tasks.
        self._ready: deque[Claim] = deque()
        self._workers: set[asyncio.Task[None]] = set()
        self._timers: set[asyncio.Task[None]] = set()
        # Ids of claimed jobs; a job leaves only once its run is recorded.
        self._in_flight: set[int] = set()
        # Claimed ahead of time and waiting for their exact moment (not yet delivering).
        self._waiting: set[int] = set()
        self._quiet = asyncio.Event()
        self._quiet.set()
        self._finished: list[Finished] = []
        # Deliveries built when their claim was taken ahead of its moment, by job id, with
        # the decision they were built on: at the moment, only the transport is called.
        self._built: dict[int, tuple[Decision, Delivery]] = {}
        self._has_finished = asyncio.Event()
        self._claiming = False
        # Recording waits while a burst is still being claimed or delivered (see _record_loop).
        self._busy = 0
        self._settled = asyncio.Event()
        self._settled.set()
        self._task: asyncio.Task[None] | None = None
        self._recorder: asyncio.Task[None] | None = None

    # The engine calls this when a job is created or changed.
    def wake(self, at: datetime | None = None) -> None:
        self.alarm.wake(at)

    async def start(self) -> None:
        if self._task is None:
            # Everything alive by now (modules, compiled statements, settings) lives as long
            # as the process: freeze it out of the collector, so a full collection during a
            # burst of deliveries scans only new objects (tens of ms → about one).
            gc.freeze()
            # A fired run (agent, HTTP, gateway parsing) allocates thousands of short-lived
            # objects: at the default threshold (700) a young collection ran every few
            # hundred microseconds of work, a tenth of a burst's CPU. The older generations
            # keep their default pace relative to it.
            gc.set_threshold(YOUNG_COLLECTION_EVERY, *gc.get_threshold()[1:])
            self._recorder = asyncio.create_task(self._record_loop(), name="homar-recorder")
            self._task = asyncio.create_task(self.run(), name="homar-dispatcher")

    async def stop(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        pending = [*self._workers, *self._timers]
        for t in pending:
            t.cancel()
        for t in pending:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await t
        recorder, self._recorder = self._recorder, None
        if recorder is not None:
            recorder.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await recorder
        self._in_flight.clear()
        self._waiting.clear()
        self._ready.clear()
        self._built.clear()
        self._quiet.set()

    async def drain(self, grace: float) -> int:
        """A graceful stop: claim nothing more, let deliveries under way finish and be
        recorded (for at most `grace` seconds), and hand back the claims not started yet,
        so they fire at once elsewhere or at the next start instead of after their lease.

        Returns how many claims were handed back; `stop()` then cancels what remains.
        """
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        timers = list(self._timers)
        for t in timers:
            t.cancel()
        for t in timers:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await t
        # Claimed ahead and waiting for their moment, or queued for a worker: not started.
        unstarted = [claim.job.id for claim in self._ready] + list(self._waiting)
        self._ready.clear()
        self._waiting.clear()
        self._built.clear()
        self._in_flight.difference_update(unstarted)
        handed = 0
        try:
            handed = await self.engine.store.hand_back(unstarted)
        except Exception:  # their leases still bring them back, only later
            log.exception("could not hand back %d claims at shutdown", len(unstarted))
        loop = asyncio.get_running_loop()
        deadline = loop.time() + grace
        self._settled.set()  # record what finished without waiting for a burst to settle
        while self._in_flight and loop.time() < deadline:
            await asyncio.sleep(0.02)
        if self._in_flight:
            log.warning(
                "%d deliveries did not finish within %.0f s; their leases will resume them",
                len(self._in_flight),
                grace,
            )
        return handed

    @property
    def busy(self) -> bool:
        """Claimed runs not yet recorded, including those waiting for their moment."""
        return bool(self._in_flight)

    async def idle(self) -> None:
        """Wait until every run that is due is recorded and the loop is asleep (for tests).

        Runs claimed ahead of their moment (within the look-ahead) do not count: they
        are delivered when the clock reaches them.
        """
        while True:
            await self.sleeping.wait()
            await self._quiet.wait()
            await asyncio.sleep(0)
            if self.sleeping.is_set() and self._quiet.is_set():
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
        self.alarm.event.clear()
        self.sleeping.clear()
        claims, due = await self.engine.claim_due_next(
            limit=self.batch, lease=self.lease, ahead=self.lookahead
        )
        if len(claims) >= self.batch:
            if not self._claiming:
                self._hold()  # more to claim right away: let the next batch go first
            self._claiming = True
        elif self._claiming:
            self._claiming = False
            self._unhold()
        now = self.clock.now()
        later: dict[datetime, list[Claim]] = {}
        ready: list[Claim] = []
        for claim in claims:
            if claim.job.id in self._in_flight:
                continue  # still delivering the previous attempt; its lease was just renewed
            self._in_flight.add(claim.job.id)
            if claim.slot > now:
                self._waiting.add(claim.job.id)
                later.setdefault(claim.slot, []).append(claim)
                self._build(claim)
            else:
                ready.append(claim)
        if ready:
            self._quiet.clear()
            self._start(ready)
        for slot, group in later.items():
            # One timer per slot, not per job: a burst shares its moment.
            timer = asyncio.create_task(self._start_at(slot, group), name=f"slot-{slot:%H%M%S}")
            self._timers.add(timer)
            timer.add_done_callback(self._timers.discard)
        if len(claims) >= self.batch:
            await asyncio.sleep(0)
            return
        # `due` was read in the claim's transaction; a job created or recorded since
        # rang the alarm (checked below), so nothing sooner is missed.
        deadline = due - self.lookahead if due is not None else None
        self.alarm.deadline = deadline
        if self.first_sleep_at is None:
            self.first_sleep_at = time.perf_counter()
        if self.alarm.event.is_set():
            return
        self.sleeping.set()
        await self.clock.sleep_until(deadline, self.alarm.event)
        self.alarm.deadline = None

    def _start(self, claims: list[Claim]) -> None:
        self._ready.extend(claims)
        # A finished worker may not have run its done-callback yet: count live ones only
        # (once per batch: counting per claim made starting a burst quadratic).
        live = sum(1 for w in self._workers if not w.done())
        while live < min(self.concurrency, len(self._ready)):
            self._hold()
            worker = asyncio.create_task(self._work(), name="homar-delivery")
            self._workers.add(worker)
            worker.add_done_callback(self._worker_done)
            live += 1

    def _worker_done(self, worker: asyncio.Task[None]) -> None:
        self._workers.discard(worker)
        self._unhold()

    async def _work(self) -> None:
        # A worker per concurrent delivery, not a task per job: a burst of thousands
        # would otherwise spend more time creating and scheduling tasks than delivering.
        while self._ready:
            await self._fire(self._ready.popleft())

    def _hold(self) -> None:
        self._busy += 1
        self._settled.clear()

    def _unhold(self) -> None:
        self._busy -= 1
        if self._busy <= 0:
            self._busy = 0
            self._settled.set()

    async def _start_at(self, slot: datetime, claims: list[Claim]) -> None:
        await self.clock.sleep_until(slot, asyncio.Event())
        self._quiet.clear()
        for claim in claims:
            self._waiting.discard(claim.job.id)
        self._start(claims)

    def _build(self, claim: Claim) -> None:
        """Decide and build a delivery ahead of its moment, as if fired on time; `_fire`
        uses it if the decision at the moment is the same (it is, unless the moment
        was missed by more than the lateness allowance or a follow-up went stale)."""
        try:
            decision = self.engine.decide(claim, claim.slot)
            if decision.deliver:
                self._built[claim.job.id] = (decision, self._delivery(claim, decision))
        except Exception:  # built again, and any error reported, at the moment
            log.exception("job %s: could not prepare its delivery", claim.job.id)

    async def _fire(self, claim: Claim) -> None:
        job = claim.job
        built = self._built.pop(job.id, None)
        try:
            now = self.clock.now()
            decision = self.engine.decide(claim, now)
            if not decision.deliver:
                log.info(
                    "job %s: skipped %d missed slots",
                    job.id,
                    decision.skipped,
                    extra=_ids(claim),
                )
                self._finish(job.id, self.engine.skipped(claim, decision))
                return
            if built is not None and built[0] == decision:
                delivery = built[1]
            else:
                delivery = self._delivery(claim, decision)
            try:
                result = await self.transport.deliver(delivery)
            except DeliveryError as exc:
                self._failed(claim, str(exc), retryable=exc.retryable)
                return
            except Exception as exc:  # a transport bug must not lose the job
                log.exception("job %s: transport error", job.id, extra=_ids(claim))
                self._failed(claim, f"{type(exc).__name__}: {exc}", retryable=True)
                return
            # Worked out when recorded, with the time it was delivered: the moment of a
            # burst is spent calling the transport.
            outcome = partial(
                self.engine.delivered,
                claim,
                decision,
                message_id=result.message_id,
                details={"route": result.route} if result.route != "thread" else None,
                at=self.clock.now(),
            )
            self._finish(job.id, outcome, delivery, result)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception(
                "job %s: could not deliver; it will be retried", job.id, extra=_ids(claim)
            )
            self._release(job.id)

    def _finish(
        self,
        job_id: int,
        outcome: Outcome | Callable[[], Outcome],
        delivery: Delivery | None = None,
        result: Delivered | None = None,
    ) -> None:
        self._finished.append((job_id, outcome, delivery, result))
        self._has_finished.set()

    def _release(self, job_id: int) -> None:
        self._in_flight.discard(job_id)
        if self._in_flight <= self._waiting:
            self._quiet.set()

    def _failed(self, claim: Claim, error: str, *, retryable: bool) -> None:
        outcome, retry_at = self.engine.failed(claim, error, retryable=retryable)
        log.warning(
            "job %s run %s failed (%s): %s",
            claim.job.id,
            claim.run.id,
            f"retry at {retry_at:%H:%M:%S}" if retry_at else "gave up",
            error,
            extra={
                "job_id": claim.job.id,
                "run_id": claim.run.id,
                "thread_id": claim.job.channel_id,
            },
        )
        self._finish(claim.job.id, outcome)

    async def _record_loop(self) -> None:
        """Write finished runs in batches.

        Delivering comes first: while a burst is still being claimed or delivered,
        recording waits (up to RECORD_DELAY) so deliveries are not queued behind it.
        Unrecorded runs are safe meanwhile: their jobs stay claimed under a lease far
        longer than that.
        """
        while True:
            await self._has_finished.wait()
            self._has_finished.clear()
            if not self._settled.is_set():
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._settled.wait(), RECORD_DELAY)
            batch, self._finished = self._finished, []
            if not batch:
                continue
            await self._record(batch)

    async def fire_due(self) -> list[tuple[Outcome, Delivery | None]]:
        """One turn of the loop, awaited: claim what is due now, fire it, record it.

        For a caller that moves time itself (the engine tests' lifecycle driver); the
        running bot uses `start()`. Returns each recorded outcome with its delivery.
        """
        for claim in await self.engine.claim_due(limit=self.batch, lease=self.lease):
            self._in_flight.add(claim.job.id)
            await self._fire(claim)
        batch, self._finished = self._finished, []
        outcomes = await self._record(batch, raise_errors=True)
        return [(outcome, f[2]) for outcome, f in zip(outcomes, batch, strict=True)]

    async def _record(self, batch: list[Finished], *, raise_errors: bool = False) -> list[Outcome]:
        """Record finished runs in one transaction, then tell the delivered-hooks."""
        if not batch:
            return []
        outcomes: list[Outcome] = []
        try:
            outcomes = [o if isinstance(o, Outcome) else o() for _, o, _, _ in batch]
            await self.engine.record(outcomes)
        except asyncio.CancelledError:
            raise
        except Exception:
            if raise_errors:
                raise
            # Unrecorded runs stay claimed; their lease expires and they are resumed
            # with the same nonce, which the transport de-duplicates.
            log.exception("could not record %d runs; they will be resumed", len(batch))
        finally:
            for job_id, _, _, _ in batch:
                self._release(job_id)
        for _, _, delivery, result in batch:
            if delivery is None or result is None:
                continue
            for hook in self.hooks:
                try:
                    await hook(delivery, result)
                except Exception:
                    log.exception("delivered-hook failed for job %s", delivery.job.id)
        return outcomes

    def _delivery(self, claim: Claim, decision: Decision) -> Delivery:
        job, run = claim.job, claim.run
        return Delivery(job, run, decision.slot, decision.late_by)


def _ids(claim: Claim) -> dict[str, int]:
    """A claim's log fields."""
    return {"job_id": claim.job.id, "run_id": claim.run.id, "thread_id": claim.job.channel_id}
