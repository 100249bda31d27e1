"""Seed 003: a to-do completed during a beat is followed by the next one in the same beat."""

from __future__ import annotations

import re

from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, UserPromptPart
from pydantic_ai.models.function import AgentInfo

from bot.app import HomarBot
from storage.models import JobKind
from storage.todos import TodoStore
from tests.bot.harness import World, running_bot, settle
from tests.bot.test_heartbeat_e2e import EVERY, Worker, beat, both, slash, thread


async def todos(world: World, thread_id: int, *names: str) -> list[int]:
    ids = []
    for name in names:
        added = await slash(world, "todo", "add", thread_id, description=name)
        ids.append(int(re.search(r"#(\d+)", added)[1]))  # type: ignore[index]
    return ids


async def heartbeat_runs(bot: HomarBot, thread_id: int) -> list[object]:
    jobs = await bot.runtime.engine.list_jobs(channel_id=thread_id)
    (job,) = [j for j in jobs if j.kind == JobKind.HEARTBEAT]
    return list(await bot.runtime.store.runs(job.id, limit=50))


async def test_completed_todo_chains_to_the_next_in_the_same_beat(world: World) -> None:
    thread_id = thread(world)
    model = Worker()
    async with running_bot(world, **both(model)) as bot:
        await slash(world, "heartbeat", "on", thread_id, every="5 minutes")
        a, b, c = await todos(world, thread_id, "water the plants", "tidy the docs", "call Bo")
        await beat(world, bot)
        assert model.runs == 3
        assert await TodoStore(bot.runtime.db).oldest_pending(thread_id) is None
        said = [m.content for m in world.bot_messages(thread_id)]
        assert len(said) == 3 and all("Finished" in t for t in said)
        assert said[-1].endswith(
            f"💓 Heartbeat: finished #{a} “water the plants”, #{b} “tidy the docs”, #{c} “call Bo”."
        )
        (run,) = await heartbeat_runs(bot, thread_id)  # one beat, one run
        assert run.details["todos"] == {"finished": [a, b, c], "open": []}  # type: ignore[attr-defined]
        await beat(world, bot)
    assert model.runs == 3


class Idler(Worker):
    """Works on a to-do without finishing it."""

    def __call__(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        self.requests += 1
        last = messages[-1].parts[-1]
        assert isinstance(last, UserPromptPart)
        self.prompts.append(str(last.content))
        return ModelResponse(parts=[TextPart("Looked into it; more to do.")])


async def test_unfinished_todo_does_not_chain(world: World) -> None:
    thread_id = thread(world)
    model = Idler()
    async with running_bot(world, **both(model)) as bot:
        await slash(world, "heartbeat", "on", thread_id, every="5 minutes")
        a, _ = await todos(world, thread_id, "draft the agenda", "book a room")
        await beat(world, bot)
        assert model.runs == 1
        (said,) = world.bot_messages(thread_id)
        assert said.content.endswith(
            f"💓 Heartbeat: started #{a} “draft the agenda” (not done yet); "
            "2 more to-dos for the next beat."
        )


async def test_at_most_five_todos_per_beat(world: World) -> None:
    thread_id = thread(world)
    model = Worker()
    async with running_bot(world, **both(model)) as bot:
        await slash(world, "heartbeat", "on", thread_id, every="5 minutes")
        await todos(world, thread_id, *(f"task {i}" for i in range(7)))
        await beat(world, bot)
        assert model.runs == 5
        assert world.bot_messages(thread_id)[-1].content.endswith(
            "; 2 more to-dos for the next beat."
        )
        await beat(world, bot)
        assert model.runs == 7


async def test_chain_stops_when_time_runs_out(world: World) -> None:
    thread_id = thread(world)
    slow = Worker()

    async def slow_model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if isinstance(messages[-1].parts[-1], UserPromptPart):
            await world.clock.advance(EVERY / 2)  # the work takes half the interval
        return slow(messages, info)

    async with running_bot(world, **both(slow_model)) as bot:
        await slash(world, "heartbeat", "on", thread_id, every="5 minutes")
        await todos(world, thread_id, "one", "two")
        await beat(world, bot)
        await settle(bot)
        assert slow.runs == 1
        assert world.bot_messages(thread_id)[-1].content.endswith(
            "; 1 more to-do for the next beat."
        )


async def test_chain_yields_to_people_waiting_in_the_thread(world: World) -> None:
    thread_id = thread(world)
    polite = Worker()
    waited: list[str] = []

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if isinstance(messages[-1].parts[-1], UserPromptPart) and not waited:

            async def someone() -> None:
                waited.append("ran")

            bot.runtime.queues.submit(thread_id, someone)  # a person's message queued
        return polite(messages, info)

    async with running_bot(world, **both(model)) as bot:
        await slash(world, "heartbeat", "on", thread_id, every="5 minutes")
        await todos(world, thread_id, "one", "two")
        await beat(world, bot)
        assert polite.runs == 1 and waited == ["ran"]
        await beat(world, bot)
        assert polite.runs == 2


def test_a_chained_todo_gets_its_own_time_budget() -> None:
    from datetime import UTC, datetime, timedelta

    from bot.heartbeat import _started_at
    from tests.values import run as a_run

    slot = datetime(2026, 11, 23, 8, 0, tzinfo=UTC)
    run = a_run(id=7, job_id=3, nonce="r3.1", kind="run", scheduled_for=slot, lateness_ms=90_000)
    later = slot + timedelta(seconds=40)
    copy = _started_at(run, later)
    assert (copy.id, copy.nonce, copy.scheduled_for, copy.lateness_ms) == (7, "r3.1", later, 0)
    assert run.scheduled_for == slot  # the beat's own run is untouched


def test_history_shows_the_beats_todos_and_an_escalation() -> None:
    from datetime import UTC, datetime

    from bot.commands.cards import history
    from tests.values import job as a_job
    from tests.values import run as a_run

    at = datetime(2026, 11, 23, 8, 0, tzinfo=UTC)
    job = a_job(
        id=3,
        command="heartbeat",
        schedule={"type": "every", "seconds": 300, "anchor": at.isoformat()},
        tz="UTC",
        kind="heartbeat",
    )
    runs = [
        a_run(
            id=1,
            scheduled_for=at,
            outcome="delivered",
            details={"todos": {"finished": [4, 5], "open": [6]}},
        ),
        a_run(id=2, scheduled_for=at, outcome="delivered", details={"escalation": "dm"}),
    ]
    text = history(job, runs).description or ""
    assert "to-dos finished: #4, #5; started, not done: #6" in text
    assert "escalated: no answer to the follow-ups, so I sent one DM" in text
