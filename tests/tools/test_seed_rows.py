"""Issue 23: the last rows of the seeds — delay fields, schedule strings, to-dos, lists."""

from __future__ import annotations

from datetime import timedelta

import pytest
from pydantic_ai.messages import TextPart

from tests.tools.conftest import FIXED_NOW
from tests.tools.test_agent import approved, ask, call
from tools.agent import AgentKit
from tools.agent.scheduling import HomarDeps
from tools.agent.todo import TodoList
from tools.jobs.model import Target
from tools.schedule import Cron, Once, Schedule, ScheduleError, parse_at_form

# ---------------------------------------------------------------- seed 002: delay fields


async def test_negative_delay_field_is_refused(runtime: AgentKit, deps: HomarDeps) -> None:
    r = await ask(
        runtime, deps, "x", call("send_delayed_message", message="tea", hours=-1, minutes=90)
    )
    assert not r.job_ids
    assert "can't be negative" in r.text and "hours=-1" in r.text
    assert await deps.engine.list_jobs(owner_id=deps.user_id) == []


async def test_minutes_over_59_mean_what_they_say(runtime: AgentKit, deps: HomarDeps) -> None:
    r = await ask(runtime, deps, "x", call("send_delayed_message", message="tea", minutes=90))
    job = await deps.engine.get(r.job_ids[0])
    assert job.next_run_at == FIXED_NOW + timedelta(minutes=90)
    assert "in 1 hour 30 minutes" in r.text
    r = await ask(
        runtime,
        deps,
        "x",
        call("send_delayed_message", message="oven", hours=1, minutes=75, seconds=61),
    )
    job = await deps.engine.get(r.job_ids[0])
    assert job.next_run_at == FIXED_NOW + timedelta(hours=2, minutes=16, seconds=1)
    assert "in 2 hours 16 minutes 1 second" in r.text


# ---------------------------------------------------------------- seed 003: schedule strings


@pytest.mark.parametrize(
    ("text", "expr"),
    [
        ("daily@09:00", "0 9 * * *"),
        ("DAILY@7:05", "5 7 * * *"),
        ("weekdays@08:30", "30 8 * * 1-5"),
        ("weekly@MON@09:00", "0 9 * * 1"),
        ("weekly@sunday@18:15", "15 18 * * 0"),
        ("monthly@1@09:00", "0 9 1 * *"),
        ("monthly@31@23:59", "59 23 31 * *"),
    ],
)
def test_at_forms_read_as_cron(text: str, expr: str) -> None:
    got = parse_at_form(text)
    assert got == Cron(expr)


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("daily@25:00", "Hour 25 is out of range"),
        ("daily@09:60", "Minute 60 is out of range"),
        ("daily@9", "daily@HH:MM"),
        ("weekdays@", "weekdays@HH:MM"),
        ("weekly@09:00", "weekly@DAY@HH:MM"),
        ("weekly@funday@09:00", "'funday' is not a day"),
        ("monthly@32@09:00", "Day 32 is out of range"),
        ("monthly@0@09:00", "Day 0 is out of range"),
        ("hourly@10:00", "daily@HH:MM"),
        ("weekday@08:00@", "weekdays@HH:MM"),
        ("daily@09:00@x", "daily@HH:MM"),
    ],
)
def test_malformed_at_forms_say_what_to_type(text: str, says: str) -> None:
    with pytest.raises(ScheduleError) as err:
        parse_at_form(text)
    assert says in err.value.message


def test_not_an_at_form() -> None:
    assert parse_at_form("every weekday at 8") is None
    assert parse_at_form("0 9 * * 1-5") is None
    assert parse_at_form("@daily") is None  # a cron macro, read elsewhere


async def test_schedule_action_takes_at_forms(runtime: AgentKit, deps: HomarDeps) -> None:
    r = await approved(
        runtime,
        deps,
        "x",
        call("schedule_action", description="standup", type="recurring", schedule="weekdays@09:00"),
    )
    job = await deps.engine.get(r.job_ids[0])
    assert job.schedule == {"type": "cron", "expr": "0 9 * * 1-5"}
    assert (
        job.next_run_at is not None and job.next_run_at.isoformat() == "2026-11-24T08:00:00+00:00"
    )


async def test_schedule_action_refuses_bad_at_form(runtime: AgentKit, deps: HomarDeps) -> None:
    r = await ask(
        runtime,
        deps,
        "x",
        call("schedule_action", description="standup", type="recurring", schedule="daily@25:00"),
        TextPart("ok"),
    )
    assert not r.job_ids and r.approval is None
    assert "Hour 25 is out of range" in r.text and "daily@HH:MM" in r.text


# ---------------------------------------------------------------- seed 003: delete_task


