"""What a heartbeat does when it fires: start the agent on the oldest open to-do, or nothing.

A beat never posts the `[DELAYED_COMMAND]` marker; the transports hand heartbeat deliveries
here instead. A beat with no open to-do, or in a thread that is busy (a run in progress or
queued), does nothing at all: no model request, no message. Otherwise exactly one agent
run is queued in the thread, as the heartbeat's owner, and may complete the to-do.
"""

from __future__ import annotations

import logging
from typing import Protocol

from sqlalchemy import inspect

from bot.dispatcher import Delivered, Delivery
from bot.runtime import Reply, Runtime
from storage.models import Job, JobRun
from storage.todos import TodoItem, TodoStore

log = logging.getLogger(__name__)


class PostReply(Protocol):
    """How the chat surface posts an agent reply in a thread (`HomarBot.post`)."""

    async def __call__(
        self,
        channel_id: int,
        guild_id: int | None,
        reply: Reply,
        *,
        fallback_user: int | None = None,
    ) -> None: ...


def task_prompt(item: TodoItem) -> str:
    return f"Heartbeat: work on task #{item.id}: {item.description}"


def _with_command(job: Job, command: str) -> Job:
    """A detached copy of the heartbeat job whose command is this beat's to-do prompt."""
    values = {attr.key: getattr(job, attr.key) for attr in inspect(Job).column_attrs}
    values["command"] = command
    return Job(**values)


class Heartbeat:
    """Handles heartbeat deliveries for one runtime."""

    def __init__(self, runtime: Runtime, post: PostReply) -> None:
        self.runtime = runtime
        self.post = post
        self.todos = TodoStore(runtime.db)

    async def beat(self, delivery: Delivery) -> Delivered:
        """Never raises: a beat that fails is simply a beat that did nothing."""
        ids = {"job_id": delivery.job_id, "thread_id": delivery.channel_id}
        try:
            await self._beat(delivery)
        except Exception:
            log.exception("heartbeat job %s failed", delivery.job_id, extra=ids)
        return Delivered(message_id=None, channel_id=delivery.channel_id, route="heartbeat")

    async def _beat(self, d: Delivery) -> None:
        runtime = self.runtime
        now = runtime.clock.now()
        # Handled here and now, so a restart never re-feeds a beat to the agent as a plain job.
        run = await runtime.store.mark_executed(d.nonce, now)
        if run is None:
            return  # a re-sent beat that was already handled
        if not runtime.queues.is_idle(d.channel_id):
            return  # busy: the next beat will look again
        if await self.todos.oldest_pending(d.channel_id) is None:
            return
        job = await runtime.store.get(d.job_id)
        if job is None or not runtime.may_run(job):
            return
        if await runtime.usage.over_cap(job.owner_id, now):
            return  # the offline model can't do the work; wait for tomorrow's allowance
        runtime.queues.submit(d.channel_id, lambda: self._work(run, job))

    async def _work(self, run: JobRun, job: Job) -> None:
        # Read again: the to-do may have been finished while this run waited in the queue.
        item = await self.todos.oldest_pending(job.channel_id)
        if item is None:
            return
        reply = await self.runtime.fired(run, _with_command(job, task_prompt(item)))
        await self.post(job.channel_id, job.guild_id, reply, fallback_user=job.owner_id)
