"""What the Discord bot and the console share: database, engine, dispatcher, agent, queues."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any, Protocol

from pydantic_ai.models import Model

from bot.access import CAP_REACHED, Usage
from bot.clock import Clock, SystemClock
from bot.dispatcher import Alarm, DeliveredHook, Dispatcher, Transport
from bot.metrics import Metrics
from bot.settings import Settings, SettingsError
from bot.threads import ThreadQueues
from bot.wakeups import POLL_SECONDS, Wakeups
from storage.approvals import ApprovalStore
from storage.conversations import ConversationStore
from storage.db import Database, StorageUnavailable
from storage.jobs import Job, JobStore, Run
from storage.models import JobKind
from storage.user_settings import UserSettingsStore
from tools.actions.kit import Actions
from tools.actions.mcp import McpConfigError
from tools.actions.plugins import PluginError
from tools.actions.recording import account
from tools.actions.thread import ThreadActions
from tools.agent import (
    AgentKit,
    AgentReply,
    acknowledges,
    build_agent_kit,
    resume_approval,
    run_agent,
    todo,
)
from tools.agent.offline import is_offline
from tools.agent.scheduling import HomarDeps
from tools.agent.todo import TodoList
from tools.approval import Approvals, PendingApproval
from tools.audience import Audience, AudienceResolver
from tools.jobs import reminders as followups
from tools.jobs.engine import Engine
from tools.jobs.marker import WakeUp, command_text, wake_text
from tools.jobs.model import ESCALATE_RUN, FOLLOW_UP_RUN
from tools.memory import Memory
from tools.schedule import timestamp

log = logging.getLogger(__name__)

# A fired job's reply is posted within this many seconds of its due time, model or not.
FIRED_DEADLINE = 45.0
FIRED_MIN_BUDGET = 5.0  # a run delivered late still gives the model this long
# A process answering a fired run holds it this long: the model's deadline plus posting
# retries, with room to spare. A crashed holder's runs are taken over after it.
REPLY_LEASE = timedelta(seconds=120)
# An answer posted more than this after its run's scheduled time apologises for it.
LATE_AFTER = timedelta(seconds=60)


# What a person hears when a request can't be saved (disk full, read-only, database down).
STORAGE_DOWN = (
    "I can't save anything right now (my storage is unavailable), so nothing was scheduled "
    "or changed. Please try again in a few minutes."
)


def reply_nonce(run_id: int) -> str:
    """The stable nonce (<= 25 chars) of a run's answer, so a re-post is de-duplicated."""
    return f"a{run_id:x}"


@dataclass(frozen=True)
class Speaker:
    """Who is talking, and where."""

    user_id: int
    channel_id: int
    guild_id: int | None = None
    parent_channel_id: int | None = None
    user_name: str = ""


@dataclass(frozen=True)
class Reply:
    text: str
    mention_user: int | None = None
    approval: PendingApproval | None = None  # post with Approve/Deny buttons
    reminder: tuple[int, int] | None = None  # (job id, run id): post with Done/Snooze buttons
    audience: Audience | None = None  # a fired job's stored audience: the only ones pinged
    job_id: int | None = None  # the fired job (for its "Notify me too" button)
    # A fired run's scheduled time: posted later than LATE_AFTER after it, it says sorry.
    due: datetime | None = None

    def text_at(self, now: datetime) -> str:
        """The text as posted at `now`: late answers say so, decided from the run's slot."""
        if self.due is not None and now - self.due > LATE_AFTER:
            return f"Sorry, this is late — it was due {timestamp(self.due, 'R')}.\n{self.text}"
        return self.text

    def to_json(self) -> dict[str, Any]:
        """What a run keeps of its answer, to post it again after a crash (see `answer`)."""
        return {
            "text": self.text,
            "mention_user": self.mention_user,
            "approval_id": self.approval.approval_id if self.approval else None,
            "reminder": list(self.reminder) if self.reminder else None,
            "due": self.due.isoformat() if self.due else None,
        }


@dataclass(frozen=True)
class Posting:
    """How posting a fired run's answer went.

    `done` False: Discord could not be reached (5xx, 429, network) even after retries;
    the run stays held until its lease runs out, then is posted again with the same
    nonce. `failure` says why an answer could not reach its owner at all (recorded).
    """

    done: bool
    failure: str | None = None


PostAnswer = Callable[[Job, Reply, str], Awaitable[Posting]]


