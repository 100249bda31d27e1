"""Reminders that make sure, end to end: follow-ups until acknowledged, Done and Snooze."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from pydantic_ai.messages import (
    ModelMessage,
    ModelResponse,
    TextPart,
    ToolCallPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel

from bot.app import HomarBot
from storage.jobs import Job, Run
from tests.bot.harness import Relay, World, running_bot, settle
from tests.fakediscord import FakeMessage
from tools.jobs.model import FollowUpState, Target
from tools.schedule import Cron, Schedule

NAG = "don't let me forget to submit the report in 10 minutes"


async def nag(world: World, bot: HomarBot, text: str = NAG) -> tuple[int, Job]:
    """Alice asks in #general; the bot starts a thread and schedules a nagging reminder."""
    msg = await world.fake.user_says(world.channel.id, world.alice.id, f"{world.mention()} {text}")
    await world.bot_says(msg.id)
    await settle(bot)
    (job,) = await bot.runtime.engine.list_jobs(owner_id=world.alice.id)
    assert job.follow_up == {"interval_s": 1800, "max": 2}
    return msg.id, job


def last_id(world: World, thread_id: int) -> int:
    return max((m.id for m in world.fake.messages(thread_id)), default=0)


async def fires(world: World, bot: HomarBot, thread_id: int, seconds: float) -> FakeMessage:
    """Move the clock; a marker is posted and the reminder (with its buttons) follows."""
    since = last_id(world, thread_id)
    await world.clock.advance(seconds)
    marker = await world.bot_says(
        thread_id, lambda m: m.id > since and m.content.startswith("[DELAYED")
    )
    said = await world.bot_says(thread_id, lambda m: m.id > marker.id and bool(m.custom_ids()))
    await settle(bot)
    return world.fake.get_message(said.id) or said


async def quiet(world: World, bot: HomarBot, thread_id: int, seconds: float) -> None:
    since = last_id(world, thread_id)
    await world.clock.advance(seconds)
    await settle(bot)
    assert last_id(world, thread_id) == since, [m.content for m in world.fake.messages(thread_id)]


async def says(world: World, bot: HomarBot, thread_id: int, user_id: int, text: str) -> FakeMessage:
    """Someone writes in the thread; wait until the bot has answered (so it was handled)."""
    said = await world.fake.user_says(thread_id, user_id, text)
    await world.bot_says(thread_id, lambda m: m.id > said.id)
    await settle(bot)
    return said


def button(msg: FakeMessage, kind: str, choice: str | None = None) -> str:
    for cid in msg.custom_ids():
        parts = cid.split(":")
        if parts[1] == kind and (choice is None or parts[-1] == choice):
            return cid
    raise AssertionError(f"no {kind} button on {msg.custom_ids()}")


async def job_of(bot: HomarBot, job_id: int) -> Job:
    return await bot.runtime.engine.get(job_id)


async def runs_of(bot: HomarBot, job_id: int) -> list[Run]:
    return list(reversed(await bot.runtime.store.runs(job_id, limit=50)))


async def test_lifecycle_two_follow_ups_then_stops(world: World) -> None:
    async with running_bot(world) as bot:
        thread_id, job = await nag(world, bot)
        first = await fires(world, bot, thread_id, 10 * 60)
        assert "submit the report" in first.content and f"<@{world.alice.id}>" in first.content
        assert {c.split(":")[1] for c in first.custom_ids()} == {"done", "snooze"}
        assert len(first.custom_ids()) == 5
        marker = world.markers(thread_id)[-1]
        assert marker.content == "[DELAYED_COMMAND] Send a reminder about: submit the report"

        await quiet(world, bot, thread_id, 29 * 60)
        second = await fires(world, bot, thread_id, 60)
        assert world.markers(thread_id)[-1].content.startswith(
            "[DELAYED_COMMAND] Follow up on the reminder about: submit the report"
        )
        assert "Just checking in" in second.content and "(reminder 2 of 3)" in second.content
        third = await fires(world, bot, thread_id, 30 * 60)
        assert "(reminder 3 of 3)" in third.content
        await quiet(world, bot, thread_id, 3 * 3600)

        assert (await job_of(bot, job.id)).status == "completed"
        runs = await runs_of(bot, job.id)
        assert [r.kind for r in runs] == ["run", "follow_up", "follow_up"]
        assert all(r.outcome == "delivered" and r.executed_at for r in runs)
        assert [r.nonce[0] for r in runs] == ["r", "f", "f"]
        assert (runs[2].details or {})["attempt"] == 3


