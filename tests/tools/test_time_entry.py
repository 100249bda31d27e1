"""One reading of a typed time for every surface: agent tools, `/remind`, the snooze form.

`tools.timeparse.read_time` is the entry point; these tests pin that the surfaces agree
on what a phrase means and explain a day its month lacks instead of failing vaguely.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import pytest
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from bot.choices import read_snooze
from bot.slash.when import read_instant, read_until
from tools.agent import AgentKit, HomarDeps, run_agent
from tools.errors import UserError
from tools.schedule import zone

from .conftest import FIXED_NOW, TZ

PHRASES = (
    "2026-11-24 09:00",
    "tomorrow at 9",
    "in 45 minutes",
    "friday 10am",
    "3pm Tokyo time",
    "morgen um 9 Uhr",
)


def _script(*parts: ToolCallPart | TextPart) -> FunctionModel:
    """A model answering with `parts` in order (the last one repeats)."""
    calls: list[int] = []

    def answer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        calls.append(1)
        return ModelResponse(parts=[parts[min(len(calls), len(parts)) - 1]])

    return FunctionModel(answer)


async def _ask(
    runtime: AgentKit, deps: HomarDeps, said: str, *parts: ToolCallPart | TextPart
) -> Any:
    """The person says `said`; the scripted model answers with `parts`."""
    with runtime.agent.override(model=_script(*parts)):
        return await run_agent(runtime, said, deps)


@pytest.mark.parametrize("phrase", PHRASES)
def test_snooze_reads_a_phrase_as_remind_does(phrase: str) -> None:
    remind = read_instant(phrase, now=FIXED_NOW, tz=TZ)
    assert read_snooze(phrase, FIXED_NOW, TZ) == remind.at


def test_remind_keeps_the_zone_a_phrase_names() -> None:
    got = read_instant("3pm Tokyo time", now=FIXED_NOW, tz=TZ)
    assert got.tz == "Asia/Tokyo" and got.at.astimezone(zone("Asia/Tokyo")).hour == 15


@pytest.mark.parametrize("read", ["snooze", "remind", "until"])
def test_every_form_explains_a_day_the_month_lacks(read: str) -> None:
    with pytest.raises(UserError) as caught:
        if read == "snooze":
            read_snooze("feb 30", FIXED_NOW, TZ)
        elif read == "remind":
            read_instant("feb 30", now=FIXED_NOW, tz=TZ)
        else:
            read_until("feb 30", now=FIXED_NOW, tz=TZ)
    if read != "until":  # an end says "couldn't read … as an end" (unchanged)
        assert "February has no 30th — did you mean March 2nd?" in caught.value.message


def test_unreadable_snooze_still_says_what_to_type() -> None:
    with pytest.raises(UserError, match=r"couldn.t read.*in 45 minutes"):
        read_snooze("whenever-ish", FIXED_NOW, TZ)


async def test_agent_tool_explains_a_day_the_month_lacks(
    runtime: AgentKit, deps: HomarDeps
) -> None:
    """The model can't fix "Feb 30" by retrying: the person is asked, nothing is scheduled."""
    r = await _ask(
        runtime,
        deps,
        "remind me on feb 30 to pay rent",
        ToolCallPart("schedule_reminder", {"reminder_time": "feb 30", "message": "pay rent"}),
        TextPart("Done."),
    )
    assert "February has no 30th — did you mean March 2nd?" in r.text
    assert not r.job_ids and r.clarifier and not r.offline and r.error is None
    assert r.requests == 1


async def test_agent_tool_reads_a_zone_named_in_the_phrase(
    runtime: AgentKit, deps: HomarDeps
) -> None:
    r = await _ask(
        runtime,
        deps,
        "remind me at 9am Tokyo time to call",
        ToolCallPart("schedule_reminder", {"reminder_time": "9am Tokyo time", "message": "call"}),
        TextPart("Done."),
    )
    assert len(r.job_ids) == 1 and r.requests == 1, r.text
    job = await deps.engine.get(r.job_ids[0])
    assert job.next_run_at is not None
    tokyo = job.next_run_at.astimezone(zone("Asia/Tokyo"))
    assert (tokyo.hour, tokyo.minute) == (9, 0)
    assert timedelta(0) < job.next_run_at - FIXED_NOW <= timedelta(days=1)


def test_snooze_reads_iso_in_the_owners_zone() -> None:
    got = read_snooze("2026-11-24 09:00", FIXED_NOW, TZ)
    assert got == datetime(2026, 11, 24, 9, 0, tzinfo=zone(TZ))


async def test_agent_confirmation_says_how_a_foreign_phrase_was_read(
    runtime: AgentKit, deps: HomarDeps
) -> None:
    r = await _ask(
        runtime,
        deps,
        "set that up",  # the phrase is the model's argument; the words layer reads English
        ToolCallPart("schedule_reminder", {"reminder_time": "morgen um 9 Uhr", "message": "Sam"}),
        TextPart("Done."),
    )
    assert len(r.job_ids) == 1, r.text
    assert "(read as German: Tue 24 Nov 2026 09:00)" in r.text


def test_remind_keeps_how_a_foreign_phrase_was_read() -> None:
    """`/remind` shows this as its "Understood" field (`bot/commands/remind.py`)."""
    got = read_instant("morgen um 9 Uhr", now=FIXED_NOW, tz=TZ)
    assert getattr(got.at, "understood", "") == "read as German: Tue 24 Nov 2026 09:00"