class PostReply(Protocol):
    """How a chat surface posts an agent reply in a thread (`HomarBot.post`, `Console.post`),
    falling back to `fallback_user`'s DM where it has one. What it returns is the surface's
    own (Discord says how the posting went); callers through this protocol don't read it."""

    async def __call__(
        self,
        channel_id: int,
        guild_id: int | None,
        reply: Reply,
        *,
        fallback_user: int | None = None,
    ) -> object: ...


@dataclass(frozen=True)
class Surface:
    """What a chat surface (Discord, the console) lends the runtime; made by `bot.wiring`."""

    transport: Transport  # delivers fired runs (markers; beats and escalations in-process)
    failure_notice: Callable[[Job, str], None]  # a repeating job keeps failing
    on_delivered: Sequence[DeliveredHook] = ()  # told of each recorded delivery
    # The thread a run may post into, read, poll (Discord only).
    thread_actions: Callable[[int, int | None], ThreadActions] | None = None
    # Reads and checks the audiences the agent names ("@bob and me"; Discord only).
    audience: AudienceResolver | None = None


class Runtime:
    """The engine, dispatcher and agent for one process, independent of the chat surface.

    Built once, whole: the surface it serves is made by `surface(self)` (see `bot.wiring`)
    as soon as the storage and clock it reads while being built exist, because the
    surface's heartbeat and transport work on this runtime while the runtime's engine and
    dispatcher report and deliver through them.
    """

    def __init__(
        self,
        settings: Settings,
        surface: Callable[[Runtime], Surface],
        *,
        clock: Clock | None = None,
        offline: Model | None = None,
    ) -> None:
        """`offline`: the model that answers when the configured one fails (default: the
        built-in offline model). Tests give theirs here, at construction: a run picks its
        fallback from the kit, which `agent.override(model=...)` does not reach."""
        self.settings = settings
        self.db = Database(settings.database_url)
        # On PostgreSQL other processes create jobs too: never sleep past a missed NOTIFY.
        poll = POLL_SECONDS if self.db.is_postgres else 30.0
        self.clock: Clock = clock or SystemClock(max_sleep=poll)
        self.store = JobStore(self.db)
        self.surface = surface(self)
        self.thread_actions = self.surface.thread_actions
        self.audience_resolver = self.surface.audience
        # The engine wakes the dispatcher (and, on PostgreSQL, the other processes') when a
        # job changes; the alarm exists before the dispatcher, which needs the engine.
        alarm = Alarm()
        self.wakeups = Wakeups(self.db, alarm)
        self.engine = Engine(
            self.store,
            clock=self.clock.now,
            limits=settings.limits(),
            waker=self.wakeups,
            failure_notices=(self.surface.failure_notice,),
        )
        self.conversations = ConversationStore(self.db)
        api_key = settings.homar_model_api_key
        try:  # MCP servers and plugins: a bad file or module stops the start, named
            self.actions = Actions.from_settings(settings.mcp_config, settings.homar_plugins)
        except (McpConfigError, PluginError) as exc:
            raise SettingsError(str(exc)) from None
        self._connecting: asyncio.Task[None] | None = None
        self.approvals = Approvals(ApprovalStore(self.db), timeout=settings.approval_timeout)
        built = build_agent_kit(
            settings.homar_model,
            settings.homar_model_base_url,
            api_key.get_secret_value() if api_key else None,
            settings.homar_fallback_model,
            memory=Memory(self.conversations),
            request_timeout=settings.model_timeout,
            toolsets=self.actions.toolsets,
            catalogue=self.actions.catalogue,
            plain_reminders_in_code=settings.plain_reminders_in_code,
        )
        # Proposals persist in the database (build_agent_kit's own keeps them in the reply only).
        self.agent = replace(built, approvals=self.approvals, offline=offline or built.offline)
        self.usage = Usage(self.db, settings.model_requests_per_user_per_day)
        self.queues = ThreadQueues()
        self.metrics = Metrics()
        self.dispatcher = Dispatcher(
            self.engine,
            self.metrics.counted(self.surface.transport, self.clock.now),
            clock=self.clock,
            alarm=alarm,
            hooks=self.surface.on_delivered,
        )

    async def open(self) -> None:
        await self.db.upgrade()

    async def start(self) -> None:
        # MCP servers connect in the background: a slow one must not hold the bot back.
        self._connecting = asyncio.create_task(self.actions.start())
        await self.wakeups.start()
        await self.dispatcher.start()

    async def drain(self, grace: float) -> None:
        """Finish what is under way before a stop: deliveries in flight, then the agent
        runs queued in threads (their replies), all within `grace` seconds."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + grace
        await self.wakeups.stop()
        handed = await self.dispatcher.drain(grace)
        if handed:
            log.info("handed back %d claimed jobs that had not started", handed)
        try:
            await asyncio.wait_for(self.queues.join(), max(0.0, deadline - loop.time()))
        except TimeoutError:
            log.warning("stopping with agent runs still going after %.0f s", grace)

    async def close(self) -> None:
        await self.wakeups.stop()
        await self.dispatcher.stop()
        await self.queues.close()
        if self._connecting is not None:
            self._connecting.cancel()
        await self.actions.stop()
        await self.db.close()

    def _thread(self, channel_id: int, guild_id: int | None) -> ThreadActions | None:
        return self.thread_actions(channel_id, guild_id) if self.thread_actions else None

    def may_run(self, job: Job) -> bool:
        """Whether a fired job may use the model: its guild must still be allowed."""
        allowed = self.settings.allowed_guild_ids
        return job.guild_id is None or not allowed or job.guild_id in allowed

    async def user_tz(self, user_id: int) -> str:
        return await UserSettingsStore(self.db).tz(user_id) or self.settings.default_timezone

    async def converse(self, who: Speaker, text: str, *, message_id: int | None = None) -> Reply:
        """A person's message in a thread → the agent's answer (never raises).

        With storage down, full or read-only the answer says so: a transaction that
        failed wrote nothing, so nothing was scheduled.
        """
        try:
            return await self._converse(who, text, message_id)
        except StorageUnavailable as exc:
            log.warning("chat in %s while storage is unavailable: %s", who.channel_id, exc)
            return Reply(STORAGE_DOWN)

    async def _converse(self, who: Speaker, text: str, message_id: int | None) -> Reply:
        await self.acknowledge_reminders(who, text, message_id)
        deps = HomarDeps(
            user_id=who.user_id,
            channel_id=who.channel_id,
            engine=self.engine,
            tz=await self.user_tz(who.user_id),
            guild_id=who.guild_id,
            parent_channel_id=who.parent_channel_id,
            now=self.clock.now(),
            user_name=who.user_name or None,
            thread=self._thread(who.channel_id, who.guild_id),
            audience=self.audience_resolver,
        )
        capped = await self.usage.over_cap(who.user_id, self.clock.now())
        result = await run_agent(self._agent_for(capped), text, deps)
        await self._spend(who.user_id, result, capped)
        body = f"{CAP_REACHED.format(cap=self.usage.cap)}\n{result.text}" if capped else result.text
        return Reply(
            body,
            mention_user=who.user_id if result.remind_now else None,
            approval=result.approval,
        )

    async def acknowledge_reminders(
        self, who: Speaker, text: str, message_id: int | None = None
    ) -> list[int]:
        """The owner wrote in a thread with reminders following up: that answers them.

        In smart mode the model judges whether the message acknowledges each one (the
        offline model, or a failing one, counts any message). Returns the ended job ids.
        """
        ended: list[int] = []
        try:
            jobs = await self.engine.awaiting_acknowledgement(who.channel_id, who.user_id)
            for job in jobs:
                if self.settings.reminder_ack_mode == "smart":
                    capped = await self.usage.over_cap(who.user_id, self.clock.now())
                    model = self._agent_for(capped).model_in_force()
                    if not await acknowledges(model, job.command, text):
                        continue
                note = {"message_id": message_id, "text": text[:200]}
                _, done = await self.engine.acknowledge(
                    job.id, who.user_id, how="message", note=note
                )
                if done:
                    ended.append(job.id)
        except Exception:  # never let bookkeeping stop the conversation
            log.exception("could not record a reminder acknowledgement in %s", who.channel_id)
        return ended

    def _agent_for(self, capped: bool) -> AgentKit:
        """Over the daily cap, the built-in offline model answers instead of the paid one."""
        return replace(self.agent, model=self.agent.offline) if capped else self.agent

    async def _spend(self, user_id: int, result: AgentReply, capped: bool) -> None:
        # Offline answers are free, the configured model's own included (no AI model).
        if not capped and not result.offline and not is_offline(self.agent.model):
            await self.usage.spend(user_id, self.clock.now(), result.requests)

    async def resume(
        self, approval_id: int, *, approved: bool, expired: bool = False
    ) -> Reply | None:
        """A decided approval → the agent continues (creates the jobs, or acknowledges)."""
        pending = await self.approvals.load(approval_id)
        if pending is None:
            return None
        if todo.asks_consent(pending) is not None:  # the heartbeat asked about a to-do
            text = await todo.decide_consent(TodoList(self.db, self.clock.now), pending, approved)
            if expired:
                text = f"Nobody approved working on that to-do in time.\n{text}"
            return Reply(text)
        ctx = pending.context
        deps = HomarDeps(
            user_id=pending.user_id,
            channel_id=pending.channel_id,
            engine=self.engine,
            tz=str(ctx.get("tz") or await self.user_tz(pending.user_id)),
            guild_id=ctx.get("guild_id"),
            parent_channel_id=ctx.get("parent_channel_id"),
            now=self.clock.now(),
            fired=bool(ctx.get("fired")),
            fired_job_id=ctx.get("fired_job_id"),
            fired_kind=ctx.get("fired_kind"),
            user_name=ctx.get("user_name"),
            thread=self._thread(pending.channel_id, ctx.get("guild_id")),
            audience=self.audience_resolver,
        )
        capped = await self.usage.over_cap(pending.user_id, self.clock.now())
        result = await resume_approval(self._agent_for(capped), pending, approved, deps)
        await self._spend(pending.user_id, result, capped)
        text = result.text
        if expired:
            text = f"Nobody approved my proposal in time, so I dropped it.\n{text}"
        return Reply(text, approval=result.approval)

    async def refeed(
        self,
        nonce: str,
        post: PostAnswer,
        *,
        typing: Callable[[Job], AbstractAsyncContextManager[object]] | None = None,
    ) -> bool:
        """Answer a delivered run: the one re-feed path of every surface.

        Discord calls it for the marker's echo, a resumed delivery and the orphan sweep;
        the console when it prints a marker. Taking the run is a compare-and-set in the
        database, so whichever comes first answers it and the others do nothing; a taker
        that dies is replaced when its lease runs out. The answer is prepared and posted
        in the job's thread queue (behind what else happens there), with `typing` shown
        meanwhile; the run is done only once `post` has posted it (see `answer`).
        Returns whether this call took the run.
        """
        taken = await self.take_run(nonce)
        if taken is None:
            return False  # someone else's text, answered already, or being answered
        run, job = taken

        async def work() -> None:
            async with typing(job) if typing is not None else contextlib.nullcontext():
                await self.answer(run, job, post)

        self.queues.submit(job.channel_id, work)
        return True

    async def take_run(self, nonce: str) -> tuple[Run, Job] | None:
        """Take a delivered run to answer (compare-and-set in the database), or None when it
        is not a run of ours, is answered already, or another taker holds it."""
        now = self.clock.now()
        taken = await self.store.take_reply(nonce, now, REPLY_LEASE)
        if taken is None:
            return None
        run, job = taken
        if job is None or job.kind == JobKind.HEARTBEAT or run.kind == ESCALATE_RUN:
            # Nothing to answer: the job is gone, or a beat or an escalation DM (both are
            # handled where they are delivered, never re-fed).
            failure = "the job was deleted before it could answer" if job is None else None
            await self.store.replied(run.id, now, failure=failure)
            return None
        return run, job

    async def answer(self, run: Run, job: Job, post: PostAnswer) -> bool:
        """Finish a taken run exactly once: prepare its answer (or reuse the one kept before
        a crash), keep it, post it with the run's own nonce, then record the run done.

        The agent runs at most once per taker; a kept answer is only ever re-posted (the
        nonce lets Discord drop a repeat). Returns whether the run is now done.
        """
        if run.reply is not None:
            reply = await self._kept_reply(run.reply)
        else:
            reply = await self.fired(run, job)
            assert run.reply_lease_until is not None
            if not await self.store.keep_reply(run.id, run.reply_lease_until, reply.to_json()):
                log.warning(
                    "run %s was taken over while its answer was prepared; not posting it",
                    run.id,
                    extra={"job_id": job.id, "run_id": run.id, "thread_id": job.channel_id},
                )
                return False
        posting = await post(job, reply, reply_nonce(run.id))
        if not posting.done:
            return False  # Discord is down: the lease runs out and the run is taken again
        if posting.failure is not None:
            log.warning(
                "job %s: its answer could not reach the owner: %s",
                job.id,
                posting.failure,
                extra={"job_id": job.id, "run_id": run.id, "thread_id": job.channel_id},
            )
        return await self.store.replied(run.id, self.clock.now(), failure=posting.failure)

    async def _kept_reply(self, kept: dict[str, Any]) -> Reply:
        approval_id = kept.get("approval_id")
        approval = await self.approvals.load(int(approval_id)) if approval_id else None
        reminder = kept.get("reminder")
        due = kept.get("due")
        return Reply(
            str(kept.get("text") or ""),
            mention_user=kept.get("mention_user"),
            approval=approval,
            reminder=(int(reminder[0]), int(reminder[1])) if reminder else None,
            due=datetime.fromisoformat(due) if due else None,
        )

    async def fired(self, run: Run, job: Job) -> Reply:
        """A delivered marker → the agent acts on the command as the job's owner (never raises).

        If the agent cannot answer (model down, error), a reminder still reaches its
        owner in plain words.
        """
        deps = HomarDeps(
            user_id=job.owner_id,
            channel_id=job.channel_id,
            engine=self.engine,
            tz=job.tz,
            guild_id=job.guild_id,
            parent_channel_id=job.parent_channel_id,
            now=self.clock.now(),
            fired=True,
            fired_job_id=job.id,
            fired_kind=job.kind,
            thread=self._thread(job.channel_id, job.guild_id),
        )
        # A fired job of someone over the cap or without access still delivers, offline
        # (with the offline model configured there is no cap to read: it answers anyway).
        capped = not self.may_run(job) or (
            not is_offline(self.agent.model)
            and await self.usage.over_cap(job.owner_id, self.clock.now())
        )
        agent = self._agent_for(capped)
        prompt = command_text(job.kind, job.command)
        wake: WakeUp | None = None
        if job.kind == JobKind.REMINDER:
            # A follow-up's attempt is read from the run history (the job row may already be
            # advanced past this run); the reminder itself is always the first.
            runs = await self.store.runs(job.id, limit=20) if run.kind == FOLLOW_UP_RUN else []
            wake = followups.wake_up(job, run, runs)
            prompt = wake_text(job.command, wake, job.tz)
        result = await self._answer_in_time(agent, prompt, deps, run)
        await self._spend(job.owner_id, result, capped)
        await self._keep_tool_calls(run, result)
        text = result.text.strip()
        if result.approval is not None:
            return Reply(text, mention_user=job.owner_id, approval=result.approval)
        if (result.error and not result.offline) or not text:
            log.warning(
                "job %s: agent failed on a fired command: %s",
                job.id,
                result.error,
                extra={"job_id": job.id, "run_id": run.id, "thread_id": job.channel_id},
            )
            text = "" if result.tool_calls else plain_reminder(job)
            if wake is not None and wake.is_follow_up:
                text = followups.plain_follow_up(job.command, wake.attempt, wake.of)
        if result.tool_calls:  # a short account of what the command actually did
            text = f"{text}\n{account(result.tool_calls)}".strip()
        if f"<@{job.owner_id}>" not in text:
            text = f"<@{job.owner_id}> {text}"
        buttons = (job.id, run.id) if job.kind == JobKind.REMINDER else None
        # Lateness is judged when the answer is posted, against the run's own slot (not a
        # delivery figure that may not be recorded yet). Follow-ups and beats never apologise.
        late_ok = not (wake and wake.is_follow_up) and job.kind != JobKind.HEARTBEAT
        due = run.scheduled_for if late_ok else None
        return Reply(text, mention_user=job.owner_id, reminder=buttons, due=due)

    async def _answer_in_time(
        self, agent: AgentKit, prompt: str, deps: HomarDeps, run: Run
    ) -> AgentReply:
        """The agent's answer to a fired job, or none if the model would make it late.

        A hung or slow model must not hold a reminder past `FIRED_DEADLINE` after its
        due time: the run gets what is left of that (at least `FIRED_MIN_BUDGET`), then
        the caller falls back to the plain reminder.
        """
        waited = (self.clock.now() - run.scheduled_for).total_seconds()
        budget = max(FIRED_MIN_BUDGET, FIRED_DEADLINE - max(0.0, waited))
        async with self.metrics.model_call() as outcome:
            try:
                result = await asyncio.wait_for(run_agent(agent, prompt, deps), budget)
            except TimeoutError:
                outcome("timeout")
                return AgentReply(text="", error=f"the model took longer than {budget:.0f} s")
            outcome("offline" if result.offline else "error" if result.error else "ok")
            return result

    async def _keep_tool_calls(self, run: Run, result: AgentReply) -> None:
        """The fired command's action calls go on its run, for `/jobs history`."""
        if not result.tool_calls:
            return
        details = dict(run.details or {})
        details["tool_calls"] = [c.to_json() for c in result.tool_calls]
        try:
            await self.store.update_run(run.id, details=details)
        except Exception:  # the account in the thread matters more than the record
            log.exception("could not record tool calls on run %s", run.id)


def plain_reminder(job: Job) -> str:
    """What a fired job says when the model cannot: the command itself, in plain words."""
    if job.kind in (JobKind.REMINDER, JobKind.DELAYED, JobKind.SCHEDULED, JobKind.RECURRING):
        return f"⏰ Reminder: {job.command}"
    return f"⏰ Scheduled: {job.command} (job #{job.id})"
