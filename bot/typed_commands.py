"""Slash commands typed at the chat prompt: `/jobs cancel 42`, `/timezone set Berlin`, …

The same options as in Discord (`/jobs edit id: 42 when: friday 10am`), with the first
option also accepted without its name (`/jobs cancel 42`, `/todo add buy milk`). Each
command runs the shared function in `bot.commands`, so checks and messages match Discord.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from bot.commands import Answer, Caller, heartbeat, jobs, timezone, todo
from bot.commands.help import help_card
from bot.commands.remind import remind
from bot.slash.when import read_instant
from tools.agent.todo import MAX_DESCRIPTION
from tools.errors import UserError

TALK = (
    "Type what you want after `you>`:\n"
    "• `remind me tomorrow at 9 to call mom`\n"
    "• `every weekday at 9 post standup time` (answer the approval with `a` or `d`)\n"
    "• `what's scheduled?`\n"
    "When a reminder arrives, type `d` (done) or `s 10m`, `s 1h`, `s tomorrow`, `s friday 10am`."
)

_YES = {"yes", "y", "true", "on", "1"}
_NO = {"no", "n", "false", "off", "0"}


@dataclass(frozen=True)
class Typed:
    """A typed command split into its words: `/jobs edit 42 when: friday` → jobs, edit, …"""

    group: str
    sub: str
    positional: str
    options: dict[str, str]


OPTIONS: tuple[str, ...] = (
    "id",
    "when",
    "what",
    "repeat",
    "until",
    "follow_up",
    "escalate",
    "scope",
    "zone",
    "every",
    "page",
    "description",
)
_OPTION = re.compile(r"(?:^|\s)(" + "|".join(OPTIONS) + r"):\s*", re.IGNORECASE)


def parse(line: str) -> Typed:
    """`/group [sub] [positional] [name: value …]` (names as in Discord)."""
    body = line.strip().removeprefix("/").strip()
    group, _, rest = body.partition(" ")
    group = group.lower().replace("_", "-")
    parts = _OPTION.split(rest)
    head, pairs = parts[0].strip(), parts[1:]
    options = {
        pairs[i].lower(): pairs[i + 1].strip() for i in range(0, len(pairs) - 1, 2) if pairs[i + 1]
    }
    sub, _, positional = head.partition(" ")
    return Typed(group, sub.lower(), positional.strip(), options)


def _job_id(t: Typed, usage: str) -> int:
    raw = t.options.get("id") or t.positional
    text = raw.strip().lstrip("#")
    if not text.isdigit() or len(text) > 18:
        raise UserError(f"Give the job's number, e.g. `{usage}`.")
    return int(text)


def _todo_id(t: Typed, usage: str) -> int:
    text = (t.options.get("id") or t.positional).strip().lstrip("#")
    if not text.isdigit() or len(text) > 18:
        raise UserError(f"Give the to-do's number, e.g. `{usage}`.")
    return int(text)


def _flag(value: str | None) -> bool:
    if value is None:
        return False
    word = value.strip().lower()
    if word in _YES:
        return True
    if word in _NO:
        return False
    raise UserError("`follow_up` is `yes` or `no`.")


Command = Callable[[Caller, Typed], Awaitable[Answer]]


async def _jobs(caller: Caller, t: Typed) -> Answer:
    sub = t.sub or "list"
    if sub == "list":
        words = t.positional.split()
        scope = t.options.get("scope") or (words[0] if words else "mine")
        page = t.options.get("page") or (words[1] if len(words) > 1 else "1")
        if not page.isdigit() or int(page) < 1 or len(page) > 6:
            raise UserError("Pages count from 1, e.g. `/jobs list mine 2`.")
        return await jobs.list_page(caller, scope.lower(), int(page) - 1)
    simple = {
        "cancel": jobs.cancel,
        "pause": jobs.pause,
        "resume": jobs.resume,
        "history": jobs.history,
        "run-now": jobs.run_now,
    }
    if sub in simple:
        return await simple[sub](caller, _job_id(t, f"/jobs {sub} 42"))
    if sub == "edit":
        job_id = _job_id(t, "/jobs edit 42 when: friday 10am")
        when_text = t.options.get("when")
        when = None
        if when_text:
            when = read_instant(when_text, now=caller.runtime.clock.now(), tz=caller.zone.name)
        what = t.options.get("what")
        if what is not None and len(what) > 2000:
            raise UserError("`what` can be at most 2000 characters.")
        nudges = t.options.get("follow_up")
        escalate = t.options.get("escalate")
        follow_up = None
        if nudges is not None or escalate is not None:
            current = (await caller.runtime.engine.get(job_id, caller.actor)).follow_up
            follow_up = jobs.follow_up_change(
                current,
                _flag(nudges) if nudges is not None else None,
                escalate.strip().lower() if escalate else None,
            )
        return await jobs.edit(
            caller,
            job_id,
            when=when,
            what=what,
            repeat=t.options.get("repeat"),
            until=t.options.get("until"),
            follow_up=follow_up,
        )
    raise UserError(
        "Try `/jobs list`, `/jobs cancel 42`, `/jobs pause 42`, `/jobs resume 42`, "
        "`/jobs edit 42 when: friday 10am`, `/jobs history 42` or `/jobs run-now 42`."
    )


async def _remind(caller: Caller, t: Typed) -> Answer:
    when_text = t.options.get("when")
    what = t.options.get("what")
    if not when_text or not what:
        raise UserError(
            "Give both parts, e.g. `/remind when: in 20 minutes what: take the cake out` "
            "(optionally `repeat: daily`, `until: 5 times`, `follow_up: yes`, "
            "`escalate: dm`, `zone: Tokyo`)."
        )
    if len(what) > 2000:
        raise UserError("`what` can be at most 2000 characters.")
    reading = timezone.reading_zone(t.options.get("zone"), caller.zone)
    when = read_instant(when_text, now=caller.runtime.clock.now(), tz=reading.name)
    escalate = t.options.get("escalate")
    return await remind(
        caller,
        when,
        what,
        repeat=t.options.get("repeat"),
        until=t.options.get("until"),
        follow_up=_flag(t.options.get("follow_up")),
        escalate=escalate.strip().lower() if escalate else None,
        reading=reading,
    )


async def _timezone(caller: Caller, t: Typed) -> Answer:
    if t.sub == "set":
        name = t.options.get("zone") or t.positional
        if not name:
            raise UserError("Say which zone, e.g. `/timezone set Europe/Berlin` or `Berlin`.")
        return await timezone.set_zone(caller, name)
    if t.sub in ("", "show"):
        return await timezone.show_zone(caller)
    if t.sub == "move":  # the answer to /timezone set's offer ("Move them" in Discord)
        zones = t.positional.split()
        if len(zones) != 2:
            raise UserError(
                "Say from which zone to which, e.g. `/timezone move UTC Europe/Berlin`."
            )
        old, new = (timezone.zone_named(z) for z in zones)
        return await timezone.move_jobs(caller, caller.user_id, old, new)
    raise UserError("Try `/timezone set Europe/Berlin` or `/timezone show`.")


async def _todo(caller: Caller, t: Typed) -> Answer:
    sub = t.sub or "list"
    if sub == "list":
        return await todo.list_todos(caller)
    if sub == "add":
        text = t.options.get("description") or t.positional
        if not text:
            raise UserError("Say what to add, e.g. `/todo add draft the newsletter`.")
        if len(text) > MAX_DESCRIPTION:
            raise UserError(f"A to-do can be at most {MAX_DESCRIPTION} characters.")
        return await todo.add(caller, text)
    if sub == "done":
        return await todo.done(caller, _todo_id(t, "/todo done 3"))
    if sub == "remove":
        return await todo.remove(caller, _todo_id(t, "/todo remove 3"))
    raise UserError("Try `/todo list`, `/todo add buy milk`, `/todo done 3` or `/todo remove 3`.")


async def _heartbeat(caller: Caller, t: Typed) -> Answer:
    if t.sub == "on":
        return await heartbeat.on(caller, t.options.get("every") or t.positional or None)
    if t.sub == "off":
        return await heartbeat.off(caller)
    if t.sub in ("", "status"):
        return await heartbeat.status(caller)
    raise UserError(
        "Try `/heartbeat on`, `/heartbeat on 1h`, `/heartbeat off` or `/heartbeat status`."
    )


async def _help(caller: Caller, t: Typed) -> Answer:
    return help_card(TALK)


COMMANDS: dict[str, Command] = {
    "jobs": _jobs,
    "remind": _remind,
    "timezone": _timezone,
    "todo": _todo,
    "heartbeat": _heartbeat,
    "help": _help,
}


async def run_typed(caller: Caller, line: str) -> Answer:
    """Run one typed slash command; a UserError carries what to type instead."""
    typed = parse(line)
    command = COMMANDS.get(typed.group)
    if command is None:
        raise UserError(
            f"There is no `/{typed.group[:30]}` command. Try `/help`, `/jobs`, `/remind`, "
            "`/timezone`, `/todo` or `/heartbeat`."
        )
    return await command(caller, typed)
