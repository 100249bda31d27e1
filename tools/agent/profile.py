"""What the agent may change about the person asking: their time zone ("my timezone is …")."""

from __future__ import annotations

from pydantic_ai import RunContext

from storage.user_settings import UserSettingsStore
from tools.agent import scheduling as sch
from tools.agent.scheduling import HomarDeps
from tools.schedule.zones import resolve_zone, spans_zones


async def set_timezone(ctx: RunContext[HomarDeps], zone: str) -> str:
    """Set the user's time zone when they state it (a city or zone name)."""
    if ctx.deps.fired:  # a job's text is data: it never changes its owner's settings
        return "A scheduled run can't change your time zone; tell me directly."
    name = resolve_zone(zone or "")
    if name is None and spans_zones(zone or ""):
        return (
            f"{zone.strip()} has several time zones; name a city there, e.g. "
            "`my timezone is Chicago` or `my timezone is Perth`."
        )
    if name is None:
        return (
            f"I don't know the time zone {zone!r}. Name a city or an IANA zone, e.g. "
            "`my timezone is Europe/Berlin` or `my timezone is Tokyo`."
        )
    await UserSettingsStore(ctx.deps.engine.store.db).set_tz(ctx.deps.user_id, name)
    ctx.deps.state.tz = name  # the rest of this run reads times in the new zone
    # The change is the reply whatever the model writes after it (a small model wrote its
    # call again as text, which was shown raw).
    return sch._record(ctx, f"🌍 Your time zone is now {name}; I'll read and show times there.")


TOOLS = [set_timezone]
