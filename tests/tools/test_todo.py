"""The thread's to-do list and its agent tools; the heartbeat job and its approval."""

from __future__ import annotations

from datetime import timedelta

import pytest
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from storage.db import Database
from storage.models import JobKind, JobStatus
from tests.tools.conftest import FIXED_NOW, scripted
from tools import heartbeat
from tools.agent import AgentKit, resume_approval, run_agent
from tools.agent.scheduling import HomarDeps
from tools.agent.todo import MAX_PENDING, TodoList
from tools.errors import UserError
from tools.jobs.model import Actor, Target


def todos(db: Database) -> TodoList:
    return TodoList(db, lambda: FIXED_NOW)


async def test_list_is_per_thread_oldest_first_and_closes_once(db: Database) -> None:
    t = todos(db)
    a = await t.add(100, "  draft   the agenda ", 1)
    b = await t.add(100, "book the room", 1)
    await t.add(200, "elsewhere", 1)
    assert a.description == "draft the agenda"
    assert [i.id for i in await t.pending(100)] == [a.id, b.id]
    assert (await t.complete(100, a.id)).status == "done"
    with pytest.raises(UserError, match="already done"):
        await t.complete(100, a.id)
    with pytest.raises(UserError, match="no to-do"):
        await t.remove(200, b.id)  # another thread's item is not found here
    await t.remove(100, b.id)
    assert await t.pending(100) == []
    assert [i.status for i in await t.recent(100)] == ["done"]


async def test_add_rejects_empty_long_and_too_many(db: Database) -> None:
    t = todos(db)
    with pytest.raises(UserError, match="what to add"):
        await t.add(100, "   ", 1)
    with pytest.raises(UserError, match="characters"):
        await t.add(100, "x" * 501, 1)
    for n in range(MAX_PENDING):
        await t.add(100, f"item {n}", 1)
    with pytest.raises(UserError, match="open to-dos"):
        await t.add(100, "one more", 1)


