"""End to end: /remind, /jobs, /timezone and /help on the fake Discord, without the model."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from bot.app import HomarBot
from storage.jobs import Job
from storage.models import JobKind
from storage.user_settings import UserSettingsStore
from tests.bot.harness import World, running_bot
from tests.fakediscord import EPHEMERAL, InteractionHandle
from tools.jobs.model import Target, schedule_of
from tools.schedule import Once, Schedule


async def answer(handle: InteractionHandle) -> dict[str, Any]:
    return await handle.wait_answer()


def text_of(data: dict[str, Any]) -> str:
    parts = [str(data.get("content") or "")]
    for embed in data.get("embeds") or []:
        parts += [str(embed.get("title", "")), str(embed.get("description", ""))]
        parts += [f"{f['name']} {f['value']}" for f in embed.get("fields", [])]
        parts.append(str((embed.get("footer") or {}).get("text", "")))
    return "\n".join(parts)


def custom_ids(data: dict[str, Any]) -> list[str]:
    return [c["custom_id"] for row in data.get("components") or [] for c in row["components"]]


async def slash(world: World, name: str, user: int | None = None, **kw: Any) -> InteractionHandle:
    sub = kw.pop("sub", None)
    channel = kw.pop("channel", world.channel.id)
    return await world.fake.slash(
        name, kw, subcommand=sub, user_id=user or world.alice.id, channel_id=channel
    )


async def add_job(bot: HomarBot, world: World, owner: int, text: str, hours: float) -> Job:
    engine = bot.runtime.engine
    at = world.clock.now() + timedelta(hours=hours)
    return await engine.create(
        target=Target(owner, world.channel.id, world.guild.id),
        command=text,
        schedule=Schedule(Once(at), "UTC"),
        kind=JobKind.REMINDER,
        check_limits=False,
    )


async def test_commands_are_synced_globally(world: World) -> None:
    async with running_bot(world):
        names = {c["name"] for c in world.fake.global_commands}
    assert {"remind", "jobs", "timezone", "help"} <= names
    jobs = next(c for c in world.fake.global_commands if c["name"] == "jobs")
    subs = {o["name"] for o in jobs["options"]}
    assert subs == {"list", "cancel", "pause", "resume", "edit", "history", "run-now"}


async def test_dev_guild_syncs_to_that_guild_only(world: World) -> None:
    async with running_bot(world, dev_guild_id=world.guild.id):
        names = {c["name"] for c in world.fake.guild_commands.get(world.guild.id, [])}
    assert "remind" in names


async def test_remind_confirms_privately_with_timestamps_and_cancel(world: World) -> None:
    async with running_bot(world) as bot:
        h = await slash(world, "remind", when="tomorrow 9am", what="call the dentist")
        data = await answer(h)
        (job,) = await bot.runtime.engine.list_jobs(owner_id=world.alice.id)
    # Acknowledged at once and privately, before any database work; then answered.
    assert h.response_type == 5 and h.ephemeral
    text = text_of(data)
    unix = int(job.next_run_at.timestamp()) if job.next_run_at else 0
    assert f"<t:{unix}:F>" in text and f"<t:{unix}:R>" in text
    assert "call the dentist" in text and f"#{job.id}" in text
    assert "does not repeat" in text
    assert "assumed" in text and "/timezone set" in text
    assert custom_ids(data) == [f"homar:cancel:{job.id}", f"homar:tplsave:{job.id}"]
    assert job.kind == "reminder" and job.created_by == "user"
    assert job.channel_id == world.channel.id and job.guild_id == world.guild.id
    assert job.next_run_at is not None and job.next_run_at.hour == 9


async def test_remind_in_a_thread_records_the_parent(world: World) -> None:
    thread = world.fake.add_thread(world.channel.id, "plans")
    async with running_bot(world) as bot:
        h = await slash(world, "remind", when="in 1 hour", what="stretch", channel=thread.id)
        await answer(h)
        (job,) = await bot.runtime.engine.list_jobs(owner_id=world.alice.id)
    assert job.channel_id == thread.id and job.parent_channel_id == world.channel.id


async def test_remind_repeat_until_and_follow_up(world: World) -> None:
    async with running_bot(world) as bot:
        h = await slash(
            world,
            "remind",
            when="tomorrow 18:00",
            what="water plants",
            repeat="daily",
            until="5 times",
            follow_up=True,
        )
        data = await answer(h)
        (job,) = await bot.runtime.engine.list_jobs(owner_id=world.alice.id)
    assert job.kind == "recurring" and job.max_runs == 5
    assert job.follow_up == {"interval_s": 1800, "max": 2}
    assert "every day at 18:00" in text_of(data)


async def test_remind_unparseable_when_gives_examples(world: World) -> None:
    async with running_bot(world) as bot:
        h = await slash(world, "remind", when="when pigs fly", what="x")
        data = await answer(h)
        jobs = await bot.runtime.engine.list_jobs(owner_id=world.alice.id)
    assert h.ephemeral and jobs == []
    assert "tomorrow 9am" in data["content"] and "pigs" in data["content"]


async def test_remind_uses_the_users_zone_without_the_assumed_note(world: World) -> None:
    async with running_bot(world) as bot:
        await UserSettingsStore(bot.runtime.db).set_tz(world.alice.id, "America/New_York")
        h = await slash(world, "remind", when="tomorrow 9am", what="coffee")
        data = await answer(h)
        (job,) = await bot.runtime.engine.list_jobs(owner_id=world.alice.id)
    assert job.tz == "America/New_York" and job.next_run_at is not None
    assert job.next_run_at.hour == 14  # 09:00 in New York is 14:00 UTC in November
    assert "assumed" not in text_of(data)


async def test_cancel_button_refuses_others_and_cancels_for_owner(world: World) -> None:
    async with running_bot(world) as bot:
        h = await slash(world, "remind", when="in 2 hours", what="cake")
        data = await answer(h)
        (cid, _save) = custom_ids(data)
        message = await h.wait_original()

        other = await world.fake.click_button(message.id, cid, world.bob.id)
        refused = await answer(other)
        assert other.ephemeral and "isn't yours" in refused["content"]
        (job,) = await bot.runtime.engine.list_jobs(owner_id=world.alice.id)
        assert job.status == "active"

        mine = await world.fake.click_button(message.id, cid, world.alice.id)
        await mine.wait_answer()
        job = await bot.runtime.engine.get(job.id)
    assert mine.updated_in_place
    assert job.status == "cancelled"
    assert "Cancelled" in message.content and message.components == []


async def test_jobs_list_paginates_soonest_first(world: World) -> None:
    async with running_bot(world) as bot:
        jobs = [await add_job(bot, world, world.alice.id, f"task {i}", i + 1) for i in range(12)]
        await add_job(bot, world, world.bob.id, "bob's secret", 1)
        h = await slash(world, "jobs", sub="list")
        data = await answer(h)
        first = text_of(data)
        assert h.ephemeral
        assert f"#{jobs[0].id}" in first and f"#{jobs[9].id}" in first
        assert f"#{jobs[10].id}" not in first and "bob's secret" not in first
        assert first.index(f"#{jobs[0].id}") < first.index(f"#{jobs[1].id}")
        assert "<t:" in first and ":R>" in first and "reminder" in first and "active" in first
        assert custom_ids(data) == ["homar:jobs:page:mine:0", "homar:jobs:page:mine:1"]

        message = await h.wait_original()
        nxt = await world.fake.click_button(message.id, "homar:jobs:page:mine:1", world.alice.id)
        await nxt.wait_answer()
    second = text_of({"embeds": message.embeds})
    assert nxt.updated_in_place
    assert f"#{jobs[10].id}" in second and f"#{jobs[11].id}" in second
    assert "“task 0”" not in second and "Page 2" in second


async def test_jobs_list_server_scope_needs_manage_messages(world: World) -> None:
    async with running_bot(world) as bot:
        await add_job(bot, world, world.alice.id, "alice task", 1)
        h = await slash(world, "jobs", world.bob.id, sub="list", scope="server")
        refused = await answer(h)
        assert h.ephemeral and "Manage Messages" in refused["content"]

        mods = world.fake.add_role(world.guild.id, "mods", manage_messages=True)
        world.fake.add_member(world.guild.id, world.bob.id, roles=[mods.id])
        h = await slash(world, "jobs", world.bob.id, sub="list", scope="server")
        allowed = await answer(h)
    assert "alice task" in text_of(allowed)


async def test_jobs_list_thread_scope(world: World) -> None:
    async with running_bot(world) as bot:
        await add_job(bot, world, world.bob.id, "bob here", 1)
        h = await slash(world, "jobs", sub="list", scope="thread")
        data = await answer(h)
    assert "bob here" in text_of(data)


async def test_job_ids_autocomplete_from_own_jobs(world: World) -> None:
    async with running_bot(world) as bot:
        mine = await add_job(bot, world, world.alice.id, "post standup notes", 1)
        await add_job(bot, world, world.alice.id, "water plants", 2)
        await add_job(bot, world, world.bob.id, "bob's thing", 1)
        h = await world.fake.autocomplete(
            "jobs",
            {"id": "stand"},
            "id",
            subcommand="cancel",
            user_id=world.alice.id,
            channel_id=world.channel.id,
        )
        body = await h.wait_response()
        everything = await world.fake.autocomplete(
            "jobs",
            {"id": ""},
            "id",
            subcommand="history",
            user_id=world.alice.id,
            channel_id=world.channel.id,
        )
        all_body = await everything.wait_response()
    assert body["type"] == 8
    (choice,) = body["data"]["choices"]
    assert choice["value"] == mine.id
    assert choice["name"].startswith(f"#{mine.id} ") and "post standup notes" in choice["name"]
    names = [c["name"] for c in all_body["data"]["choices"]]
    assert len(names) == 2 and not any("bob" in n for n in names)


async def test_someone_elses_job_is_refused(world: World) -> None:
    async with running_bot(world) as bot:
        job = await add_job(bot, world, world.alice.id, "alice only", 1)
        for sub in ("cancel", "pause", "history", "run-now"):
            h = await slash(world, "jobs", world.bob.id, sub=sub, id=job.id)
            data = await answer(h)
            assert h.ephemeral and "isn't yours" in data["content"], sub
        h = await slash(world, "jobs", world.bob.id, sub="edit", id=job.id, what="hacked")
        assert "isn't yours" in (await answer(h))["content"]
        job = await bot.runtime.engine.get(job.id)
    assert job.status == "active" and job.command == "alice only"


async def test_cancel_pause_resume_edit_history_run_now(world: World) -> None:
    async with running_bot(world) as bot:
        engine = bot.runtime.engine
        job = await add_job(bot, world, world.alice.id, "stretch", 3)

        h = await slash(world, "jobs", sub="pause", id=job.id)
        assert "Paused" in (await answer(h))["content"]
        assert (await engine.get(job.id)).status == "paused"

        h = await slash(world, "jobs", sub="resume", id=job.id)
        assert "Resumed" in (await answer(h))["content"]
        assert (await engine.get(job.id)).status == "active"

        h = await slash(world, "jobs", sub="edit", id=job.id, when="in 5 hours", what="yoga")
        assert "Updated" in (await answer(h))["content"]
        edited = await engine.get(job.id)
        assert edited.command == "yoga"
        assert edited.next_run_at == world.clock.now() + timedelta(hours=5)

        h = await slash(world, "jobs", sub="edit", id=job.id, repeat="daily")
        assert "every day" in (await answer(h))["content"]
        # the engine keeps a reminder's kind when it starts repeating
        assert schedule_of(await engine.get(job.id)).is_recurring

        h = await slash(world, "jobs", sub="history", id=job.id)
        assert "hasn't run yet" in text_of(await answer(h))

        h = await slash(world, "jobs", sub="run-now", id=job.id)
        assert "Running" in (await answer(h))["content"]
        marker = await world.bot_says(world.channel.id, lambda m: "yoga" in m.content)
        assert marker.content.startswith("[DELAYED_COMMAND]")

        h = await slash(world, "jobs", sub="cancel", id=job.id)
        assert "Cancelled" in (await answer(h))["content"]
        h = await slash(world, "jobs", sub="history", id=job.id)
        runs = text_of(await answer(h))
    assert "delivered" in runs or "pending" in runs
    assert (await engine.get(job.id)).status == "cancelled"


async def test_unknown_job_is_a_friendly_private_message(world: World) -> None:
    async with running_bot(world):
        h = await slash(world, "jobs", sub="cancel", id=999)
        data = await answer(h)
    assert h.ephemeral and "no job #999" in data["content"]


async def test_timezone_set_show_and_autocomplete(world: World) -> None:
    async with running_bot(world) as bot:
        h = await slash(world, "timezone", sub="show")
        assert "haven't set" in (await answer(h))["content"]

        ac = await world.fake.autocomplete(
            "timezone",
            {"zone": "berl"},
            "zone",
            subcommand="set",
            user_id=world.alice.id,
            channel_id=world.channel.id,
        )
        choices = (await ac.wait_response())["data"]["choices"]
        assert choices[0]["value"] == "Europe/Berlin"

        for typed, stored in (
            ("Berlin", "Europe/Berlin"),
            ("PST", "America/Los_Angeles"),
            ("UTC+2", "Etc/GMT-2"),
        ):
            h = await slash(world, "timezone", sub="set", zone=typed)
            data = await answer(h)
            assert h.ephemeral and stored in data["content"]
            assert await UserSettingsStore(bot.runtime.db).tz(world.alice.id) == stored

        h = await slash(world, "timezone", sub="set", zone="Narnia")
        assert "don't know" in (await answer(h))["content"]
        h = await slash(world, "timezone", sub="show")
        shown = (await answer(h))["content"]
    assert "Etc/GMT-2" in shown and "haven't" not in shown


async def test_help_lists_commands_with_examples(world: World) -> None:
    async with running_bot(world):
        h = await slash(world, "help")
        data = await answer(h)
    text = text_of(data)
    assert h.ephemeral
    for name in ("/remind", "/jobs", "/timezone", "@Homar"):
        assert name in text
    assert int(data.get("flags", 0)) & EPHEMERAL
