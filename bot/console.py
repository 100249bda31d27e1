"""`homar chat`: the same agent, engine and database in a terminal, as one local thread.

Interactive (a TTY): prompt_toolkit line editing and history; output from fired jobs is
printed above the prompt; Ctrl-C cancels the line being typed or the running request,
Ctrl-D quits. Piped: every line is read and answered in turn, then chat waits for the jobs
this input created (up to `wait` seconds) and says what is still scheduled when it exits.

Buttons become typed choices: an approval offers `[a]pprove / [d]eny`, a delivered
reminder `[d]one / [s]nooze 10m|1h|tomorrow|<time>`; they run the buttons' own code
(`bot.choices`). Lines starting with `/` run the slash commands (`bot.typed_commands`).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import re
import signal
import sys
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, replace
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from bot import choices
from bot.clock import Clock
from bot.commands import Answer, Caller, zone_for
from bot.commands.cards import next_words, short
from bot.dispatcher import Delivered, Delivery
from bot.escalation import escalation_message
from bot.fired_routes import FiredRoutes
from bot.heartbeat import Heartbeat
from bot.runtime import Posting, Reply, Runtime, Speaker, Surface
from bot.settings import Settings
from bot.terminal import DIM, RESET, TerminalRenderer
from bot.typed_commands import run_typed
from storage.jobs import Job
from storage.models import JobStatus
from tools.errors import UserError
from tools.jobs.model import Actor, Target
from tools.schedule import zone

if TYPE_CHECKING:
    from prompt_toolkit.history import History

log = logging.getLogger(__name__)

# The console is one thread owned by one local user; ids far from Discord snowflakes.
CONSOLE_CHANNEL = 1
CONSOLE_USER = 1
SWEEP_EVERY = timedelta(minutes=1)
MAX_WAIT = 60.0  # piped chat waits at most this long for the jobs its input created
SORRY = "Something went wrong on my side; please try again in a moment."

APPROVAL_CHOICES = "[a]pprove / [d]eny"
REMINDER_CHOICES = "[d]one / [s]nooze 10m|1h|tomorrow|<time>"
_APPROVE = {"a", "approve", "approved", "yes", "y", "ok", "okay"}
_DENY = {"deny", "denied", "no", "n"}
_DONE = {"done", "did it"}
_SNOOZE = re.compile(r"(?:s|snooze)(?:\s+(?:for\s+|until\s+|to\s+)?(?P<when>.+))?", re.I)


@dataclass(frozen=True)
class ApprovalOffer:
    approval_id: int


@dataclass(frozen=True)
class ReminderOffer:
    job_id: int
    run_id: int


Offer = ApprovalOffer | ReminderOffer


class ConsoleTransport(FiredRoutes):
    """Prints the marker line and re-feeds it, as Discord's echo would (routes: `FiredRoutes`)."""

    def __init__(self, console: Console, heartbeat: Heartbeat) -> None:
        super().__init__(heartbeat)
        self.console = console

    async def escalate(self, delivery: Delivery) -> Delivered:
        # What Discord sends as a DM is said here, marked done, never re-fed.
        self.console.say("homar (DM)> " + escalation_message(delivery, "this chat"))
        runtime = self.console.runtime
        await runtime.store.mark_executed(delivery.run.nonce, runtime.clock.now())
        return Delivered(message_id=None, channel_id=delivery.job.channel_id, route="console")

    async def post_marker(self, delivery: Delivery) -> Delivered:
        self.console.marker(delivery.text)
        await self.console.refeed(delivery.run.nonce)
        return Delivered(message_id=None, channel_id=delivery.job.channel_id, route="console")