async def test_owner_message_acknowledges(world: World) -> None:
    async with running_bot(world) as bot:
        thread_id, job = await nag(world, bot)
        await fires(world, bot, thread_id, 10 * 60)
        await says(world, bot, thread_id, world.bob.id, "what report?")
        assert (await job_of(bot, job.id)).status == "active"  # not Bob's reminder
        said = await says(world, bot, thread_id, world.alice.id, "done, sent it")
        assert (await job_of(bot, job.id)).status == "completed"
        await quiet(world, bot, thread_id, 2 * 3600)
        (run,) = await runs_of(bot, job.id)
        ack = (run.details or {})["acknowledged"]
        assert ack["how"] == "message" and ack["message_id"] == said.id
        assert ack["by"] == world.alice.id


async def test_done_button_ends_follow_ups(world: World) -> None:
    async with running_bot(world) as bot:
        thread_id, job = await nag(world, bot)
        first = await fires(world, bot, thread_id, 10 * 60)
        second = await fires(world, bot, thread_id, 30 * 60)
        click = await world.fake.click_button(second.id, button(second, "done"), world.alice.id)
        await click.wait_answer()
        assert click.updated_in_place
        updated = world.fake.get_message(second.id)
        assert updated is not None and "Done" in updated.content and not updated.custom_ids()
        await quiet(world, bot, thread_id, 2 * 3600)
        assert (await job_of(bot, job.id)).status == "completed"
        runs = await runs_of(bot, job.id)
        assert (runs[1].details or {})["acknowledged"]["how"] == "done"
        assert first.custom_ids() != second.custom_ids()  # each run has its own buttons


async def test_other_users_click_is_refused(world: World) -> None:
    async with running_bot(world) as bot:
        thread_id, job = await nag(world, bot)
        first = await fires(world, bot, thread_id, 10 * 60)
        for cid in (button(first, "done"), button(first, "snooze", "1h")):
            click = await world.fake.click_button(first.id, cid, world.bob.id)
            answer = await click.wait_answer()
            assert click.ephemeral and "isn't yours" in answer["content"]
        custom = await world.fake.click_button(
            first.id, button(first, "snooze", "custom"), world.bob.id
        )
        refusal = await custom.wait_answer()
        assert custom.ephemeral and "isn't yours" in refusal["content"]
        assert (world.fake.get_message(first.id) or first).custom_ids() == first.custom_ids()
        await fires(world, bot, thread_id, 30 * 60)  # still nagging Alice
        assert "acknowledged" not in ((await runs_of(bot, job.id))[0].details or {})


@pytest.mark.parametrize(
    ("choice", "due"),
    [
        ("10m", timedelta(minutes=10)),
        ("1h", timedelta(hours=1)),
        ("tomorrow", None),
    ],
)
async def test_snooze_refires_at_the_right_time(
    world: World, choice: str, due: timedelta | None
) -> None:
    async with running_bot(world) as bot:
        thread_id, job = await nag(world, bot)
        first = await fires(world, bot, thread_id, 10 * 60)
        pressed = world.clock.now()
        click = await world.fake.click_button(
            first.id, button(first, "snooze", choice), world.alice.id
        )
        await click.wait_answer()
        assert click.updated_in_place
        assert "Snoozed" in (world.fake.get_message(first.id) or first).content
        when = (await job_of(bot, job.id)).next_run_at
        assert when is not None
        if due is None:  # tomorrow 09:00 in the owner's zone (UTC here)
            assert when == datetime(2026, 11, 24, 9, 0, tzinfo=UTC)
        else:
            assert when == pressed + due
        await quiet(world, bot, thread_id, (when - world.clock.now()).total_seconds() - 1)
        again = await fires(world, bot, thread_id, 1)
        assert "submit the report" in again.content and "checking in" not in again.content
        # a fresh cycle: the next follow-up is half an hour after the snoozed reminder
        later = await fires(world, bot, thread_id, 30 * 60)
        assert "(reminder 2 of 3)" in later.content
        runs = await runs_of(bot, job.id)
        assert (runs[0].details or {})["snoozed"]["choice"] == choice
        assert [r.kind for r in runs] == ["run", "run", "follow_up"]


