"""The job lifecycle's values: who asks, where a job lives, and its typed follow-up state.

The statuses, kinds and outcomes (`JobStatus`, `JobKind`, `RunOutcome`, StrEnums holding
the strings stored in the database) and the frozen `Job`/`Run` values that come out of
storage live in `storage/`, the layer below, because its queries use them; this module
holds what only the lifecycle reads.

A job's lifecycle state beyond its columns sits in the `meta` JSON bag under a few
keys. `FollowUpState` is the one place that reads and writes them:

    meta["awaiting_ack"] = {"occurrence": <slot iso>, "first_sent_at": iso,
                            "last_sent_at": iso, "attempt": <next attempt>, "of": n + 1}
    meta["run_kind"]   = "follow_up" | "escalate"  # what the next claim's run is
                                                   # (`run_kind_of`, asked by the claim)
    meta["resume_at"]  = iso   # recurring: the regular occurrence after a follow-up/run-now
    meta["snoozed"]    = {"by": user, "at": iso}   # a snoozed re-fire is waiting
    meta["escalated"]  = <occurrence iso>          # that occurrence's escalation was sent
    meta["run_now_at"] = iso   # the last "run now" request (a second one is refused)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Protocol

from storage.jobs import Job
from tools.schedule import Schedule, spec_from_json

Clock = Callable[[], datetime]


def utcnow() -> datetime:
    return datetime.now(UTC)


class Waker(Protocol):
    """Whatever sleeps until the next job: told when an earlier one may exist."""

    def wake(self, at: datetime | None = None) -> None: ...


@dataclass(frozen=True)
class Actor:
    """Who is asking: people act on their own jobs, or on any job of their guild with
    Manage Messages."""

    user_id: int
    guild_id: int | None = None
    manage_messages: bool = False

    def may_manage(self, job: Job) -> bool:
        if job.owner_id == self.user_id:
            return True
        return self.manage_messages and job.guild_id is not None and job.guild_id == self.guild_id


@dataclass(frozen=True)
class Target:
    """Where a job lives and whose it is."""

    owner_id: int
    channel_id: int
    guild_id: int | None = None
    parent_channel_id: int | None = None


def schedule_of(job: Job) -> Schedule:
    return Schedule(spec_from_json(job.schedule), job.tz, job.until, job.max_runs)


# Run kinds (`job_runs.kind`); storage names a run's nonce after them.
REGULAR_RUN = "run"
FOLLOW_UP_RUN = "follow_up"
ESCALATE_RUN = "escalate"

AWAITING = "awaiting_ack"
SNOOZED = "snoozed"
ESCALATED = "escalated"
RUN_KIND = "run_kind"
RESUME_AT = "resume_at"
RUN_NOW_AT = "run_now_at"
# Everything a follow-up cycle (or a pending snooze) keeps; any advance of the job drops it.
CYCLE_KEYS = (AWAITING, SNOOZED, RUN_KIND)


def _instant(raw: object) -> datetime | None:
    if not isinstance(raw, str):
        return None
    try:
        return datetime.fromisoformat(raw)
    except ValueError:
        return None


@dataclass(frozen=True)
class Awaiting:
    """A follow-up cycle waiting for the owner's acknowledgement."""

    occurrence: str | None
    first_sent_at: datetime | None
    last_sent_at: datetime | None
    attempt: int  # the next attempt (the reminder itself was 1)
    of: int | None

    @classmethod
    def parse(cls, raw: Mapping[str, Any]) -> Awaiting:
        try:
            attempt = int(raw.get("attempt", 2))
        except (TypeError, ValueError):
            attempt = 2
        of = raw.get("of")
        occurrence = raw.get("occurrence")
        return cls(
            occurrence=str(occurrence) if occurrence is not None else None,
            first_sent_at=_instant(raw.get("first_sent_at")),
            last_sent_at=_instant(raw.get("last_sent_at")),
            attempt=attempt,
            of=of if isinstance(of, int) else None,
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "occurrence": self.occurrence,
            "first_sent_at": self.first_sent_at.isoformat() if self.first_sent_at else None,
            "last_sent_at": self.last_sent_at.isoformat() if self.last_sent_at else None,
            "attempt": self.attempt,
            "of": self.of,
        }


@dataclass(frozen=True)
class FollowUpState:
    """The lifecycle keys of a job's `meta`, typed; `rest` is everything else in it."""

    awaiting: Awaiting | None = None
    snoozed: dict[str, Any] | None = None
    run_kind: str = REGULAR_RUN
    resume_at: datetime | None = None
    escalated: str | None = None
    run_now_at: datetime | None = None
    rest: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def of(cls, job_or_meta: Job | Mapping[str, Any] | None) -> FollowUpState:
        meta: Mapping[str, Any] | None
        if job_or_meta is None or isinstance(job_or_meta, Mapping):
            meta = job_or_meta
        else:
            meta = job_or_meta.meta
        meta = meta or {}
        awaiting = meta.get(AWAITING)
        snoozed = meta.get(SNOOZED) if SNOOZED in meta else None
        escalated = meta.get(ESCALATED)
        return cls(
            awaiting=Awaiting.parse(awaiting) if isinstance(awaiting, Mapping) else None,
            # `snoozed` only needs to be present; an old row may hold any value there.
            snoozed=dict(snoozed)
            if isinstance(snoozed, Mapping)
            else ({} if SNOOZED in meta else None),
            run_kind=_run_kind(meta),
            resume_at=_instant(meta.get(RESUME_AT)),
            escalated=str(escalated) if escalated is not None else None,
            run_now_at=_instant(meta.get(RUN_NOW_AT)),
            rest={k: v for k, v in meta.items() if k not in _LIFECYCLE_KEYS},
        )

    @property
    def pending(self) -> bool:
        """A cycle is running or a snoozed re-fire is waiting."""
        return self.awaiting is not None or self.snoozed is not None

    def without_cycle(self) -> FollowUpState:
        return FollowUpState(
            resume_at=self.resume_at,
            escalated=self.escalated,
            run_now_at=self.run_now_at,
            rest=self.rest,
        )

    def replace(self, **changes: Any) -> FollowUpState:
        values = {name: getattr(self, name) for name in self.__dataclass_fields__}
        return FollowUpState(**(values | changes))

    def to_meta(self) -> dict[str, Any] | None:
        """The `meta` column for this state (None when nothing is left in it)."""
        meta = dict(self.rest)
        if self.awaiting is not None:
            meta[AWAITING] = self.awaiting.to_json()
        if self.snoozed is not None:
            meta[SNOOZED] = self.snoozed
        if self.run_kind != REGULAR_RUN:
            meta[RUN_KIND] = self.run_kind
        if self.resume_at is not None:
            meta[RESUME_AT] = self.resume_at.astimezone(UTC).isoformat()
        if self.escalated is not None:
            meta[ESCALATED] = self.escalated
        if self.run_now_at is not None:
            meta[RUN_NOW_AT] = self.run_now_at.isoformat()
        return meta or None


def run_kind_of(job: Job) -> str:
    """The kind of run a job claimed for a new slot starts (what `FollowUpState.run_kind`
    says; read directly, since the claim asks it for every job of a burst)."""
    return _run_kind(job.meta or {})


def _run_kind(meta: Mapping[str, Any]) -> str:
    return str(meta.get(RUN_KIND, REGULAR_RUN))


_LIFECYCLE_KEYS = frozenset((AWAITING, SNOOZED, RUN_KIND, RESUME_AT, ESCALATED, RUN_NOW_AT))
