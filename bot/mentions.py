"""The mentions policy: a delivered message pings its job's stored audience and nobody else.

Every `discord.AllowedMentions` Homar sends is made here. By default nobody is pinged
(`NO_MENTIONS`: the client's default, the agent's thread posts, edited notes); a message
for one person pings only them (`owner_only`); a fired job's answer pings exactly its
stored audience (`allowed_mentions`), built from the audience alone, never from the
message text, so a job's text (or the agent's reply) containing `<@&…>` or `@everyone`
pings no one.
"""

from __future__ import annotations

import discord

from tools.audience import Audience

NO_MENTIONS = discord.AllowedMentions.none()


def owner_only(user_id: int) -> discord.AllowedMentions:
    """Only this person (a job's owner, an approval's requester) may be pinged."""
    return discord.AllowedMentions(
        everyone=False, roles=False, users=[discord.Object(user_id)], replied_user=False
    )


def allowed_mentions(audience: Audience | None, owner_id: int | None) -> discord.AllowedMentions:
    """Exactly the audience's people and roles (and @everyone only if it names it)."""
    if audience is None:
        return owner_only(owner_id) if owner_id is not None else NO_MENTIONS
    people = audience.people(owner_id) if owner_id is not None else list(audience.users)
    return discord.AllowedMentions(
        everyone=audience.everyone or audience.here,
        roles=[discord.Object(r) for r in audience.roles],
        users=[discord.Object(u) for u in people],
        replied_user=False,
    )


def address_line(audience: Audience, owner_id: int) -> str:
    """The mentions that open a delivered message: `<@owner> <@bob> <@&role> @here`."""
    parts = [f"<@{u}>" for u in audience.people(owner_id)]
    parts += [f"<@&{r}>" for r in audience.roles]
    if audience.everyone:
        parts.append("@everyone")
    if audience.here:
        parts.append("@here")
    return " ".join(parts)


def readdress(text: str, owner_id: int, audience: Audience) -> str:
    """Swap the owner-only opening mention of a fired reply for the audience's."""
    lead = f"<@{owner_id}>"
    body = text.strip()
    if body.startswith(lead):
        body = body[len(lead) :].lstrip()
    line = address_line(audience, owner_id)
    return f"{line} {body}".strip() if line else body
