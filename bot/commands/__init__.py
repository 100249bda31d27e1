"""The slash commands' logic without Discord: one function per command, for every surface.

`bot/slash/*` (Discord) and the chat console (`/jobs …` typed at the `you>` prompt) both
call these, so the checks, the engine calls and the messages are the same everywhere.
Answers are plain data (`Answer`, `Card`); each surface decides how they look.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from storage.user_settings import UserSettingsStore
from tools.jobs.model import Actor, Target

if TYPE_CHECKING:
    from bot.runtime import Runtime


@dataclass(frozen=True)
class Zone:
    """The zone to read a user's times in, and whether they chose it or we assumed it."""

    name: str
    assumed: bool


async def zone_for(runtime: Runtime, user_id: int) -> Zone:
    chosen = await UserSettingsStore(runtime.db).tz(user_id)
    if chosen:
        return Zone(chosen, assumed=False)
    return Zone(runtime.settings.default_timezone, assumed=True)


@dataclass(frozen=True)
class Caller:
    """Who runs a command, where, and in which zone."""

    runtime: Runtime
    actor: Actor
    target: Target
    zone: Zone
    in_guild: bool = False

    @property
    def user_id(self) -> int:
        return self.actor.user_id

    @property
    def channel_id(self) -> int:
        return self.target.channel_id


@dataclass(frozen=True)
class Card:
    """A titled answer: an embed in Discord, a block of lines in a terminal."""

    title: str
    description: str = ""
    fields: tuple[tuple[str, str], ...] = ()
    footer: str = ""


@dataclass(frozen=True)
class Page:
    """Where a job list is, so a surface can offer Previous/Next."""

    scope: str
    number: int
    more: bool


@dataclass(frozen=True)
class ZoneMove:
    """An offer after a zone change: move `count` jobs from `old` to `new` at the same
    local times (a button in Discord, a typed command in a terminal)."""

    user_id: int
    old: str
    new: str
    count: int

    @property
    def question(self) -> str:
        """The offer in words; a surface shows it only when it can take the answer."""
        return (
            f"You have {self.count} scheduled job{'s' if self.count != 1 else ''} in "
            f"{self.old}. Should they move to {self.new} at the same local times "
            "(09:00 stays 09:00)? If not, they keep their zone."
        )


@dataclass(frozen=True)
class Answer:
    """A command's answer: text or a card, plus what a person may do next."""

    text: str = ""
    card: Card | None = None
    cancel_job: int | None = None  # offer Cancel for this job
    page: Page | None = None
    zone_move: ZoneMove | None = None  # offer to move these jobs to the new zone
