"""Reminders that make sure: follow-ups until the owner acknowledges, and Snooze.

A reminder with `job.follow_up = {"interval_s": s, "max": n}` nags until answered. After
each delivered run (the reminder itself = attempt 1, then follow-ups 2..n+1) the job's
meta holds the cycle, and `next_run_at` is the next follow-up's time:

    meta["awaiting_ack"] = {"occurrence": <slot iso>, "first_sent_at": iso,
                            "last_sent_at": iso, "attempt": <next attempt>, "of": n + 1}
    meta["run_kind"] = "follow_up"   # the next claim makes a follow-up run (nonce "f…")
    meta["resume_at"] = iso          # recurring only: the next regular occurrence

A message from the owner in the thread, the Done button, the last follow-up, the
maximum window or the next regular occurrence ends the cycle. Snooze re-fires the
reminder at a new slot (`meta["snoozed"]`), which then starts a fresh cycle.

Escalation (seed 001, off by default): with `follow_up["escalate"] == "dm"`, one more
interval after the last follow-up goes unanswered, an escalation run (`run_kind
"escalate"`) sends the owner one DM saying what was missed and where, with Done/Snooze.
It is a run like any other (a row with its own nonce), so it happens exactly once across
restarts; the job's meta keeps `escalated` = the occurrence it was for.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Protocol

from storage.jobs import Claim, JobView
from tools.schedule import timestamp, zone

log = logging.getLogger(__name__)

AWAITING = "awaiting_ack"
SNOOZED = "snoozed"
FOLLOW_UP_RUN = "follow_up"
ESCALATE_RUN = "escalate"
ESCALATED = "escalated"
ESCALATIONS = ("dm",)  # where an unanswered reminder may escalate to
# Everything a cycle (or a pending snooze) keeps in meta; any advance of the job drops it.
CYCLE_KEYS = (AWAITING, SNOOZED, "run_kind")


@dataclass(frozen=True)
class FollowUp:
    interval: timedelta
    max: int
    escalate: str | None = None  # "dm": one DM to the owner after the last follow-up


def config_of(job: JobView) -> FollowUp | None:
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


def awaiting(job: JobView) -> dict[str, Any] | None:
    """The follow-up cycle waiting for the owner's acknowledgement, if any."""
    state = (job.meta or {}).get(AWAITING)
    return state if isinstance(state, dict) else None


def pending(job: JobView) -> bool:
    """A cycle is running or a snoozed re-fire is waiting."""
    return awaiting(job) is not None or SNOOZED in (job.meta or {})


def without_cycle(meta: dict[str, Any] | None) -> dict[str, Any]:
    out = dict(meta or {})
    for key in CYCLE_KEYS:
        out.pop(key, None)
    return out


def counts_as_occurrence(claim: Claim) -> bool:
    """A follow-up, an escalation or a snoozed re-fire repeats an occurrence; it is not a
    new run of the job."""
    return claim.run.kind not in (FOLLOW_UP_RUN, ESCALATE_RUN) and SNOOZED not in (
        claim.job.meta or {}
    )


def escalated_meta(claim: Claim) -> dict[str, Any]:
    """What the job keeps once its escalation was delivered: the occurrence it was for."""
    if claim.run.kind != ESCALATE_RUN:
        return {}
    state = awaiting(claim.job) or {}
    return {ESCALATED: str(state.get("occurrence") or claim.slot.isoformat())}


def run_details(claim: Claim) -> dict[str, Any]:
    """What a delivered run's history row says about its place in the cycle."""
    state = awaiting(claim.job)
    if claim.run.kind == ESCALATE_RUN:
        config = config_of(claim.job)
        return {"escalation": config.escalate if config and config.escalate else "dm"}
    if claim.run.kind == FOLLOW_UP_RUN and state is not None:
        return {"attempt": state.get("attempt"), "of": state.get("of")}
    if SNOOZED in (claim.job.meta or {}):
        return {"snoozed": True}
    return {}


