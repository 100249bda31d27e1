"""End to end: zones people type (cities), a per-job zone, and jobs following a zone change."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from bot.app import HomarBot
from storage.jobs import Job
from storage.user_settings import UserSettingsStore
from tests.bot.harness import World, running_bot
from tests.fakediscord import InteractionHandle
from tools.jobs.model import schedule_of
from tools.schedule import Once, RRule


async def answer(handle: InteractionHandle) -> dict[str, Any]:
    return await handle.wait_answer()  # commands are deferred first, then answered


async def slash(world: World, name: str, sub: str | None = None, **options: Any) -> dict[str, Any]:
    handle = await world.fake.slash(
        name, options, subcommand=sub, user_id=world.alice.id, channel_id=world.channel.id
    )
    return await answer(handle)


async def jobs(bot: HomarBot) -> list[Job]:
    return await bot.runtime.engine.list_jobs(owner_id=None, include_closed=True)


async def test_timezone_set_takes_any_city_and_autocompletes_them(world: World) -> None:
    async with running_bot(world) as bot:
        data = await slash(world, "timezone", "set", zone="Springfield, US")
        assert "America/Chicago" in data["content"]
        assert await UserSettingsStore(bot.runtime.db).tz(world.alice.id) == "America/Chicago"
        handle = await world.fake.autocomplete(
            "timezone",
            {"zone": "cologn"},
            "zone",
            subcommand="set",
            user_id=world.alice.id,
            channel_id=world.channel.id,
        )
        choices = (await handle.wait_response())["data"]["choices"]
    assert choices[0]["value"] == "Europe/Berlin" and "(Köln), DE" in choices[0]["name"]


async def test_remind_reads_its_time_in_its_own_zone(world: World) -> None:
    async with running_bot(world) as bot:
        await UserSettingsStore(bot.runtime.db).set_tz(world.alice.id, "Europe/Berlin")
        data = await slash(world, "remind", when="tomorrow 9am", what="call Kenji", zone="Tokyo")
        [job] = await jobs(bot)
        bad = await slash(world, "remind", when="tomorrow 9am", what="x", zone="Narnia")
        assert len(await jobs(bot)) == 1
    assert job.tz == "Asia/Tokyo"
    assert job.next_run_at == datetime(2026, 11, 24, 0, 0, tzinfo=UTC)  # 09:00 in Tokyo
    assert "Asia/Tokyo" in str(data["embeds"][0]["footer"]["text"])
    assert "don't know the zone" in bad["content"]


async def test_changing_zone_asks_whether_jobs_follow(world: World) -> None:
    async with running_bot(world) as bot:
        store = UserSettingsStore(bot.runtime.db)
        await store.set_tz(world.alice.id, "Europe/Berlin")
        await slash(world, "remind", when="tomorrow 9am", what="stretch", repeat="daily")
        await slash(world, "remind", when="tomorrow 10am", what="tea")
        handle = await world.fake.slash(
            "timezone",
            {"zone": "Tokyo"},
            subcommand="set",
            user_id=world.alice.id,
            channel_id=world.channel.id,
        )
        data = await answer(handle)
        assert "You have 2 scheduled jobs in Europe/Berlin" in data["content"]
        [button] = [c["custom_id"] for row in data["components"] for c in row["components"]]
        before = {j.command: j for j in await jobs(bot)}
        assert all(j.tz == "Europe/Berlin" for j in before.values())  # nothing moves unasked

        message = await handle.wait_original()
        other = await world.fake.click_button(message.id, button, world.bob.id)
        assert "someone else's" in (await answer(other))["content"]
        click = await world.fake.click_button(message.id, button, world.alice.id)
        assert "Moved 2 jobs to Asia/Tokyo" in (await answer(click))["content"]
        after = {j.command: j for j in await jobs(bot)}
    tea, stretch = after["tea"], after["stretch"]
    assert tea.tz == stretch.tz == "Asia/Tokyo"
    tea_at = schedule_of(tea).spec
    assert isinstance(tea_at, Once) and tea_at.at == datetime(2026, 11, 24, 1, tzinfo=UTC)
    assert tea.next_run_at == tea_at.at  # 10:00 in Tokyo, as it was 10:00 in Berlin
    assert isinstance(schedule_of(stretch).spec, RRule)
    assert stretch.next_run_at == datetime(2026, 11, 24, 0, tzinfo=UTC)  # 09:00 in Tokyo
