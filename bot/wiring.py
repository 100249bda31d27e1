"""The composition root: what the runtime gets from Discord or from the terminal.

Every object is built once, whole, with what it needs; nothing is set on an object after
it is built. Two cycles are inherent, and each is closed during one constructor:

- The surface (bot or console) needs the runtime, and the runtime's dispatcher delivers
  through the surface: the surface builds its runtime, handing it `discord_surface` or
  `console_surface`, which the runtime calls once during its own construction.
- The engine wakes the dispatcher, which needs the engine: the runtime gives the engine
  the dispatcher's `Alarm` before either exists (see `bot.runtime.Runtime`).

The surface is made as soon as the runtime's storage and clock exist (what its parts
read while being built), so the engine is built with the surface's failure notice. The
web dashboard (`discord_dashboard`) and the health server (`discord_health`, which also
serves the dashboard's routes) are made by the bot's constructor too, when the settings
ask for them; the health server binds its ports when the bot starts (`setup_hook`), since
that needs the running event loop.

`run_discord` and `run_chat` are the two entry points (`homar run`, `homar chat`).
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Callable
from typing import Any, TextIO

import discord
from pydantic_ai.models import Model

from bot.app import HomarBot, ShardedHomarBot, point_at, stop_on_signals
from bot.audience import AudienceGate
from bot.clock import Clock
from bot.components.approvals import decide_elsewhere
from bot.console import Console, ConsoleTransport, chat
from bot.escalation import Escalation
from bot.health import Health
from bot.heartbeat import Heartbeat
from bot.runtime import Runtime, Surface
from bot.settings import Settings, SettingsError
from bot.thread_actions import thread_actions
from bot.transport import DiscordTransport
from bot.web.dashboard import Dashboard
from bot.web.discord_view import BotGuildView
from storage.consents import ConsentStore
from storage.db import Database
from storage.guild_settings import GuildSettingsStore
from tools.approval import Outcome

log = logging.getLogger(__name__)


# ------------------------------------------------------------------ Discord


def discord_surface(bot: HomarBot, runtime: Runtime) -> Surface:
    """What the runtime gets from Discord: markers posted (beats and escalations handled
    in-process), failure notices as DMs, the thread's actions, audiences checked."""
    gate = AudienceGate(bot, ConsentStore(runtime.db), GuildSettingsStore(runtime.db))
    transport = DiscordTransport(
        bot,
        heartbeat=Heartbeat(runtime, bot.post),
        escalation=Escalation(bot, runtime.store, runtime.clock.now),
        gate=gate,
    )
    return Surface(
        transport=transport,
        failure_notice=transport.failure_notice,
        on_delivered=(bot.resumed_delivery,),
        thread_actions=thread_actions(bot),  # post/read/poll for the agent
        audience=gate,
    )


def discord_dashboard(bot: HomarBot) -> Dashboard:
    """The web dashboard over this bot: its guild view, and Discord's approval path."""

    async def decide(approval_id: int, user_id: int, approved: bool) -> Outcome:
        return await decide_elsewhere(bot, approval_id, user_id, approved)

    return Dashboard(bot.runtime, BotGuildView(bot), decide)


def discord_health(bot: HomarBot) -> Health | None:
    """The health server when HEALTH_PORT (or the dashboard's WEB_PORT) asks for one; it
    serves the dashboard too, on WEB_PORT when that differs."""
    settings = bot.runtime.settings
    web_port = settings.web_port if settings.web_base_url else None
    port = settings.health_port or web_port
    if port is None:
        return None
    return Health(
        bot.runtime,
        lambda: bot.is_ready() and not bot.is_closed(),
        port,
        also=(web_port,) if web_port not in (None, port) else (),
        mounts=(bot.dashboard.install,) if bot.dashboard is not None else (),
    )


def discord_bot(
    settings: Settings,
    *,
    clock: Clock | None = None,
    offline: Model | None = None,
    **options: Any,
) -> HomarBot:
    """A plain bot, or a sharded one when SHARD_COUNT / SHARD_IDS are set. `offline`: the
    fallback model, when not the built-in one (see `bot.runtime.Runtime`)."""
    parts: dict[str, Any] = {
        "dashboard": discord_dashboard,
        "health": discord_health,
        "clock": clock,
        "offline": offline,
    }
    if settings.shard_count is None and not settings.shard_ids:
        return HomarBot(settings, discord_surface, **parts, **options)
    if settings.shard_ids and settings.shard_count is None:
        raise SettingsError("Setting SHARD_IDS needs SHARD_COUNT too (the total number of shards).")
    count = settings.shard_count or 1
    if any(i >= count for i in settings.shard_ids):
        last = count - 1
        raise SettingsError(f"Setting SHARD_IDS is invalid: shard numbers run from 0 to {last}.")
    shards = settings.shard_ids or None
    return ShardedHomarBot(
        settings, discord_surface, **parts, shard_count=count, shard_ids=shards, **options
    )


async def run_discord(settings: Settings) -> int:
    point_at(settings)
    # A database that can't be used stops the start before anything of Discord is made
    # (the bot opens its own when it connects; migrating twice is a no-op).
    checked = Database(settings.database_url)
    try:
        await checked.upgrade()
    finally:
        await checked.close()
    bot = discord_bot(settings)
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


# ------------------------------------------------------------------ the terminal


def console_surface(console: Console, runtime: Runtime) -> Surface:
    """What the runtime gets from the terminal: markers printed and re-fed, notices said."""
    heartbeat = Heartbeat(runtime, console.post)
    return Surface(
        transport=ConsoleTransport(console, heartbeat), failure_notice=console.failure_notice
    )


def console(
    settings: Settings,
    out: TextIO | None = None,
    *,
    clock: Clock | None = None,
    styled: bool = False,
    interactive: bool = False,
    write: Callable[[str], None] | None = None,
) -> Console:
    return Console(
        settings,
        console_surface,
        out,
        clock=clock,
        styled=styled,
        interactive=interactive,
        write=write,
    )


async def run_chat(
    settings: Settings,
    stdin: TextIO = sys.stdin,
    out: TextIO | None = None,
    *,
    wait: float | None = None,
    interactive: bool | None = None,
) -> int:
    tty = stdin.isatty() and sys.stdout.isatty() if interactive is None else interactive
    # NO_COLOR (no-color.org) keeps replies plain even on a terminal.
    styled = tty and "NO_COLOR" not in os.environ
    built = console(settings, out, styled=styled, interactive=tty)
    return await chat(built, stdin, wait=wait, tty=tty)
