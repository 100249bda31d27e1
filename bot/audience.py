"""Who a job may address, checked against Discord when it is made and again when it fires.

- a role: it must be mentionable, or the owner (and Homar) need Mention Everyone;
- a channel: of the same server, where the owner and Homar may both send messages;
- another person by DM: they must share the server and have allowed it (`/dm allow`);
- @everyone/@here: only if the server's admins enabled it (`/server everyone-pings`)
  and the owner (and Homar) have Mention Everyone.

Every refusal is a `UserError` saying why and what to do instead.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import discord

from bot.channels import direct_messages
from storage.consents import ConsentStore
from storage.guild_settings import GuildSettingsStore
from tools.audience import (
    CHANNEL_MENTION,
    DM_WORDS,
    MAX_TARGETS,
    ROLE_MENTION,
    USER_MENTION,
    Addressing,
    Audience,
)
from tools.errors import UserError

_NAMED_CHANNEL = re.compile(r"(?<![<\w])#([\w-]{1,100})")
_NAMED = re.compile(r"(?<![<\w])@([\w.-]{1,100})")
_ME = re.compile(r"\b(?:me|myself|I)\b", re.IGNORECASE)


@dataclass
class AudienceGate:
    """Checks audiences for one bot; also the agent's `AudienceResolver`."""

    client: discord.Client
    consents: ConsentStore
    guild_settings: GuildSettingsStore

    # ------------------------------------------------------------ agent: text → audience

    async def resolve(self, text: str, where: Addressing) -> Audience:
        """Read "<@1> and me", "<#2>", "<@&3>", "@everyone", "dm me" (as the model passes them)."""
        text = text.strip()[:500]
        users = [int(u) for u in USER_MENTION.findall(text)]
        roles = [int(r) for r in ROLE_MENTION.findall(text)]
        channels = [int(c) for c in CHANNEL_MENTION.findall(text)]
        rest = CHANNEL_MENTION.sub(" ", ROLE_MENTION.sub(" ", USER_MENTION.sub(" ", text)))
        everyone = bool(re.search(r"@everyone\b", rest, re.IGNORECASE))
        here = bool(re.search(r"@here\b", rest, re.IGNORECASE))
        rest = re.sub(r"@(?:everyone|here)\b", " ", rest, flags=re.IGNORECASE)
        guild = self.client.get_guild(where.guild_id) if where.guild_id is not None else None
        for name in _NAMED_CHANNEL.findall(rest):
            found = _channel_named(guild, name)
            if found is None:
                raise UserError(
                    f"I can't find a channel called #{name} here; mention it with # and "
                    "pick it from the list."
                )
            channels.append(found)
        for name in _NAMED.findall(rest):
            role = _role_named(guild, name)
            member = guild.get_member_named(name) if guild is not None else None
            if role is not None:
                roles.append(role.id)
            elif member is not None:
                users.append(member.id)
            else:
                raise UserError(
                    f"I don't know who @{name} is here; mention them with @ and pick them "
                    "from the list."
                )
        if len(set(channels)) > 1:
            raise UserError("I can post a reminder in one channel; make one reminder per channel.")
        me = bool(_ME.search(rest)) or where.owner_id in users
        others = [u for u in dict.fromkeys(users) if u != where.owner_id]
        addressed = bool(others or roles or everyone or here or channels)
        audience = Audience(
            users=tuple(others),
            roles=tuple(dict.fromkeys(roles)),
            everyone=everyone,
            here=here,
            owner=me or not addressed,
            channel_id=channels[0] if channels else None,
            dm=bool(DM_WORDS.search(rest)),
        )
        await self.check(audience, where)
        return audience

    # ------------------------------------------------------------ the checks

    async def check(
        self,
        audience: Audience,
        where: Addressing,
        *,
        owner: discord.Member | None = None,
    ) -> None:
        """Refuse (UserError: why, and what to do) unless the owner may address `audience`.

        `owner` is the owner's member as Discord just sent it (an interaction); otherwise
        it is fetched, so a role or membership lost since is seen.
        """
        if audience.is_default:
            return
        if len(audience.users) + len(audience.roles) > MAX_TARGETS:
            raise UserError(
                f"That's more than {MAX_TARGETS} people and roles for one reminder; "
                "use a role (or a channel) for a group."
            )
        if where.guild_id is None:
            if audience.roles or audience.everyone or audience.here or audience.channel_id:
                raise UserError(
                    "Role, channel and @everyone reminders work in a server; set it up there."
                )
            if audience.users:
                raise UserError("To remind someone else, set it up in a server you both are in.")
            return
        guild = self.client.get_guild(where.guild_id)
        if guild is None:
            raise UserError("I can't see this server any more, so I can't address anyone here.")
        if owner is None:
            owner = await _member(guild, where.owner_id)
            if owner is None:
                raise UserError(f"You are no longer a member of {guild.name}.")
        if audience.dm:
            await self._check_dm(guild, audience, where)
            return
        place = await self._place(guild, audience, where, owner)
        mine = place.permissions_for(owner) if place is not None else owner.guild_permissions
        me = guild.me
        bots = place.permissions_for(me) if place is not None else me.guild_permissions
        for user_id in audience.users:
            if await _member(guild, user_id) is None:
                raise UserError(
                    f"<@{user_id}> isn't a member of this server, so I can't remind them here."
                )
        for role_id in audience.roles:
            role = guild.get_role(role_id)
            if role is None:
                raise UserError(
                    "That role isn't one of this server's; pick a role from this server."
                )
            if role.is_default():
                raise UserError("Use @everyone explicitly (an admin must allow it first).")
            if not role.mentionable and not mine.mention_everyone:
                raise UserError(
                    f"You can't ping @{role.name}: it isn't mentionable and you don't have "
                    "the Mention Everyone permission. Ask an admin to make the role "
                    "mentionable, or remind people by name."
                )
            if not role.mentionable and not bots.mention_everyone:
                raise UserError(
                    f"I can't ping @{role.name}: it isn't mentionable and I don't have "
                    "Mention Everyone. Ask an admin to make the role mentionable."
                )
        if audience.everyone or audience.here:
            which = "@everyone" if audience.everyone else "@here"
            if not await self.guild_settings.everyone_pings(guild.id):
                raise UserError(
                    f"Pinging {which} is off in this server. An admin (Manage Server) can "
                    "turn it on with `/server everyone-pings enabled: True`; or ping a role."
                )
            if not mine.mention_everyone:
                raise UserError(
                    f"You need the Mention Everyone permission to ping {which}; ping a "
                    "role instead."
                )
            if not bots.mention_everyone:
                raise UserError(
                    f"I don't have Mention Everyone, so I can't ping {which}; ask an admin."
                )

    async def _place(
        self, guild: discord.Guild, audience: Audience, where: Addressing, owner: discord.Member
    ) -> Any:
        """The channel the delivery goes to, after checking both may post there."""
        if audience.channel_id is None:
            return guild.get_channel_or_thread(where.channel_id)
        channel = guild.get_channel_or_thread(audience.channel_id)
        if channel is None:
            raise UserError(
                f"<#{audience.channel_id}> isn't a channel of this server; pick one here."
            )
        if not isinstance(channel, discord.abc.Messageable) or isinstance(
            channel, discord.ForumChannel | discord.CategoryChannel
        ):
            raise UserError(f"I can't post messages in <#{channel.id}>; pick a text channel.")
        threaded = isinstance(channel, discord.Thread)
        send = "send_messages_in_threads" if threaded else "send_messages"
        mine = channel.permissions_for(owner)
        if not (mine.view_channel and getattr(mine, send)):
            raise UserError(
                f"You can't send messages in <#{channel.id}>, so I won't post there for you; "
                "pick a channel you can write in."
            )
        bots = channel.permissions_for(guild.me)
        if not (bots.view_channel and getattr(bots, send)):
            raise UserError(
                f"I can't send messages in <#{channel.id}>; ask an admin to let Homar post "
                "there, or pick another channel."
            )
        return channel

    async def _check_dm(self, guild: discord.Guild, audience: Audience, where: Addressing) -> None:
        if audience.roles or audience.everyone or audience.here or audience.channel_id:
            raise UserError(
                "A DM reminder goes to one person; leave out the role and the channel "
                "(or choose `deliver: here`)."
            )
        if len(audience.users) > 1:
            raise UserError("I can DM one person per reminder; make one reminder for each.")
        recipient = audience.dm_recipient(where.owner_id)
        if recipient is None or recipient == where.owner_id:
            return
        member = await _member(guild, recipient)
        if member is None or member.bot:
            raise UserError(
                f"<@{recipient}> isn't a member of this server, so I can't DM them for you."
            )
        if not await self.consents.allows(recipient, where.owner_id):
            raise UserError(
                f"<@{recipient}> hasn't allowed DM reminders from you. Ask them to run "
                f"`/dm allow user: @you` (or `/dm allow` for anyone they share a server "
                "with); meanwhile you can remind them here instead."
            )

    # ------------------------------------------------------------ delivery

    async def problem(self, audience: Audience, where: Addressing) -> str | None:
        """At delivery: why the owner may no longer address `audience`, or None if all is well."""
        try:
            await self.check(audience, where)
        except UserError as exc:
            return exc.message
        except discord.HTTPException as exc:
            return f"I couldn't check the server's permissions ({exc.status})"
        return None

    async def route(self, audience: Audience, where: Addressing) -> tuple[int, str | None]:
        """Where a fired job's message goes, checked again now: its audience's channel or DM,
        or (the owner may no longer address it) the job's thread and why not. Discord's
        errors opening the way there propagate."""
        if audience.is_default:
            return where.channel_id, None
        problem = await self.problem(audience, where)
        if problem is not None:
            return where.channel_id, problem
        return await self.destination(audience, where), None

    async def destination(self, audience: Audience, where: Addressing) -> int:
        """The channel id a delivery to `audience` goes to (a DM channel is opened if needed)."""
        recipient = audience.dm_recipient(where.owner_id)
        if recipient is not None:
            return (await direct_messages(self.client, recipient)).id
        if audience.channel_id is not None:
            return audience.channel_id
        return where.channel_id


async def _member(guild: discord.Guild, user_id: int) -> discord.Member | None:
    """The member fresh from Discord (the cache misses role changes without the members intent)."""
    try:
        return await guild.fetch_member(user_id)
    except discord.NotFound:
        return None


def _channel_named(guild: discord.Guild | None, name: str) -> int | None:
    if guild is None:
        return None
    for channel in guild.text_channels:
        if channel.name.lower() == name.lower():
            return channel.id
    return None


def _role_named(guild: discord.Guild | None, name: str) -> discord.Role | None:
    if guild is None:
        return None
    for role in guild.roles:
        if role.name.lower() == name.lower() and not role.is_default():
            return role
    return None
