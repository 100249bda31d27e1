"""Reminders that make sure: follow-ups until the owner acknowledges, Snooze, escalation.

A reminder with `job.follow_up = {"interval_s": s, "max": n}` nags until answered. After
each delivered run (the reminder itself = attempt 1, then follow-ups 2..n+1) the job's
follow-up state (`tools.jobs.model.FollowUpState`) holds the cycle, and `next_run_at`
is the next follow-up's time; the next claim makes a follow-up run (nonce "f…"), and a
recurring reminder keeps its next regular occurrence in `resume_at`.

A message from the owner in the thread, the Done button, the last follow-up, the
maximum window or the next regular occurrence ends the cycle. Snooze re-fires the
reminder at a new slot, which then starts a fresh cycle.

Escalation (seed 001, off by default): with `follow_up["escalate"] == "dm"`, one more
interval after the last follow-up goes unanswered, an escalation run (run kind
"escalate") sends the owner one DM saying what was missed and where, with Done/Snooze.
It is a run like any other (a row with its own nonce), so it happens exactly once across
restarts; the job keeps `escalated` = the occurrence it was for.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from storage.jobs import GUARDED, Claim, Job, JobStore, Run, RunNote
from storage.models import JobStatus
from tools.errors import JobNotFound, NotAllowed, UserError
from tools.jobs.limits import Guardrails, Limits
from tools.jobs.marker import WakeUp
from tools.jobs.model import (
    ESCALATE_RUN,
    FOLLOW_UP_RUN,
    Awaiting,
    Clock,
    FollowUpState,
    Waker,
    schedule_of,
)
from tools.schedule import timestamp

log = logging.getLogger(__name__)

ESCALATIONS = ("dm",)  # where an unanswered reminder may escalate to


@dataclass(frozen=True)
class FollowUp:
    interval: timedelta
    max: int
    escalate: str | None = None  # "dm": one DM to the owner after the last follow-up


def config_of(job: Job) -> FollowUp | None:
    """The job's follow-up settings, or None when it does not nag."""
    raw = job.follow_up
    if not isinstance(raw, dict):
        return None
    try:
        interval, most = int(raw["interval_s"]), int(raw["max"])
    except (KeyError, TypeError, ValueError):
        return None
    if interval <= 0 or most <= 0:
        return None
    escalate = raw.get("escalate")
    return FollowUp(
        timedelta(seconds=interval), most, escalate if escalate in ESCALATIONS else None
    )


def pending(job: Job) -> bool:
    """A cycle is running or a snoozed re-fire is waiting."""
    return FollowUpState.of(job).pending


def counts_as_occurrence(claim: Claim) -> bool:
    """A follow-up, an escalation or a snoozed re-fire repeats an occurrence; it is not a
    new run of the job."""
    return (
        claim.run.kind not in (FOLLOW_UP_RUN, ESCALATE_RUN)
        and FollowUpState.of(claim.job).snoozed is None
    )


def escalated_occurrence(claim: Claim) -> str | None:
    """The occurrence a delivered escalation run was for (the job keeps it), else None."""
    if claim.run.kind != ESCALATE_RUN:
        return None
    state = FollowUpState.of(claim.job).awaiting
    return (state.occurrence if state else None) or claim.slot.isoformat()


def run_details(claim: Claim) -> dict[str, Any]:
    """What a delivered run's history row says about its place in the cycle."""
    state = FollowUpState.of(claim.job)
    if claim.run.kind == ESCALATE_RUN:
        config = config_of(claim.job)
        return {"escalation": config.escalate if config and config.escalate else "dm"}
    if claim.run.kind == FOLLOW_UP_RUN and state.awaiting is not None:
        return {"attempt": state.awaiting.attempt, "of": state.awaiting.of}
    if state.snoozed is not None:
        return {"snoozed": True}
    return {}


