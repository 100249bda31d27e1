"""/timezone set|show: the zone a person's times are read and shown in."""

from __future__ import annotations

from datetime import datetime

from bot.commands import Answer, Caller
from storage.user_settings import UserSettingsStore
from tools.errors import UserError
from tools.schedule import zone as zone_info
from tools.zones import resolve_zone


def _local(now: datetime, tz: str) -> str:
    return f"{now.astimezone(zone_info(tz)):%H:%M on %a %d %b}"


async def set_zone(caller: Caller, zone: str) -> Answer:
    name = resolve_zone(zone)
    if name is None:
        raise UserError(
            f"I don't know the zone {zone!r}. Try a city (`Berlin`), an IANA name "
            "(`America/New_York`), an abbreviation (`PST`) or an offset (`UTC+2`)."
        )
    runtime = caller.runtime
    await UserSettingsStore(runtime.db).set_tz(caller.user_id, name)
    return Answer(
        f"Your time zone is now **{name}** (it's {_local(runtime.clock.now(), name)} there). "
        "New reminders use it."
    )


async def show_zone(caller: Caller) -> Answer:
    zone = caller.zone
    now = caller.runtime.clock.now()
    if zone.assumed:
        return Answer(
            f"You haven't set a time zone, so I assume **{zone.name}** "
            f"(it's {_local(now, zone.name)} there). Set yours with `/timezone set`."
        )
    return Answer(f"Your time zone is **{zone.name}** (it's {_local(now, zone.name)} there).")
