"""/timezone set|show: the zone a person's times are read and shown in."""

from __future__ import annotations

from datetime import datetime

from bot.commands import Answer, Caller, Zone, ZoneMove
from storage.user_settings import UserSettingsStore
from tools.errors import UserError, quoted
from tools.schedule import zone as zone_info
from tools.schedule.zones import resolve_zone, spans_zones


def local_now(now: datetime, tz: str) -> str:
    return f"{now.astimezone(zone_info(tz)):%H:%M on %a %d %b}"


def zone_named(typed: str) -> str:
    """The IANA name for what a person typed as a zone, or what to type instead."""
    name = resolve_zone(typed)
    if name is None and spans_zones(typed):
        raise UserError(
            f"{quoted(typed)} has several time zones; name a city there (`Chicago`, `Perth`)."
        )
    if name is None:
        raise UserError(
            f"I don't know the zone {quoted(typed)}. Try a city (`Berlin`), an IANA name "
            "(`America/New_York`), an abbreviation (`PST`) or an offset (`UTC+2`)."
        )
    return name


def reading_zone(typed: str | None, fallback: Zone) -> Zone:
    """The zone a command's times are read in: its `zone:` option (a per-job override)
    if given, else the caller's."""
    if typed is not None and typed.strip():
        return Zone(zone_named(typed), assumed=False)
    return fallback


async def set_zone(caller: Caller, zone: str) -> Answer:
    """Set the caller's zone; if jobs of theirs run in the old one, offer to move them."""
    name = zone_named(zone)
    runtime = caller.runtime
    store = UserSettingsStore(runtime.db)
    old = await store.tz(caller.user_id) or runtime.settings.default_timezone
    await store.set_tz(caller.user_id, name)
    text = (
        f"Your time zone is now **{name}** (it's {local_now(runtime.clock.now(), name)} there). "
        "New reminders use it."
    )
    if old == name:
        return Answer(text)
    jobs = await runtime.engine.list_jobs(owner_id=caller.user_id, limit=1000)
    mine = [j for j in jobs if j.tz == old]
    if not mine:
        return Answer(text)
    return Answer(text, zone_move=ZoneMove(caller.user_id, old, name, len(mine)))


async def move_jobs(caller: Caller, user_id: int, old: str, new: str) -> Answer:
    """Accept a zone-move offer: the caller's jobs in `old` follow to `new`."""
    if caller.user_id != user_id:
        return Answer("These are someone else's jobs.")
    moved, kept = await caller.runtime.engine.follow_zone(user_id, old, new)
    text = f"Moved {moved} job{'s' if moved != 1 else ''} to {new}."
    if kept:
        text += (
            f" {kept} kept {old}: being delivered right now, or its new time would already be past."
        )
    return Answer(text)


async def show_zone(caller: Caller) -> Answer:
    zone = caller.zone
    now = caller.runtime.clock.now()
    if zone.assumed:
        return Answer(
            f"You haven't set a time zone, so I assume **{zone.name}** "
            f"(it's {local_now(now, zone.name)} there). Set yours with `/timezone set`."
        )
    return Answer(f"Your time zone is **{zone.name}** (it's {local_now(now, zone.name)} there).")
