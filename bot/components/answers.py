"""How every button, select and form submission is acknowledged, checked and answered.

Discord drops an interaction not acknowledged within 3 s ("This interaction failed"), and
a locked or slow database can take longer than that. So every component callback and form
handler is wrapped by `acknowledged`: it defers first, in the way that keeps the answer's
shape (a private "thinking…" for a private answer, a silent update for a click that edits
its own message), then runs the work, and turns any failure into a private answer: a
person's mistake with its message, storage that is down with `STORAGE_DOWN`, a bug with an
apology (`bot.slash.errors.answer_failure`, shared with the slash commands). The work
answers with `reply_private` (private) or `edit_clicked` (its message).

A button that opens a form cannot defer (the form must be the first response): it opens
it with `open_form`, which bounds any check made first. `owned_job` is the one owner
check of the buttons only a job's owner may press.
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import functools
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, TypeVar

import discord

from bot.components.client import client_of
from bot.slash.context import defer_private, reply_private
from bot.slash.errors import answer_failure, described

if TYPE_CHECKING:
    from storage.jobs import Job

log = logging.getLogger(__name__)

F = TypeVar("F", bound=Callable[..., Awaitable[None]])

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
        log.warning("could not acknowledge %s: %s", described(interaction), exc)


async def edit_clicked(interaction: discord.Interaction[Any], **changes: Any) -> None:
    """Edit the message the clicked component sits on, acknowledged or not."""
    if interaction.response.is_done():
        await interaction.edit_original_response(**changes)
    else:
        await interaction.response.edit_message(**changes)


async def say_privately(interaction: discord.Interaction[Any], text: str) -> None:
    """A private answer that never raises: a click that can't be answered is only logged."""
    try:
        await reply_private(interaction, text)
    except discord.HTTPException:
        log.warning("could not answer %s privately", described(interaction))


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
                await answer_failure(interaction, exc)

        return run  # type: ignore[return-value]

    return wrap


async def owned_job(
    interaction: discord.Interaction[Any], job_id: int, *, refusal: str, missing: str
) -> Job | None:
    """The job when the presser owns it; otherwise None, with the refusal said privately."""
    job = await client_of(interaction).runtime.store.get(job_id)
    if job is None or job.owner_id != interaction.user.id:
        await say_privately(interaction, missing if job is None else refusal)
        return None
    return job


async def open_form(
    interaction: discord.Interaction[Any], check: Awaitable[object], form: discord.ui.Modal
) -> None:
    """Open a form after a check that refuses privately (answering the interaction).

    The form must be the first response, so nothing is deferred: the check is bounded
    (`FORM_CHECK_WITHIN`; past it the form opens anyway and its submission checks again).
    """
    try:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(check, FORM_CHECK_WITHIN)
        if interaction.response.is_done():  # refused privately
            return
        await interaction.response.send_modal(form)
    except Exception as exc:  # every click is answered, whatever happens
        await answer_failure(interaction, exc)
