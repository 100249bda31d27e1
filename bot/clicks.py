"""How every button, select and form submission is acknowledged and answered.

Discord drops an interaction not acknowledged within 3 s ("This interaction failed"), and
a locked or slow database can take longer than that. So every component callback and form
handler is wrapped by `acknowledged`: it defers first, in the way that keeps the answer's
shape (a private "thinking…" for a private answer, a silent update for a click that edits
its own message), then runs the work, and turns any failure into a private answer: a
person's mistake with its message, storage that is down with `STORAGE_DOWN`, a bug with an
apology. The work answers with `reply_private` (private) or `edit_clicked` (its message).

A button that opens a form cannot defer (the form must be the first response); it uses
`before_form` to bound any check it makes first.
"""

from __future__ import annotations

import asyncio
import enum
import functools
import logging
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import discord

from bot.slash.context import defer_private, reply_private
from bot.slash.errors import SORRY, friendly

log = logging.getLogger(__name__)

F = TypeVar("F", bound=Callable[..., Awaitable[None]])
T = TypeVar("T")

FORM_CHECK_WITHIN = 1.5
"""Seconds a button that opens a form may spend checking first: past it the form opens
anyway (its submission checks again), well inside Discord's 3 s."""


class Ack(enum.Enum):
    PRIVATE = "private"
    """The answer is a new private message: defer with a private "thinking…"."""
    UPDATE = "update"
    """The click edits the message it sits on: defer silently, then `edit_clicked`."""


async def acknowledge(interaction: discord.Interaction[Any], how: Ack) -> None:
    """Defer at once unless already answered; an update needs a message to update."""
    if interaction.response.is_done():
        return
    try:
        if how is Ack.UPDATE and interaction.message is not None:
            await interaction.response.defer()
        else:
            await defer_private(interaction)
    except discord.HTTPException as exc:  # expired or answered elsewhere: still try to answer
        log.warning("could not acknowledge %s: %s", _what(interaction), exc)


async def edit_clicked(interaction: discord.Interaction[Any], **changes: Any) -> None:
    """Edit the message the clicked component sits on, acknowledged or not."""
    if interaction.response.is_done():
        await interaction.edit_original_response(**changes)
    else:
        await interaction.response.edit_message(**changes)


async def report(interaction: discord.Interaction[Any], exc: BaseException) -> None:
    """A failed click is always answered privately, never left to "This interaction failed"."""
    text = friendly(exc)
    if text is None:
        log.error("%s failed", _what(interaction), exc_info=exc)
        text = SORRY
    try:
        await reply_private(interaction, text)
    except discord.HTTPException:
        log.warning("could not answer %s privately", _what(interaction))


def acknowledged(how: Ack) -> Callable[[F], F]:
    """Wrap a component callback or form handler whose last argument is the interaction."""

    def wrap(work: F) -> F:
        @functools.wraps(work)
        async def run(*args: Any) -> None:
            interaction: discord.Interaction[Any] = args[-1]
            await acknowledge(interaction, how)
            try:
                await work(*args)
            except Exception as exc:  # every click is answered, whatever happens
                await report(interaction, exc)

        return run  # type: ignore[return-value]

    return wrap


async def before_form(check: Awaitable[T]) -> T | None:
    """A check made before opening a form, bounded so the form still opens in time; None
    when it took too long (the submission checks again). Its errors propagate."""
    try:
        return await asyncio.wait_for(check, FORM_CHECK_WITHIN)
    except TimeoutError:
        return None


def _what(interaction: discord.Interaction[Any]) -> str:
    data: Any = interaction.data or {}
    return f"component {data.get('custom_id', '?')!s:.100}"