class Console:
    """One person at a terminal: renders replies, offers choices, runs typed commands."""

    def __init__(
        self,
        settings: Settings,
        surface: Callable[[Console, Runtime], Surface],
        out: TextIO | None = None,
        *,
        clock: Clock | None = None,
        styled: bool = False,
        interactive: bool = False,
        write: Callable[[str], None] | None = None,
    ) -> None:
        """Built by `bot.wiring.console`, which says what the runtime gets from the terminal."""
        self._out = out
        self._write = write
        self.styled = styled
        self.interactive = interactive
        self.who = Speaker(user_id=CONSOLE_USER, channel_id=CONSOLE_CHANNEL, user_name="you")
        self.renderer = TerminalRenderer(user_id=CONSOLE_USER, styled=styled)
        self.offers: list[Offer] = []
        self.request: asyncio.Task[Any] | None = None  # the person's running request
        self.spinning = False
        self.runtime = Runtime(settings, lambda runtime: surface(self, runtime), clock=clock)

    # ------------------------------------------------------------------ output

    def say(self, text: str) -> None:
        """Print a line (above the prompt when one is shown)."""
        if self.spinning and sys.__stderr__ is not None:  # wipe the spinner first
            sys.__stderr__.write("\r\x1b[K")
        line = text.rstrip() + "\n"
        if self._write is not None:
            self._write(line)
            return
        out = self._out or sys.stdout  # looked up now: patch_stdout swaps it while prompting
        out.write(line)
        out.flush()

    def marker(self, text: str) -> None:
        self.say(f"{DIM}{text}{RESET}" if self.styled else text)

    async def render(self, text: str) -> str:
        tz = zone(await self.runtime.user_tz(CONSOLE_USER))
        return self.renderer.render(text, now=self.runtime.clock.now(), tz=tz)

    async def show(self, reply: Reply) -> None:
        text = await self.render(reply.text)
        if text:
            self.say("homar> " + text)
        if reply.approval is not None and reply.approval.approval_id:
            self.offer(ApprovalOffer(reply.approval.approval_id), APPROVAL_CHOICES)
        if reply.reminder is not None:
            self.offer(ReminderOffer(*reply.reminder), REMINDER_CHOICES)

    def offer(self, offer: Offer, words: str) -> None:
        self.offers = [o for o in self.offers if o != offer] + [offer]
        self.say(f"       {words}")

    async def show_answer(self, answer: Answer) -> None:
        lines: list[str] = []
        if answer.text:
            lines.append(answer.text)
        card = answer.card
        if card is not None:
            lines.append(f"**{card.title}**")
            if card.description:
                lines.append(card.description)
            for name, value in card.fields:
                joint = "\n" if "\n" in value else " "
                lines.append(f"**{name}:**{joint}{value}")
            if card.footer:
                lines.append(f"_{card.footer}_")
        if answer.cancel_job is not None:
            lines.append(f"(`/jobs cancel {answer.cancel_job}` cancels it.)")
        if answer.zone_move is not None:
            move = answer.zone_move
            lines.append(move.question)
            lines.append(f"(`/timezone move {move.old} {move.new}` moves them.)")
        if answer.page is not None and answer.page.more:
            nxt = answer.page.number + 2
            lines.append(f"(`/jobs list {answer.page.scope} {nxt}` shows the next page.)")
        self.say("homar> " + await self.render("\n".join(lines)))

    async def post(self, channel_id: int, guild_id: int | None, reply: Reply, **_: object) -> None:
        """A heartbeat's reply (`PostReply`): one thread here, so where is not read."""
        await self.show(reply)

    def failure_notice(self, job: Job, error: str) -> None:
        """Engine hook: a repeating job keeps failing (or was paused for it); say so here."""
        what = f"job #{job.id} (“{short(job.command, 80)}”)"
        if job.status == JobStatus.PAUSED:
            text = (
                f"⏸️ I paused your {what} after {job.failure_streak} failed runs in a row. "
                f"Last problem: {error[:300]}. Fix that, then `/jobs resume {job.id}`."
            )
        else:
            text = (
                f"⚠️ Your {what} has failed {job.failure_streak} times in a row. "
                f"Last problem: {error[:300]}. `/jobs history {job.id}` shows each attempt."
            )
        self.say("homar> " + self.renderer.markdown(text))

    # ------------------------------------------------------------------ input

    async def refeed(self, nonce: str) -> None:
        """A marker just printed: answer it through the runtime's one re-feed path."""
        await self.runtime.refeed(nonce, self._post_answer)

    async def _post_answer(self, _job: Job, reply: Reply, _nonce: str) -> Posting:
        await self.show(replace(reply, text=reply.text_at(self.runtime.clock.now())))
        return Posting(done=True)

    def submit(self, line: str) -> asyncio.Future[None]:
        """Queue one typed line behind the thread's other work; resolves when answered."""
        finished: asyncio.Future[None] = asyncio.get_running_loop().create_future()

        async def work() -> None:
            try:
                await self.handle(line)
            finally:
                if not finished.done():
                    finished.set_result(None)

        self.runtime.queues.submit(CONSOLE_CHANNEL, work)
        return finished

    async def handle(self, line: str) -> None:
        """One line the person typed: a command, a choice, or a message for the agent."""
        try:
            if line.startswith("/"):
                await self.show_answer(await run_typed(await self.caller(), line))
            elif not await self.choose(line):
                reply = await self.cancellable(self.runtime.converse(self.who, line))
                if reply is not None:
                    await self.show(reply)
        except UserError as exc:
            self.say("homar> " + await self.render(exc.message))
        except Exception:
            log.exception("chat: could not handle %r", line[:80])
            self.say("homar> " + SORRY)

    async def cancellable(self, job: Coroutine[Any, Any, Reply]) -> Reply | None:
        """Run the person's request so Ctrl-C can cancel it; None when cancelled."""
        task = asyncio.ensure_future(job)
        self.request = task
        try:
            await self.spin(task)
        finally:
            self.request = None
        if task.cancelled():
            self.say("homar> Cancelled — I dropped that request.")
            return None
        return task.result()

    def cancel_request(self) -> bool:
        if self.request is None or self.request.done():
            return False
        self.request.cancel()
        return True

    async def spin(self, task: asyncio.Future[Any]) -> None:
        """Wait for `task`, with a spinner on an interactive terminal."""
        err = sys.__stderr__
        if not self.interactive or err is None or not err.isatty():
            await asyncio.wait({task})
            return
        self.spinning = True
        try:
            for frame in itertools.cycle("⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"):
                done, _ = await asyncio.wait({task}, timeout=0.1)
                if done:
                    break
                err.write(f"\r{frame} thinking… (Ctrl-C cancels)")
                err.flush()
        finally:
            self.spinning = False
            err.write("\r\x1b[K")
            err.flush()

    async def caller(self) -> Caller:
        return Caller(
            self.runtime,
            Actor(CONSOLE_USER),
            Target(CONSOLE_USER, CONSOLE_CHANNEL),
            await zone_for(self.runtime, CONSOLE_USER),
        )

    # ------------------------------------------------------------------ choices

    def _latest(self, kind: type[ApprovalOffer] | type[ReminderOffer]) -> Offer | None:
        return next((o for o in reversed(self.offers) if isinstance(o, kind)), None)

    async def choose(self, line: str) -> bool:
        """A typed choice for an open offer acts as its button; False if it isn't one."""
        if not self.offers:
            return False
        word = line.strip().lower().rstrip(".!")
        latest = self.offers[-1]
        approval = self._latest(ApprovalOffer)
        reminder = self._latest(ReminderOffer)
        if word == "d":  # the newest offer decides what a bare `d` means
            word = "deny" if isinstance(latest, ApprovalOffer) else "done"
        if isinstance(approval, ApprovalOffer) and (word in _APPROVE or word in _DENY):
            await self.decide(approval, approved=word in _APPROVE)
            return True
        if isinstance(reminder, ReminderOffer):
            if word in _DONE:
                note = await choices.done(
                    self.runtime, reminder.job_id, reminder.run_id, CONSOLE_USER
                )
                self.offers.remove(reminder)
                self.say("homar> " + await self.render(note))
                return True
            snooze = _SNOOZE.fullmatch(line.strip())
            if snooze is not None:
                await self.snooze(reminder, (snooze["when"] or "10m").strip())
                return True
        return False

    async def decide(self, offer: ApprovalOffer, *, approved: bool) -> None:
        row, note = await choices.decide(self.runtime, offer.approval_id, CONSOLE_USER, approved)
        self.offers.remove(offer)
        self.say("homar> " + await self.render(note + ("." if row is not None else "")))
        if row is None:
            return
        reply = await self.runtime.resume(row.id, approved=approved)
        if reply is not None:
            await self.show(reply)

    async def snooze(self, offer: ReminderOffer, when: str) -> None:
        runtime = self.runtime
        now = runtime.clock.now()
        tz = await runtime.user_tz(CONSOLE_USER)
        choice = when.lower().replace(" ", "")
        choice = {"10min": "10m", "1hour": "1h", "1hr": "1h"}.get(choice, choice)
        if choice in choices.SNOOZE_CHOICES:
            until = choices.snooze_until(choice, now, tz)
        else:
            until, choice = choices.read_snooze(when, now, tz), "custom"
        note = await choices.snooze(
            runtime, offer.job_id, offer.run_id, CONSOLE_USER, until, choice
        )
        self.offers.remove(offer)
        self.say("homar> " + await self.render(note))

    async def expire(self) -> None:
        """Timed-out proposals count as denied; the agent says so (as the Discord sweep)."""
        runtime = self.runtime
        for row in await runtime.approvals.expire_due(runtime.clock.now()):
            self.offers = [o for o in self.offers if o != ApprovalOffer(row.id)]
            if row.channel_id == CONSOLE_CHANNEL:
                reply = await runtime.resume(row.id, approved=False, expired=True)
                if reply is not None:
                    await self.show(reply)

    async def sweep_forever(self) -> None:
        wake = asyncio.Event()
        while True:
            deadline = self.runtime.clock.now() + SWEEP_EVERY
            await self.runtime.clock.sleep_until(deadline, wake)
            # In the thread's queue, like the Discord sweep: never beside a running request.
            self.runtime.queues.submit(CONSOLE_CHANNEL, self.expire)

    async def reopen(self) -> None:
        """At start: expire timed-out proposals, and offer again the ones still waiting."""
        runtime = self.runtime
        await self.expire()
        for row in await runtime.approvals.store.pending(channel_id=CONSOLE_CHANNEL):
            pending = await runtime.approvals.load(row.id)
            if pending is not None:
                await self.show(
                    Reply(f"Still waiting for you: {pending.message()}", approval=pending)
                )

    # ------------------------------------------------------------------ piped mode

    async def session_jobs(self, after_id: int) -> list[Job]:
        """Open jobs of this chat created by this input (ids above `after_id`)."""
        jobs = await self.runtime.engine.list_jobs(owner_id=CONSOLE_USER, limit=1000)
        return [j for j in jobs if j.id > after_id and j.status == JobStatus.ACTIVE]

    async def pending_note(self, jobs: list[Job]) -> str:
        lines = ["Still scheduled (they fire the next time Homar runs, e.g. `./homar chat`):"]
        for job in jobs:
            when = next_words(job.next_run_at).removeprefix("next ")
            lines.append(f"• #{job.id} {when} — “{short(job.command, 80)}”")
        return await self.render("\n".join(lines))


