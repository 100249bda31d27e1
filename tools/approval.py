"""Approvals of agent-proposed jobs: when one is needed, what the person sees, and its life cycle.

The agent's creation tools raise pydantic-ai's `ApprovalRequired` with a `Proposal` (as
metadata) when a job needs its requester's consent; the run ends with
`DeferredToolRequests`, the conversation is saved as-is, and an `approvals` row keeps the
call (id, tool, args), the proposal text and the history to resume from. A click (or the
expiry sweep) decides the row exactly once; `tools.agent.resume_approval` then feeds the
decision back to the agent. No Discord here.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import Any

from storage.approvals import Approval, ApprovalStatus, ApprovalStore
from tools.schedule import Schedule, spec_from_json, spec_to_json, timestamp

DEFAULT_TIMEOUT = timedelta(hours=24)
SHOWN_RUNS = 5
SHOWN_COMMAND_CHARS = 1200  # the whole approval message must fit one Discord message


def needs_approval(schedule: Schedule, *, fired: bool) -> bool:
    """Repeating jobs proposed by the agent, and anything a fired run proposes, wait for a yes.

    One-offs a person asked for directly do not; a fired run has nobody watching, so
    whatever it proposes must be confirmed, which also breaks self-perpetuating chains.
    """
    return schedule.is_recurring or fired


def raw_block(text: str, limit: int = SHOWN_COMMAND_CHARS) -> str:
    """The command as a code block: no markdown, no mentions, no way to close the block early."""
    shown = text.replace("```", "'''")
    if len(shown) > limit:
        shown = shown[:limit] + f"… ({len(text) - limit} more characters)"
    return f"```\n{shown}\n```"


def _end_condition(schedule: Schedule) -> str:
    parts = []
    if schedule.until is not None:
        parts.append(f"until {timestamp(schedule.until)}")
    if schedule.max_runs is not None:
        parts.append(f"at most {schedule.max_runs} runs")
    if not schedule.is_recurring:
        return "runs once"
    return ", ".join(parts) if parts else "none (runs until you cancel it)"


def next_runs(schedule: Schedule, now: datetime, count: int = SHOWN_RUNS) -> list[datetime]:
    """The job's next runs, from the schedule as it will be stored (the form the dispatcher
    reads back), so the preview is the series the job really runs."""
    schedule = Schedule(
        spec_from_json(spec_to_json(schedule.spec)),
        schedule.tz,
        schedule.until,
        schedule.max_runs,
    )
    runs: list[datetime] = []
    at = schedule.next_after(now) if schedule.is_recurring else schedule.first_run(now)
    while at is not None and len(runs) < count:
        runs.append(at)
        if not schedule.is_recurring:
            break
        at = schedule.next_after(at, runs_done=len(runs))
    return runs


def render_proposal(command: str, schedule: Schedule, now: datetime) -> str:
    """What the approval message says: schedule in words, raw command, zone, end, next runs."""
    runs = next_runs(schedule, now)
    listed = "\n".join(f"• {timestamp(at)}" for at in runs) or "• (none)"
    what = schedule.describe() if schedule.is_recurring else "once"
    return (
        f"**Schedule:** {what}\n"
        f"**Time zone:** {schedule.tz}\n"
        f"**Ends:** {_end_condition(schedule)}\n"
        f"**Command:**\n{raw_block(command)}\n"
        f"**Next runs:**\n{listed}"
    )


@dataclass(frozen=True)
class ProposedCall:
    """One deferred tool call: pydantic-ai's id, the tool, its arguments, and what it would do."""

    tool_call_id: str
    tool_name: str
    args: dict[str, Any]
    proposal: str

    def to_json(self) -> dict[str, Any]:
        return {
            "tool_call_id": self.tool_call_id,
            "tool_name": self.tool_name,
            "args": self.args,
            "proposal": self.proposal,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ProposedCall:
        return cls(
            str(data.get("tool_call_id", "")),
            str(data.get("tool_name", "")),
            dict(data.get("args") or {}),
            str(data.get("proposal", "")),
        )


@dataclass(frozen=True)
class PendingApproval:
    """Proposed jobs waiting for `user_id`'s decision; `approval_id` 0 means not persisted.

    `history` is the conversation (pydantic-ai JSON) ending with the deferred calls, to
    resume from; `context` is what rebuilds the run's deps (zone, guild, fired job…).
    """

    approval_id: int
    user_id: int
    channel_id: int
    calls: tuple[ProposedCall, ...]
    history: str = "[]"
    context: dict[str, Any] = field(default_factory=dict)
    expires_at: datetime | None = None
    message_id: int | None = None

    @property
    def proposal(self) -> str:
        return "\n\n".join(c.proposal for c in self.calls)

    def message(self) -> str:
        """The approval message's body (the poster adds the requester's mention and buttons)."""
        lead = "these jobs" if len(self.calls) > 1 else "this job"
        if all(c.proposal.startswith("**Action:**") for c in self.calls):  # MCP tool calls
            return f"Before I do this, please approve or deny:\n{self.proposal}"
        return f"Before I create {lead}, please approve or deny:\n{self.proposal}"


@dataclass(frozen=True)
class Outcome:
    """What a click did: `ok` (decided now) or a private `message` explaining why not."""

    ok: bool
    message: str = ""
    approval: Approval | None = None


class Approvals:
    """Persist pending approvals and decide them once, only by their requester, before expiry."""

    def __init__(self, store: ApprovalStore, *, timeout: timedelta = DEFAULT_TIMEOUT) -> None:
        self.store = store
        self.timeout = timeout

    async def open(self, pending: PendingApproval, *, now: datetime) -> PendingApproval:
        row = await self.store.add(
            channel_id=pending.channel_id,
            user_id=pending.user_id,
            payload=payload_of(pending),
            created_at=now,
            expires_at=now + self.timeout,
        )
        return replace(pending, approval_id=row.id, expires_at=row.expires_at)

    async def load(self, approval_id: int) -> PendingApproval | None:
        row = await self.store.get(approval_id)
        return pending_from_row(row) if row is not None else None

    async def decide(
        self, approval_id: int, *, user_id: int, approved: bool, now: datetime
    ) -> Outcome:
        row = await self.store.get(approval_id)
        if row is None:
            return Outcome(False, "That approval no longer exists.")
        if row.user_id != user_id:
            return Outcome(False, "Only the person who asked for this job can approve or deny it.")
        if row.status != ApprovalStatus.PENDING:
            return Outcome(False, f"This request was already {row.status}.", row)
        if row.expires_at <= now:
            await self.store.decide(approval_id, ApprovalStatus.EXPIRED, now)
            return Outcome(False, "This request expired, so nothing was created; ask me again.")
        status = ApprovalStatus.APPROVED if approved else ApprovalStatus.DENIED
        decided = await self.store.decide(approval_id, status, now)
        if decided is None:
            return Outcome(False, "This request was already decided.")
        return Outcome(True, approval=decided)

    async def expire_due(self, now: datetime) -> list[Approval]:
        """Mark every timed-out pending approval expired (counts as a denial); returns them."""
        done: list[Approval] = []
        for row in await self.store.expired(now):
            decided = await self.store.decide(row.id, ApprovalStatus.EXPIRED, now)
            if decided is not None:
                done.append(decided)
        return done


def payload_of(pending: PendingApproval) -> dict[str, Any]:
    return {
        "calls": [c.to_json() for c in pending.calls],
        "proposal": pending.proposal,
        "context": pending.context,
        "history": pending.history,
    }


def pending_from_row(row: Approval) -> PendingApproval:
    p = row.payload or {}
    return PendingApproval(
        approval_id=row.id,
        user_id=row.user_id,
        channel_id=row.channel_id,
        calls=tuple(ProposedCall.from_json(c) for c in p.get("calls") or []),
        history=str(p.get("history") or "[]"),
        context=dict(p.get("context") or {}),
        expires_at=row.expires_at,
        message_id=row.message_id,
    )
