"""`homar chat`: the same agent, engine and database in a terminal, as one local thread."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import sys
from collections.abc import Coroutine
from datetime import timedelta
from typing import Any, TextIO

from bot.dispatcher import Delivered, Delivery
from bot.escalation import escalation_message
from bot.heartbeat import Heartbeat
from bot.runtime import Reply, Runtime, Speaker
from bot.settings import Settings
from storage.models import JobKind
from tools.followups import ESCALATE_RUN

# The console is one thread owned by one local user; ids far from Discord snowflakes.
CONSOLE_CHANNEL = 1
CONSOLE_USER = 1
LINGER = timedelta(seconds=10)


class ConsoleTransport:
    """Prints the marker line and re-feeds it, as Discord's echo would."""

    def __init__(self, console: Console) -> None:
        self.console = console

    async def deliver(self, delivery: Delivery) -> Delivered:
        if delivery.kind == JobKind.HEARTBEAT:  # handled in-process, never printed as a marker
            return await self.console.heartbeat.beat(delivery)
        if delivery.run_kind == ESCALATE_RUN:  # the DM of a Discord surface; never re-fed
            self.console.say("homar (DM)> " + escalation_message(delivery, "this chat"))
            runtime = self.console.runtime
            await runtime.store.mark_executed(delivery.nonce, runtime.clock.now())
            return Delivered(message_id=None, channel_id=delivery.channel_id, route="console")
        self.console.say(delivery.text)
        asyncio.get_running_loop().call_soon(self.console.refeed, delivery.nonce)
        return Delivered(message_id=None, channel_id=delivery.channel_id, route="console")


class Console:
    def __init__(self, runtime: Runtime, out: TextIO = sys.stdout) -> None:
        self.runtime = runtime
        self.out = out
        self.who = Speaker(user_id=CONSOLE_USER, channel_id=CONSOLE_CHANNEL, user_name="you")
        self.heartbeat = Heartbeat(runtime, self.post)

    def say(self, text: str) -> None:
        self.out.write(text.rstrip() + "\n")
        self.out.flush()

    def show(self, reply: Reply) -> None:
        self.say("homar> " + reply.text.replace(f"<@{CONSOLE_USER}>", "@you").strip())

    async def post(
        self,
        channel_id: int,
        guild_id: int | None,
        reply: Reply,
        *,
        fallback_user: int | None = None,
    ) -> None:
        self.show(reply)

    def refeed(self, nonce: str) -> None:
        async def work() -> None:
            run = await self.runtime.store.mark_executed(nonce, self.runtime.clock.now())
            if run is None:
                return
            job = await self.runtime.store.get(run.job_id)
            if job is not None:
                self.show(await self.spin(self.runtime.fired(run, job)))

        self.runtime.queues.submit(CONSOLE_CHANNEL, work)

    def ask(self, text: str) -> None:
        async def work() -> None:
            self.show(await self.spin(self.runtime.converse(self.who, text)))

        self.runtime.queues.submit(CONSOLE_CHANNEL, work)

    async def spin(self, job: Coroutine[Any, Any, Reply]) -> Reply:
        task = asyncio.ensure_future(job)
        if not sys.stderr.isatty():
            return await task
        for frame in itertools.cycle("⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"):
            done, _ = await asyncio.wait({task}, timeout=0.1)
            if done:
                break
            sys.stderr.write(f"\r{frame} thinking…")
            sys.stderr.flush()
        sys.stderr.write("\r" + " " * 14 + "\r")
        return await task

    async def due_soon(self) -> bool:
        nxt = await self.runtime.store.earliest_due()
        return nxt is not None and nxt - self.runtime.clock.now() <= LINGER


async def _lines(stream: TextIO) -> asyncio.Queue[str | None]:
    queue: asyncio.Queue[str | None] = asyncio.Queue()
    loop = asyncio.get_running_loop()

    def pump() -> None:
        for line in stream:
            loop.call_soon_threadsafe(queue.put_nowait, line)
        loop.call_soon_threadsafe(queue.put_nowait, None)

    loop.run_in_executor(None, pump)
    return queue


async def run_chat(settings: Settings, stdin: TextIO = sys.stdin, out: TextIO = sys.stdout) -> int:
    runtime = Runtime(settings)
    console = Console(runtime, out)
    runtime.attach(ConsoleTransport(console))
    await runtime.open()
    await runtime.start()
    interactive = stdin.isatty()
    if interactive:
        console.say("Homar chat — try “remind me in 10 seconds to stretch”. Ctrl-D to quit.")
    lines = await _lines(stdin)
    try:
        while True:
            if interactive:
                out.write("you> ")
                out.flush()
            line = await lines.get()
            if line is None:
                break
            if line.strip():
                console.ask(line.strip())
                await runtime.queues.join()
        # Stdin is closed: stay while something is due within LINGER, then exit;
        # later jobs stay scheduled for the next start.
        while True:
            await runtime.queues.join()
            if runtime.dispatcher is not None:
                await runtime.dispatcher.idle()
            delivering = runtime.dispatcher is not None and runtime.dispatcher.busy
            if (
                not delivering
                and not await console.due_soon()
                and runtime.queues.is_idle(CONSOLE_CHANNEL)
            ):
                break
            await asyncio.sleep(0.2)
        await runtime.queues.join()
    finally:
        with contextlib.suppress(Exception):
            await runtime.close()
    return 0
