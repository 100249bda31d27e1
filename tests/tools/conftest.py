"""Fixtures for the agent tests: a temp SQLite engine with a fixed clock, deps, a runtime."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from pydantic_ai.messages import ModelMessage, ModelResponse
from pydantic_ai.models.function import AgentInfo, FunctionModel

from storage.conversations import ConversationStore
from storage.db import Database
from storage.jobs import JobStore
from tools.agent import AgentKit, build_agent
from tools.agent.offline import offline_model
from tools.agent.scheduling import HomarDeps
from tools.jobs.engine import Engine
from tools.memory import Memory
from tools.schedule import Once, Schedule

FIXED_NOW = datetime(2026, 11, 23, 15, 0, tzinfo=UTC)  # Monday 16:00 in Europe/Berlin
TZ = "Europe/Berlin"


@pytest.fixture
async def db(tmp_path: object) -> AsyncIterator[Database]:
    database = Database(f"sqlite+aiosqlite:///{tmp_path}/t.db")
    await database.upgrade()
    yield database
    await database.close()


@pytest.fixture
def engine(db: Database) -> Engine:
    return Engine(JobStore(db), clock=lambda: FIXED_NOW)


@pytest.fixture
def deps(engine: Engine) -> HomarDeps:
    return HomarDeps(
        user_id=1, channel_id=100, engine=engine, tz=TZ, guild_id=10, user_name="alice"
    )


@pytest.fixture
def memory(db: Database) -> Memory:
    return Memory(ConversationStore(db))


@pytest.fixture
def runtime(memory: Memory) -> AgentKit:
    """The offline model as the configured model (tests override `runtime.model`)."""
    return AgentKit(
        agent=build_agent(), model=offline_model(), offline=offline_model(), memory=memory
    )


def scripted(*parts: Any) -> FunctionModel:
    """A model that answers its n-th request with `parts[n]` (the last one from then on)."""
    seen: list[int] = []

    def fn(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.append(1)
        return ModelResponse(parts=[parts[min(len(seen) - 1, len(parts) - 1)]])

    return FunctionModel(fn)


async def seed_job(deps: HomarDeps, command: str) -> int:
    """One reminder of the person's, three hours ahead: a job for a turn to talk about."""
    job = await deps.engine.create(
        target=deps.target,
        command=command,
        schedule=Schedule(Once(deps.reference_now() + timedelta(hours=3)), deps.tz),
        kind="reminder",
    )
    return job.id
