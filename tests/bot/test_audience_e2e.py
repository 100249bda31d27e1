"""End to end: reminders for other people, roles, channels and DMs on the fake Discord.

Each case checks who the delivered message *really* notifies (`FakeDiscord.pinged`: the
mentions in its text that its `allowed_mentions` let through), and that every refused
request creates nothing.
"""

from __future__ import annotations

from typing import Any

import pytest
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from bot.app import HomarBot
from storage.jobs import Job
from tests.bot.harness import World, running_bot, settle
from tests.fakediscord import (
    MENTION_EVERYONE,
    SEND_MESSAGES,
    FakeChannel,
    FakeMessage,
    FakeRole,
    InteractionHandle,
    Pings,
)
from tools.audience import Audience


class Place:
    """The test server: #general (the world's), #announcements, roles, and a second server."""

    def __init__(self, world: World) -> None:
        fake = world.fake
        self.world = world
        self.announcements = fake.add_channel(world.guild.id, "announcements")
        self.team = fake.add_role(world.guild.id, "team", mentionable=True)
        self.mods = fake.add_role(world.guild.id, "mods", mentionable=False)
        other = fake.add_guild("Elsewhere")
        self.foreign = fake.add_channel(other.id, "elsewhere")
        self.foreign_role = fake.add_role(other.id, "strangers")
        self.carol = fake.add_user("carol")  # shares no server with alice
        fake.add_member(other.id, self.carol.id)


def opts(**values: Any) -> list[dict[str, Any]]:
    """Slash options with Discord's types: `to` mentionable, `channel` channel, `user` user."""
    types = {"to": 9, "channel": 7, "user": 6, "follow_up": 5, "enabled": 5}
    return [
        {"name": k, "type": types.get(k, 3), "value": str(v) if types.get(k, 3) != 5 else v}
        for k, v in values.items()
    ]


async def remind(world: World, user: int | None = None, **values: Any) -> dict[str, Any]:
    values.setdefault("when", "in 5 minutes")
    values.setdefault("what", "standup")
    handle = await world.fake.slash(
        "remind", opts(**values), user_id=user or world.alice.id, channel_id=world.channel.id
    )
    return await answer(handle)


async def answer(handle: InteractionHandle) -> dict[str, Any]:
    return await handle.wait_answer()  # commands are deferred first, then answered


def text_of(data: dict[str, Any]) -> str:
    parts = [str(data.get("content") or "")]
    for embed in data.get("embeds") or []:
        parts += [str(embed.get("title") or ""), str(embed.get("description") or "")]
        parts += [f"{f['name']} {f['value']}" for f in embed.get("fields", [])]
    return "\n".join(parts)


async def jobs(bot: HomarBot) -> list[Job]:
    return await bot.runtime.engine.list_jobs(include_closed=True)


async def fire(
    world: World, bot: HomarBot, channel_id: int, seconds: float = 5 * 60
) -> FakeMessage:
    """Move the clock; the marker lands in `channel_id` and the reply after it."""
    _marker, reply = await world.fired(channel_id, seconds)
    await settle(bot)
    return reply


def role_pings(role: FakeRole) -> Pings:
    return Pings(frozenset(), frozenset({role.id}), False)


# ---------------------------------------------------------------- roles


async def test_role_reminder_pings_exactly_that_role(world: World) -> None:
    place = Place(world)
    async with running_bot(world) as bot:
        data = await remind(world, to=place.team.id, what=f"standup, bring <@{world.bob.id}>")
        assert "For" in text_of(data) and f"<@&{place.team.id}>" in text_of(data)
        [job] = await jobs(bot)
        assert Audience.from_json(job.audience).roles == (place.team.id,)
        listed = await world.fake.slash(
            "jobs", {}, subcommand="list", user_id=world.alice.id, channel_id=world.channel.id
        )
        assert f"· for <@&{place.team.id}>" in text_of(await answer(listed))
        reply = await fire(world, bot, world.channel.id)
    assert f"<@&{place.team.id}>" in reply.content
    assert f"<@{world.bob.id}>" in reply.content  # in the text, yet not pinged
    assert world.fake.pinged(reply) == role_pings(place.team)
    assert f"homar:join:{job.id}" in reply.custom_ids()


