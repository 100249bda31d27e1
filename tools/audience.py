"""Who a job's delivered message is addressed to: its owner, other people, a role, a channel.

The audience is stored on the job and is the only thing a delivery may ping; the text of
a job never adds anyone. Checking that the owner may address it (roles, channels, DM
consent) needs Discord and lives in `bot/`; this module only describes it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

# More than this many people or roles in one reminder is a mass mention, not a reminder.
# Discord's mention syntax (a snowflake is at most 20 digits): one home for every reader.
USER_MENTION = re.compile(r"<@!?(\d{1,20})>")
ROLE_MENTION = re.compile(r"<@&(\d{1,20})>")
CHANNEL_MENTION = re.compile(r"<#(\d{1,20})>")

# Words asking for delivery by direct message ("dm me", "privately").
DM_WORDS = re.compile(r"\b(?:dms?|direct\s+messages?|privately|in\s+private)\b", re.IGNORECASE)
# What names someone or somewhere beyond the owner in this thread: a mention, an @name or
# #name, or a DM. "me", "here", "this channel", "the thread" name nobody else.
_ADDRESSES_OTHERS = re.compile(r"<[@#]|(?<![\w<])[@#][\w.-]|" + DM_WORDS.pattern, re.IGNORECASE)

MAX_TARGETS = 10
# People who pressed "Notify me too" on one job; a bigger crowd should use a role.
MAX_JOINED = 100


@dataclass(frozen=True)
class Audience:
    """Who is pinged, and where the message goes (the job's thread unless said otherwise)."""

    users: tuple[int, ...] = ()
    roles: tuple[int, ...] = ()
    everyone: bool = False  # @everyone
    here: bool = False  # @here
    owner: bool = True  # the owner is pinged too
    channel_id: int | None = None  # post in this channel of the job's server instead
    dm: bool = False  # deliver by DM: to the one named person, else to the owner
    joined: tuple[int, ...] = field(default=())  # pressed "Notify me too"

    @property
    def is_default(self) -> bool:
        """Just the owner, where the job was made: nothing beyond the usual delivery."""
        return self == Audience()

    @property
    def broadcast(self) -> bool:
        """Addressed to a channel or a role, so others may join it ("Notify me too")."""
        return bool(self.roles or self.everyone or self.here or self.channel_id is not None)

    def people(self, owner_id: int) -> list[int]:
        """Everyone pinged by user id, owner first if included, without repeats."""
        ids = ([owner_id] if self.owner else []) + list(self.users) + list(self.joined)
        return list(dict.fromkeys(ids))

    def dm_recipient(self, owner_id: int) -> int | None:
        """Whose DMs the delivery goes to, or None when it is not a DM delivery."""
        if not self.dm:
            return None
        return self.users[0] if self.users else owner_id

    def with_joined(self, user_id: int, *, present: bool) -> Audience:
        ids = [u for u in self.joined if u != user_id] + ([user_id] if present else [])
        return replace(self, joined=tuple(ids))

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "users": [str(u) for u in self.users],
            "roles": [str(r) for r in self.roles],
            "everyone": self.everyone,
            "here": self.here,
            "owner": self.owner,
            "channel": str(self.channel_id) if self.channel_id is not None else None,
            "dm": self.dm,
        }
        if self.joined:
            data["joined"] = [str(u) for u in self.joined]
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any] | None) -> Audience:
        if not data:
            return cls()
        channel = data.get("channel")
        return cls(
            users=tuple(int(u) for u in data.get("users") or ()),
            roles=tuple(int(r) for r in data.get("roles") or ()),
            everyone=bool(data.get("everyone")),
            here=bool(data.get("here")),
            owner=bool(data.get("owner", True)),
            channel_id=int(channel) if channel is not None else None,
            dm=bool(data.get("dm")),
            joined=tuple(int(u) for u in data.get("joined") or ()),
        )

    def describe(self) -> str:
        """Plain words for confirmations ("you, <@1> and <@&2> in <#3>")."""
        who: list[str] = []
        if self.owner:
            who.append("you")
        who += [f"<@{u}>" for u in self.users]
        who += [f"<@&{r}>" for r in self.roles]
        if self.everyone:
            who.append("@everyone")
        if self.here:
            who.append("@here")
        text = ", ".join(who[:-1]) + (" and " if len(who) > 1 else "") + (who[-1] if who else "")
        if self.dm:
            return f"{text or 'you'} by DM"
        if self.channel_id is not None:
            return f"{text or 'nobody'} in <#{self.channel_id}>" if who else f"<#{self.channel_id}>"
        return text or "you"


def addresses_others(text: str) -> bool:
    """Does an audience the model named reach anyone or anywhere beyond the owner here?"""
    return bool(_ADDRESSES_OTHERS.search(text[:500]))


@dataclass(frozen=True)
class Addressing:
    """Where a job is being made, for checking who it may address."""

    owner_id: int
    guild_id: int | None
    channel_id: int


class AudienceResolver(Protocol):
    """Reads an audience the agent named ("<@1> and me", "<#2>", "dm me") and checks that
    the owner may address it; raises `UserError` saying why not and what to do instead."""

    async def resolve(self, text: str, where: Addressing) -> Audience: ...

    async def check(self, audience: Audience, where: Addressing) -> None:
        """Refuse (UserError) unless `where.owner_id` may address `audience` there."""
        ...


async def check_change(
    resolver: AudienceResolver, audience: Audience, where: Addressing, editor_id: int
) -> None:
    """Someone changes who the job at `where` pings: its owner must be allowed to address
    `audience` (the job pings them), and so must the editor when that is someone else (a
    moderator): nobody pings, through another's job, what they couldn't ping themselves.
    Raises `UserError` saying why not."""
    await resolver.check(audience, where)
    if editor_id != where.owner_id:
        await resolver.check(audience, Addressing(editor_id, where.guild_id, where.channel_id))
