"""Discord faults on delivery, against the fake Discord: retries, fallbacks, failure notices."""

from __future__ import annotations

from datetime import timedelta

import pytest

from bot.app import HomarBot
from storage.models import JobStatus, RunOutcome
from tests.bot.harness import World, running_bot, settle
from tests.fakediscord import FakeChannel
from tools.jobs.model import Target
from tools.schedule import Every, Once, Schedule

SEND = r"/channels/\d+/messages$"


def thread_of(world: World) -> FakeChannel:
    return world.fake.add_thread(world.channel.id, "plans")


async def schedule(bot: HomarBot, world: World, thread: FakeChannel, every: bool = False) -> int:
    when = world.clock.now() + timedelta(minutes=1)
    spec = Every(3600, when) if every else Once(when)
    job = await bot.runtime.engine.create(
        target=Target(world.alice.id, thread.id, world.guild.id, world.channel.id),
        command="water the plants",
        kind="recurring" if every else "reminder",
        schedule=Schedule(spec),
        check_limits=False,
    )
    return job.id


async def move(bot: HomarBot, world: World, seconds: float) -> None:
    await world.clock.advance(seconds)
    await settle(bot)


def markers(world: World, channel_id: int) -> list[str]:
    return [m.content for m in world.markers(channel_id)]


async def test_server_errors_are_retried_with_backoff_and_recorded(world: World) -> None:
    thread = thread_of(world)
    async with running_bot(world) as bot:
        job_id = await schedule(bot, world, thread)
        world.fake.inject_fault("POST", SEND, status=503, count=2)
        await move(bot, world, 60)
        assert markers(world, thread.id) == []
        await move(bot, world, 2)  # first backoff
        await move(bot, world, 4)  # second backoff
        assert len(markers(world, thread.id)) == 1
        [run] = await bot.runtime.engine.history(job_id)
    assert run.outcome == RunOutcome.DELIVERED and run.attempt == 3
    errors = (run.details or {})["errors"]
    assert [e["attempt"] for e in errors] == [1, 2]
    assert all("503" in e["error"] for e in errors)


async def test_rate_limits_and_dropped_connections_still_deliver(world: World) -> None:
    thread = thread_of(world)
    async with running_bot(world) as bot:
        await schedule(bot, world, thread)
        world.fake.inject_fault("POST", SEND, status=429, count=2)
        world.fake.inject_fault("POST", SEND, drop=True, count=1)
        await move(bot, world, 60)
        for _ in range(3):
            await move(bot, world, 10)
    assert len(markers(world, thread.id)) == 1


async def test_retries_stop_after_the_window_and_the_run_fails(world: World) -> None:
    thread = thread_of(world)
    async with running_bot(world) as bot:
        job_id = await schedule(bot, world, thread)
        world.fake.inject_fault("POST", SEND, status=503, count=10_000)
        await move(bot, world, 60)
        for _ in range(40):
            await move(bot, world, 30)
        job = await bot.runtime.engine.get(job_id)
        [run] = await bot.runtime.engine.history(job_id)
    assert job.status == JobStatus.FAILED and "503" in (job.fail_reason or "")
    assert run.outcome == RunOutcome.FAILED and len(run.details["errors"]) >= 8


async def test_archived_thread_is_reopened_and_delivered(world: World) -> None:
    thread = thread_of(world)
    async with running_bot(world) as bot:
        await schedule(bot, world, thread)
        await world.fake.archive_thread(thread.id)
        await move(bot, world, 60)
    assert len(markers(world, thread.id)) == 1


@pytest.mark.parametrize("fault", ["locked", "deleted", "no_access"])
async def test_unreachable_thread_goes_to_the_owners_dm_with_a_note(
    world: World, fault: str
) -> None:
    thread = thread_of(world)
    async with running_bot(world) as bot:
        job_id = await schedule(bot, world, thread)
        if fault == "locked":
            await world.fake.archive_thread(thread.id, locked=True)
        elif fault == "deleted":
            await world.fake.delete_channel(thread.id)
        else:
            world.fake.deny_access(thread.id)
        await move(bot, world, 60)
        [run] = await bot.runtime.engine.history(job_id)
    dm = world.fake.dm_channel(world.alice.id)
    [marker] = markers(world, dm.id)
    assert "water the plants" in marker
    assert f"This was meant for <#{thread.id}>" in marker
    assert run.outcome == RunOutcome.DELIVERED and run.details["route"] == "dm"


async def test_closed_dms_fall_back_to_the_parent_channel_with_a_mention(world: World) -> None:
    thread = thread_of(world)
    async with running_bot(world) as bot:
        await schedule(bot, world, thread)
        await world.fake.delete_channel(thread.id)
        world.fake.close_dms(world.alice.id)
        await move(bot, world, 60)
    [marker] = [m for m in world.markers(world.channel.id)]
    assert f"<@{world.alice.id}>" in marker.content
    assert marker.allowed_mentions is not None
    assert [int(u) for u in marker.allowed_mentions.get("users", [])] == [world.alice.id]
    assert not marker.allowed_mentions.get("parse")


async def test_every_path_failing_fails_the_run_with_the_reason(world: World) -> None:
    thread = thread_of(world)
    async with running_bot(world) as bot:
        job_id = await schedule(bot, world, thread)
        await world.fake.delete_channel(thread.id)
        world.fake.close_dms(world.alice.id)
        world.fake.deny_access(world.channel.id)
        await move(bot, world, 60)
        job = await bot.runtime.engine.get(job_id)
        [run] = await bot.runtime.engine.history(job_id)
    assert job.status == JobStatus.FAILED
    assert run.outcome == RunOutcome.FAILED
    assert "no longer exists" in (run.error or "") and "DMs are closed" in (run.error or "")


async def test_recurring_failures_notify_the_owner_at_3_and_pause_at_10(world: World) -> None:
    thread = thread_of(world)
    dm_send = rf"/channels/{world.fake.dm_channel(world.alice.id).id}/messages$"
    async with running_bot(world) as bot:
        job_id = await schedule(bot, world, thread, every=True)
        # Every marker fails: the thread is gone, the parent denied, the DM refused.
        await world.fake.delete_channel(thread.id)
        world.fake.deny_access(world.channel.id)
        world.fake.close_dms(world.alice.id)
        await move(bot, world, 60)  # run 1
        await move(bot, world, 3600)  # run 2
        # From now on DMs are open but each run's marker is refused there: the notes get through.
        world.fake.close_dms(world.alice.id, closed=False)
        world.fake.inject_fault("POST", dm_send, status=403, count=1)
        await move(bot, world, 3600)  # run 3 → the first note
        dm = world.fake.dm_channel(world.alice.id)
        await world.bot_says(dm.id, lambda m: "3 times" in m.content, include_existing=True)
        world.fake.inject_fault("POST", dm_send, status=403, count=7)
        for _ in range(7):  # runs 4-10 → paused, the second note
            await move(bot, world, 3600)
        job = await bot.runtime.engine.get(job_id)
        runs = await bot.runtime.engine.history(job_id, limit=20)
        await world.bot_says(dm.id, lambda m: "paused" in m.content, include_existing=True)
        notes = [m.content for m in world.fake.bot_messages(dm.id)]
    assert [r.outcome for r in runs] == [RunOutcome.FAILED] * 10
    assert job.status == JobStatus.PAUSED and "10 failed runs" in (job.fail_reason or "")
    assert len(notes) == 2, notes
    assert "failed 3 times in a row" in notes[0] and f"/jobs history id: {job_id}" in notes[0]
    assert "paused" in notes[1] and f"/jobs resume id: {job_id}" in notes[1]
