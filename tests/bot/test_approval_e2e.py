"""Approval of agent-proposed jobs end to end: buttons, requester-only, deny, expiry, restart."""

from __future__ import annotations

from datetime import timedelta

from bot.app import HomarBot
from storage.approvals import Approval
from tests.bot.harness import World, running_bot, settle
from tests.fakediscord import FakeMessage


def buttons(msg: FakeMessage) -> dict[str, str]:
    return {cid.split(":")[1]: cid for cid in msg.custom_ids() if cid.startswith("homar:")}


def disabled(msg: FakeMessage) -> bool:
    flat = [c for row in msg.components for c in row.get("components", [])]
    return bool(flat) and all(c.get("disabled") for c in flat)


async def propose(
    world: World, bot: HomarBot, text: str = "every weekday at 8 stretch"
) -> tuple[int, FakeMessage]:
    msg = await world.fake.user_says(world.channel.id, world.alice.id, f"{world.mention()} {text}")
    thread_id = msg.id
    ask = await world.bot_says(thread_id, lambda m: bool(m.custom_ids()))
    await settle(bot)
    return thread_id, world.fake.get_message(ask.id) or ask


async def rows(bot: HomarBot) -> list[Approval]:
    return await bot.runtime.approvals.store.pending()


async def test_proposal_message_then_only_requester_approves(world: World) -> None:
    async with running_bot(world) as bot:
        thread_id, ask = await propose(world, bot)
        assert f"<@{world.alice.id}>" in ask.content and "```\nstretch\n```" in ask.content
        assert "Time zone:** UTC" in ask.content and ask.content.count("<t:") >= 5
        assert [int(u) for u in (ask.allowed_mentions or {}).get("users", [])] == [world.alice.id]
        assert await bot.runtime.engine.list_jobs(owner_id=world.alice.id) == []

        ids = buttons(ask)
        bob = await world.fake.click_button(ask.id, ids["approve"], world.bob.id)
        refusal = await bob.wait_answer()
        assert bob.ephemeral and "Only the person" in refusal["content"]
        assert await bot.runtime.engine.list_jobs(owner_id=world.alice.id) == []

        click = await world.fake.click_button(ask.id, ids["approve"], world.alice.id)
        await click.wait_answer()
        assert click.updated_in_place  # the message is updated in place
        done = await world.bot_says(thread_id, lambda m: "Job #" in m.content)
        await settle(bot)
        jobs = await bot.runtime.engine.list_jobs(owner_id=world.alice.id)
        assert len(jobs) == 1 and jobs[0].kind == "recurring" and f"#{jobs[0].id}" in done.content
        assert disabled(world.fake.get_message(ask.id) or ask)
        again = await world.fake.click_button(ask.id, ids["approve"], world.alice.id)
        assert "already" in (await again.wait_answer())["content"]
        assert len(await bot.runtime.engine.list_jobs(owner_id=world.alice.id)) == 1


async def test_deny_creates_nothing(world: World) -> None:
    async with running_bot(world) as bot:
        thread_id, ask = await propose(world, bot, "every 2 hours drink water")
        click = await world.fake.click_button(ask.id, buttons(ask)["deny"], world.alice.id)
        await click.wait_answer()
        said = await world.bot_says(thread_id, lambda m: "nothing was scheduled" in m.content)
        await settle(bot)
        assert said and await bot.runtime.engine.list_jobs(owner_id=world.alice.id) == []
        assert await rows(bot) == []


async def test_expiry_disables_buttons_and_denies(world: World) -> None:
    async with running_bot(world) as bot:
        thread_id, ask = await propose(world, bot)
        await world.clock.advance(timedelta(hours=24, minutes=2))
        said = await world.bot_says(thread_id, lambda m: "in time" in m.content)
        await settle(bot)
        assert said and disabled(world.fake.get_message(ask.id) or ask)
        assert await rows(bot) == []
        late = await world.fake.click_button(ask.id, buttons(ask)["approve"], world.alice.id)
        assert "expired" in (await late.wait_answer())["content"]
        assert await bot.runtime.engine.list_jobs(owner_id=world.alice.id) == []


async def test_restart_then_approve(world: World) -> None:
    async with running_bot(world) as bot:
        thread_id, ask = await propose(world, bot)
    async with running_bot(world) as bot:
        click = await world.fake.click_button(ask.id, buttons(ask)["approve"], world.alice.id)
        await click.wait_answer()
        await world.bot_says(thread_id, lambda m: "Job #" in m.content)
        await settle(bot)
        jobs = await bot.runtime.engine.list_jobs(owner_id=world.alice.id)
        assert len(jobs) == 1 and jobs[0].command == "stretch"


async def test_approval_in_allowed_guild_only(world: World) -> None:
    async with running_bot(world, allowed_guild_ids=str(world.guild.id + 1)) as bot:
        await world.fake.user_says(world.channel.id, world.alice.id, f"{world.mention()} hi")
        await settle(bot)
        assert world.fake.bot_messages(world.channel.id) == []


async def test_daily_cap_answers_offline_with_a_note(world: World) -> None:
    async with running_bot(world, model_requests_per_user_per_day=0) as bot:
        msg = await world.fake.user_says(
            world.channel.id, world.alice.id, f"{world.mention()} remind me in 1 hour to stretch"
        )
        reply = await world.bot_says(msg.id)
        await settle(bot)
    assert "today's share" in reply.content and "job #" in reply.content


async def test_agent_role_required(world: World) -> None:
    async with running_bot(world, agent_role_ids="424242") as bot:
        msg = await world.fake.user_says(world.channel.id, world.alice.id, f"{world.mention()} hi")
        reply = await world.bot_says(msg.id)
        await settle(bot)
    assert "roles" in reply.content
