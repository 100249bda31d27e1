"""/heartbeat on|off|status: the heartbeat that works through a thread's to-do list when idle."""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands

from bot.slash.context import actor_of, reply_private, runtime_of, target_of, zone_of
from bot.slash.render import ts
from bot.slash.todo import here, todos_of
from storage.models import JobStatus
from tools import heartbeat


class HeartbeatGroup(app_commands.Group):
    """This thread's heartbeat."""

    def __init__(self) -> None:
        super().__init__(
            name="heartbeat", description="Work through this thread's to-do list when idle."
        )

    @app_commands.command(name="on", description="Start (or change) this thread's heartbeat.")
    @app_commands.describe(every="How often to check: '30 minutes' (default), '1h'; at least 5 min")
    async def on(self, interaction: discord.Interaction[Any], every: str | None = None) -> None:
        runtime = runtime_of(interaction)
        interval = heartbeat.parse_every(every)
        zone = await zone_of(interaction)
        job = await heartbeat.enable(
            runtime.engine,
            target_of(interaction),
            interval,
            zone.name,
            actor_of(interaction),
            meta={"via": "slash"},
        )
        nxt = f", first check {ts(job.next_run_at, 'R')}" if job.next_run_at else ""
        await reply_private(
            interaction,
            f"💓 Heartbeat on (job #{job.id}): {heartbeat.every_words(interval)}{nxt}. "
            "When this thread is idle I'll work on its oldest open to-do; with nothing to do, "
            "a beat costs nothing and says nothing. `/heartbeat off` stops it.",
        )

    @app_commands.command(name="off", description="Stop this thread's heartbeat.")
    async def off(self, interaction: discord.Interaction[Any]) -> None:
        runtime = runtime_of(interaction)
        job = await heartbeat.disable(runtime.engine, here(interaction), actor_of(interaction))
        if job is None:
            text = "There is no heartbeat in this thread. `/heartbeat on` starts one."
        else:
            text = f"Heartbeat off (job #{job.id} cancelled). Your to-do list stays as it is."
        await reply_private(interaction, text)

    @app_commands.command(name="status", description="Is the heartbeat on here, and what's next?")
    async def status(self, interaction: discord.Interaction[Any]) -> None:
        runtime = runtime_of(interaction)
        channel_id = here(interaction)
        job = await heartbeat.find(runtime.engine, channel_id)
        pending = len(await todos_of(interaction).pending(channel_id))
        todos = f"{pending} open to-do{'s' if pending != 1 else ''} here."
        if job is None:
            text = f"The heartbeat is off here. {todos} `/heartbeat on` starts it."
        else:
            state = "on" if job.status == JobStatus.ACTIVE else job.status
            when = (
                f", next check {ts(job.next_run_at, 'R')}"
                if job.next_run_at and job.status == JobStatus.ACTIVE
                else ""
            )
            every = heartbeat.every_words(heartbeat.interval_of(job))
            text = (
                f"💓 Heartbeat is {state} (job #{job.id}, set by <@{job.owner_id}>): "
                f"{every}{when}. {todos}"
            )
        await reply_private(interaction, text)
