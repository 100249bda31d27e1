"""/jobs: list, cancel, pause, resume, edit, history and run-now, all private."""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands

from bot.slash.context import actor_of, reply_private, runtime_of, zone_of
from bot.slash.listing import page_embed
from bot.slash.render import choice_label, history, repeat_words, ts
from bot.slash.transform import WhenOption
from bot.slash.when import Instant, plan, wants_repeat
from bot.views import pager
from storage.models import JobKind
from tools.engine import schedule_of
from tools.errors import UserError
from tools.schedule import Every, Schedule


async def own_job_choices(
    interaction: discord.Interaction[Any], current: str, *, include_closed: bool = False
) -> list[app_commands.Choice[int]]:
    """The caller's own jobs whose id or text matches what they typed so far."""
    engine = runtime_of(interaction).engine
    jobs = await engine.list_jobs(
        owner_id=interaction.user.id, include_closed=include_closed, limit=200
    )
    typed = current.strip().lstrip("#").casefold()
    out: list[app_commands.Choice[int]] = []
    for job in jobs:
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


def _next(job_next: Any) -> str:
    return f"next {ts(job_next, 'F')} ({ts(job_next, 'R')})" if job_next else "no next run"


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
        embed, more = await page_embed(interaction, scope, 0)
        await reply_private(interaction, embed=embed, view=pager(scope, 0, more=more))

    @app_commands.command(name="cancel", description="Cancel a job.")
    @app_commands.describe(id="The job's number")
    @app_commands.autocomplete(id=open_jobs)
    async def cancel(self, interaction: discord.Interaction[Any], id: int) -> None:
        job = await runtime_of(interaction).engine.cancel(id, actor_of(interaction))
        await reply_private(interaction, f"Cancelled #{job.id}: “{job.command[:200]}”.")

    @app_commands.command(name="pause", description="Pause a job until you resume it.")
    @app_commands.describe(id="The job's number")
    @app_commands.autocomplete(id=open_jobs)
    async def pause(self, interaction: discord.Interaction[Any], id: int) -> None:
        job = await runtime_of(interaction).engine.pause(id, actor_of(interaction))
        await reply_private(
            interaction, f"Paused #{job.id}. `/jobs resume id: {job.id}` restarts it."
        )

    @app_commands.command(name="resume", description="Resume a paused job.")
    @app_commands.describe(id="The job's number")
    @app_commands.autocomplete(id=open_jobs)
    async def resume(self, interaction: discord.Interaction[Any], id: int) -> None:
        job = await runtime_of(interaction).engine.resume(id, actor_of(interaction))
        await reply_private(interaction, f"Resumed #{job.id} — {_next(job.next_run_at)}.")

    @app_commands.command(name="edit", description="Change a job's time, text or repeat.")
    @app_commands.describe(
        id="The job's number",
        when="New time: 'tomorrow 9am', 'in 2 hours'",
        what="New text",
        repeat="New repeat: 'daily', 'every weekday at 9', or 'never'",
    )
    @app_commands.autocomplete(id=open_jobs)
    async def edit(
        self,
        interaction: discord.Interaction[Any],
        id: int,
        when: WhenOption | None = None,
        what: app_commands.Range[str, 1, 2000] | None = None,
        repeat: str | None = None,
    ) -> None:
        runtime = runtime_of(interaction)
        actor = actor_of(interaction)
        job = await runtime.engine.get(id, actor)
        schedule = None
        if when is not None or repeat is not None:
            schedule = await _new_schedule(
                interaction,
                job_schedule=schedule_of(job),
                kind=job.kind,
                when=when,
                repeat=repeat,
                next_run=job.next_run_at,
            )
        job = await runtime.engine.update(id, actor, command=what, schedule=schedule)
        await reply_private(
            interaction,
            f"Updated #{job.id}: “{job.command[:200]}” — {repeat_words(job)}, "
            f"{_next(job.next_run_at)}.",
        )

    @app_commands.command(name="history", description="A job's last 10 runs.")
    @app_commands.describe(id="The job's number")
    @app_commands.autocomplete(id=any_jobs)
    async def history_(self, interaction: discord.Interaction[Any], id: int) -> None:
        engine = runtime_of(interaction).engine
        actor = actor_of(interaction)
        runs = await engine.history(id, actor, limit=10)
        job = await engine.get(id, actor)
        await reply_private(interaction, embed=history(job, runs))

    @app_commands.command(name="run-now", description="Run a job right away.")
    @app_commands.describe(id="The job's number")
    @app_commands.autocomplete(id=open_jobs)
    async def run_now(self, interaction: discord.Interaction[Any], id: int) -> None:
        job = await runtime_of(interaction).engine.run_now(id, actor_of(interaction))
        tail = " It then continues on its schedule." if schedule_of(job).is_recurring else ""
        await reply_private(interaction, f"Running #{job.id} now.{tail}")


async def _new_schedule(
    interaction: discord.Interaction[Any],
    *,
    job_schedule: Schedule,
    kind: str,
    when: Instant | None,
    repeat: str | None,
    next_run: Any,
) -> Schedule:
    """The edited schedule: a new time keeps the repeat, a new repeat keeps the time."""
    runtime = runtime_of(interaction)
    now = runtime.clock.now()
    tz = (await zone_of(interaction)).name
    if when is not None:
        start = when
    elif next_run is not None:
        start = Instant(next_run, tz, "")
    else:
        raise UserError("That job has no next run; give a new `when` too.")
    one_off = JobKind.REMINDER if kind == JobKind.REMINDER else JobKind.SCHEDULED
    if repeat is not None:
        return plan(
            start, now=now, repeat=repeat if wants_repeat(repeat) else None, one_off_kind=one_off
        ).schedule
    if not job_schedule.is_recurring:
        return plan(start, now=now, one_off_kind=one_off).schedule
    spec = job_schedule.spec
    if isinstance(spec, Every):
        return Schedule(
            Every(spec.seconds, start.at),
            job_schedule.tz,
            job_schedule.until,
            job_schedule.max_runs,
        )
    raise UserError(
        "That job repeats on a pattern; give the new `repeat` as well, e.g. "
        "`every weekday at 9`, or `never` to make it a one-off."
    )
