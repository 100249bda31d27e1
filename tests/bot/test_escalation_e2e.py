"""Seed 001's escalation end to end: /remind escalate:dm → nudges → one DM with Done/Snooze."""

from __future__ import annotations

from bot.app import HomarBot
from storage.jobs import Job
from tests.bot.harness import World, running_bot, settle
from tests.bot.test_followups_e2e import button, fires, job_of, quiet, runs_of
from tests.bot.test_slash import answer, slash, text_of


async def escalating(world: World, bot: HomarBot) -> Job:
    h = await slash(world, "remind", when="in 10 minutes", what="submit the report", escalate="dm")
    data = await answer(h)
    assert "DM you once" in text_of(data)
    (job,) = await bot.runtime.engine.list_jobs(owner_id=world.alice.id)
    assert job.follow_up == {"interval_s": 1800, "max": 2, "escalate": "dm"}
    return job


async def ignored(world: World, bot: HomarBot, job: Job) -> None:
    """The reminder and both follow-ups go by without an answer."""
    channel = world.channel.id
    await fires(world, bot, channel, 10 * 60)
    await fires(world, bot, channel, 30 * 60)
    await fires(world, bot, channel, 30 * 60)


async def test_one_dm_after_the_last_follow_up(world: World) -> None:
    async with running_bot(world) as bot:
        job = await escalating(world, bot)
        await ignored(world, bot, job)
        dm = world.fake.dm_channel(world.alice.id)
        assert world.bot_messages(dm.id) == []
        await world.clock.advance(30 * 60)
        said = await world.bot_says(dm.id, include_existing=True)
        await settle(bot)
        assert "submit the report" in said.content and f"<#{world.channel.id}>" in said.content
        assert "3 times" in said.content
        assert {c.split(":")[1] for c in said.custom_ids()} == {"done", "snooze"}
        # nothing more in the thread, no marker for the escalation, no second DM
        await quiet(world, bot, world.channel.id, 6 * 3600)
        assert len(world.bot_messages(dm.id)) == 1
        assert len(world.markers(world.channel.id)) == 3
        runs = await runs_of(bot, job.id)
        assert [r.kind for r in runs] == ["run", "follow_up", "follow_up", "escalate"]
        assert runs[-1].executed_at is not None
        assert (runs[-1].details or {})["route"] == "escalation-dm"
        assert (await job_of(bot, job.id)).status == "completed"


async def test_done_in_the_dm_works_and_restart_sends_no_second_dm(world: World) -> None:
    async with running_bot(world) as bot:
        job = await escalating(world, bot)
        await ignored(world, bot, job)
        await world.clock.advance(30 * 60)
        dm = world.fake.dm_channel(world.alice.id)
        said = await world.bot_says(dm.id, include_existing=True)
        await settle(bot)
    async with running_bot(world) as bot:  # a restart: the escalation is not re-fed nor re-sent
        await quiet(world, bot, world.channel.id, 3600)
        assert len(world.bot_messages(dm.id)) == 1
        click = await world.fake.click_button(said.id, button(said, "done"), world.alice.id)
        await click.wait_answer()
        assert click.updated_in_place
        updated = world.fake.get_message(said.id)
        assert updated is not None and "Done" in updated.content
        runs = await runs_of(bot, job.id)
        assert (runs[-1].details or {})["acknowledged"]["how"] == "done"


async def test_closed_dms_fall_back_to_the_thread(world: World) -> None:
    async with running_bot(world) as bot:
        job = await escalating(world, bot)
        await ignored(world, bot, job)
        world.fake.close_dms(world.alice.id)
        since = max(m.id for m in world.fake.messages(world.channel.id))
        await world.clock.advance(30 * 60)
        said = await world.bot_says(world.channel.id, lambda m: m.id > since)
        await settle(bot)
        assert said.content.startswith(f"<@{world.alice.id}>") and "this thread" in said.content
        assert not said.content.startswith("[DELAYED_COMMAND]")
        runs = await runs_of(bot, job.id)
        assert (runs[-1].details or {})["route"] == "escalation-thread"


async def test_answered_reminder_never_escalates(world: World) -> None:
    async with running_bot(world) as bot:
        job = await escalating(world, bot)
        await fires(world, bot, world.channel.id, 10 * 60)
        second = await fires(world, bot, world.channel.id, 30 * 60)
        click = await world.fake.click_button(second.id, button(second, "done"), world.alice.id)
        await click.wait_answer()
        assert click.updated_in_place
        await settle(bot)
        await quiet(world, bot, world.channel.id, 4 * 3600)
        dm = world.fake.dm_channel(world.alice.id)
        assert world.bot_messages(dm.id) == []
        assert (await job_of(bot, job.id)).status == "completed"
