"""A thread's to-do list (seed 003) and the agent's tools for it and for the heartbeat.

`TodoList` holds the rules (length, how many open items, friendly errors) shared by
the agent tools and `/todo`. The agent's tools act on the list of the thread it is
talking in (`deps.channel_id`). `propose_heartbeat` goes through the same approval
path as any repeating job the agent proposes.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from pydantic_ai import RunContext

from storage.db import Database
from storage.todos import TodoItem, TodoStatus, TodoStore
from tools import heartbeat
from tools.agent import scheduling as sch
from tools.agent.scheduling import HomarDeps
from tools.approval import PendingApproval, ProposedCall, raw_block
from tools.errors import LimitReached, UserError

log = logging.getLogger(__name__)

MAX_DESCRIPTION = 500
MAX_PENDING = 50
MAX_ATTEMPTS = 3  # heartbeat runs on one to-do before it stops trying (and says so once)
CONSENT = "todo_consent"  # an approval's context key: the to-do it asks consent for


def todo_line(item: TodoItem) -> str:
    mark = "✅" if item.status == TodoStatus.DONE else "•"
    return f"{mark} #{item.id} {item.description}"


class TodoList:
    """One database's to-do lists, each scoped to a thread."""

    def __init__(self, db: Database, clock: Callable[[], datetime]) -> None:
        self.store = TodoStore(db)
        self.clock = clock

    async def add(self, channel_id: int, description: str, created_by: int | None) -> TodoItem:
        text = " ".join(description.split())
        if not text:
            raise UserError("Tell me what to add, e.g. `/todo add description: draft the agenda`.")
        if len(text) > MAX_DESCRIPTION:
            raise UserError(
                f"That to-do is {len(text)} characters; keep it under {MAX_DESCRIPTION}."
            )
        if await self.store.count_pending(channel_id) >= MAX_PENDING:
            raise LimitReached(
                f"This thread already has {MAX_PENDING} open to-dos; finish or remove some "
                "with `/todo done` or `/todo remove` first."
            )
        return await self.store.add(channel_id, text, created_by, self.clock())

    async def pending(self, channel_id: int) -> list[TodoItem]:
        return await self.store.list(channel_id)

    async def recent(self, channel_id: int, limit: int = 25) -> list[TodoItem]:
        """Open items oldest first, then the most recently finished ones."""
        return await self.store.list(channel_id, include_done=True, limit=limit)

    async def get(self, channel_id: int, todo_id: int) -> TodoItem:
        item = await self.store.get(channel_id, todo_id)
        if item is None:
            raise UserError(
                f"There is no to-do #{todo_id} in this thread; `/todo list` shows them."
            )
        return item

    async def complete(self, channel_id: int, todo_id: int) -> TodoItem:
        return await self._close(channel_id, todo_id, TodoStatus.DONE)

    async def remove(self, channel_id: int, todo_id: int) -> TodoItem:
        return await self._close(channel_id, todo_id, TodoStatus.REMOVED)

    async def _close(self, channel_id: int, todo_id: int, status: str) -> TodoItem:
        item = await self.store.close(channel_id, todo_id, status, self.clock())
        if item is not None:
            return item
        found = await self.get(channel_id, todo_id)
        raise UserError(f"To-do #{found.id} is already {found.status}.")


def _todos(ctx: RunContext[HomarDeps]) -> TodoList:
    engine = ctx.deps.engine
    return TodoList(engine.store.db, engine.clock)


# ---------------------------------------------------------------- agent tools (plain)


async def add_task(ctx: RunContext[HomarDeps], description: str) -> str:
    """Add a to-do to this thread's list (the heartbeat works on it when idle)."""
    if ctx.deps.fired:
        # A to-do is work the heartbeat does later: a fired run adding some would be a job
        # creating jobs without anyone's yes.
        return "A scheduled run can't add to-dos; ask me directly (or use `/todo add`)."
    try:
        item = await _todos(ctx).add(ctx.deps.channel_id, description, ctx.deps.user_id)
    except UserError as exc:
        return exc.message
    return _done(ctx, f"Added to-do #{item.id}: {item.description}")


async def list_tasks(ctx: RunContext[HomarDeps]) -> str:
    """List this thread's open to-dos with ids."""
    try:
        items = await _todos(ctx).pending(ctx.deps.channel_id)
    except Exception:
        log.exception("list_tasks failed")
        return "Could not read the to-do list right now."
    return "\n".join(todo_line(i) for i in items) or "The to-do list is empty."


async def _closable(ctx: RunContext[HomarDeps], todos: TodoList, task_id: int) -> str | None:
    """Why this run may not close the to-do, or None. As `/todo done|remove`: whoever
    added a to-do closes it (a run acts as one person, never for others)."""
    found = await todos.get(ctx.deps.channel_id, task_id)
    if found.created_by not in (None, ctx.deps.user_id):
        return f"To-do #{found.id} was added by someone else, so I can't close it for them."
    return None


