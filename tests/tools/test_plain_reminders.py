"""A one-off reminder for the person, read fully from their words, is made without a model
request (issue 15: a 1.5B model took 5–10 s a request on two cores, and the person's words
decide the time whatever it writes). Everything else still goes to the model."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta

import pytest
from pydantic_ai.messages import TextPart

from bot.settings import Settings
from tests.tools.conftest import FIXED_NOW
from tests.tools.test_agent import ask, call
from tools.agent import AgentKit
from tools.agent.scheduling import HomarDeps

# What a model that got everything wrong would write: never used when code reads the message.
WRONG = call("schedule_reminder", reminder_time="2030-01-01T00:00:00", message="wrong")
TOMORROW_9 = datetime(2026, 11, 24, 8, 0, tzinfo=FIXED_NOW.tzinfo)  # 09:00 Europe/Berlin


@pytest.fixture
def fast(runtime: AgentKit) -> AgentKit:
    return replace(runtime, plain_reminders_in_code=True)


@pytest.mark.parametrize(
    ("text", "at", "words", "follow_up"),
    [
        ("remind me tomorrow at 9 to call mom", TOMORROW_9, "call mom", False),
        (
            "Remind me in 2 hours to take the bread out.",
            FIXED_NOW + timedelta(hours=2),
            "bread",
            False,
        ),
        # an event's time: the reminder comes its lead time before
        ("my call with Sam is at 5pm", FIXED_NOW + timedelta(minutes=55), "Sam", False),
        ("nag me about the taxes at 6pm", FIXED_NOW + timedelta(hours=2), "taxes", True),
    ],
)
async def test_a_plain_reminder_is_made_without_a_model_request(
    fast: AgentKit, deps: HomarDeps, text: str, at: datetime, words: str, follow_up: bool
) -> None:
    r = await ask(fast, deps, text, WRONG, TextPart("ok"))
    assert r.script.infos == [], "the model was asked"
    [job_id] = r.job_ids
    job = await deps.engine.get(job_id)
    assert job is not None and job.kind == "reminder"
    assert job.next_run_at == at and words in job.command
    assert (job.follow_up is not None) == follow_up
    assert f"#{job_id}" in r.text and r.error is None


@pytest.mark.parametrize(
    "text",
    [
        "remind <@42> and me at 5pm to leave",  # someone else: the audience is the model's
        "remind us at 5pm to leave",
        "dm me tomorrow at 9 to call mom",
        "remind me about that at 5pm",  # points back at the thread, which the model sees
        "ping me about the above tomorrow at 9",
        "nag me at 6pm to do the taxes every 10 minutes until I answer",
        "remind me every day at 9 to stretch",  # a repeat
        "weekly on sundays at 8pm remind me to do the rota",
        "turn the porch light off in 30 minutes",  # a command for later, not a reminder
        "remind me tomorrow at 9",  # no text: not fully read
        "what's the weather like tomorrow at 9?",
    ],
)
async def test_anything_else_still_goes_to_the_model(
    fast: AgentKit, deps: HomarDeps, text: str
) -> None:
    r = await ask(fast, deps, text, TextPart("From the model."))
    assert r.script.infos, f"not asked: {r.text}"


async def test_switched_off_every_message_goes_to_the_model(
    runtime: AgentKit, deps: HomarDeps
) -> None:
    assert runtime.plain_reminders_in_code is False  # the kit's default; the bot's is on
    r = await ask(
        runtime,
        deps,
        "remind me tomorrow at 9 to call mom",
        call("schedule_reminder", reminder_time="tomorrow at 9", message="call mom"),
        TextPart("ok"),
    )
    assert len(r.script.infos) == 1
    job = await deps.engine.get(r.job_ids[0])
    assert job is not None and job.next_run_at == TOMORROW_9


def test_the_bot_reads_plain_reminders_in_code_unless_told_not_to(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("PLAIN_REMINDERS_IN_CODE", raising=False)
    assert Settings(_env_file=None).plain_reminders_in_code is True  # type: ignore[call-arg]
    monkeypatch.setenv("PLAIN_REMINDERS_IN_CODE", "false")
    assert Settings(_env_file=None).plain_reminders_in_code is False  # type: ignore[call-arg]
