"""What a heartbeat does when it fires: start the agent on the oldest open to-do, or nothing.

A beat never posts the `[DELAYED_COMMAND]` marker; the transports hand heartbeat deliveries
here instead. A beat with no open to-do, or in a thread that is busy (a run in progress or
queued), does nothing at all: no model request, no message. Otherwise exactly one piece of
work is queued in the thread: the agent works on the oldest to-do it may, acting as the
person who added it, and when it completes it, on the next one in the same beat while time
allows (see `tools.heartbeat.chain_budget`). The beat's last reply ends with one line
saying what it finished and what it started.

To-dos someone other than the heartbeat's owner added wait for the owner's Approve (asked
once per to-do, one question at a time, the usual approval flow); a to-do the heartbeat
tried `MAX_ATTEMPTS` times without finishing is left alone, and the thread is told so once.
"""

from __future__ import annotations

import logging
from dataclasses import replace
from datetime import datetime

from bot.dispatcher import Delivered, Delivery
from bot.runtime import PostReply, Reply, Runtime
from storage.approvals import ApprovalStatus
from storage.jobs import Job, Run
from storage.models import JobStatus
from storage.todos import TodoItem, TodoStatus
from tools import heartbeat
from tools.agent.todo import MAX_ATTEMPTS, TodoList, asks_consent, consent_request, gave_up_note
from tools.approval import pending_from_row

log = logging.getLogger(__name__)


def task_prompt(item: TodoItem) -> str:
    return f"Heartbeat: work on task #{item.id}: {item.description}"


def _as_worker(job: Job, item: TodoItem) -> Job:
    """The heartbeat job as this to-do's run sees it: its command is the to-do's prompt and
    its owner is the person the run acts as, whoever added the to-do."""
    return replace(job, command=task_prompt(item), owner_id=_worker(item, job))


def _worker(item: TodoItem, job: Job) -> int:
    """Whom a to-do's run acts as: whoever added it (the owner, for an unknown author)."""
    return item.created_by if item.created_by is not None else job.owner_id


def _started_at(run: Run, now: datetime) -> Run:
    """The beat's run as a to-do started later in the same beat sees it: the model's time
    budget (and any lateness) counts from now, not from the beat's slot."""
    return replace(run, scheduled_for=now, lateness_ms=0)


