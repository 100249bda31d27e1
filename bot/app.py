"""The Discord bot: threads where the agent lives, and the `[DELAYED_COMMAND]` marker loop."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import signal
from dataclasses import replace
from datetime import timedelta
from typing import Any

import aiohttp
import discord
import yarl
from discord.ext import commands

from bot import access
from bot.approvals import DecisionButton, decide_elsewhere, post_approval, sweep_forever
from bot.audience import AudienceGate
from bot.dispatcher import MARKER, Delivered, Delivery
from bot.escalation import Escalation
from bot.health import Health
from bot.heartbeat import Heartbeat
from bot.joining import install_join_buttons, join_buttons
from bot.mentions import allowed_mentions, readdress
from bot.reminders import install_reminder_buttons, reminder_view
from bot.runtime import Posting, Reply, Runtime, Speaker
from bot.settings import Settings, SettingsError
from bot.slash import setup as slash
from bot.thread_actions import thread_actions
from bot.transport import DiscordTransport, retryable
from bot.web.dashboard import Dashboard
from bot.web.discord_view import BotGuildView
from storage.consents import ConsentStore
from storage.guild_settings import GuildSettingsStore
from storage.models import Job, JobKind
from tools.approval import Outcome
from tools.audience import Addressing, Audience
from tools.message_size import MAX_MESSAGE
from tools.message_size import split as split_message

log = logging.getLogger(__name__)

__all__ = ["MAX_MESSAGE", "HomarBot", "split_message"]

# A fired run's answer is re-posted (same nonce) after these pauses when Discord answers
# 5xx or 429 or cannot be reached; after the last, the run waits for its lease to run out.
REPLY_RETRY_DELAYS = (0.2, 1.0, 3.0)

# Nobody is pinged unless a message names them explicitly (the job owner, at most).
SAFE_MENTIONS = discord.AllowedMentions(
    everyone=False, roles=False, users=False, replied_user=False
)


def point_at(settings: Settings) -> None:
    """Use the configured REST and gateway endpoints (real Discord, a proxy, or a test fake)."""
    discord.http.Route.BASE = settings.discord_api_base.rstrip("/")
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(settings.discord_gateway_url)


def thread_name(text: str) -> str:
    clean = re.sub(r"<@!?&?\d+>", "", text)
    clean = re.sub(r"\s+", " ", clean).strip() or "Homar"
    return clean[:97] + "…" if len(clean) > 100 else clean


def dashboard_for(bot: HomarBot) -> Dashboard:
    """The web dashboard over this bot: its guild view, and Discord's approval path."""

    async def decide(approval_id: int, user_id: int, approved: bool) -> Outcome:
        return await decide_elsewhere(bot, approval_id, user_id, approved)

    return Dashboard(bot.runtime, BotGuildView(bot), decide)