async def _lines(stream: TextIO) -> asyncio.Queue[str | None]:
    queue: asyncio.Queue[str | None] = asyncio.Queue()
    loop = asyncio.get_running_loop()

    def pump() -> None:
        for line in stream:
            loop.call_soon_threadsafe(queue.put_nowait, line)
        loop.call_soon_threadsafe(queue.put_nowait, None)

    loop.run_in_executor(None, pump)
    return queue


async def _newest_job_id(runtime: Runtime) -> int:
    """Jobs with a higher id were created by this chat's input."""
    return await runtime.store.newest_id()


async def _settle(runtime: Runtime) -> None:
    """Until nothing is being delivered or answered."""
    while True:
        await runtime.queues.join()
        await runtime.dispatcher.idle()
        busy = runtime.dispatcher.busy
        if not busy and runtime.queues.is_idle(CONSOLE_CHANNEL):
            return
        await asyncio.sleep(0.05)


async def _piped(console: Console, stdin: TextIO, wait: float | None) -> None:
    runtime = console.runtime
    start_id = await _newest_job_id(runtime)
    lines = await _lines(stdin)
    while (line := await lines.get()) is not None:
        if line.strip():
            await console.submit(line.strip())
    started = runtime.clock.now()
    limit = timedelta(seconds=MAX_WAIT if wait is None else wait)
    deadline = started + limit
    while True:
        await _settle(runtime)
        jobs = await console.session_jobs(start_id)
        due = [j for j in jobs if j.next_run_at is not None and j.next_run_at <= deadline]
        if not due:
            break
        await asyncio.sleep(0.2)
    await _settle(runtime)
    left = await console.session_jobs(start_id)
    if left:
        console.say(await console.pending_note(left))