def next_follow_up(
    claim: Claim,
    job: Job,
    now: datetime,
    regular_next: datetime | None,
    window: timedelta,
) -> tuple[datetime, Awaiting, str] | None:
    """After a delivered run: when the next follow-up is due, the cycle's state then and
    the next run's kind; None when nothing more is to be sent.

    `job` is the row as it is now: an acknowledgement made while a follow-up was in
    flight has removed the cycle, so nothing more is scheduled.
    """
    config = config_of(job)
    if config is None or claim.run.kind == ESCALATE_RUN:
        return None  # the escalation is the cycle's last word
    current = FollowUpState.of(job)
    if claim.run.kind == FOLLOW_UP_RUN:
        state, claimed = current.awaiting, FollowUpState.of(claim.job).awaiting
        if state is None or claimed is None or state.occurrence != claimed.occurrence:
            return None
        attempt = state.attempt + 1
        occurrence = state.occurrence
        first_sent = state.first_sent_at or now
    else:  # the reminder itself, or a snoozed re-fire: a fresh cycle
        attempt, occurrence, first_sent = 2, claim.slot.isoformat(), now
    of = config.max + 1
    at = now + config.interval
    if regular_next is not None and at >= regular_next:
        return None  # the next occurrence has its own cycle
    run_kind = FOLLOW_UP_RUN
    if attempt > of or at > first_sent + window:
        # The nagging is over. Escalate once, if asked to, when this answer too stays out.
        if config.escalate is None or current.escalated == occurrence:
            return None
        run_kind = ESCALATE_RUN
    return at, Awaiting(occurrence, first_sent, now, attempt, of), run_kind


def stale(job: Job, now: datetime, window: timedelta) -> bool:
    """A follow-up that comes due past the window (the bot was down) is not sent."""
    state = FollowUpState.of(job).awaiting
    if state is None or state.first_sent_at is None:
        return False
    return now > state.first_sent_at + window


# ---------------------------------------------------------------- waking the agent


def wake_up(job: Job, run: Run, runs: Sequence[Run]) -> WakeUp:
    """Read the attempt from the run history (the job row may already be advanced).

    `runs`: the job's runs, any order. Follow-ups are only scheduled after a delivered
    run, so the runs before this one back to the cycle's reminder are its attempts.
    """
    config = config_of(job)
    of = config.max + 1 if config else 1
    if run.kind != FOLLOW_UP_RUN:
        return WakeUp(1, of)
    earlier = sorted(
        (r for r in runs if r.scheduled_for < run.scheduled_for),
        key=lambda r: r.scheduled_for,
        reverse=True,
    )
    attempt = 1
    for r in earlier:
        attempt += 1
        if r.kind != FOLLOW_UP_RUN:
            break
    previous = earlier[0].delivered_at if earlier else None
    return WakeUp(attempt, max(of, attempt), previous)


def escalation_text(command: str, where: str, first_sent: datetime | None, sent_times: int) -> str:
    """The one escalation DM: what was missed, where, since when (Done/Snooze go with it)."""
    since = f" since {timestamp(first_sent, 'R')}" if first_sent else ""
    times = "once" if sent_times == 1 else f"{sent_times} times"
    return (
        f"⏰ You haven't answered a reminder: “{command}” in {where} — I reminded you "
        f"{times}{since}. Press Done if it's handled, or Snooze to hear about it again later."
    )


def escalation_facts(meta: Mapping[str, Any] | None) -> tuple[datetime | None, int]:
    """When the escalated cycle's reminder was first sent and how many times it was sent."""
    state = FollowUpState.of(meta).awaiting
    if state is None:
        return None, 1
    return state.first_sent_at, max(1, state.attempt - 1)


def plain_follow_up(command: str, attempt: int, of: int) -> str:
    """A follow-up in plain words, when no model can write one."""
    return f"⏰ Just checking in — {command} (reminder {attempt} of {of})"


# ---------------------------------------------------------------- the owner's answers