async def test_custom_snooze_form(world: World) -> None:
    async with running_bot(world, default_timezone="Europe/Berlin") as bot:
        thread_id, job = await nag(world, bot)
        first = await fires(world, bot, thread_id, 10 * 60)
        click = await world.fake.click_button(
            first.id, button(first, "snooze", "custom"), world.alice.id
        )
        form = await click.wait_response()
        assert form["type"] == 9
        form_id = form["data"]["custom_id"]
        bad = await world.fake.submit_modal(
            form_id,
            {"when": "purple o'clock"},
            user_id=world.alice.id,
            channel_id=thread_id,
            message_id=first.id,
        )
        refusal = await bad.wait_answer()
        assert bad.ephemeral and "couldn't read" in refusal["content"]
        ok = await world.fake.submit_modal(
            form_id,
            {"when": "in 45 minutes"},
            user_id=world.alice.id,
            channel_id=thread_id,
            message_id=first.id,
        )
        await ok.wait_answer()
        assert ok.updated_in_place
        assert (await job_of(bot, job.id)).next_run_at == world.clock.now() + timedelta(minutes=45)
        await quiet(world, bot, thread_id, 44 * 60)
        await fires(world, bot, thread_id, 60)


async def test_restart_between_follow_ups(world: World) -> None:
    async with running_bot(world) as bot:
        thread_id, job = await nag(world, bot)
        first = await fires(world, bot, thread_id, 10 * 60)
    async with running_bot(world) as bot:
        second = await fires(world, bot, thread_id, 30 * 60)
        assert "(reminder 2 of 3)" in second.content
    async with running_bot(world) as bot:
        # buttons of a message posted before the restart still work
        click = await world.fake.click_button(first.id, button(first, "done"), world.alice.id)
        await click.wait_answer()
        assert click.updated_in_place
        await quiet(world, bot, thread_id, 2 * 3600)
        assert (await job_of(bot, job.id)).status == "completed"
    assert len(world.markers(thread_id)) == 2


async def test_recurring_reminder_each_occurrence_has_its_own_cycle(world: World) -> None:
    async with running_bot(world) as bot:
        msg = await world.fake.user_says(world.channel.id, world.alice.id, f"{world.mention()} hi")
        thread_id = msg.id
        await world.bot_says(thread_id)
        await settle(bot)
        job = await bot.runtime.engine.create(
            target=Target(world.alice.id, thread_id, world.guild.id, world.channel.id),
            command="take the pills",
            schedule=Schedule(Cron("0 9 * * *"), "UTC"),
            kind="reminder",
            follow_up={"interval_s": 3600, "max": 2},
        )
        day1 = await fires(world, bot, thread_id, 3600)  # 09:00
        assert "take the pills" in day1.content
        day1b = await fires(world, bot, thread_id, 3600)  # 10:00 follow-up
        assert "(reminder 2 of 3)" in day1b.content
        click = await world.fake.click_button(day1b.id, button(day1b, "done"), world.alice.id)
        await click.wait_answer()
        current = await job_of(bot, job.id)
        assert current.status == "active"
        assert current.next_run_at == datetime(2026, 11, 24, 9, 0, tzinfo=UTC)
        await quiet(world, bot, thread_id, 22 * 3600 + 59 * 60)  # to 08:59 next day
        day2 = await fires(world, bot, thread_id, 60)
        assert "checking in" not in day2.content
        day2b = await fires(world, bot, thread_id, 3600)
        assert "(reminder 2 of 3)" in day2b.content
        day2c = await fires(world, bot, thread_id, 3600)
        assert "(reminder 3 of 3)" in day2c.content
        await quiet(world, bot, thread_id, 3600 * 20)
        runs = await runs_of(bot, job.id)
        assert [r.kind for r in runs] == ["run", "follow_up", "run", "follow_up", "follow_up"]
        current = await job_of(bot, job.id)
        assert current.run_count == 2 and current.status == "active"
        assert current.next_run_at == datetime(2026, 11, 25, 9, 0, tzinfo=UTC)


