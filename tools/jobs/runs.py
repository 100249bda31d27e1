"""The run lifecycle: claim due jobs, decide what to do with each run, record how it went
and advance its job.

What a run does to its job is worked out by pure functions (`after_delivery`,
`after_skip`, `after_failure`, `retry_later`) from the job as it is and what happened;
storage only writes the result, and only if the job is still as it was read (an edit,
pause or cancel made meanwhile wins: the change is planned again from the job as now).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import partial
from typing import Any

from storage.jobs import Claim, Finished, Job, JobStore
from storage.models import JobStatus, RunOutcome
from tools.jobs import reminders
from tools.jobs.limits import Limits
from tools.jobs.model import FOLLOW_UP_RUN, Clock, FollowUpState, Waker, run_kind_of, schedule_of
from tools.jobs.retry import RetryPolicy
from tools.schedule import Every, Schedule

log = logging.getLogger(__name__)

_ZERO = timedelta(0)
# A record is written only if its job is as it was read; a job changing under it that
# often means something is badly wrong, and the run stays claimed (its lease resumes it).
_RECORD_ATTEMPTS = 10

FailureNotice = Callable[[Job, str], None]


@dataclass(frozen=True)
class Decision:
    """What to do with a claimed run: deliver it (perhaps late) or skip missed slots."""

    deliver: bool
    slot: datetime
    late_by: timedelta
    skipped: int = 0
    catch_up: bool = False

    @property
    def late(self) -> bool:
        return self.late_by > _ZERO


@dataclass(frozen=True)
class Outcome:
    """How one finished run is recorded: its run's values, and its job's change, worked
    out from the job as it is when recorded (`advance` is one of this module's pure
    functions, bound to what happened)."""

    claim: Claim
    run_values: dict[str, Any]
    advance: Callable[[Job], dict[str, Any]]
    # False for a retry: the job stays claimed for this slot, to resume the same run.
    release: bool = True

    def changes(self, job: Job | None) -> dict[str, Any] | None:
        """The job's new values, or None when the run no longer owns it."""
        if job is None or job.claimed_slot != self.claim.slot:
            return None
        changes = dict(self.advance(job))
        if self.release:
            changes["claimed_slot"] = None
        return changes

    def finished(self, job: Job | None) -> Finished:
        return Finished(self.claim, self.run_values, job, self.changes(job))


# ---------------------------------------------------------------- pure advances


def advance_values(
    job: Job, nxt: datetime | None, now: datetime, *, counted: bool
) -> dict[str, Any]:
    """A job moved on to `nxt` (None: no runs left), whatever it is now."""
    # Any advance ends a follow-up cycle; `after_delivery` starts the next one explicitly.
    state = FollowUpState.of(job).without_cycle().replace(resume_at=None)
    nxt = nxt.astimezone(UTC) if nxt is not None else None
    values: dict[str, Any] = {
        "updated_at": now,
        "meta": state.to_meta(),
        "run_count": job.run_count + (1 if counted else 0),
    }
    # `job` is the row as it is now: a pause keeps its next slot for resuming; a cancel
    # (or anything else that closed it meanwhile) is left closed.
    if job.status == JobStatus.ACTIVE:
        values["next_run_at"] = nxt
        if nxt is None:
            values["status"] = JobStatus.COMPLETED
    elif job.status == JobStatus.PAUSED:
        values["next_run_at"] = nxt
    else:
        values["next_run_at"] = None
    return values


def next_after_run(
    job: Job, slot: datetime, now: datetime, limits: Limits, *, counted: bool = True
) -> datetime | None:
    """The job's next regular run after the run of `slot`."""
    resume_at = FollowUpState.of(job).resume_at
    if resume_at is not None:
        return resume_at
    return schedule_of(job).next_after(
        max(slot, now - limits.late_after), runs_done=job.run_count + int(counted)
    )


def after_delivery(
    job: Job, claim: Claim, slot: datetime, now: datetime, limits: Limits
) -> dict[str, Any]:
    """A run was delivered: count it, move on, and start or continue a follow-up cycle."""
    counted = reminders.counts_as_occurrence(claim)
    nxt = next_after_run(job, slot, now, limits, counted=counted)
    values = advance_values(job, nxt, now, counted=counted) | {"failure_streak": 0}
    escalated = reminders.escalated_occurrence(claim)
    if escalated is not None:  # once per occurrence, kept on the job
        values["meta"] = FollowUpState.of(values["meta"]).replace(escalated=escalated).to_meta()
    cycle = reminders.next_follow_up(claim, job, now, nxt, limits.follow_up_window)
    if cycle is not None and job.status == JobStatus.ACTIVE:
        # Not acknowledged yet: the job stays active for its next follow-up.
        at, awaiting, run_kind = cycle
        state = FollowUpState.of(values["meta"]).replace(
            awaiting=awaiting, run_kind=run_kind, resume_at=nxt
        )
        values.update(next_run_at=at, meta=state.to_meta())
        values.pop("status", None)
    return values