class Heartbeat:
    """Handles heartbeat deliveries for one runtime."""

    def __init__(self, runtime: Runtime, post: PostReply) -> None:
        self.runtime = runtime
        self.post = post
        self.todos = TodoList(runtime.db, runtime.clock.now)

    async def beat(self, delivery: Delivery) -> Delivered:
        """Never raises: a beat that fails is simply a beat that did nothing."""
        ids = {"job_id": delivery.job.id, "thread_id": delivery.job.channel_id}
        try:
            await self._beat(delivery)
        except Exception:
            log.exception("heartbeat job %s failed", delivery.job.id, extra=ids)
        return Delivered(message_id=None, channel_id=delivery.job.channel_id, route="heartbeat")

    async def _beat(self, d: Delivery) -> None:
        runtime = self.runtime
        now = runtime.clock.now()
        # Handled here and now, so a restart never re-feeds a beat to the agent as a plain job.
        run = await runtime.store.mark_executed(d.run.nonce, now)
        if run is None:
            return  # a re-sent beat that was already handled
        if not runtime.queues.is_idle(d.job.channel_id):
            return  # busy: the next beat will look again
        job = await runtime.store.get(d.job.id)
        if job is None or not runtime.may_run(job):
            return
        unasked = await self._unasked(job)
        workable = await self._workable(job)
        if workable is not None and await runtime.usage.over_cap(_worker(workable, job), now):
            workable = None  # the offline model can't do the work; wait for tomorrow's allowance
        if unasked or workable is not None:
            runtime.queues.submit(d.job.channel_id, lambda: self._work(run, job))

    async def _workable(self, job: Job) -> TodoItem | None:
        """The oldest to-do this heartbeat may work on: the owner's own or approved by the
        owner, and not yet tried `MAX_ATTEMPTS` times."""
        found = await self.todos.store.workable(job.channel_id, job.owner_id, MAX_ATTEMPTS)
        return found[0] if found else None

    async def _unasked(self, job: Job) -> list[TodoItem]:
        """The next to-do of someone else's to ask the owner about: one question at a time
        (none while one is open), so a flood of to-dos can't flood the owner with pings."""
        waiting = await self.todos.store.awaiting_consent(job.channel_id, job.owner_id)
        if not waiting:
            return []
        asked: set[int] = set()
        for row in await self.runtime.approvals.store.in_channel(job.channel_id):
            todo_id = asks_consent(pending_from_row(row))
            if todo_id is None:
                continue
            if row.status == ApprovalStatus.PENDING:
                return []
            # Decided (its outcome may still be on its way to the to-do): never asked again.
            asked.add(todo_id)
        return [i for i in waiting if i.id not in asked][:1]

    async def _ask_consent(self, job: Job) -> None:
        """To-dos someone else added wait for the owner's yes; each is asked about once."""
        runtime = self.runtime
        for other in await self._unasked(job):
            pending = await runtime.approvals.open(
                consent_request(other, job.owner_id), now=runtime.clock.now()
            )
            await self.post(
                job.channel_id, job.guild_id, Reply(pending.message(), approval=pending)
            )

    async def _start(self, job: Job, item: TodoItem | None) -> TodoItem | None:
        """Count an attempt on the to-do (before the run, so a crash counts too)."""
        if item is None:
            return None
        return await self.todos.store.start_attempt(job.channel_id, item.id)

    async def _work(self, run: Run, job: Job) -> None:
        await self._ask_consent(job)
        # Read again: the to-do may have been finished while this run waited in the queue.
        item = await self._start(job, await self._workable(job))
        if item is None:
            return
        # Seed 003: a to-do completed in this beat is followed by the next open one in the
        # same run while time allows, instead of waiting for the next beat.
        deadline = self.runtime.clock.now() + heartbeat.chain_budget(heartbeat.interval_of(job))
        finished: list[TodoItem] = []
        left_open: list[TodoItem] = []
        this = run
        while True:
            worker = _as_worker(job, item)
            reply = await self.runtime.fired(this, worker)
            done = await self._done(item)
            (finished if done else left_open).append(item)
            nxt = await self._next(job, deadline, len(finished) + len(left_open)) if done else None
            if nxt is None:
                break
            await self.post(job.channel_id, job.guild_id, reply, fallback_user=worker.owner_id)
            item, this = nxt, _started_at(run, self.runtime.clock.now())
        waiting = await self.todos.store.count_pending(job.channel_id)
        line = heartbeat.chain_summary(finished, left_open, waiting)
        reply = replace(reply, text=f"{reply.text}\n{line}".strip())
        await self.post(job.channel_id, job.guild_id, reply, fallback_user=worker.owner_id)
        await self._record(run, finished, left_open)
        for stuck in left_open:
            after = await self.todos.store.get(job.channel_id, stuck.id)
            if (
                after is not None
                and after.status == TodoStatus.PENDING
                and after.attempts >= MAX_ATTEMPTS
            ):
                await self.post(job.channel_id, job.guild_id, Reply(gave_up_note(after)))

    async def _done(self, item: TodoItem) -> bool:
        now = await self.todos.store.get(item.channel_id, item.id)
        return now is not None and now.status == TodoStatus.DONE

    async def _next(self, job: Job, deadline: datetime, worked: int) -> TodoItem | None:
        """The next open to-do if this beat may go on: time and count left, nobody waiting
        in the thread (people come first), allowance left, the heartbeat still on."""
        runtime = self.runtime
        now = runtime.clock.now()
        if worked >= heartbeat.MAX_CHAIN or now >= deadline:
            return None
        if runtime.queues.has_waiting(job.channel_id):
            return None
        current = await runtime.store.get(job.id)
        if current is None or current.status != JobStatus.ACTIVE:
            return None
        item = await self._workable(job)
        if item is None or await runtime.usage.over_cap(_worker(item, job), now):
            return None
        return await self._start(job, item)

    async def _record(self, run: Run, finished: list[TodoItem], left: list[TodoItem]) -> None:
        """What the beat worked on goes on its run, for `/jobs history`."""
        try:
            latest = await self.runtime.store.run_by_nonce(run.nonce)
            details = dict((latest.details if latest else run.details) or {})
            details["todos"] = {"finished": [i.id for i in finished], "open": [i.id for i in left]}
            await self.runtime.store.update_run(run.id, details=details)
        except Exception:  # the thread already heard what happened; the record is extra
            log.exception("could not record the to-dos of heartbeat run %s", run.id)
