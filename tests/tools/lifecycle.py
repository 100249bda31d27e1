"""The engine tests' lifecycle driver: the real dispatcher fires whatever is due.

Tests move their clock, then `await fire(engine)`: the dispatcher claims the due runs,
decides each (deliver, catch up, skip), hands deliveries to a transport that records
them, and records the outcomes, exactly as in the running bot (one turn of its loop).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from datetime import datetime, timedelta

from bot.dispatcher import Delivered, Delivery, Dispatcher
from storage.models import RunOutcome
from tools.jobs.engine import Engine

LEASE = timedelta(seconds=90)


class _EngineClock:
    """The dispatcher reads the engine's own (test-moved) clock."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def now(self) -> datetime:
        return self.engine.clock()

    async def sleep_until(self, deadline: datetime | None, wake: asyncio.Event) -> None:
        raise AssertionError("the lifecycle driver never sleeps; move the clock instead")


class RecordingTransport:
    def __init__(self) -> None:
        self.deliveries: list[Delivery] = []

    async def deliver(self, delivery: Delivery) -> Delivered:
        self.deliveries.append(delivery)
        return Delivered(message_id=1)


@dataclass(frozen=True)
class Fired:
    """One run the driver fired: delivered (at `slot`) or skipped."""

    job_id: int
    slot: datetime
    run_kind: str
    delivered: bool


async def fire(engine: Engine) -> list[Fired]:
    """Claim everything due now, deliver and record it through the real dispatcher."""
    dispatcher = Dispatcher(engine, RecordingTransport(), clock=_EngineClock(engine), lease=LEASE)
    fired = []
    for outcome, delivery in await dispatcher.fire_due():
        claim = outcome.claim
        if delivery is not None:
            fired.append(Fired(claim.job.id, delivery.scheduled_for, claim.run.kind, True))
        elif outcome.run_values.get("outcome") == RunOutcome.SKIPPED:
            fired.append(Fired(claim.job.id, claim.slot, claim.run.kind, False))
    return fired