def next_follow_up(
    claim: Claim,
    job: JobView,
    now: datetime,
    regular_next: datetime | None,
    window: timedelta,
) -> tuple[datetime, dict[str, Any]] | None:
    """After a delivered run: when the next follow-up is due and the meta it needs, or None.

    `job` is the row as it is now: an acknowledgement made while a follow-up was in
    flight has removed the cycle, so nothing more is scheduled.
    """
    config = config_of(job)
    if config is None or claim.run.kind == ESCALATE_RUN:
        return None  # the escalation is the cycle's last word
    if claim.run.kind == FOLLOW_UP_RUN:
        state, claimed = awaiting(job), awaiting(claim.job)
        if state is None or claimed is None or state.get("occurrence") != claimed.get("occurrence"):
            return None
        attempt = int(state.get("attempt", 2)) + 1
        occurrence = str(state["occurrence"])
        first_sent = datetime.fromisoformat(str(state["first_sent_at"]))
    else:  # the reminder itself, or a snoozed re-fire: a fresh cycle
        attempt, occurrence, first_sent = 2, claim.slot.isoformat(), now
    of = config.max + 1
    at = now + config.interval
    if regular_next is not None and at >= regular_next:
        return None  # the next occurrence has its own cycle
    run_kind = FOLLOW_UP_RUN
    if attempt > of or at > first_sent + window:
        # The nagging is over. Escalate once, if asked to, when this answer too stays out.
        if config.escalate is None or (job.meta or {}).get(ESCALATED) == occurrence:
            return None
        run_kind = ESCALATE_RUN
    meta: dict[str, Any] = {
        AWAITING: {
            "occurrence": occurrence,
            "first_sent_at": first_sent.isoformat(),
            "last_sent_at": now.isoformat(),
            "attempt": attempt,
            "of": of,
        },
        "run_kind": run_kind,
    }
    if regular_next is not None:
        meta["resume_at"] = regular_next.astimezone(UTC).isoformat()
    return at, meta


def stale(job: JobView, now: datetime, window: timedelta) -> bool:
    """A follow-up that comes due past the window (the bot was down) is not sent."""
    state = awaiting(job)
    if state is None:
        return False
    try:
        first_sent = datetime.fromisoformat(str(state["first_sent_at"]))
    except (KeyError, ValueError):
        return False
    return now > first_sent + window


# ---------------------------------------------------------------- waking the agent


class RunRow(Protocol):
    kind: str
    scheduled_for: datetime
    delivered_at: datetime | None


@dataclass(frozen=True)
class WakeUp:
    """Which attempt a fired reminder run is: 1 is the reminder itself."""

    attempt: int = 1
    of: int = 1
    previous_sent_at: datetime | None = None

    @property
    def is_follow_up(self) -> bool:
        return self.attempt > 1


def wake_up(job: JobView, run: RunRow, runs: Sequence[RunRow]) -> WakeUp:
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


def wake_text(command: str, wake: WakeUp, tz: str) -> str:
    """What a fired reminder tells the agent (the wake-up context of seed 001)."""
    if not wake.is_follow_up:
        return f"Reminder triggered.\nTask: Send a reminder about: {command}"
    sent = "earlier"
    if wake.previous_sent_at is not None:
        try:
            local = wake.previous_sent_at.astimezone(zone(tz))
            sent = f"{local:%Y-%m-%d %H:%M} {tz}"
        except Exception:
            sent = f"{wake.previous_sent_at.astimezone(UTC):%Y-%m-%d %H:%M} UTC"
    return (
        f"Follow-up reminder triggered (attempt {wake.attempt} of {wake.of}).\n"
        f"Original reminder: {command}\n"
        f"Note: User has not responded to the previous reminder sent at {sent}. "
        'Write a short, natural follow-up (e.g. "Just checking in on …"), not a copy of '
        "the first reminder."
    )


def escalation_text(command: str, where: str, first_sent: datetime | None, sent_times: int) -> str:
    """The one escalation DM: what was missed, where, since when (Done/Snooze go with it)."""
    since = f" since {timestamp(first_sent, 'R')}" if first_sent else ""
    times = "once" if sent_times == 1 else f"{sent_times} times"
    return (
        f"⏰ You haven't answered a reminder: “{command}” in {where} — I reminded you "
        f"{times}{since}. Press Done if it's handled, or Snooze to hear about it again later."
    )


def escalation_facts(meta: dict[str, Any] | None) -> tuple[datetime | None, int]:
    """When the escalated cycle's reminder was first sent and how many times it was sent."""
    state = (meta or {}).get(AWAITING)
    if not isinstance(state, dict):
        return None, 1
    try:
        first = datetime.fromisoformat(str(state["first_sent_at"]))
    except (KeyError, ValueError):
        first = None
    sent = max(1, int(state.get("attempt", 2)) - 1)
    return first, sent


def plain_follow_up(command: str, attempt: int, of: int) -> str:
    """A follow-up in plain words, when no model can write one."""
    return f"⏰ Just checking in — {command} (reminder {attempt} of {of})"


# ---------------------------------------------------------------- smart acknowledgement
