"""End to end: "Save as template" on a /remind confirmation, then `/remind template:`."""

from __future__ import annotations

from typing import Any

from bot.app import HomarBot
from storage.jobs import Job
from tests.bot.harness import World, running_bot
from tests.fakediscord import InteractionHandle
from tools.audience import Audience
from tools.jobs.model import schedule_of


async def remind(world: World, user: int, **values: Any) -> InteractionHandle:
    types = {"to": 9, "follow_up": 5}
    options = [
        {"name": k, "type": types.get(k, 3), "value": str(v) if k == "to" else v}
        for k, v in values.items()
    ]
    return await world.fake.slash("remind", options, user_id=user, channel_id=world.channel.id)


def content(body: dict[str, Any]) -> str:
    return str((body.get("data") or {}).get("content") or "")


async def said(handle: Any) -> str:
    """A command's answer (commands are deferred first, then answered)."""
    return str((await handle.wait_answer()).get("content") or "")


async def jobs(bot: HomarBot) -> list[Job]:
    return await bot.runtime.engine.list_jobs(include_closed=True)


async def save(world: World, user: int, job_id: int, name: str) -> str:
    handle = await world.fake.submit_modal(
        f"homar:tplname:{job_id}", {"name": name}, user_id=user, channel_id=world.channel.id
    )
    return await said(handle)


async def test_save_as_template_then_remind_from_it(world: World) -> None:
    team = world.fake.add_role(world.guild.id, "team", mentionable=True)
    async with running_bot(world) as bot:
        made = await remind(
            world,
            world.alice.id,
            when="tomorrow 9am",
            what="standup",
            repeat="every weekday",
            to=team.id,
            follow_up=True,
        )
        data = await made.wait_answer()
        [job] = await jobs(bot)
        ids = [c["custom_id"] for row in data["components"] for c in row["components"]]
        assert f"homar:tplsave:{job.id}" in ids
        confirmation = await made.wait_original()
        opened = await world.fake.click_button(
            confirmation.id, f"homar:tplsave:{job.id}", world.alice.id
        )
        assert (await opened.wait_response())["type"] == 9  # the name form opens
        stolen = await save(world, world.bob.id, job.id, "mine now")
        assert "Only the reminder's owner" in stolen
        assert "Saved as template **standup**" in await save(
            world, world.alice.id, job.id, "standup"
        )
        again = await save(world, world.alice.id, job.id, "standup")
        assert "already has a template called **standup**" in again

        handle = await world.fake.autocomplete(
            "remind",
            {"when": "x", "template": "sta"},
            "template",
            user_id=world.bob.id,
            channel_id=world.channel.id,
        )
        choices = (await handle.wait_response())["data"]["choices"]
        assert [c["value"] for c in choices] == ["standup"]

        await (
            await remind(world, world.bob.id, when="monday 10am", template="standup")
        ).wait_answer()
        new = max(await jobs(bot), key=lambda j: j.id)
    assert new.owner_id == world.bob.id and new.command == "standup"
    assert "every weekday" in schedule_of(new).describe()
    assert Audience.from_json(new.audience).roles == (team.id,)
    assert new.follow_up is not None


async def test_template_audience_is_checked_for_whoever_uses_it(world: World) -> None:
    boss = world.fake.add_role(world.guild.id, "boss", permissions=1 << 17)  # Mention Everyone
    team = world.fake.add_role(world.guild.id, "team", mentionable=True)
    await world.fake.set_member_roles(world.guild.id, world.alice.id, [boss.id])
    async with running_bot(world) as bot:
        made = await remind(world, world.alice.id, when="tomorrow 9am", what="x", to=team.id)
        await made.wait_answer()
        [job] = await jobs(bot)
        assert "Saved" in await save(world, world.alice.id, job.id, "team ping")
        await world.fake.update_role(world.guild.id, team.id, mentionable=False)
        used = await remind(world, world.bob.id, when="tomorrow 9am", template="team ping")
        assert "You can't ping @team" in await said(used)
        unknown = await remind(world, world.bob.id, when="tomorrow 9am", template="nope")
        assert "no template called" in await said(unknown)
        bare = await remind(world, world.bob.id, when="tomorrow 9am")
        assert "Tell me what to remind you about" in await said(bare)
        assert [j.id for j in await jobs(bot)] == [job.id]
