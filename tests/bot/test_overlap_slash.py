"""Seed 004 on /remind: no next turn to answer in, so the confirmation says it instead."""

from __future__ import annotations

from tests.bot.harness import World, running_bot
from tests.bot.test_slash import answer, slash, text_of


async def test_remind_mentions_overlap_and_same_minute(world: World) -> None:
    async with running_bot(world) as bot:
        first = await answer(
            await slash(world, "remind", when="tomorrow 9am", what="stand up", repeat="daily")
        )
        assert "Already scheduled" not in text_of(first) and "Same minute" not in text_of(first)
        (old,) = await bot.runtime.engine.list_jobs(owner_id=world.alice.id)
        again = text_of(
            await answer(
                await slash(
                    world, "remind", when="tomorrow 9am", what="Stand up", repeat="every weekday"
                )
            )
        )
        assert f"You already had #{old.id} “stand up” every day at 09:00" in again
        assert f"/jobs cancel id: {old.id}" in again
        other = text_of(
            await answer(await slash(world, "remind", when="tomorrow 9am", what="water plants"))
        )
        assert "Same minute" in other and f"#{old.id} “stand up”" in other
        assert "Already scheduled" not in other
        long = "x" * 1500
        big = text_of(await answer(await slash(world, "remind", when="tomorrow 9am", what=long)))
        assert "Same minute" in big  # the field stays within Discord's limits
        assert len(await bot.runtime.engine.list_jobs(owner_id=world.alice.id)) == 4
