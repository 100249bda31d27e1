"""A fired run is done only when its answer reached the owner: crashes, retries, lateness.

"Killed" here means the process stops at that point: nothing after it runs, and a new
bot process is started on the same database (what a SIGKILL and a restart do).
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import select

import bot.app
from storage.models import JobRunRow
from tests.bot.harness import World, running_bot, settle
from tests.fakediscord import FakeMessage
from tools.jobs.model import Target
from tools.schedule import Once, Schedule


class Killed(Exception):
    """The process died here."""


def is_marker(m: FakeMessage) -> bool:
    return m.content.startswith("[DELAYED_COMMAND]")


def answers(world: World, channel_id: int, word: str) -> list[FakeMessage]:
    """The bot's messages about `word` after the first marker (not the confirmation)."""
    markers = world.markers(channel_id)
    if not markers:
        return []
    return [
        m
        for m in world.bot_messages(channel_id)
        if m.id > markers[0].id and not is_marker(m) and word in m.content
    ]


def answer_to(world: World, channel_id: int, word: str) -> Any:
    markers = world.markers(channel_id)
    return lambda m: (
        bool(markers) and m.id > markers[0].id and not is_marker(m) and word in m.content
    )


async def remind_in_2s(world: World, what: str) -> int:
    msg = await world.fake.user_says(
        world.channel.id, world.alice.id, f"{world.mention()} remind me in 2 seconds to {what}"
    )
    await world.bot_says(msg.id)  # the confirmation
    return msg.id


async def all_runs(bot: Any) -> list[JobRunRow]:
    async with bot.runtime.db.session() as s:
        return list((await s.scalars(select(JobRunRow))).all())


async def test_killed_between_marker_and_answer_the_reminder_still_arrives_once(
    world: World,
) -> None:
    async with running_bot(world) as first:
        thread_id = await remind_in_2s(world, "stretch")

        async def dies(run: Any, job: Any) -> Any:
            raise Killed  # the model was working on it when the process died

        first.runtime.fired = dies  # type: ignore[method-assign]
        await world.clock.advance(2)
        await world.bot_says(thread_id, is_marker)
        await settle(first)
    assert answers(world, thread_id, "stretch") == []

    async with running_bot(world) as second:
        answer = await world.bot_says(
            thread_id, answer_to(world, thread_id, "stretch"), include_existing=True, timeout=10
        )
        await settle(second)
        (run,) = await all_runs(second)
    async with running_bot(world) as third:  # another restart posts nothing more
        await settle(third)
    assert len(world.markers(thread_id)) == 1
    assert answers(world, thread_id, "stretch") == [answer]
    assert f"<@{world.alice.id}>" in answer.content
    assert answer.nonce == f"a{run.id:x}" and len(str(answer.nonce)) <= 25
    assert run.replied_at is not None and run.reply is not None


async def test_killed_after_the_answer_was_made_it_is_posted_not_made_again(
    world: World,
) -> None:
    async with running_bot(world) as first:
        thread_id = await remind_in_2s(world, "drink water")

        async def dies(*args: Any, **kwargs: Any) -> Any:
            raise Killed  # the answer was ready; the process died posting it

        first.post = dies  # type: ignore[method-assign]
        await world.clock.advance(2)
        await world.bot_says(thread_id, is_marker)
        await settle(first)
    assert answers(world, thread_id, "drink water") == []

    async with running_bot(world) as second:

        async def must_not_run(run: Any, job: Any) -> Any:
            raise AssertionError("the agent ran again for an answer already made")

        second.runtime.fired = must_not_run  # type: ignore[method-assign]
        await world.bot_says(
            thread_id, answer_to(world, thread_id, "drink water"), include_existing=True, timeout=10
        )
        await settle(second)
    assert len(answers(world, thread_id, "drink water")) == 1


