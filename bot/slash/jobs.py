"""/jobs: list, cancel, pause, resume, edit, history and run-now, all private."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Literal

import discord
from discord import app_commands

from bot.commands import jobs
from bot.commands.cards import choice_label
from bot.slash.context import answer, caller_of, runtime_of
from bot.slash.remind import Channel, audience_of
from bot.slash.transform import WhenOption
from storage.jobs import Job
from tools.audience import Addressing, Audience, check_change


async def own_job_choices(
    interaction: discord.Interaction[Any], current: str, *, include_closed: bool = False
) -> list[app_commands.Choice[int]]:
    """The caller's own jobs whose id or text matches what they typed so far."""
    engine = runtime_of(interaction).engine
    jobs_found = await engine.list_jobs(
        owner_id=interaction.user.id, include_closed=include_closed, limit=200
    )
    typed = current.strip().lstrip("#").casefold()
    out: list[app_commands.Choice[int]] = []
    for job in jobs_found:
        if typed and not (str(job.id).startswith(typed) or typed in job.command.casefold()):
            continue
        out.append(app_commands.Choice(name=choice_label(job), value=job.id))
        if len(out) == 25:
            break
    return out


async def open_jobs(
    interaction: discord.Interaction[Any], current: str
) -> list[app_commands.Choice[int]]:
    return await own_job_choices(interaction, current)


async def any_jobs(
    interaction: discord.Interaction[Any], current: str
) -> list[app_commands.Choice[int]]:
    return await own_job_choices(interaction, current, include_closed=True)


class JobsGroup(app_commands.Group):
    """Your scheduled jobs."""

    def __init__(self) -> None:
        super().__init__(name="jobs", description="See and change scheduled jobs (no AI).")

    @app_commands.command(name="list", description="List jobs, soonest first (private).")
    @app_commands.describe(scope="mine (default), thread (this channel) or server (moderators)")
    @app_commands.choices(
        scope=[
            app_commands.Choice(name="mine", value="mine"),
            app_commands.Choice(name="thread", value="thread"),
            app_commands.Choice(name="server", value="server"),
        ]
    )
    async def list_(self, interaction: discord.Interaction[Any], scope: str = "mine") -> None:
        await answer(interaction, await jobs.list_page(await caller_of(interaction), scope, 0))

    @app_commands.command(name="cancel", description="Cancel a job.")
    @app_commands.describe(id="The job's number")
    @app_commands.autocomplete(id=open_jobs)
    async def cancel(self, interaction: discord.Interaction[Any], id: int) -> None:
        await answer(interaction, await jobs.cancel(await caller_of(interaction), id))

    @app_commands.command(name="pause", description="Pause a job until you resume it.")
    @app_commands.describe(id="The job's number")
    @app_commands.autocomplete(id=open_jobs)
    async def pause(self, interaction: discord.Interaction[Any], id: int) -> None:
        await answer(interaction, await jobs.pause(await caller_of(interaction), id))

    @app_commands.command(name="resume", description="Resume a paused job.")
    @app_commands.describe(id="The job's number")
    @app_commands.autocomplete(id=open_jobs)
    async def resume(self, interaction: discord.Interaction[Any], id: int) -> None:
        await answer(interaction, await jobs.resume(await caller_of(interaction), id))

    @app_commands.command(
        name="edit", description="Change a job's time, text, repeat, who it reminds or its nudges."
    )
    @app_commands.describe(
        id="The job's number",
        when="New time: 'tomorrow 9am', 'in 2 hours'",
        what="New text",
        repeat="New repeat: 'daily', 'every weekday at 9', or 'never'",
        until="New end of a repeating job: 'friday', '2026-12-31', '5 times'",
        follow_up="True: nudge again if nobody answers; False: stop the nudges",
        escalate="dm: if every nudge is ignored, DM the owner once (turns the nudges on)",
        to="Remind someone else or a role instead (who it reminds is replaced)",
        channel="Post it in this channel of the server (who it reminds is replaced)",
        deliver="'dm' sends it by DM (who it reminds is replaced)",
    )
    @app_commands.autocomplete(id=open_jobs)
    async def edit(
        self,
        interaction: discord.Interaction[Any],
        id: int,
        when: WhenOption | None = None,
        what: app_commands.Range[str, 1, 2000] | None = None,
        repeat: str | None = None,
        until: str | None = None,
        follow_up: bool | None = None,
        escalate: Literal["dm"] | None = None,
        to: discord.Member | discord.User | discord.Role | None = None,
        channel: Channel | None = None,
        deliver: Literal["here", "dm"] | None = None,
    ) -> None:
        caller = await caller_of(interaction)
        audience = follow = check = None
        if any(o is not None for o in (follow_up, escalate, to, channel, deliver)):
            # Whether the caller may edit it is checked here first (NotAllowed), as in `edit`.
            job = await caller.runtime.engine.get(id, caller.actor)
            follow = jobs.follow_up_change(job.follow_up, follow_up, escalate)
            if to is not None or channel is not None or deliver is not None:
                audience = audience_of(job.owner_id, to, channel, deliver)
                check = _change_check(interaction, job)
        changed = await jobs.edit(
            caller,
            id,
            when=when,
            what=what,
            repeat=repeat,
            until=until,
            audience=audience,
            check_audience=check,
            follow_up=follow,
        )
        await answer(interaction, changed)

    @app_commands.command(name="history", description="A job's last 10 runs.")
    @app_commands.describe(id="The job's number")
    @app_commands.autocomplete(id=any_jobs)
    async def history_(self, interaction: discord.Interaction[Any], id: int) -> None:
        await answer(interaction, await jobs.history(await caller_of(interaction), id))

    @app_commands.command(name="run-now", description="Run a job right away.")
    @app_commands.describe(id="The job's number")
    @app_commands.autocomplete(id=open_jobs)
    async def run_now(self, interaction: discord.Interaction[Any], id: int) -> None:
        await answer(interaction, await jobs.run_now(await caller_of(interaction), id))


def _change_check(
    interaction: discord.Interaction[Any], job: Job
) -> Callable[[Audience], Awaitable[None]]:
    """`/remind to:`'s rules for a job's new audience: its owner may address it where the
    job lives, and so may whoever changes it (a moderator; see `check_change`)."""
    gate = interaction.client.audience_gate
    where = Addressing(job.owner_id, job.guild_id, job.channel_id)

    async def check(audience: Audience) -> None:
        await check_change(gate, audience, where, interaction.user.id)

    return check
