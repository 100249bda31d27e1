"""The engine the bot, the console and the agent's tools hold: one object composed of the
lifecycle's stages (`commands`, `runs`, `reminders`), sharing one store, clock, set of
limits and waker. It adds no behaviour of its own."""

from __future__ import annotations

from collections.abc import Sequence

from storage.jobs import JobStore
from tools.jobs.commands import JobCommands, SeenOpenJobs
from tools.jobs.limits import Guardrails, Limits
from tools.jobs.model import Clock, Waker, utcnow
from tools.jobs.reminders import JobReminders
from tools.jobs.runs import FailureNotice, JobRuns


class Engine(JobCommands, JobRuns, JobReminders):
    """Create, list, change and fire durable jobs (see the stage modules)."""

    def __init__(
        self,
        store: JobStore,
        *,
        clock: Clock = utcnow,
        limits: Limits | None = None,
        waker: Waker | None = None,
        failure_notices: Sequence[FailureNotice] = (),
    ) -> None:
        self.store = store
        self.clock = clock
        self.guard = Guardrails(limits or Limits())
        self.waker = waker
        self.open_seen = SeenOpenJobs()
        # Told (job as now, error) when a recurring job's failures reach the notify or
        # pause threshold; the chat surface tells the owner.
        self.failure_notices = tuple(failure_notices)

    @property
    def limits(self) -> Limits:
        return self.guard.limits

    @limits.setter
    def limits(self, value: Limits) -> None:
        # The guardrails read the new limits too (settings may be swapped at run time).
        self.guard.limits = value
