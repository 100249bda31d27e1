"""What a reminder's Done/Snooze and an approval's Approve/Deny do, for every surface.

Discord offers them as buttons (`bot/components/`); the terminal as
typed choices (`bot/console.py`). Both call these, so a choice acts exactly as its button.
"""

from __future__ import annotations

from datetime import datetime, time, timedelta
from typing import TYPE_CHECKING

from storage.approvals import Approval
from tools import timeparse
from tools.errors import UserError
from tools.schedule import timestamp, zone

if TYPE_CHECKING:
    from bot.runtime import Runtime

SNOOZE_CHOICES = ("10m", "1h", "tomorrow")
DONE_NOTE = "✅ **Done** — no more nudges for this one."
SNOOZE_HINT = "try `in 45 minutes`, `tonight at 8` or `friday 10am`"


def snooze_until(choice: str, now: datetime, tz: str) -> datetime:
    """The time a fixed Snooze choice means, in the owner's zone."""
    if choice == "10m":
        return now + timedelta(minutes=10)
    if choice == "1h":
        return now + timedelta(hours=1)
    here = zone(tz)
    tomorrow = now.astimezone(here).date() + timedelta(days=1)
    return datetime.combine(tomorrow, time(9, 0), tzinfo=here)


def read_snooze(phrase: str, now: datetime, tz: str) -> datetime:
    """A custom snooze time in the owner's zone, or a UserError saying what to type."""
    try:
        return timeparse.read_time(phrase, now=now, tz=tz)
    except UserError as exc:
        raise UserError(f"{exc.message} ({SNOOZE_HINT})") from None


async def done(runtime: Runtime, job_id: int, run_id: int | None, user_id: int) -> str:
    """Done: the owner saw the reminder (its run `run_id`, else the latest); follow-ups stop."""
    await runtime.engine.acknowledge(job_id, user_id, how="done", run_id=run_id)
    return DONE_NOTE


async def snooze(
    runtime: Runtime, job_id: int, run_id: int | None, user_id: int, until: datetime, choice: str
) -> str:
    """Snooze: the reminder fires again at `until`; the note says when."""
    job = await runtime.engine.snooze(job_id, user_id, until, run_id=run_id, choice=choice)
    assert job.next_run_at is not None
    at = job.next_run_at
    return f"💤 **Snoozed** until {timestamp(at, 'f')} ({timestamp(at, 'R')})."


async def decide(
    runtime: Runtime, approval_id: int, user_id: int, approved: bool
) -> tuple[Approval | None, str]:
    """Approve or Deny, taken once in the database: the row when decided now, else why not."""
    outcome = await runtime.approvals.decide(
        approval_id, user_id=user_id, approved=approved, now=runtime.clock.now()
    )
    if not outcome.ok or outcome.approval is None:
        return None, outcome.message
    return outcome.approval, "Approved" if approved else "Denied"
