"""Cards from the shared commands (`bot.commands.cards`) as Discord embeds."""

from __future__ import annotations

import discord

from bot.commands import Card

COLOUR = discord.Colour.from_rgb(230, 90, 60)


def embed_of(card: Card) -> discord.Embed:
    embed = discord.Embed(title=card.title, colour=COLOUR)
    if card.description:
        embed.description = card.description
    for name, value in card.fields:
        embed.add_field(name=name, value=value, inline=name in ("When", "Follow-up", "Escalation"))
    if card.footer:
        embed.set_footer(text=card.footer)
    return embed