async def test_agent_deletes_a_task(runtime: AgentKit, deps: HomarDeps) -> None:
    todos = TodoList(deps.engine.store.db, deps.engine.clock)
    item = await todos.add(deps.channel_id, "draft the agenda", deps.user_id)
    r = await ask(runtime, deps, "drop it", call("delete_task", task_id=item.id), TextPart("Done."))
    assert await todos.pending(deps.channel_id) == []
    removed = await todos.get(deps.channel_id, item.id)
    assert removed.status == "removed"
    msgs = r.script.messages[-1]
    assert "Removed to-do" in str(msgs[-1])
    r = await ask(runtime, deps, "again", call("delete_task", task_id=item.id), TextPart("ok"))
    assert "already removed" in str(r.script.messages[-1][-1])
    r = await ask(runtime, deps, "other", call("delete_task", task_id=999), TextPart("ok"))
    assert "no to-do #999" in str(r.script.messages[-1][-1])


# ---------------------------------------------------------------- lists beyond 25


async def _many_jobs(deps: HomarDeps, n: int) -> None:
    for i in range(n):
        await deps.engine.create(
            target=Target(deps.user_id, deps.channel_id, deps.guild_id),
            command=f"job {i}",
            schedule=Schedule(Once(FIXED_NOW + timedelta(hours=i + 1)), "UTC"),
            kind="scheduled",
            check_limits=False,
        )


async def _model_listed(runtime: AgentKit, deps: HomarDeps) -> str:
    """What the model is shown after it lists the jobs (a plain "list" is settled in code,
    so this asks in words only a model reads)."""
    r = await ask(
        runtime,
        deps,
        "give me an overview of my jobs",
        call("list_scheduled_actions"),
        TextPart("here"),
    )
    return str(r.script.messages[-1][-1])


async def test_agent_list_says_how_many_more(runtime: AgentKit, deps: HomarDeps) -> None:
    await _many_jobs(deps, 30)
    listed = await _model_listed(runtime, deps)
    assert "“job 24”" in listed and "“job 25”" not in listed
    assert "…and 5 more" in listed and "/jobs list" in listed and "homar jobs list" in listed


async def test_agent_list_without_more_has_no_note(runtime: AgentKit, deps: HomarDeps) -> None:
    await _many_jobs(deps, 25)
    assert "more" not in await _model_listed(runtime, deps)


async def test_offline_list_says_how_many_more(runtime: AgentKit, deps: HomarDeps) -> None:
    await _many_jobs(deps, 27)
    from tools.agent import run_agent

    r = await run_agent(runtime, "list my jobs", deps)
    assert sum(line.startswith("#") for line in r.text.splitlines()) == 25
    assert "…and 2 more" in r.text and "/jobs list" in r.text


async def test_json_text_list_says_how_many_more(runtime: AgentKit, deps: HomarDeps) -> None:
    await _many_jobs(deps, 26)
    r = await ask(runtime, deps, "list", TextPart('{"name": "list_scheduled_actions"}'))
    assert "…and 1 more" in r.text


# ---------------------------------------------------------------- seed 001: escalation argument


async def test_reminder_escalate_argument(runtime: AgentKit, deps: HomarDeps) -> None:
    r = await ask(
        runtime,
        deps,
        "remind me at 18:00 to submit the report, and DM me if I ignore it",
        call(
            "schedule_reminder",
            reminder_time="18:00",
            message="submit the report",
            escalate="dm",
        ),
    )
    job = await deps.engine.get(r.job_ids[0])
    assert job.follow_up == {"interval_s": 1800, "max": 2, "escalate": "dm"}
    assert "then DM you once" in r.text
    r = await ask(
        runtime,
        deps,
        "remind me at 19:00 to water plants",
        call("schedule_reminder", reminder_time="19:00", message="water plants"),
    )
    assert (await deps.engine.get(r.job_ids[0])).follow_up is None  # off by default


async def test_update_takes_at_forms(runtime: AgentKit, deps: HomarDeps) -> None:
    r = await ask(runtime, deps, "x", call("send_delayed_message", message="stretch", minutes=5))
    (job_id,) = r.job_ids
    # Making it repeat waits for the user's Approve, as creating a repeating job does.
    r = await approved(
        runtime,
        deps,
        "x",
        call("update_scheduled_action", task_id=job_id, new_time="weekly@fri@17:30"),
    )
    job = await deps.engine.get(job_id)
    assert job.schedule == {"type": "cron", "expr": "30 17 * * 5"} and job.kind == "recurring"
    r = await ask(
        runtime,
        deps,
        "x",
        call("update_scheduled_action", task_id=job_id, new_time="monthly@32@09:00"),
        TextPart("ok"),
    )
    assert "Day 32 is out of range" in r.text
    assert (await deps.engine.get(job_id)).schedule == {"type": "cron", "expr": "30 17 * * 5"}
