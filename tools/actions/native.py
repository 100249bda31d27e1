"""Discord-native actions, built in: post into the thread, read it back, start a poll.

They act through `deps.thread` (a `ThreadActions` the bot provides) and are hidden from
runs without a thread (the console).
"""

from __future__ import annotations

from typing import Any

from pydantic_ai import RunContext, ToolFailed
from pydantic_ai.tools import ToolDefinition
from pydantic_ai.toolsets import AbstractToolset, FunctionToolset

from tools.actions.thread import ThreadActions
from tools.agent.scheduling import HomarDeps

MAX_READ = 100
MAX_POLL_HOURS = 32 * 24  # Discord's longest poll
MAX_ANSWERS = 10


def _thread(ctx: RunContext[HomarDeps]) -> ThreadActions:
    if ctx.deps.thread is None:
        raise ToolFailed("There is no Discord thread to act in here.")
    return ctx.deps.thread


async def post_message(ctx: RunContext[HomarDeps], text: str) -> str:
    """Post a message into this thread now (nobody is pinged).

    Args:
        text: the message, up to 2000 characters
    """
    if not text.strip():
        raise ToolFailed("The message is empty.")
    await _thread(ctx).post_message(text[:2000])
    return "Posted."


async def read_thread(ctx: RunContext[HomarDeps], limit: int = 30) -> str:
    """Read this thread's recent messages, oldest first (to summarise or act on the conversation).

    Args:
        limit: how many recent messages, 1 to 100
    """
    got = await _thread(ctx).read_thread(max(1, min(limit, MAX_READ)))
    if not got:
        return "The thread has no messages yet."
    tz = ctx.deps.reference_now().tzinfo
    return "\n".join(
        f"[{m.at.astimezone(tz):%Y-%m-%d %H:%M}] {m.author}{' (bot)' if m.bot else ''}: {m.text}"
        for m in got
    )


async def create_poll(
    ctx: RunContext[HomarDeps], question: str, answers: list[str], hours: int = 24
) -> str:
    """Start a Discord poll in this thread.

    Args:
        question: the question, up to 300 characters
        answers: 2 to 10 answers, each up to 55 characters
        hours: how long the poll stays open, 1 to 768
    """
    clean = [a.strip()[:55] for a in answers if a.strip()]
    if not question.strip() or not 2 <= len(clean) <= MAX_ANSWERS:
        raise ToolFailed("A poll needs a question and 2 to 10 answers.")
    span = max(1, min(hours, MAX_POLL_HOURS))
    await _thread(ctx).create_poll(question.strip()[:300], clean, span)
    return f"Poll started; it closes in {span} hours."


TOOLS = (post_message, read_thread, create_poll)


async def _only_in_threads(
    ctx: RunContext[Any], tool_defs: list[ToolDefinition]
) -> list[ToolDefinition]:
    return tool_defs if ctx.deps.thread is not None else []


def thread_toolset() -> AbstractToolset[Any]:
    return FunctionToolset(list(TOOLS), sequential=True).prepared(_only_in_threads)


def catalogue() -> dict[str, str]:
    return {fn.__name__: (fn.__doc__ or "").split("\n")[0] for fn in TOOLS}