def after_skip(job: Job, now: datetime) -> dict[str, Any]:
    """Missed slots of a recurring job were skipped: move to its next slot."""
    nxt = schedule_of(job).next_after(now, runs_done=job.run_count)
    return advance_values(job, nxt, now, counted=False)


def retry_later(job: Job, at: datetime) -> dict[str, Any]:
    """A failed attempt will be tried again at `at` (the job stays claimed)."""
    return {"next_run_at": at}


def after_failure(job: Job, error: str, now: datetime, policy: RetryPolicy) -> dict[str, Any]:
    """A run failed for good: a one-off fails; a recurring job moves on (and pauses when
    it keeps failing)."""
    streak = job.failure_streak + 1
    sched = schedule_of(job)
    if not sched.is_recurring:
        return {
            "status": JobStatus.FAILED if job.status == JobStatus.ACTIVE else job.status,
            "next_run_at": None,
            "fail_reason": error[:2000],
            "failure_streak": streak,
            "updated_at": now,
        }
    nxt = sched.next_after(now, runs_done=job.run_count)
    values = advance_values(job, nxt, now, counted=False) | {"failure_streak": streak}
    if policy.pauses(streak) and job.status == JobStatus.ACTIVE:
        values.update(
            status=JobStatus.PAUSED,
            fail_reason=f"paused after {streak} failed runs in a row: {error[:300]}",
        )
    return values