class HomarBot(commands.Bot):
    """A discord.py bot hosting Homar's agent in threads and DMs."""

    def __init__(self, runtime: Runtime, **kwargs: Any) -> None:
        intents = discord.Intents.default()
        intents.message_content = True
        intents.guild_messages = True
        intents.dm_messages = True
        intents.members = False
        super().__init__(
            command_prefix=commands.when_mentioned,
            intents=intents,
            allowed_mentions=SAFE_MENTIONS,
            help_command=None,
            **kwargs,
        )
        self.runtime = runtime
        self.transport = DiscordTransport(self)
        self.runtime.attach(self.transport).hooks.append(self._resumed_delivery)
        self.transport.heartbeat = Heartbeat(runtime, self.post)
        self.transport.escalation = Escalation(self, runtime.store, runtime.clock.now)
        runtime.engine.failure_notices.append(self.transport.failure_notice)
        self.runtime.thread_actions = thread_actions(self)  # post/read/poll for the agent
        self.audience_gate = AudienceGate(
            self, ConsentStore(runtime.db), GuildSettingsStore(runtime.db)
        )
        self.transport.gate = self.audience_gate
        self.runtime.audience_resolver = self.audience_gate
        self._threads: set[int] = set()

    async def setup_hook(self) -> None:
        await self.runtime.open()
        self.add_dynamic_items(DecisionButton)
        install_reminder_buttons(self)
        install_join_buttons(self)
        self._sweep = asyncio.create_task(sweep_forever(self, asyncio.Event()))
        slash.install(self)
        settings = self.runtime.settings
        if not settings.shard_ids or 0 in settings.shard_ids:  # one process syncs, not each shard
            await slash.sync(self, settings.dev_guild_id)

        port = settings.health_port or (settings.web_port if settings.web_base_url else None)
        if port is not None:
            self.health = Health(self.runtime, lambda: self.is_ready() and not self.is_closed())
            if settings.web_base_url:
                self.health.mount(dashboard_for(self).install)
            web_port = settings.web_port if settings.web_base_url else None
            await self.health.start(port, also=(web_port,) if web_port not in (None, port) else ())

    async def on_ready(self) -> None:
        # Fire jobs only once connected: a marker posted before the gateway is up would
        # never echo back to be re-fed.
        if getattr(self, "_orphans", None) is None:
            await self.runtime.start()
            self._orphans = asyncio.create_task(self._refeed_orphans())

    async def shutdown(self, grace: float) -> None:
        """Stop gracefully: report not ready, claim nothing more, let deliveries and agent
        runs under way finish (up to `grace` seconds), hand back unstarted claims, close."""
        health = getattr(self, "health", None)
        if health is not None:
            health.stopping = True
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
        health = getattr(self, "health", None)
        if health is not None:
            await health.stop()
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
        """Answer a delivered run: the marker's echo, a resumed delivery or the orphan sweep.

        Taking the run is a compare-and-set in the database, so whichever of those comes
        first answers it and the others do nothing; a taker that dies is replaced when its
        lease runs out. The run is done only once its answer is posted (see `Runtime.answer`).
        """
        runtime = self.runtime
        taken = await runtime.take_run(nonce)
        if taken is None:
            return False  # someone else's text, answered already, or being answered
        run, job = taken

        async def post(job: Any, reply: Reply, reply_nonce: str) -> Posting:
            # The audience is checked again at each posting (a re-post after a crash too).
            where, guild_id, addressed = await self._addressed(job, reply)
            return await self.post_reply(
                where, guild_id, addressed, fallback_user=job.owner_id, nonce=reply_nonce
            )

        async def work() -> None:
            channel = self.get_partial_messageable(job.channel_id, guild_id=job.guild_id)
            async with contextlib.AsyncExitStack() as typing:
                with contextlib.suppress(discord.HTTPException):  # typing is a nicety only
                    await typing.enter_async_context(channel.typing())
                await runtime.answer(run, job, post)

        runtime.queues.submit(job.channel_id, work)
        return True

    async def _addressed(self, job: Job, reply: Reply) -> tuple[int, int | None, Reply]:
        """Where a fired job's reply goes and who it pings: its audience, checked again now.

        If the owner may no longer address it, the reply stays in the job's thread, pings
        only the owner and says why."""
        audience = Audience.from_json(job.audience)
        if audience.is_default:
            return job.channel_id, job.guild_id, reply
        where = Addressing(job.owner_id, job.guild_id, job.channel_id)
        problem = await self.audience_gate.problem(audience, where)
        target = job.channel_id
        if problem is None:
            try:
                target = await self.audience_gate.destination(audience, where)
            except discord.HTTPException as exc:
                problem = f"I couldn't open the way there ({exc.status})."
        if problem is not None:
            note = (
                f"\n⚠️ I didn't deliver this to {audience.describe()}: {problem} "
                "Nobody else was pinged."
            )
            return job.channel_id, job.guild_id, replace(reply, text=reply.text + note)
        guild_id = None if audience.dm else job.guild_id
        text = readdress(reply.text, job.owner_id, audience)
        return target, guild_id, replace(reply, text=text, audience=audience, job_id=job.id)

    async def _resumed_delivery(self, delivery: Delivery, delivered: Delivered) -> None:
        """A delivery resumed after a crash may have been answered by Discord with the
        earlier marker (same nonce), which sends no new echo: answer the run from here."""
        if delivery.attempt > 1 and delivery.kind != JobKind.HEARTBEAT:
            await self.refeed(delivery.nonce)

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
    ) -> None:
        """Post a reply (split to fit), falling back to `fallback_user`'s DM."""
        await self.post_reply(channel_id, guild_id, reply, fallback_user=fallback_user)

    async def post_reply(
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
        mentions = SAFE_MENTIONS
        if reply.audience is not None:
            mentions = allowed_mentions(reply.audience, reply.mention_user)
        elif reply.mention_user is not None:
            mentions = allowed_mentions(None, reply.mention_user)
        text = reply.text_at(self.runtime.clock.now())
        if reply.approval is not None:
            await post_approval(self, channel_id, guild_id, reply.approval, text, nonce=nonce)
            return Posting(done=True)
        channel = self.get_channel(channel_id)
        target: Any = channel or self.get_partial_messageable(channel_id, guild_id=guild_id)
        parts = split_message(text)
        for i, part in enumerate(parts):
            # A fired reminder's last part carries its Done/Snooze buttons.
            extra: dict[str, Any] = {}
            if i == len(parts) - 1:
                view = reminder_view(*reply.reminder) if reply.reminder is not None else None
                if reply.audience is not None and reply.audience.broadcast and reply.job_id:
                    view = join_buttons(reply.job_id, view)
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
                    user = self.get_user(fallback_user) or await self.fetch_user(fallback_user)
                    dm = user.dm_channel or await user.create_dm()
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


def make_bot(runtime: Runtime, **kwargs: Any) -> HomarBot:
    """A plain bot, or a sharded one when SHARD_COUNT / SHARD_IDS are set."""
    settings = runtime.settings
    if settings.shard_count is None and not settings.shard_ids:
        return HomarBot(runtime, **kwargs)
    if settings.shard_ids and settings.shard_count is None:
        raise SettingsError("Setting SHARD_IDS needs SHARD_COUNT too (the total number of shards).")
    count = settings.shard_count or 1
    if any(i >= count for i in settings.shard_ids):
        last = count - 1
        raise SettingsError(f"Setting SHARD_IDS is invalid: shard numbers run from 0 to {last}.")
    shards = settings.shard_ids or None
    return ShardedHomarBot(runtime, shard_count=count, shard_ids=shards, **kwargs)


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


async def run_discord(settings: Settings) -> int:
    point_at(settings)
    runtime = Runtime(settings)
    try:
        await runtime.open()  # a database that can't be used stops the start, before Discord
    except BaseException:
        await runtime.db.close()
        raise
    bot = make_bot(runtime)
    assert settings.token is not None
    stop_on_signals(bot, settings.shutdown_grace.total_seconds())
    try:
        await bot.start(settings.token)
    except discord.LoginFailure:
        log.error("Discord rejected DISCORD_TOKEN; reset it in the developer portal.")
        return 2
    except discord.PrivilegedIntentsRequired:
        log.error(
            "Enable the Message Content intent for the bot in the developer portal "
            "(Bot → Privileged Gateway Intents)."
        )
        return 2
    finally:
        if not bot.is_closed():
            await bot.close()
    return 0