async def test_role_nobody_may_ping_is_refused_and_nothing_made(world: World) -> None:
    place = Place(world)
    async with running_bot(world) as bot:
        data = await remind(world, to=place.mods.id)
        assert await jobs(bot) == []
    text = text_of(data)
    assert "isn't mentionable" in text and "Mention Everyone" in text


async def test_role_of_another_server_is_refused(world: World) -> None:
    place = Place(world)
    async with running_bot(world) as bot:
        data = await remind(world, to=place.foreign_role.id)
        assert await jobs(bot) == []
    assert "isn't one of this server's" in text_of(data)


async def test_everyone_needs_the_admin_setting_and_the_permission(world: World) -> None:
    fake = world.fake
    boss = fake.add_role(world.guild.id, "boss", permissions=MENTION_EVERYONE)
    everyone = world.guild.id  # the @everyone role's id is the server's
    admin = fake.owner_user.id
    fake.add_member(world.guild.id, admin)
    async with running_bot(world) as bot:
        off = text_of(await remind(world, to=everyone))
        assert "off in this server" in off and "/server everyone-pings" in off
        handle = await fake.slash(
            "server",
            opts(enabled=True),
            subcommand="everyone-pings",
            user_id=admin,
            channel_id=world.channel.id,
        )
        assert "✅" in text_of(await answer(handle))
        denied = text_of(await remind(world, to=everyone))
        assert "You need the Mention Everyone permission" in denied
        await fake.set_member_roles(world.guild.id, world.alice.id, [boss.id])
        bots_lack = text_of(await remind(world, to=everyone))
        assert "I don't have Mention Everyone" in bots_lack
        assert await jobs(bot) == []


async def test_server_setting_needs_manage_server(world: World) -> None:
    async with running_bot(world):
        handle = await world.fake.slash(
            "server",
            opts(enabled=True),
            subcommand="everyone-pings",
            user_id=world.alice.id,
            channel_id=world.channel.id,
        )
        assert "Manage Server" in text_of(await answer(handle))


# ---------------------------------------------------------------- channels


async def test_channel_reminder_lands_in_that_channel(world: World) -> None:
    place = Place(world)
    async with running_bot(world) as bot:
        data = await remind(world, channel=place.announcements.id)
        assert f"<#{place.announcements.id}>" in text_of(data)
        reply = await fire(world, bot, place.announcements.id)
        [job] = await jobs(bot)
        [run] = await bot.runtime.store.runs(job.id)
    # The marker went there through the dispatcher's transport, with the run's own nonce
    # (so a re-delivery after a crash is de-duplicated), and was re-fed exactly once.
    [marker] = world.markers(place.announcements.id)
    assert marker.nonce == run.nonce and run.executed_at is not None
    assert world.markers(world.channel.id) == []
    assert world.fake.pinged(reply) == Pings(frozenset({world.alice.id}), frozenset(), False)
    assert "standup" in reply.content


async def test_channel_the_owner_cannot_post_in_is_refused(world: World) -> None:
    place = Place(world)
    await world.fake.set_overwrite(place.announcements.id, world.alice.id, deny=SEND_MESSAGES)
    async with running_bot(world) as bot:
        data = await remind(world, channel=place.announcements.id)
        assert await jobs(bot) == []
    assert "You can't send messages in" in text_of(data)


async def test_channel_the_bot_cannot_post_in_is_refused(world: World) -> None:
    place = Place(world)
    await world.fake.set_overwrite(place.announcements.id, world.bot_id, deny=SEND_MESSAGES)
    async with running_bot(world) as bot:
        data = await remind(world, channel=place.announcements.id)
        assert await jobs(bot) == []
    assert "I can't send messages in" in text_of(data)


async def test_channel_of_another_server_is_refused(world: World) -> None:
    place = Place(world)
    async with running_bot(world) as bot:
        data = await remind(world, channel=place.foreign.id)
        assert await jobs(bot) == []
    assert "isn't a channel of this server" in text_of(data)


