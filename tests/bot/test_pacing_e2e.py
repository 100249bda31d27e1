"""The real bot under Discord's limits (the fake's switch on): paced, not colliding."""

from __future__ import annotations

from datetime import timedelta

from tests.bot.harness import World, running_bot
from tools.jobs.model import Target
from tools.schedule import Once, Schedule

MARKER = "[DELAYED_COMMAND]"


async def test_a_burst_over_threads_is_paced_with_markers_before_replies(world: World) -> None:
    threads = [world.fake.add_thread(world.channel.id, f"t{i}") for i in range(2)]
    async with running_bot(world) as bot:
        # A small global limit, so that the burst has to wait for it (a few seconds).
        limits = world.fake.enforce_rate_limits(global_per_second=4)
        bot.transport.pacer.budget.per_second = 4
        when = world.clock.now() + timedelta(minutes=1)
        for i in range(6):
            await bot.runtime.engine.create(
                target=Target(world.alice.id, threads[i % 2].id, world.guild.id, world.channel.id),
                command=f"check item {i}",
                kind="reminder",
                schedule=Schedule(Once(when)),
                check_limits=False,
            )
        await world.clock.advance(60)

        def replied() -> bool:
            return all(len(world.bot_messages(t.id)) >= 6 for t in threads)

        await world.fake.wait_for(replied, timeout=30)
    assert limits.responses_429 == 0
    for thread in threads:
        said = [m.content for m in world.bot_messages(thread.id)]
        assert len(said) == 6
        # Every marker of the burst goes before any reply (they were due together).
        assert all(s.startswith(MARKER) for s in said[:3]), said
        assert not any(s.startswith(MARKER) for s in said[3:]), said
