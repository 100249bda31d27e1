"""What one agent run may see and change among the jobs: the single home of those rules.

Every tool that reads, lists or changes an existing job asks here first, so a run started
by a fired job (or a heartbeat) can never act beyond its owner's intent, whatever text
reached the model:

* **Place.** A run in a server sees and touches only that server's jobs: never a job of
  another server, never a DM job. A fired run sees only the jobs of its own thread (it
  must not reveal a job's text anywhere else) and acts on nothing outside its own server
  (or, from a DM, on nothing but DM jobs). A person talking to Homar in a DM may manage
  all of their own jobs there.
* **Own job only.** A fired run may cancel, pause, resume or edit the job that fired;
  any other job needs the owner's approval (the Approve/Deny flow).
* **Repeating needs a yes.** Editing a job into a repeating one always needs approval,
  as creating one does.

Ownership itself (a person acts on their own jobs) stays with `Engine.get(..., actor)`.
"""

from __future__ import annotations

from enum import StrEnum
from typing import TYPE_CHECKING, Any

from pydantic_ai import ApprovalRequired, RunContext

from storage.jobs import Job
from tools.errors import NotAllowed

if TYPE_CHECKING:
    from tools.agent.scheduling import HomarDeps


class Change(StrEnum):
    """What a tool is about to do to an existing job (the words the approval shows)."""

    CANCEL = "cancel"
    PAUSE = "pause"
    RESUME = "resume"
    EDIT = "edit"


def same_place(deps: HomarDeps, job: Job) -> bool:
    """Whether the run may act on `job` at all: same server (DM jobs only from a DM)."""
    if deps.guild_id is not None:
        return job.guild_id == deps.guild_id
    if deps.fired:
        return job.guild_id is None  # a fired DM job never reaches into a server
    return True  # a person in their DM (or the console) manages all of their own jobs


def visible(deps: HomarDeps, job: Job) -> bool:
    """Whether the run may show `job`'s text where it is talking."""
    if deps.fired:
        return job.channel_id == deps.channel_id
    return same_place(deps, job)


def shown(deps: HomarDeps, job: Job) -> str:
    """The job's text for a confirmation, or a placeholder where it must not be shown."""
    return f"“{job.command}”" if visible(deps, job) else "(its text stays in its own thread)"


def list_filter(deps: HomarDeps) -> dict[str, Any]:
    """`Engine.list_jobs` arguments for the jobs this run may list (then check `visible`)."""
    if deps.fired:
        return {"owner_id": deps.user_id, "channel_id": deps.channel_id}
    if deps.guild_id is not None:
        return {"owner_id": deps.user_id, "guild_id": deps.guild_id}
    return {"owner_id": deps.user_id}


def refuse_elsewhere(deps: HomarDeps, job: Job) -> None:
    """Raise `NotAllowed` (without the job's text) if `job` is out of this run's reach."""
    if same_place(deps, job):
        return
    if deps.guild_id is not None:
        where = "a DM" if job.guild_id is None else "another server"
        raise NotAllowed(
            f"Job #{job.id} belongs to {where}, so I can't touch it from here; "
            "manage it there or with `/jobs`."
        )
    raise NotAllowed(f"Job #{job.id} belongs to a server, so a scheduled DM job can't touch it.")


def check_change(
    ctx: RunContext[HomarDeps],
    job: Job,
    change: Change,
    *,
    makes_repeating: bool = False,
    preview: str = "",
) -> None:
    """Allow the change, refuse it (`NotAllowed`), or ask the owner first (`ApprovalRequired`).

    Called with the job already read with the run's actor (so ownership is checked). On the
    approved re-run of the same call (`ctx.tool_call_approved`) the place is checked again
    and the change goes ahead. `preview` (e.g. the new schedule's next runs) is shown too.
    """
    deps = ctx.deps
    refuse_elsewhere(deps, job)
    other_job = deps.fired and job.id != deps.fired_job_id
    if not (other_job or makes_repeating) or ctx.tool_call_approved:
        return
    proposal = account(deps, job, change, makes_repeating)
    raise ApprovalRequired(metadata={"proposal": f"{proposal}\n{preview}".strip()})


def account(deps: HomarDeps, job: Job, change: Change, makes_repeating: bool) -> str:
    """What the owner sees before approving: the change, the job, and who asked for it."""
    shown = f" — “{_short(job.command)}”" if visible(deps, job) else " (in another thread)"
    what = f"{change} job #{job.id}{shown}"
    if makes_repeating:
        repeats = job.schedule.get("type") != "once"
        what += ", changing when it repeats" if repeats else ", making it repeat"
    lines = [f"**Action:** {what}"]
    if deps.fired:
        lines.append(
            f"**Asked by:** scheduled job #{deps.fired_job_id} when it fired "
            "(not by a person just now)"
        )
    return "\n".join(lines)


def _short(text: str, limit: int = 120) -> str:
    flat = " ".join(text.split()).replace("`", "'")
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