async def test_permission_lost_before_delivery_tells_only_the_owner(world: World) -> None:
    place = Place(world)
    async with running_bot(world) as bot:
        await remind(world, channel=place.announcements.id, to=place.team.id)
        assert len(await jobs(bot)) == 1
        await world.fake.set_overwrite(place.announcements.id, world.alice.id, deny=SEND_MESSAGES)
        reply = await fire(world, bot, world.channel.id)
    assert world.bot_messages(place.announcements.id) == []
    assert "didn't deliver" in reply.content and "You can't send messages in" in reply.content
    assert world.fake.pinged(reply) == Pings(frozenset({world.alice.id}), frozenset(), False)


async def test_role_made_unmentionable_before_delivery_pings_nobody_else(world: World) -> None:
    place = Place(world)
    async with running_bot(world) as bot:
        await remind(world, to=place.team.id)
        await world.fake.update_role(world.guild.id, place.team.id, mentionable=False)
        reply = await fire(world, bot, world.channel.id)
    assert "didn't deliver" in reply.content and "isn't mentionable" in reply.content
    assert world.fake.pinged(reply) == Pings(frozenset({world.alice.id}), frozenset(), False)


# ---------------------------------------------------------------- DMs


def dm_of(world: World, user_id: int) -> FakeChannel:
    return world.fake.dm_channel(user_id)


async def test_dm_to_another_person_needs_their_consent(world: World) -> None:
    async with running_bot(world) as bot:
        refused = text_of(await remind(world, to=world.bob.id, deliver="dm"))
        assert "hasn't allowed DM reminders from you" in refused and "/dm allow" in refused
        assert await jobs(bot) == []
        handle = await world.fake.slash(
            "dm",
            opts(user=world.alice.id),
            subcommand="allow",
            user_id=world.bob.id,
            channel_id=world.channel.id,
        )
        assert "✅" in text_of(await answer(handle))
        made = text_of(await remind(world, to=world.bob.id, deliver="dm"))
        assert "by DM" in made
        reply = await fire(world, bot, dm_of(world, world.bob.id).id)
    assert world.fake.pinged(reply) == Pings(frozenset({world.bob.id}), frozenset(), False)
    assert world.markers(world.channel.id) == []


async def test_dm_consent_withdrawn_before_delivery(world: World) -> None:
    async with running_bot(world) as bot:
        for sub in ("allow", "block"):
            if sub == "block":
                await remind(world, to=world.bob.id, deliver="dm")
                assert len(await jobs(bot)) == 1
            handle = await world.fake.slash(
                "dm", [], subcommand=sub, user_id=world.bob.id, channel_id=world.channel.id
            )
            await answer(handle)
        reply = await fire(world, bot, world.channel.id)
    assert world.bot_messages(dm_of(world, world.bob.id).id) == []
    assert "didn't deliver" in reply.content
    assert world.fake.pinged(reply) == Pings(frozenset({world.alice.id}), frozenset(), False)


async def test_dm_to_someone_sharing_no_server_is_refused(world: World) -> None:
    place = Place(world)
    async with running_bot(world) as bot:
        data = await remind(world, to=place.carol.id, deliver="dm")
        assert await jobs(bot) == []
    assert "isn't a member of this server" in text_of(data)


async def test_deliver_to_my_dms(world: World) -> None:
    async with running_bot(world) as bot:
        await remind(world, deliver="dm")
        reply = await fire(world, bot, dm_of(world, world.alice.id).id)
    assert world.fake.pinged(reply).users == frozenset({world.alice.id})


# ---------------------------------------------------------------- notify me too


async def test_notify_me_too_adds_and_removes(world: World) -> None:
    place = Place(world)
    fake = world.fake
    async with running_bot(world) as bot:
        await remind(world, to=place.team.id, repeat="daily")
        [job] = await jobs(bot)
        first = await fire(world, bot, world.channel.id)
        assert world.fake.pinged(first) == role_pings(place.team)

        joined = await fake.click_button(first.id, f"homar:join:{job.id}", world.bob.id)
        assert "I'll ping you on the next ones" in text_of(await answer(joined))
        again = await fake.click_button(first.id, f"homar:join:{job.id}", world.bob.id)
        assert "already" in text_of(await answer(again))
        second = await fire(world, bot, world.channel.id, 24 * 3600)
        assert fake.pinged(second) == Pings(
            frozenset({world.bob.id}), frozenset({place.team.id}), False
        )

        left = await fake.click_button(second.id, f"homar:leave:{job.id}", world.bob.id)
        assert "won't be pinged" in text_of(await answer(left))
        third = await fire(world, bot, world.channel.id, 24 * 3600)
    assert fake.pinged(third) == role_pings(place.team)


