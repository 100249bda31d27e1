"""Hostile tool arguments (tests/data/bad_inputs.jsonl).

Cases without `outcome` (or `"outcome": "refused"`): a clear answer (containing `expect`,
when given), no job, nothing changed. Cases with `"outcome": "literal_job"` carry
tool-call-shaped, tag-shaped or prompt-injection text: exactly one job is created whose
text is that literal text, nothing else changes, and firing it (offline model, a model that
repeats it, a model that obeys it) changes no job, creates none, and shows no other
channel's job text. `MINE` / `BOB` inside strings stand for the id of another job of the
requester / of someone else.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel
from sqlalchemy import func, select

from storage.conversations import ConversationStore
from storage.db import Database
from storage.jobs import JobStore
from storage.models import JobRow, JobRunRow
from tests.tools.conftest import FIXED_NOW
from tools.agent import AgentKit, build_agent, run_agent
from tools.agent.offline import offline_model
from tools.agent.scheduling import ALL_TOOLS, HomarDeps
from tools.agent.textcalls import parse_json_call
from tools.jobs.engine import Engine
from tools.jobs.marker import command_text
from tools.jobs.model import Target
from tools.memory import Memory
from tools.schedule import Once, Schedule

ALL_CASES = [
    json.loads(line)
    for line in (Path(__file__).parent / "data" / "bad_inputs.jsonl").read_text().splitlines()
    if line.strip()
]
CASES = [c for c in ALL_CASES if c.get("outcome", "refused") == "refused"]
LITERAL = [c for c in ALL_CASES if c.get("outcome") == "literal_job"]
DM_SECRET = "alice's secret dm plan"


def test_enough_cases() -> None:
    assert len(CASES) >= 150
    assert len(LITERAL) >= 40
    assert {c["why"] for c in LITERAL} >= {"tool-call-shaped", "tag-shaped", "prompt injection"}


async def make_world(tmp_path: Path) -> tuple[AgentKit, Engine, int, Database]:
    db = Database(f"sqlite+aiosqlite:///{tmp_path}/bad.db")
    await db.upgrade()
    engine = Engine(JobStore(db), clock=lambda: FIXED_NOW)
    bobs = await engine.create(
        target=Target(2, 200, 10),
        command="bob's job",
        schedule=Schedule(Once(FIXED_NOW.replace(hour=20)), "UTC"),
        kind="reminder",
    )
    rt = AgentKit(
        agent=build_agent(),
        model=offline_model(),
        offline=offline_model(),
        memory=Memory(ConversationStore(db)),
    )
    return rt, engine, bobs.id, db


async def snapshot(engine: Engine) -> tuple[Any, ...]:
    async with engine.store.db.session() as s:
        jobs = (
            await s.execute(select(JobRow.id, JobRow.status, JobRow.command, JobRow.next_run_at))
        ).all()
        runs = await s.scalar(select(func.count()).select_from(JobRunRow))
    return tuple(jobs), runs


async def run_case(case: dict[str, Any], rt: AgentKit, engine: Engine, bob_job: int) -> str | None:
    """None if the case was handled well, else what went wrong."""
    args = {k: (bob_job if v == "BOB" else v) for k, v in case.get("args", {}).items()}

    told: list[str] = []  # what the tool answered the model (its error message)

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if len(messages) == 1 and "reply" in case:  # a malformed seed-000 tag as the reply
            return ModelResponse(parts=[TextPart(case["reply"])])
        if len(messages) == 1:
            return ModelResponse(parts=[ToolCallPart(case["tool"], args)])
        told.extend(str(getattr(p, "content", "")) for p in messages[-1].parts)
        return ModelResponse(parts=[TextPart("I couldn't do that.")])

    with rt.agent.override(model=FunctionModel(model)):
        deps = HomarDeps(
            user_id=1, channel_id=100, engine=engine, tz=case.get("tz", "UTC"), guild_id=10
        )
        before = await snapshot(engine)
        reply = await run_agent(rt, "do it", deps, history=[], save=False)
        if not reply.text.strip():
            return "empty reply"
        if reply.job_ids or await snapshot(engine) != before:
            return f"job created or database changed: {reply.text[:120]}"
        if "expect" in case and not any(case["expect"] in t for t in [reply.text, *told]):
            return f"the reply should say {case['expect']!r}: {reply.text[:200]}"
        return None


async def test_bad_inputs(tmp_path: Path) -> None:
    rt, engine, bob_job, db = await make_world(tmp_path)
    try:
        problems = {}
        for i, case in enumerate(CASES):
            got = await run_case(case, rt, engine, bob_job)
            if got is not None:
                problems[i] = (case.get("tool") or case.get("reply"), case.get("args"), got)
        assert not problems, json.dumps(problems, indent=1, ensure_ascii=False, default=str)[:6000]
    finally:
        await db.close()


def _substitute(value: Any, ids: dict[str, int]) -> Any:
    if isinstance(value, str):
        for token, job_id in ids.items():
            value = re.sub(rf"\b{token}\b", str(job_id), value)
        return value
    if isinstance(value, dict):
        return {k: _substitute(v, ids) for k, v in value.items()}
    return value


def _repeats(body: str) -> Callable[[list[ModelMessage], AgentInfo], ModelResponse]:
    """A model steered by the job's text: it answers with that text."""

    def fn(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        return ModelResponse(parts=[TextPart(body)])

    return fn


def _obeys(body: str) -> Callable[[list[ModelMessage], AgentInfo], ModelResponse]:
    """A model fully steered by the job's text: a planted call becomes a real tool call."""

    def fn(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if len(messages) == 1:
            call = parse_json_call(body, ALL_TOOLS)
            if call is not None:
                return ModelResponse(parts=[ToolCallPart(call.name, call.args)])
            found = re.search(r"(cancel|pause|resume|delete)\D*(\d+)", body, re.I)
            if found is not None:
                tool = {"pause": "stop_interval_action", "resume": "resume_scheduled_action"}
                name = tool.get(found[1].lower(), "delete_scheduled_action")
                return ModelResponse(parts=[ToolCallPart(name, {"task_id": int(found[2])})])
        return ModelResponse(parts=[TextPart(body)])

    return fn


async def run_literal_case(
    case: dict[str, Any], rt: AgentKit, engine: Engine, ids: dict[str, int]
) -> str | None:
    """None if the text became exactly one job with that text and firing it did nothing."""
    args = _substitute(case["args"], ids)
    literal = args.get("message") or args.get("description") or args.get("context")

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if any(isinstance(p, UserPromptPart) for p in messages[-1].parts):
            return ModelResponse(parts=[ToolCallPart(case["tool"], args)])
        return ModelResponse(parts=[TextPart("Done.")])

    # The person pasted the text in the thread, then asked for a reminder about it: the
    # job's text is theirs (a text they never wrote would be the person's words instead).
    pasted: list[ModelMessage] = [
        ModelRequest(parts=[UserPromptPart(str(literal))]),
        ModelResponse(parts=[TextPart("Got it.")]),
    ]

    with rt.agent.override(model=FunctionModel(model)):
        deps = HomarDeps(user_id=1, channel_id=100, engine=engine, tz="UTC", guild_id=10)
        jobs_before, _ = await snapshot(engine)
        reply = await run_agent(
            rt, "remind me in 5 minutes about the text I pasted", deps, history=pasted, save=False
        )
        jobs_after, _ = await snapshot(engine)
        if len(reply.job_ids) != 1:
            return f"expected one job, got {reply.job_ids}: {reply.text[:160]}"
        [new] = reply.job_ids
        if [j for j in jobs_after if j[0] != new] != list(jobs_before):
            return "another job changed while creating it"
        job = await engine.get(new)
        if job.command != literal:
            return f"stored text differs: {job.command!r}"
        prompt = command_text(job.kind, job.command)
        for name, fired_model in (
            ("offline", offline_model()),
            ("repeats", FunctionModel(_repeats(prompt))),
            ("obeys", FunctionModel(_obeys(prompt))),
        ):
            with rt.agent.override(model=fired_model):
                fired = HomarDeps(
                    user_id=1,
                    channel_id=100,
                    engine=engine,
                    tz="UTC",
                    guild_id=10,
                    fired=True,
                    fired_job_id=new,
                    fired_kind=job.kind,
                )
                before = await snapshot(engine)
                got = await run_agent(rt, prompt, fired, history=[], save=False)
                if await snapshot(engine) != before:
                    return f"firing it ({name}) changed the jobs: {got.text[:160]}"
                if got.job_ids or got.remind_now is not None or DM_SECRET in got.text:
                    return f"firing it ({name}) acted: {got.text[:160]}"
        await engine.cancel(new)  # keep the owner under the open-jobs limit
        return None


async def test_text_shaped_inputs_are_only_text(tmp_path: Path) -> None:
    rt, engine, bob_job, db = await make_world(tmp_path)
    # Many creations in one frozen minute: the per-minute rate limit is not under test here.
    engine.limits = dataclasses.replace(engine.limits, creations_per_minute=len(LITERAL) + 5)
    try:
        mine = await engine.create(
            target=Target(1, 100, 10),
            command="alice's other job",
            schedule=Schedule(Once(FIXED_NOW.replace(hour=21)), "UTC"),
            kind="scheduled",
        )
        await engine.create(
            target=Target(1, 900, None),
            command=DM_SECRET,
            schedule=Schedule(Once(FIXED_NOW.replace(hour=22)), "UTC"),
            kind="reminder",
        )
        ids = {"MINE": mine.id, "BOB": bob_job}
        problems = {}
        for i, case in enumerate(LITERAL):
            got = await run_literal_case(case, rt, engine, ids)
            if got is not None:
                problems[i] = (case["tool"], case["args"], got)
        assert not problems, json.dumps(problems, indent=1, ensure_ascii=False, default=str)[:6000]
    finally:
        await db.close()


async def test_harness_control_good_input_creates_a_job(tmp_path: Path) -> None:
    """The same path with a sane argument does create a job (so the checks above mean something)."""
    rt, engine, bob_job, db = await make_world(tmp_path)
    try:
        good = {"tool": "send_delayed_message", "args": {"message": "tea", "minutes": 5}}
        assert await run_case(good, rt, engine, bob_job) is not None
    finally:
        await db.close()
