"""The Discord bot: threads where the agent lives, and the `[DELAYED_COMMAND]` marker loop."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import signal
from collections.abc import AsyncIterator, Callable
from dataclasses import replace
from datetime import timedelta
from typing import Any

import aiohttp
import discord
import yarl
from discord.ext import commands
from pydantic_ai.models import Model

from bot import access
from bot.audience import AudienceGate
from bot.channels import direct_messages, messageable
from bot.clock import Clock
from bot.components import install as install_components
from bot.components.approvals import post_approval, sweep_forever
from bot.components.reminders import reminder_view
from bot.dispatcher import Delivered, Delivery
from bot.health import Health
from bot.mentions import NO_MENTIONS, allowed_mentions, readdress
from bot.runtime import Posting, Reply, Runtime, Speaker, Surface
from bot.settings import Settings
from bot.slash import setup as slash
from bot.transport import DiscordTransport, retryable
from bot.web.dashboard import Dashboard
from storage.jobs import Job
from storage.models import JobKind
from tools.audience import Addressing, Audience
from tools.jobs.marker import MARKER
from tools.message_size import MAX_MESSAGE
from tools.message_size import split as split_message

log = logging.getLogger(__name__)

__all__ = ["MAX_MESSAGE", "HomarBot", "split_message"]

# A fired run's answer is re-posted (same nonce) after these pauses when Discord answers
# 5xx or 429 or cannot be reached; after the last, the run waits for its lease to run out.
REPLY_RETRY_DELAYS = (0.2, 1.0, 3.0)
# A fired run's answer shows "typing…" once it has taken this long (seconds).
TYPING_AFTER = 1.0


def point_at(settings: Settings) -> None:
    """Use the configured REST and gateway endpoints (real Discord, a proxy, or a test fake)."""
    discord.http.Route.BASE = settings.discord_api_base.rstrip("/")
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(settings.discord_gateway_url)


def thread_name(text: str) -> str:
    clean = re.sub(r"<@!?&?\d+>", "", text)
    clean = re.sub(r"\s+", " ", clean).strip() or "Homar"
    return clean[:97] + "…" if len(clean) > 100 else clean


class HomarBot(commands.Bot):
    """A discord.py bot hosting Homar's agent in threads and DMs."""

    def __init__(
        self,
        settings: Settings,
        surface: Callable[[HomarBot, Runtime], Surface],
        *,
        dashboard: Callable[[HomarBot], Dashboard] | None = None,
        health: Callable[[HomarBot], Health | None] | None = None,
        clock: Clock | None = None,
        offline: Model | None = None,
        **kwargs: Any,
    ) -> None:
        """Built by `bot.wiring.discord_bot`, which says what the runtime gets from Discord,
        how the web dashboard is made (when WEB_BASE_URL asks for one) and the health
        server (when a port is configured; it serves the dashboard too). `offline`: the
        runtime's fallback model (see `Runtime`)."""
        intents = discord.Intents.default()
        intents.message_content = True
        intents.guild_messages = True
        intents.dm_messages = True
        intents.members = False
        super().__init__(
            command_prefix=commands.when_mentioned,
            intents=intents,
            allowed_mentions=NO_MENTIONS,  # nobody is pinged unless a message says so
            help_command=None,
            **kwargs,
        )
        self._threads: set[int] = set()
        self.runtime = Runtime(
            settings, lambda runtime: surface(self, runtime), clock=clock, offline=offline
        )
        self.dashboard = dashboard(self) if dashboard and settings.web_base_url else None
        self.health = health(self) if health else None

    @property
    def transport(self) -> DiscordTransport:
        transport = self.runtime.surface.transport
        assert isinstance(transport, DiscordTransport)
        return transport

    @property
    def audience_gate(self) -> AudienceGate:
        gate = self.runtime.surface.audience
        assert isinstance(gate, AudienceGate)
        return gate

    async def setup_hook(self) -> None:
        await self.runtime.open()
        install_components(self)
        self._sweep = asyncio.create_task(sweep_forever(self, asyncio.Event()))
        slash.install(self)
        settings = self.runtime.settings
        if not settings.shard_ids or 0 in settings.shard_ids:  # one process syncs, not each shard
            await slash.sync(self, settings.dev_guild_id)
        if self.health is not None:
            await self.health.start()

    async def on_ready(self) -> None:
        # Fire jobs only once connected: a marker posted before the gateway is up would
        # never echo back to be re-fed.
        if getattr(self, "_orphans", None) is None:
            await self.runtime.start()
            self._orphans = asyncio.create_task(self._refeed_orphans())

    async def shutdown(self, grace: float) -> None:
        """Stop gracefully: report not ready, claim nothing more, let deliveries and agent
        runs under way finish (up to `grace` seconds), hand back unstarted claims, close."""
        if self.health is not None:
            self.health.stopping = True
        try:
            await self.runtime.drain(grace)
        except Exception:  # a failed drain must still end in a closed bot
            log.exception("graceful stop failed; closing now")
        await self.close()

    async def close(self) -> None:
        for name in ("_sweep", "_orphans"):
            task = getattr(self, name, None)
            if task is not None:
                task.cancel()
        if self.health is not None:
            await self.health.stop()
        await self.runtime.close()
        await super().close()

    # ------------------------------------------------------------ messages

    async def on_message(self, message: discord.Message) -> None:
        if self.user is None:
            return
        if message.author.id == self.user.id:
            if message.content.startswith(MARKER):
                await self._on_marker(message)
            return
        if message.author.bot or message.webhook_id is not None:
            return
        channel = message.channel
        guild_id = message.guild.id if message.guild is not None else None
        if not access.guild_allowed(self.runtime.settings, guild_id):
            return
        mentioned = self.user in message.mentions
        text = re.sub(rf"<@!?{self.user.id}>", "", message.content).strip()
        if isinstance(channel, discord.DMChannel):
            self._converse(message, channel.id, None, None, text)
        elif isinstance(channel, discord.Thread):
            if (
                mentioned
                or channel.owner_id == self.user.id
                or channel.id in self._threads
                or await self.runtime.conversations.exists(channel.id)
            ):
                self._threads.add(channel.id)
                self._converse(message, channel.id, channel.guild.id, channel.parent_id, text)
        elif mentioned and isinstance(channel, discord.TextChannel):
            try:
                thread = await message.create_thread(name=thread_name(text))
            except discord.HTTPException as exc:
                log.warning("could not start a thread in %s: %s", channel.id, exc)
                self._converse(message, channel.id, channel.guild.id, None, text)
                return
            self._threads.add(thread.id)
            self._converse(message, thread.id, channel.guild.id, channel.id, text)

    def _converse(
        self,
        message: discord.Message,
        channel_id: int,
        guild_id: int | None,
        parent_id: int | None,
        text: str,
    ) -> None:
        roles = [r.id for r in getattr(message.author, "roles", [])]
        if not access.roles_allowed(self.runtime.settings, guild_id, roles):
            denied = Reply(access.NO_ROLE)
            self.runtime.queues.submit(channel_id, lambda: self.post(channel_id, guild_id, denied))
            return
        who = Speaker(
            user_id=message.author.id,
            channel_id=channel_id,
            guild_id=guild_id,
            parent_channel_id=parent_id,
            user_name=message.author.display_name,
        )
        if not text:
            text = "hello"

        async def work() -> None:
            channel = self.get_partial_messageable(channel_id, guild_id=guild_id)
            async with channel.typing():
                reply = await self.runtime.converse(who, text, message_id=message.id)
            await self.post(channel_id, guild_id, reply)

        self.runtime.queues.submit(channel_id, work)

    async def _on_marker(self, message: discord.Message) -> None:
        """Our own marker: re-feed it to the agent if it is an undelivered run's."""
        nonce = str(message.nonce) if message.nonce is not None else None
        if nonce is None:
            log.info("marker message %s without a nonce ignored", message.id)
            return
        await self.refeed(nonce)

    async def refeed(self, nonce: str) -> bool:
        """Answer a delivered run (the marker's echo, a resumed delivery or the orphan sweep)
        through the runtime's one re-feed path, in its audience, typing meanwhile."""
        return await self.runtime.refeed(nonce, self._post_answer, typing=self._typing)

    async def _post_answer(self, job: Job, reply: Reply, reply_nonce: str) -> Posting:
        # The audience is checked again at each posting (a re-post after a crash too).
        where, guild_id, addressed = await self._addressed(job, reply)
        return await self.post(
            where, guild_id, addressed, fallback_user=job.owner_id, nonce=reply_nonce
        )

    @contextlib.asynccontextmanager
    async def _typing(self, job: Job) -> AsyncIterator[None]:
        """ "typing…" beside a fired run's answer once it takes a while, never before it:
        a nicety must not add a Discord round trip to every answer, nor a request to one
        that is ready at once (the offline model's is, in milliseconds)."""
        channel = self.get_partial_messageable(job.channel_id, guild_id=job.guild_id)

        async def show() -> None:
            await asyncio.sleep(TYPING_AFTER)
            with contextlib.suppress(discord.HTTPException):  # typing is a nicety only
                async with channel.typing():
                    await asyncio.Event().wait()  # until the answer is done

        typing = asyncio.create_task(show(), name="homar-typing")
        try:
            yield
        finally:
            typing.cancel()

    async def _addressed(self, job: Job, reply: Reply) -> tuple[int, int | None, Reply]:
        """Where a fired job's reply goes and who it pings: its audience, checked again now.

        If the owner may no longer address it, the reply stays in the job's thread, pings
        only the owner and says why."""
        audience = Audience.from_json(job.audience)
        if audience.is_default:
            return job.channel_id, job.guild_id, reply
        where = Addressing(job.owner_id, job.guild_id, job.channel_id)
        try:
            target, problem = await self.audience_gate.route(audience, where)
        except discord.HTTPException as exc:
            target, problem = job.channel_id, f"I couldn't open the way there ({exc.status})."
        if problem is not None:
            note = (
                f"\n⚠️ I didn't deliver this to {audience.describe()}: {problem} "
                "Nobody else was pinged."
            )
            return job.channel_id, job.guild_id, replace(reply, text=reply.text + note)
        guild_id = None if audience.dm else job.guild_id
        text = readdress(reply.text, job.owner_id, audience)
        return target, guild_id, replace(reply, text=text, audience=audience, job_id=job.id)

    async def resumed_delivery(self, delivery: Delivery, delivered: Delivered) -> None:
        """A delivery resumed after a crash may have been answered by Discord with the
        earlier marker (same nonce), which sends no new echo: answer the run from here."""
        if delivery.run.attempt > 1 and delivery.job.kind != JobKind.HEARTBEAT:
            await self.refeed(delivery.run.nonce)

    async def _refeed_orphans(self) -> None:
        """Answer runs delivered but never answered: their echo was lost (a crash, a gateway
        session that could not resume), or the process answering them died. At start, then
        every minute for runs older than 30 s; `refeed` takes a run atomically, so a late
        echo cannot answer it twice."""
        clock = self.runtime.clock
        store = self.runtime.store
        settled = timedelta(0)  # at start, anything a crashed run left behind
        try:
            if not self.runtime.db.is_postgres:
                # SQLite means one process: a run still held was held by our crashed self.
                await store.release_reply_leases()
        except Exception:
            log.exception("could not release the answers a crash left held")
        while True:
            try:
                for nonce in await store.unreplied_nonces(clock.now(), settled=settled):
                    await self.refeed(nonce)
            except Exception:
                log.exception("re-feeding delivered runs failed; trying again in a minute")
            settled = timedelta(seconds=30)  # later, echoes still in flight are left alone
            await clock.sleep_until(clock.now() + timedelta(minutes=1), asyncio.Event())

    async def post(
        self,
        channel_id: int,
        guild_id: int | None,
        reply: Reply,
        *,
        fallback_user: int | None = None,
        nonce: str | None = None,
    ) -> Posting:
        """Post a reply (split to fit), falling back to `fallback_user`'s DM; say how it went.

        With a `nonce` (a fired run's answer) each part carries its own stable nonce and
        is re-sent with it when Discord fails transiently, so a repeat is de-duplicated.
        """
        mentions = allowed_mentions(reply.audience, reply.mention_user)
        text = reply.text_at(self.runtime.clock.now())
        if reply.approval is not None:
            await post_approval(self, channel_id, guild_id, reply.approval, text, nonce=nonce)
            return Posting(done=True)
        target = messageable(self, channel_id, guild_id)
        parts = split_message(text)
        for i, part in enumerate(parts):
            # A fired reminder's last part carries its Done/Snooze buttons.
            extra: dict[str, Any] = {}
            if i == len(parts) - 1:
                broadcast = reply.audience is not None and reply.audience.broadcast
                view = reminder_view(reply.reminder, join_job=reply.job_id if broadcast else None)
                if view is not None:
                    extra["view"] = view
            part_nonce = None if nonce is None else nonce if i == 0 else f"{nonce}.{i}"
            try:
                await self._send(target, part, mentions, part_nonce, extra)
            except _StillFailing:
                return Posting(done=False)
            except discord.HTTPException as exc:
                log.warning("could not post in %s: %s", channel_id, exc)
                if fallback_user is None:
                    return Posting(done=True, failure=f"could not post in the thread: {exc}")
                try:
                    dm = await direct_messages(self, fallback_user)
                    await self._send(dm, part, mentions, part_nonce, extra)
                except _StillFailing:
                    return Posting(done=False)
                except discord.HTTPException as again:
                    log.warning("could not reach user %s either: %s", fallback_user, again)
                    return Posting(
                        done=True,
                        failure=f"could not post in the thread ({exc}) nor DM the owner ({again})",
                    )
        return Posting(done=True)

    async def _send(
        self,
        target: Any,
        content: str,
        mentions: discord.AllowedMentions,
        nonce: str | None,
        extra: dict[str, Any],
    ) -> None:
        """One message; with a nonce, re-sent (same nonce) while Discord fails transiently."""
        if nonce is None:
            await target.send(content, allowed_mentions=mentions, **extra)
            return
        for delay in (*REPLY_RETRY_DELAYS, None):
            try:
                await target.send(content, allowed_mentions=mentions, nonce=nonce, **extra)
                return
            except discord.HTTPException as exc:
                if not retryable(exc):
                    raise
                problem: Exception = exc
            except (TimeoutError, OSError, aiohttp.ClientError) as exc:
                problem = exc
            if delay is None:
                log.warning(
                    "Discord keeps failing; answer %s waits for a retry: %s", nonce, problem
                )
                raise _StillFailing(str(problem)) from problem
            await asyncio.sleep(delay)


class _StillFailing(Exception):
    """Discord could not take a message even after the retries: try again later."""


class ShardedHomarBot(HomarBot, commands.AutoShardedBot):
    """Homar on discord.py's sharded client: this process runs SHARD_IDS of SHARD_COUNT."""


def stop_on_signals(bot: HomarBot, grace: float) -> None:
    """SIGTERM or Ctrl-C: a graceful stop (`HomarBot.shutdown`); a second one: at once."""
    loop = asyncio.get_running_loop()
    stopping: list[asyncio.Task[None]] = []

    def on_signal(sig: signal.Signals) -> None:
        if stopping:
            log.warning("%s again: stopping now", sig.name)
            stopping.append(asyncio.create_task(bot.close()))
            return
        log.info("%s: finishing what is under way (up to %.0f s), then stopping", sig.name, grace)
        stopping.append(asyncio.create_task(bot.shutdown(grace)))

    for sig in (signal.SIGTERM, signal.SIGINT):
        with contextlib.suppress(NotImplementedError, RuntimeError):  # not on this platform
            loop.add_signal_handler(sig, on_signal, sig)
