"""What the Discord bot and the console share: database, engine, dispatcher, agent, thread queues."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from bot.clock import Clock, SystemClock
from bot.dispatcher import Dispatcher, Transport
from bot.settings import Settings
from bot.threads import ThreadQueues
from storage.db import Database
from storage.jobs import JobStore
from storage.models import Job, JobKind, JobRun, UserSettings
from tools.agent import AgentRequest, HomarAgent
from tools.engine import Engine
from tools.schedule import zone

log = logging.getLogger(__name__)


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


class Runtime:
    """The engine, dispatcher and agent for one process, independent of the chat surface."""

    def __init__(self, settings: Settings, *, clock: Clock | None = None) -> None:
        self.settings = settings
        self.clock: Clock = clock or SystemClock()
        self.db = Database(settings.database_url)
        self.store = JobStore(self.db)
        self.engine = Engine(self.store, clock=self.clock.now, limits=settings.limits())
        self.agent = HomarAgent.from_settings(
            model=settings.homar_model,
            base_url=settings.homar_model_base_url,
            api_key=(
                settings.homar_model_api_key.get_secret_value()
                if settings.homar_model_api_key
                else None
            ),
            fallback=settings.homar_fallback_model,
            timeout=settings.model_timeout,
        )
        self.queues = ThreadQueues()
        self.dispatcher: Dispatcher | None = None

    async def open(self) -> None:
        await self.db.upgrade()

    def attach(self, transport: Transport) -> Dispatcher:
        self.dispatcher = Dispatcher(self.engine, transport, clock=self.clock)
        self.engine.waker = self.dispatcher
        return self.dispatcher

    async def start(self) -> None:
        if self.dispatcher is not None:
            await self.dispatcher.start()

    async def close(self) -> None:
        if self.dispatcher is not None:
            await self.dispatcher.stop()
        await self.queues.close()
        await self.db.close()

    async def user_tz(self, user_id: int) -> str:
        async with self.db.session() as s:
            row = await s.get(UserSettings, user_id)
        return row.tz if row and row.tz else self.settings.default_timezone

    async def converse(self, who: Speaker, text: str) -> Reply:
        """A person's message in a thread → the agent's answer (never raises)."""
        request = AgentRequest(
            text=text,
            user_id=who.user_id,
            guild_id=who.guild_id,
            channel_id=who.channel_id,
            parent_channel_id=who.parent_channel_id,
            tz=await self.user_tz(who.user_id),
            now=self.clock.now(),
            user_name=who.user_name,
        )
        result = await self.agent.run(request, self.engine)
        return Reply(result.text)

    async def fired(self, run: JobRun, job: Job) -> Reply:
        """A delivered marker → the agent acts on the command as the job's owner (never raises).

        If the agent cannot answer (model down, error), a reminder still reaches its
        owner in plain words.
        """
        tz = job.tz
        created = job.created_at.astimezone(zone(tz))
        context = (
            f"A scheduled command you set at {created:%Y-%m-%d %H:%M} ({tz}), "
            f"job #{job.id}, run {run.attempt if run.kind != 'run' else job.run_count or 1}"
        )
        late_ms = run.lateness_ms or 0
        request = AgentRequest(
            text=job.command,
            user_id=job.owner_id,
            guild_id=job.guild_id,
            channel_id=job.channel_id,
            parent_channel_id=job.parent_channel_id,
            tz=tz,
            now=self.clock.now(),
            fired_job_id=job.id,
            fired_kind=job.kind,
            fired_context=context,
        )
        result = await self.agent.run(request, self.engine)
        text = result.text.strip()
        if result.error or not text:
            log.warning("job %s: agent failed on a fired command: %s", job.id, result.error)
            text = plain_reminder(job)
        if late_ms > 60_000:
            due = int(run.scheduled_for.timestamp())
            text = f"Sorry, this is late — it was due <t:{due}:R>.\n{text}"
        if f"<@{job.owner_id}>" not in text:
            text = f"<@{job.owner_id}> {text}"
        return Reply(text, mention_user=job.owner_id)


def plain_reminder(job: Job) -> str:
    """What a fired job says when the model cannot: the command itself, in plain words."""
    if job.kind in (JobKind.REMINDER, JobKind.DELAYED, JobKind.SCHEDULED, JobKind.RECURRING):
        return f"⏰ Reminder: {job.command}"
    return f"⏰ Scheduled: {job.command} (job #{job.id})"