async def test_agent_tools_add_list_complete(
    runtime: AgentKit, deps: HomarDeps, db: Database
) -> None:
    with runtime.agent.override(
        model=scripted(
            ToolCallPart("add_task", {"description": "write the release notes"}),
            TextPart("Added it."),
        )
    ):
        r = await run_agent(runtime, "put 'write the release notes' on the list", deps)
        # the change's own line is the reply, whatever the model writes after it
        assert r.error is None and r.text == "Added to-do #1: write the release notes"
        [item] = await todos(db).pending(deps.channel_id)
        assert item.created_by == deps.user_id

        seen: list[str] = []

        def lister(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
            last = messages[-1].parts[-1]
            if getattr(last, "tool_name", None) == "list_tasks":
                seen.append(str(last.content))  # type: ignore[union-attr]
                return ModelResponse(parts=[TextPart("One item.")])
            return ModelResponse(parts=[ToolCallPart("list_tasks", {})])

        with runtime.agent.override(model=FunctionModel(lister)):
            await run_agent(runtime, "what's on the list?", deps)
            assert seen == [f"• #{item.id} write the release notes"]

            with runtime.agent.override(
                model=scripted(
                    ToolCallPart("complete_task", {"task_id": item.id}), TextPart("Done with it.")
                )
            ):
                r = await run_agent(runtime, "that's done", deps)
                assert r.text == f"Marked to-do #{item.id} done: write the release notes"
                assert await todos(db).pending(deps.channel_id) == []


async def test_complete_task_only_in_its_own_thread(
    runtime: AgentKit, deps: HomarDeps, db: Database
) -> None:
    other = await todos(db).add(999, "not yours", 1)
    replies: list[str] = []

    def fn(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        last = messages[-1].parts[-1]
        if getattr(last, "tool_name", None) == "complete_task":
            replies.append(str(last.content))  # type: ignore[union-attr]
            return ModelResponse(parts=[TextPart("Hm.")])
        return ModelResponse(parts=[ToolCallPart("complete_task", {"task_id": other.id})])

    with runtime.agent.override(model=FunctionModel(fn)):
        await run_agent(runtime, "done with it", deps)
        assert "no to-do" in replies[0]
        assert len(await todos(db).pending(999)) == 1


async def test_propose_heartbeat_needs_approval_then_creates_one_job(
    runtime: AgentKit, deps: HomarDeps
) -> None:
    with runtime.agent.override(
        model=scripted(ToolCallPart("propose_heartbeat", {"every_minutes": 20}), TextPart("ok"))
    ):
        r = await run_agent(runtime, "work through the list every 20 minutes", deps)
        assert r.approval is not None and not r.job_ids
        assert "every 20 minutes" in r.approval.message()
        assert await deps.engine.list_jobs(channel_id=deps.channel_id) == []

        with runtime.agent.override(model=scripted(TextPart("Heartbeat is on."))):
            done = await resume_approval(runtime, r.approval, True, deps)
            [job] = await deps.engine.list_jobs(channel_id=deps.channel_id)
            assert job.kind == JobKind.HEARTBEAT and done.job_ids == [job.id]
            assert heartbeat.interval_of(job) == timedelta(minutes=20)
            assert "Heartbeat on" in done.text


async def test_propose_heartbeat_too_often_is_refused_without_proposal(
    runtime: AgentKit, deps: HomarDeps
) -> None:
    with runtime.agent.override(
        model=scripted(ToolCallPart("propose_heartbeat", {"every_minutes": 1}), TextPart("ok"))
    ):
        r = await run_agent(runtime, "check every minute", deps)
        assert r.approval is None and "5 minutes" in r.text


async def test_enable_twice_updates_and_disable_checks_owner(deps: HomarDeps) -> None:
    engine = deps.engine
    target = Target(1, 100, 10)
    alice, bob = Actor(1, 10), Actor(2, 10)
    first = await heartbeat.enable(engine, target, timedelta(minutes=30), "UTC", alice)
    again = await heartbeat.enable(engine, target, timedelta(hours=1), "UTC", alice)
    assert again.id == first.id and heartbeat.interval_of(again) == timedelta(hours=1)
    assert again.next_run_at == FIXED_NOW + timedelta(hours=1)
    with pytest.raises(UserError, match="isn't yours"):
        await heartbeat.disable(engine, 100, bob)
    moderator = Actor(2, 10, manage_messages=True)
    off = await heartbeat.disable(engine, 100, moderator)
    assert off is not None and off.status == JobStatus.CANCELLED
    assert await heartbeat.disable(engine, 100, alice) is None


def test_parse_every() -> None:
    assert heartbeat.parse_every(None) == timedelta(minutes=30)
    assert heartbeat.parse_every("45") == timedelta(minutes=45)
    assert heartbeat.parse_every("every 2 hours") == timedelta(hours=2)
    with pytest.raises(UserError, match="5 minutes"):
        heartbeat.parse_every("1 minute")
    with pytest.raises(UserError, match="couldn't read"):
        heartbeat.parse_every("whenever")


async def test_agent_closes_only_the_speakers_own_todos(
    runtime: AgentKit, deps: HomarDeps, db: Database
) -> None:
    """As `/todo done`: a run acts as one person, who closes only the to-dos they added."""
    t = todos(db)
    bobs = await t.add(deps.channel_id, "bob's chore", 2)
    mine = await t.add(deps.channel_id, "my chore", deps.user_id)
    with runtime.agent.override(
        model=scripted(ToolCallPart("complete_task", {"task_id": bobs.id}), TextPart("ok"))
    ):
        await run_agent(runtime, f"mark {bobs.id} done", deps)
        assert (await t.get(deps.channel_id, bobs.id)).status == "pending"
        with runtime.agent.override(
            model=scripted(ToolCallPart("complete_task", {"task_id": mine.id}), TextPart("ok"))
        ):
            await run_agent(runtime, f"mark {mine.id} done", deps)
            assert (await t.get(deps.channel_id, mine.id)).status == "done"