async def test_notify_me_too_only_on_channel_or_role_reminders(world: World) -> None:
    async with running_bot(world) as bot:
        await remind(world, to=world.bob.id, repeat="daily")
        [job] = await jobs(bot)
        reply = await fire(world, bot, world.channel.id)
        assert world.fake.pinged(reply).users == frozenset({world.bob.id})
        assert not any(c.startswith("homar:join") for c in reply.custom_ids())
        with pytest.raises(Exception, match="channel or a role"):
            await bot.runtime.engine.join_audience(job.id, world.alice.id, present=True)


# ---------------------------------------------------------------- the agent


def calls(tool: str, args: dict[str, Any]) -> FunctionModel:
    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        names = {t.name for t in info.output_tools} | {t.name for t in info.function_tools}
        if tool in names and not any(
            getattr(p, "tool_name", None) == tool for m in messages for p in m.parts
        ):
            return ModelResponse(parts=[ToolCallPart(tool, args)])
        return ModelResponse(parts=[TextPart("ok")])

    return FunctionModel(model)


async def test_agent_reminds_someone_else_and_me(world: World) -> None:
    async with running_bot(
        world,
        model=calls(
            "schedule_reminder",
            {
                "reminder_time": "in 10 minutes",
                "message": "ship it",
                "audience": f"<@{world.bob.id}> and me",
            },
        ),
    ) as bot:
        said = await world.fake.user_says(
            world.channel.id,
            world.alice.id,
            f"{world.mention()} remind <@{world.bob.id}> and me in 10 minutes",
        )
        thread = said.id  # the fake's thread from a message has that message's id
        confirmation = await world.bot_says(thread)
        await settle(bot)
        assert "job #" in confirmation.content.lower()
        [job] = await jobs(bot)
        audience = Audience.from_json(job.audience)
        assert audience.users == (world.bob.id,) and audience.owner
        reply = await fire(world, bot, thread, 10 * 60)
    assert world.fake.pinged(reply).users == frozenset({world.alice.id, world.bob.id})


async def test_agent_cannot_reach_a_foreign_channel(world: World) -> None:
    place = Place(world)
    async with running_bot(
        world,
        model=calls(
            "send_scheduled_message",
            {
                "message": "hello",
                "scheduled_datetime": "tomorrow at 9",
                "audience": f"<#{place.foreign.id}>",
            },
        ),
    ) as bot:
        said = await world.fake.user_says(
            world.channel.id,
            world.alice.id,
            f"{world.mention()} post hello in that channel tomorrow at 9",
        )
        thread = said.id
        reply = await world.bot_says(thread)
        await settle(bot)
        assert await jobs(bot) == []
    assert "isn't a channel of this server" in reply.content


async def test_agent_repeating_post_in_a_channel_shows_it_before_approval(world: World) -> None:
    place = Place(world)
    async with running_bot(
        world,
        model=calls(
            "schedule_action",
            {
                "description": "standup time",
                "type": "recurring",
                "schedule": "every monday at 9",
                "audience": f"<#{place.announcements.id}>",
            },
        ),
    ) as bot:
        said = await world.fake.user_says(
            world.channel.id,
            world.alice.id,
            f"{world.mention()} post in <#{place.announcements.id}> every Monday at 9",
        )
        ask = await world.bot_says(said.id, lambda m: bool(m.custom_ids()))
        assert f"**For:** <#{place.announcements.id}>" in ask.content
        assert await jobs(bot) == []
        approve = next(c for c in ask.custom_ids() if ":approve" in c or "approve" in c)
        click = await world.fake.click_button(ask.id, approve, world.alice.id)
        await click.wait_answer()
        await settle(bot)
        [job] = await jobs(bot)
        audience = Audience.from_json(job.audience)
    assert audience.channel_id == place.announcements.id and not audience.owner