def newest_missed(schedule: Schedule, slot: datetime, now: datetime) -> tuple[datetime, int]:
    """The latest slot at or before `now`, counting from `slot`, and how many were missed."""
    spec = schedule.spec
    if isinstance(spec, Every) and not spec.whole_days:
        step = timedelta(seconds=spec.seconds)
        # Never past `until`: a catch-up must not deliver a slot the schedule no longer has.
        end = now if schedule.until is None else max(slot, min(now, schedule.until))
        k = int((end - slot) // step)
        return slot + k * step, k + 1
    newest, count = slot, 1
    cursor = slot
    for _ in range(100_000):
        nxt = Schedule(spec, schedule.tz, schedule.until).next_after(cursor)
        if nxt is None or nxt > now:
            break
        newest, count, cursor = nxt, count + 1, nxt
    return newest, count


def decide(claim: Claim, now: datetime, limits: Limits) -> Decision:
    """Deliver on time, deliver late, catch up once, or skip missed recurring slots."""
    job, slot = claim.job, claim.slot
    late_by = max(now - slot, _ZERO)
    if claim.run.kind == FOLLOW_UP_RUN and reminders.stale(job, now, limits.follow_up_window):
        return Decision(False, slot, late_by, skipped=1)
    if (
        late_by <= limits.late_after
        or not schedule_of(job).is_recurring
        or FollowUpState.of(job).resume_at is not None
    ):
        return Decision(True, slot, late_by if late_by > limits.late_after else _ZERO)
    schedule = schedule_of(job)
    newest, missed = newest_missed(schedule, slot, now)
    # Compare instants in UTC: two times in the same zone subtract as wall clocks.
    newest = newest.astimezone(UTC)
    following = schedule.next_after(newest)
    following = following.astimezone(UTC) if following is not None else None
    period = (following - newest) if following else timedelta(hours=4)
    grace = min(max(period / 2, timedelta(minutes=2)), timedelta(hours=2))
    if now - newest <= grace:
        return Decision(True, newest, now - newest, skipped=missed - 1, catch_up=True)
    return Decision(False, newest, now - newest, skipped=missed)


# ---------------------------------------------------------------- the dispatcher's side


class JobRuns:
    """Claim, decide, and record runs (the dispatcher's part of the engine)."""

    store: JobStore
    clock: Clock
    limits: Limits
    waker: Waker | None
    failure_notices: Sequence[FailureNotice]

    def _wake(self, at: datetime | None) -> None:
        if self.waker is not None and at is not None:
            self.waker.wake(at)

    async def claim_due(
        self, *, limit: int, lease: timedelta, ahead: timedelta = _ZERO
    ) -> list[Claim]:
        """Claim jobs due now, or within `ahead` (to be fired exactly on time)."""
        return await self.store.claim_due(
            self.clock(), limit=limit, lease=lease, ahead=ahead, run_kind=run_kind_of
        )

    async def claim_due_next(
        self, *, limit: int, lease: timedelta, ahead: timedelta = _ZERO
    ) -> tuple[list[Claim], datetime | None]:
        """`claim_due`, and when the next job comes due after it, in one transaction."""
        return await self.store.claim_due_next(
            self.clock(), limit=limit, lease=lease, ahead=ahead, run_kind=run_kind_of
        )

    async def next_due(self) -> datetime | None:
        return await self.store.earliest_due()

    def decide(self, claim: Claim, now: datetime | None = None) -> Decision:
        return decide(claim, now or self.clock(), self.limits)

    def skipped(self, claim: Claim, decision: Decision) -> Outcome:
        """Missed slots of a recurring job: record them and move to its next slot."""
        details = {
            "skipped": decision.skipped,
            "first_missed": claim.slot.isoformat(),
            "last_missed": decision.slot.isoformat(),
            "reason": "the bot was offline",
        }
        run_values = {"outcome": RunOutcome.SKIPPED, "details": details}
        return Outcome(claim, run_values, partial(after_skip, now=self.clock()))

    def delivered(
        self,
        claim: Claim,
        decision: Decision,
        *,
        message_id: int | None,
        details: dict[str, Any] | None = None,
        at: datetime | None = None,
    ) -> Outcome:
        """A run reached its thread (or a fallback) `at` (default: now): record it and
        advance the job."""
        now = at if at is not None else self.clock()
        run_details = dict(claim.run.details or {})
        run_details.update(details or {})
        if decision.catch_up:
            run_details.update(catch_up=True, skipped=decision.skipped)
        run_details.update(reminders.run_details(claim))
        run_values = {
            "outcome": RunOutcome.DELIVERED,
            "delivered_at": now,
            "message_id": message_id,
            "lateness_ms": int(decision.late_by.total_seconds() * 1000),
            "error": None,
            "details": run_details or None,
        }
        advance = partial(
            after_delivery, claim=claim, slot=decision.slot, now=now, limits=self.limits
        )
        return Outcome(claim, run_values, advance)

    def failed(
        self, claim: Claim, error: str, *, retryable: bool
    ) -> tuple[Outcome, datetime | None]:
        """A failed attempt: retry later (same run and nonce) or give up on this run."""
        now = self.clock()
        run = claim.run
        errors = list((run.details or {}).get("errors", []))
        errors.append({"at": now.isoformat(), "attempt": run.attempt, "error": error[:500]})
        details = dict(run.details or {}) | {"errors": errors[-20:]}
        policy = self.limits.retry
        retry_at = policy.retry_at(run.claimed_at or now, run.attempt, now) if retryable else None
        if retry_at is not None:
            run_values = {"error": error[:2000], "details": details}
            retry = Outcome(claim, run_values, partial(retry_later, at=retry_at), release=False)
            return retry, retry_at
        run_values = {"outcome": RunOutcome.FAILED, "error": error[:2000], "details": details}
        advance = partial(after_failure, error=error, now=now, policy=policy)
        return Outcome(claim, run_values, advance), None

    async def record(self, outcomes: Sequence[Outcome]) -> dict[int, Job | None]:
        """Write finished runs and advance their jobs in one transaction; wake for what's next.

        Each job's change is planned from the job as it was claimed; one that changed
        meanwhile (edited, paused, cancelled) is read again and planned afresh.
        """
        if not outcomes:
            return {}
        jobs: dict[int, Job | None] = {}
        todo = [(o, o.finished(o.claim.job)) for o in outcomes]
        for _ in range(_RECORD_ATTEMPTS):
            result, stale = await self.store.finish([f for _, f in todo])
            jobs.update(result)
            if not stale:
                break
            again = {id(f) for f in stale}
            todo = [(o, o.finished(result[o.claim.job.id])) for o, f in todo if id(f) in again]
        else:
            raise RuntimeError(f"{len(todo)} runs' jobs kept changing; their leases resume them")
        for o in outcomes:
            if o.run_values.get("outcome") == RunOutcome.FAILED:
                self._notice(jobs.get(o.claim.job.id), str(o.run_values.get("error") or ""))
        upcoming = [
            j.next_run_at
            for j in jobs.values()
            if j is not None and j.status == JobStatus.ACTIVE and j.next_run_at is not None
        ]
        if upcoming:
            self._wake(min(upcoming))
        return jobs

    def _notice(self, job: Job | None, error: str) -> None:
        if job is None or not schedule_of(job).is_recurring:
            return
        paused = job.status == JobStatus.PAUSED
        if self.limits.retry.tells_owner(job.failure_streak, paused_now=paused):
            for notice in self.failure_notices:
                notice(job, error)
