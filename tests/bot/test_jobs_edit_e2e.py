"""`/jobs edit` changes what `/remind` sets: who is reminded (`to:`, `channel:`, `deliver:`),
the nudges (`follow_up:`, `escalate:`) and the end (`until:`), through the checks `/remind`
uses: only the owner or a moderator edits, and the bot pings only what the job's owner
(and a moderator making the change) may ping.
"""

from __future__ import annotations

from typing import Any

from bot.app import HomarBot
from storage.jobs import Job
from tests.bot.harness import World, running_bot
from tests.bot.test_audience_e2e import Place, fire, jobs, remind, role_pings, text_of
from tests.fakediscord import MENTION_EVERYONE, Pings
from tools.audience import Audience
from tools.jobs.model import schedule_of

TYPES = {"id": 4, "to": 9, "channel": 7, "follow_up": 5}


async def edit(world: World, job_id: int, user: int | None = None, **values: Any) -> str:
    """`/jobs edit id: … <values>` as Discord sends it (options with their types)."""
    options = [{"name": "id", "type": 4, "value": job_id}]
    for name, value in values.items():
        kind = TYPES.get(name, 3)
        options.append(
            {"name": name, "type": kind, "value": value if kind in (4, 5) else str(value)}
        )
    handle = await world.fake.slash(
        "jobs",
        options,
        subcommand="edit",
        user_id=user or world.alice.id,
        channel_id=world.channel.id,
    )
    return text_of(await handle.wait_answer())


async def made(world: World, bot: HomarBot, **values: Any) -> Job:
    """Alice's plain reminder, made with `/remind` (only she is pinged)."""
    await remind(world, **values)
    [job] = await jobs(bot)
    return job


async def test_edit_to_a_role_pings_exactly_that_role(world: World) -> None:
    place = Place(world)
    async with running_bot(world) as bot:
        job = await made(world, bot, what=f"standup, bring <@{world.bob.id}>")
        said = await edit(world, job.id, to=place.team.id)
        assert "Updated" in said
        [changed] = await jobs(bot)
        assert Audience.from_json(changed.audience).roles == (place.team.id,)
        reply = await fire(world, bot, world.channel.id)
    assert world.fake.pinged(reply) == role_pings(place.team)


async def test_edit_to_a_role_nobody_may_ping_changes_nothing(world: World) -> None:
    place = Place(world)
    async with running_bot(world) as bot:
        job = await made(world, bot)
        said = await edit(world, job.id, to=place.mods.id, what="renamed")
        [after] = await jobs(bot)
        reply = await fire(world, bot, world.channel.id)
    assert "isn't mentionable" in said
    assert after.audience == job.audience and after.command == job.command  # nothing changed
    assert world.fake.pinged(reply) == Pings(frozenset({world.alice.id}), frozenset(), False)


async def test_edit_to_a_channel_and_by_dm(world: World) -> None:
    place = Place(world)
    async with running_bot(world) as bot:
        job = await made(world, bot)
        assert "Updated" in await edit(world, job.id, channel=place.announcements.id)
        [moved] = await jobs(bot)
        assert Audience.from_json(moved.audience).channel_id == place.announcements.id
        foreign = await edit(world, job.id, channel=place.foreign.id)
        [kept] = await jobs(bot)
        assert Audience.from_json(kept.audience).channel_id == place.announcements.id
        assert "isn't a channel of this server" in foreign
        assert "Updated" in await edit(world, job.id, deliver="dm")
        [dm] = await jobs(bot)
    audience = Audience.from_json(dm.audience)
    assert audience.dm and audience.channel_id is None and audience.owner


async def test_someone_elses_job_cannot_get_an_audience(world: World) -> None:
    place = Place(world)
    async with running_bot(world) as bot:
        job = await made(world, bot)
        said = await edit(world, job.id, world.bob.id, to=place.team.id)
        [after] = await jobs(bot)
    assert "isn't yours" in said
    assert after.audience == job.audience


async def test_a_moderator_may_set_only_what_both_could_ping(world: World) -> None:
    fake = world.fake
    mods = fake.add_role(world.guild.id, "mods", manage_messages=True)
    loud = fake.add_role(world.guild.id, "loud", permissions=MENTION_EVERYONE)
    hidden = fake.add_role(world.guild.id, "hidden", mentionable=False)
    team = fake.add_role(world.guild.id, "team", mentionable=True)
    fake.guilds[world.guild.id].members[world.bob.id].roles.append(mods.id)
    fake.guilds[world.guild.id].members[world.alice.id].roles.append(loud.id)
    for role in fake.guilds[world.guild.id].roles.values():
        if role.managed:  # Homar may ping any role here; only the people's rights differ
            role.permissions |= MENTION_EVERYONE
    async with running_bot(world) as bot:
        job = await made(world, bot)
        # Alice could ping @hidden (she has Mention Everyone); Bob, who edits, could not.
        refused = await edit(world, job.id, world.bob.id, to=hidden.id)
        [after] = await jobs(bot)
        assert after.audience == job.audience
        assert "Updated" in await edit(world, job.id, world.bob.id, to=team.id)
        [changed] = await jobs(bot)
    assert "hidden" in refused and "Updated" not in refused
    assert Audience.from_json(changed.audience).roles == (team.id,)


async def test_edit_turns_the_nudges_on_keeps_them_and_stops_them(world: World) -> None:
    async with running_bot(world) as bot:
        job = await made(world, bot)
        assert job.follow_up is None
        assert "Updated" in await edit(world, job.id, follow_up=True)
        [on] = await jobs(bot)
        assert on.follow_up == {"interval_s": 1800, "max": 2}
        assert "Updated" in await edit(world, job.id, escalate="dm")
        [escalating] = await jobs(bot)
        assert escalating.follow_up == {"interval_s": 1800, "max": 2, "escalate": "dm"}
        await edit(world, job.id, follow_up=True)  # already on: kept as it is
        [kept] = await jobs(bot)
        assert kept.follow_up == escalating.follow_up
        contradiction = await edit(world, job.id, follow_up=False, escalate="dm")
        [unchanged] = await jobs(bot)
        assert unchanged.follow_up == escalating.follow_up
        assert "Updated" in await edit(world, job.id, follow_up=False)
        [off] = await jobs(bot)
    assert "`escalate` follows the nudges" in contradiction and "`follow_up` off" in contradiction
    assert not off.follow_up


async def test_edit_sets_an_end(world: World) -> None:
    async with running_bot(world) as bot:
        job = await made(world, bot, repeat="daily")
        assert "Updated" in await edit(world, job.id, until="3 times")
        [ended] = await jobs(bot)
    assert schedule_of(ended).max_runs == 3
