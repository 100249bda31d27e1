"""The offline rule-based model over many phrasings, and end to end through run_agent."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

import pytest

from tests.tools.conftest import FIXED_NOW, TZ
from tools.agent import AgentKit, resume_approval, run_agent
from tools.agent.offline import ASK_WHEN, HELP, plan
from tools.agent.scheduling import HomarDeps

NOW = FIXED_NOW

# (phrase, expected tool or None for a text answer, expected subset of args)
CASES: list[tuple[str, str | None, dict[str, object]]] = [
    ("remind me tomorrow at 9 to call mom", "schedule_reminder", {"message": "call mom"}),
    ("remind me to call mom tomorrow at 9", "schedule_reminder", {"message": "call mom"}),
    (
        "Remind me in 2 hours to check the laundry",
        "schedule_reminder",
        {"message": "check the laundry"},
    ),
    (
        "remind me in 30 minutes to check the oven",
        "schedule_reminder",
        {"message": "check the oven"},
    ),
    ("remind me at 5pm to buy milk", "schedule_reminder", {"message": "buy milk"}),
    ("remind me on march 3 to pay rent", "schedule_reminder", {"message": "pay rent"}),
    ("remind me to pay rent on march 3", "schedule_reminder", {"message": "pay rent"}),
    (
        "please remind me next monday at 10am to send the invoice",
        "schedule_reminder",
        {"message": "send the invoice"},
    ),
    ("remind me about the meeting at 17:00", "schedule_reminder", {"minutes_before": 5}),
    ("remind me about my call tomorrow at 9", "schedule_reminder", {"minutes_before": 5}),
    ("my call is in 4 minutes, remind me", "schedule_reminder", {"minutes_before": 5}),
    ("my meeting is at 18:00, remind me", "schedule_reminder", {"minutes_before": 5}),
    (
        "remind me in 10 minutes that the tea is ready",
        "schedule_reminder",
        {"message": "the tea is ready"},
    ),
    ("remind me tonight to water the plants", "schedule_reminder", {"message": "water the plants"}),
    ("don't let me forget - remind me at 5pm to submit the report", "schedule_reminder", {}),
    ("remind me now to drink water", "schedule_reminder", {"reminder_time": "now"}),
    ("remind me to stretch now", "schedule_reminder", {"reminder_time": "now"}),
    (
        "<@123> remind me tomorrow at 8 to feed the cat",
        "schedule_reminder",
        {"message": "feed the cat"},
    ),
    ("Homar, remind me in 1 hour to call Bob", "schedule_reminder", {"message": "call Bob"}),
    ("remind me in an hour to stand up", "schedule_reminder", {"message": "stand up"}),
    ("remind me tomorrow morning to take out the trash", "schedule_reminder", {}),
    (
        "remind me on friday at 3pm to book tickets",
        "schedule_reminder",
        {"message": "book tickets"},
    ),
    ("in 30 minutes turn off the porch light", "send_delayed_message", {"minutes": 30}),
    ("turn the porch light off in 30 minutes", "send_delayed_message", {"minutes": 30}),
    ("in 2 hours check the laundry", "send_delayed_message", {"hours": 2}),
    ("in 90 seconds say hi", "send_delayed_message", {"minutes": 1, "seconds": 30}),
    (
        "in 1 hour and 30 minutes start the dishwasher",
        "send_delayed_message",
        {"hours": 1, "minutes": 30},
    ),
    ("send me a test message in 10 seconds", "send_delayed_message", {"seconds": 10}),
    ("check the oven in 15 minutes", "send_delayed_message", {"minutes": 15}),
    ("at 10pm turn off the lights", "send_scheduled_message", {"message": "turn off the lights"}),
    ("turn off the lights at 10pm", "send_scheduled_message", {"message": "turn off the lights"}),
    ("at 22:30 lock the door", "send_scheduled_message", {"message": "lock the door"}),
    ("tomorrow at 9 post the agenda", "send_scheduled_message", {"message": "post the agenda"}),
    ("call the dentist tomorrow at 9", "send_scheduled_message", {"message": "call the dentist"}),
    ("next friday at noon order pizza", "send_scheduled_message", {"message": "order pizza"}),
    (
        "every weekday at 8 stretch",
        "schedule_action",
        {"type": "recurring", "description": "stretch"},
    ),
    (
        "stretch every weekday at 8",
        "schedule_action",
        {"type": "recurring", "description": "stretch"},
    ),
    ("every day at 7am take vitamins", "schedule_action", {"type": "recurring"}),
    ("every monday at 9 post the standup", "schedule_action", {"type": "recurring"}),
    ("remind me every friday at 5pm to log hours", "schedule_action", {"type": "recurring"}),
    ("every 2 hours drink water", "schedule_action", {"type": "interval"}),
    ("every 30 minutes check the build", "schedule_action", {"type": "interval"}),
    ("list", "list_scheduled_actions", {}),
    ("list my reminders", "list_scheduled_actions", {}),
    ("show my jobs", "list_scheduled_actions", {}),
    ("what's scheduled", "list_scheduled_actions", {}),
    ("cancel 12", "delete_scheduled_action", {"task_id": 12}),
    ("cancel job #12", "delete_scheduled_action", {"task_id": 12}),
    ("delete reminder 7", "delete_scheduled_action", {"task_id": 7}),
    ("pause 3", "stop_interval_action", {"task_id": 3}),
    ("stop job 3", "stop_interval_action", {"task_id": 3}),
    ("resume 3", "resume_scheduled_action", {"task_id": 3}),
    ("unpause #3", "resume_scheduled_action", {"task_id": 3}),
    ("help", None, {"text": HELP}),
    ("what can you do?", None, {"text": HELP}),
    ("remind me about the dentist", None, {"text": ASK_WHEN}),
    ("remind me to call mom", None, {"text": ASK_WHEN}),
    ("hello there", None, {}),
    ("what's the weather like", None, {}),
]


def test_at_least_fifty_phrasings() -> None:
    assert len(CASES) >= 50


@pytest.mark.parametrize(("text", "tool", "args"), CASES)
def test_plan(text: str, tool: str | None, args: dict[str, object]) -> None:
    got = plan(text, NOW, TZ)
    if tool is None:
        assert isinstance(got, str)
        if "text" in args:
            assert got == args["text"]
        return
    assert not isinstance(got, str), got
    name, call_args = got
    assert name == tool
    for key, value in args.items():
        assert call_args.get(key) == value, (key, call_args)


async def test_offline_end_to_end_schedules_in_one_request(
    runtime: AgentKit, deps: HomarDeps
) -> None:
    reply = await run_agent(runtime, "remind me tomorrow at 9 to call mom", deps)
    assert reply.requests == 1 and len(reply.job_ids) == 1 and reply.error is None
    job = await deps.engine.get(reply.job_ids[0])
    assert job.kind == "reminder" and job.command == "call mom"
    assert job.next_run_at is not None
    assert job.next_run_at.isoformat() == "2026-11-24T08:00:00+00:00"  # 09:00 Berlin
    assert f"<t:{int(job.next_run_at.timestamp())}:F>" in reply.text


async def test_offline_delayed_and_recurring(runtime: AgentKit, deps: HomarDeps) -> None:
    r1 = await run_agent(runtime, "in 30 minutes turn off the porch light", deps)
    job = await deps.engine.get(r1.job_ids[0])
    assert job.kind == "delayed" and job.next_run_at == NOW + timedelta(minutes=30)
    r2 = await run_agent(runtime, "every weekday at 8 stretch", deps)
    assert r2.approval is not None and not r2.job_ids  # issue 7: repeating jobs need a yes
    r2 = await resume_approval(runtime, r2.approval, True, deps)
    job2 = await deps.engine.get(r2.job_ids[0])
    assert job2.kind == "recurring" and "weekday" in r2.text


async def test_offline_list_cancel_pause_resume(runtime: AgentKit, deps: HomarDeps) -> None:
    made = await run_agent(runtime, "every 2 hours drink water", deps)
    assert made.approval is not None
    made = await resume_approval(runtime, made.approval, True, deps)
    jid = made.job_ids[0]
    listing = await run_agent(runtime, "list", deps)
    assert f"#{jid}" in listing.text and "drink water" in listing.text
    assert "Paused" in (await run_agent(runtime, f"pause {jid}", deps)).text
    assert "Resumed" in (await run_agent(runtime, f"resume {jid}", deps)).text
    assert "Cancelled" in (await run_agent(runtime, f"cancel {jid}", deps)).text
    assert (await deps.engine.get(jid)).status == "cancelled"


async def test_offline_clarifier_and_past_time(runtime: AgentKit, deps: HomarDeps) -> None:
    r = await run_agent(runtime, "remind me about the dentist", deps)
    assert r.clarifier and not r.job_ids and r.text == ASK_WHEN
    r = await run_agent(runtime, "remind me at 3pm to call mom", deps)  # it is 16:00
    assert r.clarifier and not r.job_ids and "tomorrow" in r.text


async def test_offline_unknown_job_is_friendly(runtime: AgentKit, deps: HomarDeps) -> None:
    r = await run_agent(runtime, "cancel 999", deps)
    assert "no job #999" in r.text and r.error is None


async def test_offline_fired_run_delivers_without_scheduling(
    runtime: AgentKit, deps: HomarDeps
) -> None:
    deps = replace(deps, fired=True, fired_job_id=41, fired_kind="reminder")
    r = await run_agent(runtime, "Send a reminder about: submit the report", deps)
    assert r.text == "⏰ submit the report" and not r.job_ids
