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
from tools import scheduling as sch
from tools.errors import LimitReached, UserError
from tools.scheduling import HomarDeps

log = logging.getLogger(__name__)

MAX_DESCRIPTION = 500
MAX_PENDING = 50


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
    try:
        item = await _todos(ctx).add(ctx.deps.channel_id, description, ctx.deps.user_id)
    except UserError as exc:
        return exc.message
    return f"Added to-do #{item.id}: {item.description}"


async def list_tasks(ctx: RunContext[HomarDeps]) -> str:
    """List this thread's open to-dos with ids."""
    try:
        items = await _todos(ctx).pending(ctx.deps.channel_id)
    except Exception:
        log.exception("list_tasks failed")
        return "Could not read the to-do list right now."
    return "\n".join(todo_line(i) for i in items) or "The to-do list is empty."


async def complete_task(ctx: RunContext[HomarDeps], task_id: int) -> str:
    """Mark a to-do done once its work is finished."""
    try:
        item = await _todos(ctx).complete(ctx.deps.channel_id, task_id)
    except UserError as exc:
        return exc.message
    return f"Marked to-do #{item.id} done: {item.description}"


async def delete_task(ctx: RunContext[HomarDeps], task_id: int) -> str:
    """Remove a to-do from this thread's list without doing it (the user dropped it)."""
    try:
        item = await _todos(ctx).remove(ctx.deps.channel_id, task_id)
    except UserError as exc:
        return exc.message
    return f"Removed to-do #{item.id}: {item.description}"


@sch._guarded
async def propose_heartbeat(ctx: RunContext[HomarDeps], every_minutes: int = 30) -> str:
    """Propose a heartbeat that works through this thread's to-dos when idle (min 5 minutes)."""
    deps = ctx.deps
    every = timedelta(minutes=every_minutes)
    heartbeat.check_every(every)
    if not ctx.tool_call_approved:
        schedule = heartbeat.heartbeat_schedule(every, deps.engine.clock(), deps.tz)
        await sch._propose(ctx, heartbeat.HEARTBEAT_COMMAND, schedule)  # raises: ask first
    meta: dict[str, Any] = {"via": "agent", "approved": True}
    job = await heartbeat.enable(
        deps.engine,
        deps.target,
        every,
        deps.tz,
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