def _history(settings: Settings) -> History:
    """Lines typed before, kept next to the SQLite database (in memory for PostgreSQL)."""
    from prompt_toolkit.history import FileHistory, InMemoryHistory

    prefix = "sqlite+aiosqlite:///"
    if settings.database_url.startswith(prefix):
        path = Path(settings.database_url.removeprefix(prefix)).parent / "chat_history"
        if path.parent.is_dir():
            return FileHistory(str(path))
    return InMemoryHistory()


async def _interactive(console: Console) -> None:
    from prompt_toolkit import PromptSession
    from prompt_toolkit.patch_stdout import patch_stdout

    session: PromptSession[str] = PromptSession(history=_history(console.runtime.settings))
    loop = asyncio.get_running_loop()
    console.say(
        "Homar chat — try “remind me in 10 seconds to stretch”, or /help. "
        "Ctrl-C cancels, Ctrl-D quits."
    )
    with patch_stdout(raw=True):
        while True:
            try:
                line = await session.prompt_async("you> ")
            except KeyboardInterrupt:
                continue  # Ctrl-C at the prompt drops the line being typed
            except EOFError:
                break
            if not line.strip():
                continue
            finished = console.submit(line.strip())
            # While the request runs the terminal is not in raw mode: Ctrl-C is a signal.
            loop.add_signal_handler(signal.SIGINT, console.cancel_request)
            try:
                await finished
            finally:
                loop.remove_signal_handler(signal.SIGINT)


async def chat(console: Console, stdin: TextIO, *, wait: float | None, tty: bool) -> int:
    """`homar chat` on a built console (`bot.wiring.run_chat`): open, talk, close."""
    runtime = console.runtime
    await runtime.open()
    await runtime.start()
    sweeping = asyncio.create_task(console.sweep_forever())
    try:
        await console.reopen()
        if tty:
            await _interactive(console)
        else:
            await _piped(console, stdin, wait)
        await runtime.queues.join()
    finally:
        sweeping.cancel()
        with contextlib.suppress(Exception):
            await runtime.close()
    return 0
