"""Hostile tool arguments (tests/data/bad_inputs.jsonl): a clear answer, no job, nothing changed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pydantic_ai.models
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from sqlalchemy import func, select

from storage.conversations import ConversationStore
from storage.db import Database
from storage.jobs import JobStore
from storage.models import Job, JobRun
from tests.tools.conftest import FIXED_NOW
from tools.agent import Runtime, build_agent, run_agent
from tools.engine import Engine, Target
from tools.memory import Memory
from tools.offline import offline_model
from tools.schedule import Once, Schedule
from tools.scheduling import HomarDeps

CASES = [
    json.loads(line)
    for line in (Path(__file__).parent / "data" / "bad_inputs.jsonl").read_text().splitlines()
    if line.strip()
]


def test_enough_cases() -> None:
    assert len(CASES) >= 150


async def make_world(tmp_path: Path) -> tuple[Runtime, Engine, int, Database]:
    db = Database(f"sqlite+aiosqlite:///{tmp_path}/bad.db")
    await db.upgrade()
    engine = Engine(JobStore(db), clock=lambda: FIXED_NOW)
    bobs = await engine.create(
        target=Target(2, 200, 10),
        command="bob's job",
        schedule=Schedule(Once(FIXED_NOW.replace(hour=20)), "UTC"),
        kind="reminder",
    )
    rt = Runtime(
        agent=build_agent(),
        model=offline_model(),
        offline=offline_model(),
        memory=Memory(ConversationStore(db)),
    )
    return rt, engine, bobs.id, db


async def snapshot(engine: Engine) -> tuple[Any, ...]:
    async with engine.store.db.session() as s:
        jobs = (await s.execute(select(Job.id, Job.status, Job.command, Job.next_run_at))).all()
        runs = await s.scalar(select(func.count()).select_from(JobRun))
    return tuple(jobs), runs


async def run_case(case: dict[str, Any], rt: Runtime, engine: Engine, bob_job: int) -> str | None:
    """None if the case was handled well, else what went wrong."""
    args = {k: (bob_job if v == "BOB" else v) for k, v in case["args"].items()}

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if len(messages) == 1:
            return ModelResponse(parts=[ToolCallPart(case["tool"], args)])
        return ModelResponse(parts=[TextPart("I couldn't do that.")])

    rt.model = FunctionModel(model)
    deps = HomarDeps(
        user_id=1, channel_id=100, engine=engine, tz=case.get("tz", "UTC"), guild_id=10
    )
    before = await snapshot(engine)
    reply = await run_agent(rt, "do it", deps, history=[], save=False)
    if not reply.text.strip():
        return "empty reply"
    if reply.job_ids or await snapshot(engine) != before:
        return f"job created or database changed: {reply.text[:120]}"
    if "expect" in case and case["expect"] not in reply.text:
        return f"expected {case['expect']!r} in the reply, got {reply.text[:200]!r}"
    return None


async def test_bad_inputs(tmp_path: Path) -> None:
    pydantic_ai.models.ALLOW_MODEL_REQUESTS = False
    rt, engine, bob_job, db = await make_world(tmp_path)
    try:
        problems = {}
        for i, case in enumerate(CASES):
            got = await run_case(case, rt, engine, bob_job)
            if got is not None:
                problems[i] = (case["tool"], case["args"], got)
        assert not problems, json.dumps(problems, indent=1, ensure_ascii=False, default=str)[:6000]
    finally:
        await db.close()


async def test_harness_control_good_input_creates_a_job(tmp_path: Path) -> None:
    """The same path with a sane argument does create a job (so the checks above mean something)."""
    pydantic_ai.models.ALLOW_MODEL_REQUESTS = False
    rt, engine, bob_job, db = await make_world(tmp_path)
    try:
        good = {"tool": "send_delayed_message", "args": {"message": "tea", "minutes": 5}}
        assert await run_case(good, rt, engine, bob_job) is not None
    finally:
        await db.close()
