"""Live preview while typing: what `when`, `repeat` and `until` read as, in your zone.

Autocomplete answers within Discord's 3 s deadline (we aim for p99 <= 50 ms, measured by
`bench/commands.py`). Each choice's *value* is exactly what was typed, so picking the
preview submits the person's own words; its *name* is what the time language made of
them: "Tue 24 Nov 09:00 (Europe/Berlin) — in 19 h", "every weekday at 08:00, next Tue
24 Nov", "not understood — try 'tomorrow 9am'" or "that's in the past".
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from typing import Any

import discord
from discord import app_commands

from bot.slash.context import reading_zone, runtime_of, zone_of
from bot.slash.when import Instant, plan, read_instant, read_until, wants_repeat
from tools.errors import UserError
from tools.jobs.engine import Engine
from tools.schedule import Every, Once, Schedule, zone

log = logging.getLogger(__name__)

CHOICE_LIMIT = 100  # Discord's limit on a choice's name and value
NOT_UNDERSTOOD = "not understood — try 'tomorrow 9am'"
IN_THE_PAST = "that's in the past — try a later time"
WHEN_IDEAS = ("in 20 minutes", "tomorrow 9am", "friday 17:30", "next monday noon")
REPEAT_IDEAS = ("daily", "every weekday at 9", "weekly", "every 2 hours")
UNTIL_IDEAS = ("5 times", "friday", "in 2 weeks", "2026-12-31")


def stamp(at: datetime, tz: str) -> str:
    """ "Tue 24 Nov 09:00" in `tz`."""
    return f"{at.astimezone(zone(tz)):%a %d %b %H:%M}"


def day(at: datetime, tz: str) -> str:
    return f"{at.astimezone(zone(tz)):%a %d %b}"


def from_now(at: datetime, now: datetime) -> str:
    """ "in 19 h", "in 5 min", "in 3 days" — rounded the way people say it."""
    seconds = (at - now).total_seconds()
    if seconds < 60:
        return "in under a minute"
    minutes = round(seconds / 60)
    if minutes < 60:
        return f"in {minutes} min"
    hours = seconds / 3600
    if hours < 10:
        whole, rest = divmod(minutes, 60)
        return f"in {whole} h {rest} min" if rest else f"in {whole} h"
    if hours < 48:
        return f"in {round(hours)} h"
    return f"in {round(hours / 24)} days"


def when_preview(text: str, *, now: datetime, tz: str, engine: Engine | None = None) -> str:
    """One line for a `when` being typed (checked against the engine's limits, if given)."""
    try:
        got = read_instant(text, now=now, tz=tz)
        if engine is not None:
            engine.check_schedule(Schedule(Once(got.at), got.tz), now)
    except UserError as exc:
        if "past" in exc.message:
            return IN_THE_PAST
        lead = exc.message.split("\n")[0]
        # A specific hint ("February has no 30th — did you mean …?") beats a generic one.
        return NOT_UNDERSTOOD if lead.startswith("I couldn't read") else lead
    # In the zone it will be read in: yours, or one the phrase named ("3pm Tokyo time").
    return f"{stamp(got.at, got.tz)} ({got.tz}) — {from_now(got.at, now)}"


def _anchor(when: str | None, *, now: datetime, tz: str) -> Instant:
    """The `when` already typed (for `repeat`/`until`), else the next whole minute."""
    if when:
        try:
            return read_instant(when, now=now, tz=tz)
        except UserError:
            pass
    start = (now + timedelta(minutes=1)).replace(second=0, microsecond=0)
    return Instant(start, tz, "")


def repeat_preview(
    text: str, *, when: str | None, now: datetime, tz: str, engine: Engine | None = None
) -> str:
    """ "every weekday at 08:00, next Tue 24 Nov" for a `repeat` being typed."""
    if not wants_repeat(text):
        return "does not repeat"
    try:
        chosen = plan(_anchor(when, now=now, tz=tz), now=now, repeat=text)
    except UserError:
        return "not understood — try 'daily' or 'every weekday at 9'"
    schedule = chosen.schedule
    if isinstance(schedule.spec, Once):
        return NOT_UNDERSTOOD
    try:
        first = engine.check_schedule(schedule, now) if engine is not None else None
    except UserError as exc:
        return exc.message.split("\n")[0]
    words = schedule.describe().replace(f" ({tz})", "")
    nxt = first or schedule.next_after(now)
    if nxt is None:
        return f"{words} — never runs; check the end"
    # An interval's words carry no time of day: show the first run's.
    when_next = stamp(nxt, tz) if isinstance(schedule.spec, Every) else day(nxt, tz)
    return f"{words}, next {when_next}"


def until_preview(text: str, *, now: datetime, tz: str) -> str:
    """ "until Fri 27 Nov 23:59" or "5 times" for an `until` being typed."""
    try:
        end, count = read_until(text, now=now, tz=tz)
    except UserError as exc:
        return exc.message.split("\n")[0] if "many" in exc.message else NOT_UNDERSTOOD
    if count is not None:
        return "once" if count == 1 else f"{count} times"
    assert end is not None
    if end <= now:
        return IN_THE_PAST
    return f"until {stamp(end, tz)} ({tz}) — {from_now(end, now)}"


def choices(typed: str, preview: str, ideas: tuple[str, ...]) -> list[app_commands.Choice[str]]:
    """The preview of what was typed (value: the typed text), or ideas when nothing is."""
    typed = typed.strip()
    if not typed:
        return [app_commands.Choice(name=idea, value=idea) for idea in ideas]
    if len(typed) > CHOICE_LIMIT:
        return []
    name = f"{typed} → {preview}"
    if len(name) > CHOICE_LIMIT:
        name = preview[:CHOICE_LIMIT]
    return [app_commands.Choice(name=name, value=typed)]


async def _context(interaction: discord.Interaction[Any]) -> tuple[datetime, str, Engine]:
    try:
        zone_name = (await reading_zone(interaction)).name
    except UserError:  # a `zone:` being typed that isn't a zone yet: preview in theirs
        zone_name = (await zone_of(interaction)).name
    runtime = runtime_of(interaction)
    return runtime.clock.now(), zone_name, runtime.engine


async def when_choices(
    interaction: discord.Interaction[Any], current: str
) -> list[app_commands.Choice[str]]:
    now, tz, engine = await _context(interaction)
    text = current.strip()
    preview = when_preview(text, now=now, tz=tz, engine=engine) if text else ""
    return choices(text, preview, WHEN_IDEAS)


async def repeat_choices(
    interaction: discord.Interaction[Any], current: str
) -> list[app_commands.Choice[str]]:
    now, tz, engine = await _context(interaction)
    when = getattr(interaction.namespace, "when", None)
    text = current.strip()
    preview = (
        repeat_preview(text, when=str(when) if when else None, now=now, tz=tz, engine=engine)
        if text
        else ""
    )
    return choices(text, preview, REPEAT_IDEAS)


async def until_choices(
    interaction: discord.Interaction[Any], current: str
) -> list[app_commands.Choice[str]]:
    now, tz, _ = await _context(interaction)
    text = current.strip()
    return choices(text, until_preview(text, now=now, tz=tz) if text else "", UNTIL_IDEAS)