async def test_model_down_during_follow_up_sends_plain_follow_up(world: World) -> None:
    prompts: list[str] = []

    def broken(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        for part in messages[-1].parts:
            if isinstance(part, UserPromptPart) and isinstance(part.content, str):
                prompts.append(part.content)
        if len(prompts) > 1:
            raise RuntimeError("model down")
        return ModelResponse(parts=[TextPart("Hey! Time to submit the report.")])

    relay = Relay()
    async with running_bot(world, relay) as bot:
        thread_id, _ = await nag(world, bot)
        relay.hand_to(FunctionModel(broken))
        first = await fires(world, bot, thread_id, 10 * 60)
        assert "Time to submit the report" in first.content
        assert "Reminder triggered." in prompts[0] and "Send a reminder about" in prompts[0]
        second = await fires(world, bot, thread_id, 30 * 60)
        assert "Follow-up reminder triggered (attempt 2 of 3)" in prompts[1]
        assert "Original reminder: submit the report" in prompts[1]
        assert "has not responded to the previous reminder sent at 2026-11-23 08:10" in prompts[1]
        assert "Just checking in — submit the report (reminder 2 of 3)" in second.content
        assert bool(second.custom_ids())


async def test_failed_delivery_schedules_no_follow_up(world: World) -> None:
    async with running_bot(world) as bot:
        thread_id, job = await nag(world, bot)
        await world.fake.delete_channel(thread_id)
        world.fake.close_dms(world.alice.id)
        world.fake.deny_access(world.channel.id)  # and the parent-channel fallback
        await world.clock.advance(10 * 60)
        await settle(bot)
        current = await job_of(bot, job.id)
        assert current.status == "failed" and current.next_run_at is None
        assert not (current.meta or {}).get("awaiting_ack")
        await world.clock.advance(3600)
        await settle(bot)
        runs = await runs_of(bot, job.id)
        assert [r.outcome for r in runs] == ["failed"]


async def test_smart_acknowledgement_asks_the_model(world: World) -> None:
    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if "acknowledges a reminder" in (info.instructions or ""):
            said = str(messages[-1].parts[-1].content)  # type: ignore[union-attr]
            return ModelResponse(
                parts=[ToolCallPart(info.output_tools[0].name, {"response": "sent" in said})]
            )
        return ModelResponse(parts=[TextPart("Noted.")])

    relay = Relay()
    async with running_bot(world, relay, reminder_ack_mode="smart") as bot:
        thread_id, job = await nag(world, bot)
        await fires(world, bot, thread_id, 10 * 60)
        relay.hand_to(FunctionModel(model))
        await says(world, bot, thread_id, world.alice.id, "what's the weather like?")
        assert FollowUpState.of(await job_of(bot, job.id)).awaiting is not None
        await says(world, bot, thread_id, world.alice.id, "I sent it")
        assert (await job_of(bot, job.id)).status == "completed"


async def test_smart_mode_with_offline_model_is_simple(world: World) -> None:
    async with running_bot(world, reminder_ack_mode="smart") as bot:
        thread_id, job = await nag(world, bot)
        await fires(world, bot, thread_id, 10 * 60)
        await says(world, bot, thread_id, world.alice.id, "what's the weather like?")
        assert (await job_of(bot, job.id)).status == "completed"