async def test_answer_is_retried_with_its_nonce_when_discord_fails(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(bot.app, "REPLY_RETRY_DELAYS", (0.0, 0.0, 0.0), raising=False)
    async with running_bot(world) as app:
        thread_id = await remind_in_2s(world, "feed the cat")
        made = app.runtime.fired

        async def then_discord_fails(run: Any, job: Any) -> Any:
            reply = await made(run, job)
            world.fake.inject_fault(
                "POST", rf"/channels/{thread_id}/messages$", status=503, count=2
            )
            return reply

        app.runtime.fired = then_discord_fails  # type: ignore[method-assign]
        await world.clock.advance(2)
        await world.bot_says(thread_id, is_marker)
        answer = await world.bot_says(thread_id, answer_to(world, thread_id, "cat"))
        await settle(app)
        (run,) = await all_runs(app)
    assert answers(world, thread_id, "feed the cat") == [answer]
    assert answer.nonce == f"a{run.id:x}"
    assert world.bot_messages(world.fake.dm_channel(world.alice.id).id) == []  # no fallback
    assert run.replied_at is not None


async def test_late_answer_says_sorry_even_before_the_delivery_is_recorded(
    world: World,
) -> None:
    async with running_bot(world) as app:
        thread_id = await remind_in_2s(world, "call the bank")
        engine = app.runtime.engine
        record = engine.record
        held: list[Any] = []

        async def record_later(outcomes: Any) -> Any:
            if not held:  # the recorder is behind: the answer is made before it catches up
                held.append(outcomes)
                await world.fake.wait_for(
                    lambda: bool(answers(world, thread_id, "call the bank")), timeout=10
                )
            return await record(outcomes)

        engine.record = record_later  # type: ignore[method-assign]
        await world.clock.advance(5 * 60)  # the bot was busy: it fires five minutes late
        await world.bot_says(thread_id, is_marker)
        answer = await world.bot_says(thread_id, answer_to(world, thread_id, "bank"), timeout=10)
        await settle(app)
    assert answer.content.startswith("Sorry, this is late")


async def test_a_job_at_the_text_limit_reaches_the_dm_fallback_within_discords_limit(
    world: World,
) -> None:
    family = "👨\u200d👩\u200d👧\u200d👦"
    command = "x" * 1889 + family  # exactly the 1,900 a job's text may have
    async with running_bot(world) as app:
        thread = world.fake.add_thread(world.channel.id, "closed", locked=True)
        at = world.clock.now() + timedelta(seconds=2)
        await app.runtime.engine.create(
            target=Target(world.alice.id, thread.id, world.guild.id, world.channel.id),
            command=command,
            kind="reminder",
            schedule=Schedule(Once(at)),
        )
        await world.clock.advance(2)
        dm = world.fake.dm_channel(world.alice.id).id
        marker = await world.bot_says(dm, is_marker, include_existing=True)
        answer = await world.bot_says(dm, lambda m: not is_marker(m), include_existing=True)
        await settle(app)
    assert len(marker.content) <= 2000 and marker.content.endswith("the thread is locked.)")
    assert family in marker.content or marker.content.count("\u200d") == 0  # never half of it
    assert all(len(m.content) <= 2000 for m in world.bot_messages(dm))
    assert f"<@{world.alice.id}>" in answer.content
    assert "".join(m.content for m in world.bot_messages(dm)[1:]).count(family) == 1


async def test_escalation_and_heartbeat_runs_are_never_answered_by_the_agent(
    world: World,
) -> None:
    """Runs handled where they are delivered (an escalation DM, a beat) are not re-fed,
    even when the orphan sweep finds them unanswered after a crash."""
    from storage.jobs import JobStore

    async with running_bot(world) as app:
        store: JobStore = app.runtime.store
        at = world.clock.now() + timedelta(hours=1)
        job = await app.runtime.engine.create(
            target=Target(world.alice.id, world.channel.id, world.guild.id),
            command="stretch",
            kind="reminder",
            schedule=Schedule(Once(at)),
        )
        [claim] = await store.claim_due(at, limit=5, lease=timedelta(seconds=90))
        assert claim.job.id == job.id
        await store.update_run(claim.run.id, kind="escalate", delivered_at=at)

        async def must_not_run(run: Any, job: Any) -> Any:
            raise AssertionError("an escalation run was re-fed to the agent")

        app.runtime.fired = must_not_run  # type: ignore[method-assign]
        assert await app.runtime.take_run(claim.run.nonce) is None
        run = await store.run_by_nonce(claim.run.nonce)
        assert run is not None and run.replied_at is not None
        await settle(app)