async def complete_task(ctx: RunContext[HomarDeps], task_id: int) -> str:
    """Mark a to-do done once its work is finished."""
    return await _close(ctx, task_id, done=True)


async def delete_task(ctx: RunContext[HomarDeps], task_id: int) -> str:
    """Remove a to-do from this thread's list without doing it (the user dropped it)."""
    return await _close(ctx, task_id, done=False)


async def _close(ctx: RunContext[HomarDeps], task_id: int, *, done: bool) -> str:
    """Complete (`done`) or remove a to-do, if this person may close it."""
    todos = _todos(ctx)
    try:
        refused = await _closable(ctx, todos, task_id)
        if refused is not None:
            return refused
        close = todos.complete if done else todos.remove
        item = await close(ctx.deps.channel_id, task_id)
    except UserError as exc:
        return exc.message
    if done:
        return _done(ctx, f"Marked to-do #{item.id} done: {item.description}")
    return _done(ctx, f"Removed to-do #{item.id}: {item.description}")


def _done(ctx: RunContext[HomarDeps], line: str) -> str:
    """A change to the list, said as it was made: on a person's message the line is the
    reply whatever the model writes after it; a fired run (the heartbeat) reports its work
    in its own words."""
    return line if ctx.deps.fired else sch._record(ctx, line)


@sch._guarded
async def propose_heartbeat(ctx: RunContext[HomarDeps], every_minutes: int = 30) -> str:
    """Propose a heartbeat that works through this thread's to-dos when idle (min 5 minutes)."""
    deps = ctx.deps
    every = timedelta(minutes=every_minutes)
    heartbeat.check_every(every)
    if not ctx.tool_call_approved:
        schedule = heartbeat.heartbeat_schedule(every, deps.engine.clock(), deps.zone)
        await sch._propose(ctx, heartbeat.HEARTBEAT_COMMAND, schedule)  # raises: ask first
    meta: dict[str, Any] = {"via": "agent", "approved": True}
    job = await heartbeat.enable(
        deps.engine,
        deps.target,
        every,
        deps.zone,
        deps.actor,
        created_by="agent" if deps.fired else "user",
        meta=meta,
    )
    deps.state.job_ids.append(job.id)
    return sch._record(
        ctx,
        f"💓 Heartbeat on (job #{job.id}): {heartbeat.every_words(every)}, I'll work on the "
        "oldest open to-do here whenever the thread is idle. `/heartbeat off` stops it.",
    )


TOOLS = [add_task, list_tasks, complete_task, delete_task, propose_heartbeat]


# ---------------------------------------------------------------- the heartbeat's limits


def gave_up_note(item: TodoItem) -> str:
    """Said once, after the last attempt, when a to-do is still open."""
    return (
        f"I've worked on to-do #{item.id} {item.attempts} times without finishing it, so I'll "
        f"stop trying. Close it with `/todo done id: {item.id}` or `/todo remove id: {item.id}`."
    )


def consent_request(item: TodoItem, owner_id: int) -> PendingApproval:
    """Ask the heartbeat's owner before working on a to-do someone else added."""
    who = f"<@{item.created_by}>" if item.created_by is not None else "someone"
    proposal = (
        f"**Action:** work on to-do #{item.id}, added by {who}, acting as them\n"
        f"{raw_block(item.description)}"
    )
    call = ProposedCall(f"todo-{item.id}", "work_on_todo", {"todo_id": item.id}, proposal)
    return PendingApproval(
        approval_id=0,
        user_id=owner_id,
        channel_id=item.channel_id,
        calls=(call,),
        context={CONSENT: item.id},
    )


def asks_consent(pending: PendingApproval) -> int | None:
    """The to-do an approval asks consent for, if it is such an approval."""
    todo_id = pending.context.get(CONSENT)
    return int(todo_id) if isinstance(todo_id, int) else None


async def decide_consent(todos: TodoList, pending: PendingApproval, approved: bool) -> str:
    """Record the owner's Approve (the heartbeat may work on it) or Deny/expiry (declined)."""
    todo_id = asks_consent(pending)
    if todo_id is None:
        return "That request is not about a to-do."
    if approved:
        item = await todos.store.approve(pending.channel_id, todo_id, pending.user_id)
        if item is None:
            return f"To-do #{todo_id} is no longer open, so there is nothing to work on."
        return (
            f"✅ I'll work on to-do #{todo_id} at the next heartbeat, acting as whoever added it."
        )
    closed = await todos.store.close(
        pending.channel_id, todo_id, TodoStatus.DECLINED, todos.clock()
    )
    if closed is None:
        return f"To-do #{todo_id} is no longer open; nothing changed."
    return f"Okay — I won't work on to-do #{todo_id}; it's off the heartbeat's list."