class JobReminders:
    """Acknowledge and Snooze: the owner's answers to a reminder (the engine's part)."""

    store: JobStore
    clock: Clock
    limits: Limits
    guard: Guardrails
    waker: Waker | None

    def _wake(self, at: datetime | None) -> None:
        if self.waker is not None and at is not None:
            self.waker.wake(at)

    async def awaiting_acknowledgement(self, channel_id: int, owner_id: int) -> list[Job]:
        """The owner's reminders in this thread still following up (waiting for an answer)."""
        jobs = await self.store.find(
            owner_id=owner_id, channel_id=channel_id, statuses=(JobStatus.ACTIVE, JobStatus.PAUSED)
        )
        return [job for job in jobs if FollowUpState.of(job).awaiting is not None]

    async def _own_reminder(self, job_id: int, user_id: int) -> Job:
        job = await self.store.get(job_id)
        if job is None:
            raise JobNotFound(f"Reminder #{job_id} no longer exists.")
        if job.owner_id != user_id:
            raise NotAllowed("This reminder isn't yours, so its buttons aren't for you.")
        return job

    async def acknowledge(
        self,
        job_id: int,
        user_id: int,
        *,
        how: str,
        run_id: int | None = None,
        note: dict[str, Any] | None = None,
    ) -> tuple[Job, bool]:
        """The owner saw the reminder (a message, or Done): end its follow-ups.

        One-off → completed; recurring → back to its next regular occurrence. Recorded on
        the run (`run_id`, else the latest delivered one). Returns the job and whether a
        cycle (or a pending snooze) was ended.
        """
        now = self.clock()
        record = RunNote(
            run_id,
            "acknowledged",
            {"how": how, "by": user_id, "at": now.isoformat()} | (note or {}),
        )
        for _ in range(_ATTEMPTS):
            job = await self._own_reminder(job_id, user_id)
            state = FollowUpState.of(job)
            if not state.pending:
                await self.store.note_on_run(job_id, record)
                return job, False
            values = acknowledged(job, state, now)
            changed = await self.store.update_if(job_id, _seen(job), values, note=record)
            if changed is not None:
                return changed, True
        raise UserError(f"Reminder #{job_id} is changing right now; try again in a moment.")

    async def snooze(
        self,
        job_id: int,
        user_id: int,
        until: datetime,
        *,
        run_id: int | None = None,
        choice: str = "",
    ) -> Job:
        """Re-fire the reminder at `until` (a new slot, with a fresh follow-up cycle)."""
        now = self.clock()
        until = until.astimezone(UTC)
        self.guard.snooze_until(until, now)
        record = {"until": until.isoformat(), "choice": choice, "by": user_id}
        note = RunNote(run_id, "snoozed", record | {"at": now.isoformat()})
        for _ in range(_ATTEMPTS):
            job = await self._own_reminder(job_id, user_id)
            values = snoozed(job, user_id, until, now)
            changed = await self.store.update_if(job_id, _seen(job), values, note=note)
            if changed is not None:
                self._wake(until)
                return changed
        raise UserError(f"Reminder #{job_id} is changing right now; try again in a moment.")


_ATTEMPTS = 5


def _seen(job: Job) -> dict[str, Any]:
    return {key: getattr(job, key) for key in GUARDED}


def acknowledged(job: Job, state: FollowUpState, now: datetime) -> dict[str, Any]:
    """A reminder's new values once its owner acknowledged it (its cycle ends)."""
    rest = state.without_cycle()
    values: dict[str, Any] = {"updated_at": now}
    if job.claimed_slot is None:  # in flight, the run's own advance ends it
        resume, rest = rest.resume_at, rest.replace(resume_at=None)
        schedule = schedule_of(job)
        nxt: datetime | None = None
        if schedule.is_recurring:
            nxt = resume if resume else schedule.next_after(now, runs_done=job.run_count)
        values["next_run_at"] = nxt.astimezone(UTC) if nxt is not None else None
        if nxt is None and job.status == JobStatus.ACTIVE:
            values["status"] = JobStatus.COMPLETED
    values["meta"] = rest.to_meta()
    return values


def snoozed(job: Job, user_id: int, until: datetime, now: datetime) -> dict[str, Any]:
    """A reminder's new values when its owner snoozed it to `until`."""
    if job.status in (JobStatus.CANCELLED, JobStatus.FAILED):
        raise UserError(
            f"Reminder #{job.id} is {job.status}, so it can't be snoozed; "
            "set a new one with `/remind`."
        )
    if job.claimed_slot is not None:
        raise UserError("That reminder is being delivered right now; try again in a moment.")
    schedule = schedule_of(job)
    state = FollowUpState.of(job).without_cycle()
    resume: datetime | None = None
    if schedule.is_recurring:
        regular = state.resume_at or job.next_run_at
        if regular is not None and regular <= until:
            # Snoozed past the next occurrence: the snoozed one stands in for it.
            regular = schedule.next_after(until, runs_done=job.run_count)
        resume = regular
    state = state.replace(resume_at=resume, snoozed={"by": user_id, "at": now.isoformat()})
    values: dict[str, Any] = {"meta": state.to_meta(), "next_run_at": until, "updated_at": now}
    if job.status == JobStatus.COMPLETED:
        values["status"] = JobStatus.ACTIVE
    return values
