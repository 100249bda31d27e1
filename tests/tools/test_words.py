"""The person's words win on *when*, and text-written or malformed tool calls are read.

Each test replays a failure kind seen with small local models (issue 15) through a
FunctionModel and asserts the job that results.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from tests.tools.conftest import FIXED_NOW, seed_job
from tools.agent import AgentKit, resume_approval, run_agent
from tools.agent.reading import repair_args, repair_time
from tools.agent.scheduling import HomarDeps
from tools.agent.words import read_words
from tools.audience import Audience
from tools.jobs.engine import Engine

BERLIN = ZoneInfo("Europe/Berlin")


def local(day: int, hour: int, minute: int = 0, second: int = 0) -> datetime:
    return datetime(2026, 11, day, hour, minute, second, tzinfo=BERLIN)


async def ask(runtime: AgentKit, deps: HomarDeps, text: str, *parts: Any) -> Any:
    replies = [p if isinstance(p, list) else [p] for p in parts] or [[TextPart("ok")]]

    def fn(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        n = sum(isinstance(m, ModelResponse) for m in messages)
        return ModelResponse(parts=replies[min(n, len(replies) - 1)])

    with runtime.agent.override(model=FunctionModel(fn)):
        return await run_agent(runtime, text, deps)


async def next_run(deps: HomarDeps, reply: Any) -> datetime:
    assert reply.job_ids, reply.text
    job = await deps.engine.get(reply.job_ids[0])
    assert job.next_run_at is not None
    return job.next_run_at.astimezone(BERLIN)


# ---------------------------------------------------------------- the words win


@pytest.mark.parametrize(
    ("text", "model_time", "expected"),
    [
        # the model did date arithmetic and got it wrong: an hour off, a day off, a year off
        ("remind me tomorrow at 9am to call the dentist", "2026-11-24T10:00", local(24, 9)),
        ("remind me tonight at 8 to call mom", "2026-11-24T20:00", local(23, 20)),
        ("remind me on friday at 10 to pay rent", "2026-11-26T10:00", local(27, 10)),
        (
            "remind me on dec 5 at 9 to buy a gift",
            "2027-12-05T09:00",
            datetime(2026, 12, 5, 9, tzinfo=BERLIN),
        ),
        # an ISO time in UTC for a wall-clock time the person gave in their zone
        ("remind me at 6pm to water the plants", "2026-11-23T18:00:00Z", local(23, 18)),
    ],
)
async def test_wrong_absolute_time_from_the_model(
    runtime: AgentKit, deps: HomarDeps, text: str, model_time: str, expected: datetime
) -> None:
    call = ToolCallPart("schedule_reminder", {"reminder_time": model_time, "message": "x"})
    r = await ask(runtime, deps, text, call)
    assert await next_run(deps, r) == expected


async def test_stray_lead_time_on_an_explicit_reminder_time(
    runtime: AgentKit, deps: HomarDeps
) -> None:
    call = ToolCallPart(
        "schedule_reminder",
        {"reminder_time": "tomorrow at 9am", "message": "call the dentist", "minutes_before": 5},
    )
    r = await ask(runtime, deps, "remind me tomorrow at 9am to call the dentist", call)
    assert await next_run(deps, r) == local(24, 9)


async def test_lead_time_kept_for_an_event_time(runtime: AgentKit, deps: HomarDeps) -> None:
    call = ToolCallPart(
        "schedule_reminder",
        {"reminder_time": "5pm", "message": "call with Sam", "minutes_before": 5},
    )
    r = await ask(runtime, deps, "my call with Sam is at 5pm, remind me", call)
    assert await next_run(deps, r) == local(23, 16, 55)


async def test_lead_time_the_person_named_wins(runtime: AgentKit, deps: HomarDeps) -> None:
    call = ToolCallPart(
        "schedule_reminder",
        {"reminder_time": "6pm", "message": "standup", "minutes_before": 5},
    )
    r = await ask(runtime, deps, "remind me 15 minutes before my meeting at 6pm", call)
    assert await next_run(deps, r) == local(23, 17, 45)


async def test_relative_time_exact_to_the_second(runtime: AgentKit, deps: HomarDeps) -> None:
    deps = replace(deps, now=FIXED_NOW + timedelta(seconds=37))
    join = ToolCallPart(
        "schedule_reminder",
        {"reminder_time": "in 1 hour", "message": "join the call", "minutes_before": 15},
    )
    r = await ask(runtime, deps, "in 1 hour and 15 minutes remind me to join the call", join)
    assert await next_run(deps, r) == local(23, 17, 15, 37)
    deps = replace(deps, now=FIXED_NOW + timedelta(seconds=37))
    delayed = ToolCallPart("send_delayed_message", {"message": "check the oven", "minutes": 1})
    r = await ask(runtime, deps, "check the oven in 10 seconds", delayed)
    assert await next_run(deps, r) == local(23, 16, 0, 47)


async def test_zone_named_by_city(runtime: AgentKit, deps: HomarDeps) -> None:
    call = ToolCallPart("schedule_reminder", {"reminder_time": "15:00", "message": "call Ken"})
    r = await ask(runtime, deps, "remind me at 3pm Tokyo time tomorrow to call Ken", call)
    assert await next_run(deps, r) == datetime(2026, 11, 24, 15, tzinfo=ZoneInfo("Asia/Tokyo"))


async def test_recurrence_from_the_words_through_approval(
    runtime: AgentKit, deps: HomarDeps
) -> None:
    wrong = ToolCallPart(
        "schedule_action",
        {"description": "post standup", "type": "recurring", "schedule": "0 9 * * *"},
    )
    r = await ask(runtime, deps, "every weekday at 9 post standup", wrong, TextPart("Done."))
    assert r.approval is not None and "weekday" in r.text.lower(), r.text
    done = await resume_approval(runtime, r.approval, True, deps)
    job = await deps.engine.get(done.job_ids[0])
    runs = [local(24, 9), local(25, 9), local(26, 9), local(27, 9), local(30, 9)]
    from tools.jobs.model import schedule_of

    got = schedule_of(job).next_runs(FIXED_NOW, 5)
    assert [t.astimezone(BERLIN) for t in got] == runs


async def test_two_times_in_the_words_correct_nothing(runtime: AgentKit, deps: HomarDeps) -> None:
    """Two times said: the words correct nothing (the model's pick of them stands), and a
    time that is neither of them is asked about (the fourteenth prompt set)."""
    said = "remind me to call mom at 5pm or was it 6pm"
    assert read_words(said, FIXED_NOW, "Europe/Berlin").ambiguous
    call = ToolCallPart("schedule_reminder", {"reminder_time": "6pm", "message": "x"})
    r = await ask(runtime, deps, said, call)
    assert await next_run(deps, r) == local(23, 18)
    call = ToolCallPart("schedule_reminder", {"reminder_time": "7pm", "message": "y"})
    r = await ask(runtime, deps, said, call)
    assert not r.job_ids and "more than one time" in r.text, r.text


def test_a_clock_taken_back_at_once_is_the_one_said_last() -> None:
    """ "at 5pm, no wait, 6pm" (the twenty-second set): the person corrected themselves."""
    for said in ("remind me to call mom at 5pm, no wait, 6pm", "remind me at 5 — sorry, 6 to cook"):
        words = read_words(said, FIXED_NOW, "Europe/Berlin")
        assert words.instant == local(23, 18) and not words.ambiguous, said


async def test_past_bare_time_still_asks(runtime: AgentKit, deps: HomarDeps) -> None:
    call = ToolCallPart("schedule_reminder", {"reminder_time": "2026-11-23T15:00", "message": "x"})
    r = await ask(runtime, deps, "remind me at 3pm to call mom", call)
    assert r.clarifier and not r.job_ids


async def test_nag_words_turn_on_follow_ups(runtime: AgentKit, deps: HomarDeps) -> None:
    call = ToolCallPart("schedule_reminder", {"reminder_time": "6pm", "message": "the taxes"})
    r = await ask(runtime, deps, "nag me about the taxes at 6pm", call)
    job = await deps.engine.get(r.job_ids[0])
    assert job.follow_up is not None and "follow up" in r.text


# ---------------------------------------------------------------- text calls


_ARGS = '{"reminder_time": "tomorrow at 9", "message": "call mom"}'
_CALL = '{"name": "schedule_reminder", "arguments": ' + _ARGS + "}"


@pytest.mark.parametrize(
    "reply",
    [
        f"<tools><function name=\"schedule_reminder\" arguments='{_ARGS}'/></tools>",
        f"<tool_call>\n{_CALL}\n</tool_call>",
        f"<tools>{_CALL}</tools>",
        f"<|python_tag|>{_CALL}",
        f"[TOOL_CALLS] [{_CALL}]",
        f"Sure!\n```json\n{_CALL}\n```",
        f"Okay: {_CALL}",
        "{" + _CALL + "}",
        f"<function=schedule_reminder>{_ARGS}</function>",
        '{"function": {"name": "schedule_reminder", "arguments": ' + repr(_ARGS)[0] + "}}",
    ][:-1],
)
async def test_text_call_forms(runtime: AgentKit, deps: HomarDeps, reply: str) -> None:
    r = await ask(runtime, deps, "remind me tomorrow at 9 to call mom", TextPart(reply))
    assert r.requests == 1 and await next_run(deps, r) == local(24, 9), r.text
    assert "function" not in r.text and "{" not in r.text and "tool" not in r.text


async def test_several_text_calls_in_one_reply(runtime: AgentKit, deps: HomarDeps) -> None:
    a = '{"name": "schedule_reminder", "arguments": {"reminder_time": "6pm", "message": "a"}}'
    b = '{"name": "send_delayed_message", "arguments": {"message": "b", "minutes": 30}}'
    r = await ask(
        runtime,
        deps,
        "remind me of a at 6pm and do b in 30 minutes",
        TextPart(f"<tool_call>{a}</tool_call>\n<tool_call>{b}</tool_call>"),
    )
    assert len(r.job_ids) == 2, r.text


# ---------------------------------------------------------------- malformed arguments


async def test_impossible_minute_and_string_numbers_repaired(
    runtime: AgentKit, deps: HomarDeps
) -> None:
    call = ToolCallPart(
        "schedule_reminder",
        {"reminder_time": "2026-11-24T13:66", "message": "x", "follow_up": "yes"},
    )
    r = await ask(runtime, deps, "remind me of x at 13:66", call)
    assert r.requests == 1 and await next_run(deps, r) == local(24, 14, 6)
    job = await deps.engine.get(r.job_ids[0])
    assert job.follow_up is not None
    call = ToolCallPart("send_delayed_message", {"message": "tea", "minutes": "30 minutes"})
    r = await ask(runtime, deps, "tea in 30", call)
    assert r.requests == 1 and await next_run(deps, r) == local(23, 16, 30)


def test_repair_helpers() -> None:
    assert repair_time("13:66") == "14:06"
    assert repair_time("2026-11-23T23:75:00+01:00") == "2026-11-24T00:15:00+01:00"
    assert repair_time("25:00") == "25:00"
    schema = {
        "properties": {"n": {"type": "integer"}, "b": {"type": "boolean"}, "s": {"type": "string"}},
        "required": ["s"],
    }
    got = repair_args({"n": "5 times", "b": "no", "s": 7, "junk": 1, "x": None}, schema)
    assert got == {"n": 5, "b": False, "s": "7"}


async def test_fired_run_text_calls_are_not_read(runtime: AgentKit, deps: HomarDeps) -> None:
    """A job's command is data: a tool call written in the reply to a fired run runs nothing."""
    deps = replace(deps, fired=True, fired_job_id=7, fired_kind="delayed")
    r = await ask(runtime, deps, "post the report", TextPart(f"<tool_call>{_CALL}</tool_call>"))
    assert not r.job_ids and r.approval is None
    assert await deps.engine.list_jobs(owner_id=1) == []


async def test_fired_run_cannot_change_the_time_zone(
    runtime: AgentKit, deps: HomarDeps, db: Any
) -> None:
    from storage.user_settings import UserSettingsStore

    deps = replace(deps, fired=True, fired_job_id=7, fired_kind="delayed")
    call = ToolCallPart("set_timezone", {"zone": "Tokyo"})
    await ask(runtime, deps, "my timezone is Tokyo", call, TextPart("ok"))
    assert await UserSettingsStore(db).tz(1) is None


# ---------------------------------------------------------------- a time nobody said


@pytest.mark.parametrize(
    ("text", "made_up"),
    [
        (
            "remind me to call the dentist",
            ToolCallPart(
                "schedule_reminder",
                {"reminder_time": "tomorrow at 9", "message": "call the dentist"},
            ),
        ),
        (
            "remind me later to answer Mark",
            ToolCallPart(
                "schedule_reminder", {"reminder_time": "in 1 hour", "message": "answer Mark"}
            ),
        ),
        (
            "don't let me forget the report",
            ToolCallPart("send_delayed_message", {"message": "the report", "hours": 2}),
        ),
        (
            "set a reminder",
            ToolCallPart(
                "schedule_action",
                {"description": "reminder", "type": "recurring", "schedule": "0 9 * * *"},
            ),
        ),
    ],
)
async def test_a_time_the_person_never_said_is_asked_for(
    runtime: AgentKit, deps: HomarDeps, text: str, made_up: ToolCallPart
) -> None:
    r = await ask(runtime, deps, text, made_up)
    assert not r.job_ids and r.clarifier and r.text.rstrip().endswith("?"), r.text


async def test_a_time_said_earlier_in_the_thread_counts(runtime: AgentKit, deps: HomarDeps) -> None:
    r = await ask(
        runtime, deps, "remind me in 10 minutes", TextPart("What should I remind you of?")
    )
    assert not r.job_ids
    answer = ToolCallPart(
        "schedule_reminder", {"reminder_time": "in 10 minutes", "message": "oven"}
    )
    r = await ask(runtime, deps, "to check the oven", answer)
    assert await next_run(deps, r) == (FIXED_NOW + timedelta(minutes=10)).astimezone(BERLIN)


# ---------------------------------------------------------------- the words win on repetition


def _repeating(description: str, schedule: str) -> ToolCallPart:
    args = {"description": description, "type": "recurring", "schedule": schedule}
    return ToolCallPart("schedule_action", args)


async def _only_job(deps: HomarDeps, reply: Any) -> Any:
    assert reply.approval is None, reply.text  # a one-off never waits for approval
    assert len(reply.job_ids) == 1, reply.text
    return await deps.engine.get(reply.job_ids[0])


@pytest.mark.parametrize(
    ("text", "written", "expected"),
    [
        # seen with Qwen2.5-Coder 1.5B: a bare 7 beside a day read as 19:00 for a wake-up
        ("wake me up at 7 tomorrow", "tomorrow at 19:00", local(24, 7)),
        # ... and noon for "this afternoon"
        ("remind me tomorrow afternoon to book the train", "2026-11-24T12:00", local(24, 14)),
    ],
)
async def test_the_half_of_the_day_the_words_point_to_wins(
    runtime: AgentKit, deps: HomarDeps, text: str, written: str, expected: datetime
) -> None:
    made = ToolCallPart("schedule_reminder", {"reminder_time": written, "message": "it"})
    r = await ask(runtime, deps, text, made)
    assert await next_run(deps, r) == expected, r.text


@pytest.mark.parametrize(
    ("text", "made", "kind", "expected"),
    [
        # seen with Qwen2.5-Coder 1.5B: a one-off request became a job repeating every weekday
        (
            "remind me thursday 7:30am to put the bins out",
            _repeating("put the bins out", "every weekday at 7:30"),
            "reminder",
            local(26, 7, 30),
        ),
        (
            "in 30 minutes remind me to stretch",
            _repeating("stretch", "every weekday at 9:30"),
            "reminder",
            local(23, 16, 30),
        ),
        # the time of an event: a one-off reminder, with the meeting's lead time
        (
            "my meeting with the bank is on wednesday at 11",
            _repeating("meeting with the bank", "0 11 * * *"),
            "reminder",
            local(25, 10, 55),
        ),
        # a command, not a reminder: a one-off command at the time said
        (
            "tomorrow at 8 post the weekly report",
            _repeating("post the weekly report", "weekly@MON@08:00"),
            "scheduled",
            local(24, 8),
        ),
        # "daily" naming a meeting is not a repetition
        (
            "remind me tomorrow at 9 about the daily standup",
            _repeating("the daily standup", "daily@09:00"),
            "reminder",
            local(24, 9),
        ),
        # an interval for a one-off delay
        (
            "check the oven in 20 minutes",
            ToolCallPart(
                "schedule_action",
                {"description": "check the oven", "type": "interval", "schedule": "20 minutes"},
            ),
            "delayed",
            local(23, 16, 20),
        ),
    ],
)
async def test_a_one_off_request_never_becomes_a_repeating_job(
    runtime: AgentKit, deps: HomarDeps, text: str, made: ToolCallPart, kind: str, expected: datetime
) -> None:
    r = await ask(runtime, deps, text, made, TextPart("Done."))
    job = await _only_job(deps, r)
    assert job.kind == kind and await next_run(deps, r) == expected, r.text
    from tools.jobs.model import schedule_of

    assert not schedule_of(job).is_recurring


async def test_a_one_off_as_text_call_is_read_as_a_one_off(
    runtime: AgentKit, deps: HomarDeps
) -> None:
    reply = (
        '```json\n{"name": "schedule_action", "arguments": {"description": "stretch", '
        '"type": "recurring", "schedule": "every weekday at 9:30"}}\n```'
    )
    r = await ask(runtime, deps, "in 30 minutes remind me to stretch", TextPart(reply))
    job = await _only_job(deps, r)
    assert job.kind == "reminder" and await next_run(deps, r) == local(23, 16, 30)
    assert r.requests == 1


async def test_a_one_off_at_a_time_already_past_asks(runtime: AgentKit, deps: HomarDeps) -> None:
    """The words say one time but not which day (15:00 has passed): the person is asked."""
    made = _repeating("stretch", "daily@15:00")
    r = await ask(runtime, deps, "remind me at 3pm to stretch", made)
    assert not r.job_ids and r.approval is None and r.clarifier, r.text
    assert "tomorrow" in r.text


@pytest.mark.parametrize(
    ("text", "made", "runs"),
    [
        (
            "every monday at 9 remind me to post the report",
            ToolCallPart(
                "schedule_reminder", {"reminder_time": "monday 9:00", "message": "post the report"}
            ),
            [local(30, 9), datetime(2026, 12, 7, 9, tzinfo=BERLIN)],
        ),
        (
            "water the plants every day at 8am",
            ToolCallPart(
                "send_scheduled_message",
                {"message": "water the plants", "scheduled_datetime": "2026-11-24T08:00"},
            ),
            [local(24, 8), local(25, 8)],
        ),
        (
            "every 2 hours check the build",
            ToolCallPart("send_delayed_message", {"message": "check the build", "hours": 2}),
            [local(23, 18), local(23, 20)],
        ),
        # seen with Qwen2.5-Coder 1.5B: the repeat said of the reminder, the time apart
        (
            "set a daily reminder at 8pm to practice guitar",
            ToolCallPart(
                "schedule_reminder", {"reminder_time": "20:00", "message": "practice guitar"}
            ),
            [local(23, 20), local(24, 20)],
        ),
        # the 1.5B (the twenty-sixth set): one reminder "tomorrow 10:00" of a request framed
        # by how many days it goes on
        (
            "starting from today, for five days remind me at 10 of the night to take the pills",
            ToolCallPart(
                "schedule_reminder", {"reminder_time": "tomorrow 10:00", "message": "pills"}
            ),
            [local(23, 22), local(24, 22), local(25, 22), local(26, 22), local(27, 22)],
        ),
    ],
)
async def test_a_repeating_request_never_becomes_a_one_off(
    runtime: AgentKit, deps: HomarDeps, text: str, made: ToolCallPart, runs: list[datetime]
) -> None:
    r = await ask(runtime, deps, text, made, TextPart("Done."))
    assert r.approval is not None and not r.job_ids, r.text  # repeating: approval first
    done = await resume_approval(runtime, r.approval, True, deps)
    assert len(done.job_ids) == 1, done.text
    job = await deps.engine.get(done.job_ids[0])
    from tools.jobs.model import schedule_of

    got = schedule_of(job).next_runs(FIXED_NOW, len(runs))
    assert [t.astimezone(BERLIN) for t in got] == runs


async def test_a_repetition_said_earlier_in_the_dialogue_counts(
    runtime: AgentKit, deps: HomarDeps
) -> None:
    r = await ask(
        runtime, deps, "remind me every day to stretch", TextPart("What time should it be?")
    )
    assert not r.job_ids and r.approval is None
    r = await ask(runtime, deps, "at 8am", _repeating("stretch", "daily@08:00"))
    assert r.approval is not None, r.text  # still the repeating job, waiting for approval


async def test_a_fired_run_is_not_read_for_repetition(runtime: AgentKit, deps: HomarDeps) -> None:
    """A job's command is data: its words decide nothing about the kind of a new job."""
    deps = replace(deps, fired=True, fired_job_id=7, fired_kind="delayed")
    made = ToolCallPart(
        "schedule_reminder", {"reminder_time": "tomorrow at 9", "message": "water the plants"}
    )
    r = await ask(runtime, deps, "every day at 9 water the plants", made, TextPart("ok"))
    # a fired run's job waits for the owner's approval, as the one-off the model made
    assert r.approval is not None and r.approval.calls[0].tool_name == "schedule_reminder"


@pytest.mark.parametrize(
    ("text", "repeats"),
    [
        ("remind me about the daily standup", False),
        ("post the weekly report tomorrow", False),
        ("mom's birthday is on Dec 5", False),
        ("remind me to check every file tomorrow", True),  # unsure: nothing is corrected
        ("stretch daily at 9", True),
        ("post the report weekly", True),
        ("call mom on sundays", True),
        ("take the pills twice a day", True),
        ("at 9 each morning", True),
    ],
)
def test_what_names_a_repetition(text: str, repeats: bool) -> None:
    from tools.agent.words import names_repeat

    assert names_repeat(text) is repeats


# ---------------------------------------------------------------- reminder or command, as asked


@pytest.mark.parametrize(
    ("text", "made", "kind", "expected"),
    [
        # seen with Qwen2.5-Coder 1.5B: "remind me" became a callback, commands reminders
        (
            "remind me in 2 weeks to cancel the trial",
            ToolCallPart(
                "schedule_future_callback",
                {"callback_time": "2026-12-09 09:30:20 UTC", "context": "cancel the trial"},
            ),
            "reminder",
            local(23, 16) + timedelta(days=14),
        ),
        (
            "in 1 hour run the backup",
            ToolCallPart("schedule_reminder", {"reminder_time": "in 1 hour", "message": "backup"}),
            "delayed",
            local(23, 17),
        ),
        (
            "water the garden at 7pm",
            ToolCallPart(
                "schedule_reminder",
                {"reminder_time": "Mon 2026-11-23 19:00:00 Europe/Berlin", "message": "garden"},
            ),
            "scheduled",
            local(23, 19),
        ),
        (
            "remind me in 1 hour to run the backup",
            ToolCallPart("send_delayed_message", {"message": "run the backup", "hours": 1}),
            "reminder",
            local(23, 17),
        ),
        # the 0.5B made a callback of a command; checking back stays a callback
        (
            "restart the build server in 2 hours",
            ToolCallPart(
                "schedule_future_callback",
                {"callback_time": "in 2 hours", "context": "restart the build server"},
            ),
            "delayed",
            local(23, 18),
        ),
        (
            "in 2 hours check whether the deploy finished",
            ToolCallPart(
                "schedule_future_callback",
                {"callback_time": "in 2 hours", "context": "check whether the deploy finished"},
            ),
            "callback",
            local(23, 18),
        ),
        # the day of an event (the prompt's "special day"): a reminder, not a command
        (
            "Lena's graduation is may 9",
            ToolCallPart("schedule_reminder", {"reminder_time": "may 9 09:00", "message": "x"}),
            "reminder",
            datetime(2027, 5, 9, 9, tzinfo=BERLIN),
        ),
        (
            "the concert is saturday at 8pm",
            ToolCallPart("schedule_reminder", {"reminder_time": "sat 20:00", "message": "x"}),
            "reminder",
            local(28, 20),
        ),
    ],
)
async def test_a_reminder_or_a_command_as_the_person_asked(
    runtime: AgentKit, deps: HomarDeps, text: str, made: ToolCallPart, kind: str, expected: datetime
) -> None:
    r = await ask(runtime, deps, text, made)
    job = await _only_job(deps, r)
    assert job.kind == kind and await next_run(deps, r) == expected, r.text


async def test_a_reminder_asked_for_earlier_in_the_dialogue_stays_one(
    runtime: AgentKit, deps: HomarDeps
) -> None:
    r = await ask(runtime, deps, "set a reminder", TextPart("When, and what about?"))
    assert not r.job_ids
    made = ToolCallPart("schedule_reminder", {"reminder_time": "in 20 minutes", "message": "x"})
    r = await ask(runtime, deps, "in 20 minutes to stretch", made)
    job = await _only_job(deps, r)
    assert job.kind == "reminder" and await next_run(deps, r) == local(23, 16, 20)


async def test_an_audience_nobody_named_is_dropped(runtime: AgentKit, deps: HomarDeps) -> None:
    made = ToolCallPart(
        "send_delayed_message", {"message": "hello", "minutes": 10, "audience": "<@13>"}
    )
    r = await ask(runtime, deps, "in 10 minutes say hello to the team", made)
    job = await _only_job(deps, r)
    assert job.kind == "delayed" and await next_run(deps, r) == local(23, 16, 10)


def test_settle_audience() -> None:
    words = read_words("remind <@42> and me at 5 in #ops", FIXED_NOW, "Europe/Berlin")
    assert words.settle_audience("<@!42> and me") == "<@!42> and me"
    assert words.settle_audience("<@42> and <@13>") == "<@42>"
    assert words.settle_audience("<@13>") is None
    assert words.settle_audience("#ops") == "#ops"
    assert words.settle_audience("dm me") is None  # nobody asked for a DM
    assert words.settle_audience("<@42> and me, dm me") == "<@42> and me"
    said = read_words("in 10 minutes say hello to the team", FIXED_NOW, "Europe/Berlin")
    assert said.settle_audience("<@13>") is None and said.settle_audience("the team") is None
    # a place spoken of but not named: the audience checks decide, as before
    there = read_words("post hello in that channel tomorrow", FIXED_NOW, "Europe/Berlin")
    assert there.settle_audience("<#99>") == "<#99>"
    server = read_words("post hello in the server tomorrow", FIXED_NOW, "Europe/Berlin")
    assert server.settle_audience("<#99>") == "<#99>"
    # a machine called a server is no place in Discord: the model's audience is dropped
    machine = read_words("restart the build server in 2 hours", FIXED_NOW, "Europe/Berlin")
    assert not machine.addresses_someone and machine.settle_audience("the build server") is None


async def test_an_audience_made_of_the_person_is_dropped(
    runtime: AgentKit, deps: HomarDeps
) -> None:
    """Seen with a 1.5B model: the reference line's "alice (1)" passed as the audience."""
    made = ToolCallPart(
        "schedule_reminder",
        {"reminder_time": "17:00", "message": "call", "minutes_before": 5, "audience": "alice (1)"},
    )
    r = await ask(runtime, deps, "team call at 5pm today, remind me", made)
    job = await _only_job(deps, r)
    assert job.kind == "reminder" and await next_run(deps, r) == local(23, 16, 55)


@pytest.mark.parametrize("place", ["this channel", "here", "in this thread", "me"])
async def test_an_audience_of_this_place_is_the_owner_here(
    runtime: AgentKit, deps: HomarDeps, place: str
) -> None:
    """Seen with a 1.5B model: "post 'lunch is ready' in this channel" passed "this channel"
    as the audience, refused where no Discord resolver is (the terminal, a bench)."""
    made = ToolCallPart(
        "send_delayed_message", {"message": "post 'lunch is ready'", "hours": 1, "audience": place}
    )
    r = await ask(runtime, deps, f"in 1 hour post 'lunch is ready' {place}", made)
    job = await _only_job(deps, r)
    assert job.kind == "delayed" and await next_run(deps, r) == local(23, 17)
    assert job.audience is None or Audience.from_json(job.audience).is_default


async def test_a_dm_nobody_asked_for_is_dropped(runtime: AgentKit, deps: HomarDeps) -> None:
    """Seen with the 0.5B: "dm me" added to "post 'lunch is ready' in this channel"."""
    made = ToolCallPart(
        "send_delayed_message",
        {"message": "post 'lunch is ready'", "hours": 1, "audience": "dm me"},
    )
    r = await ask(runtime, deps, "in 1 hour post 'lunch is ready' in this channel", made)
    job = await _only_job(deps, r)
    assert job.audience is None or Audience.from_json(job.audience).is_default
    words = read_words("dm me at 5 to call mom", FIXED_NOW, "Europe/Berlin")
    assert words.settle_audience("dm me") == "dm me"


async def test_an_audience_of_others_is_refused_without_discord(
    runtime: AgentKit, deps: HomarDeps
) -> None:
    made = ToolCallPart(
        "send_delayed_message", {"message": "say hi", "hours": 1, "audience": "<@42> and me"}
    )
    r = await ask(runtime, deps, "in 1 hour say hi to <@42> and me", made)
    assert not r.job_ids and "only remind you" in r.text


async def test_a_one_off_action_is_one_request(runtime: AgentKit, deps: HomarDeps) -> None:
    """`schedule_action` type once is a function tool (a second request to finish); the same
    job through `send_scheduled_message` ends the run with the first."""
    made = ToolCallPart(
        "schedule_action",
        {"description": "turn on the heating", "type": "once", "schedule": "every weekday at 18"},
    )
    r = await ask(runtime, deps, "turn on the heating at 6pm", made, TextPart("Done."))
    job = await _only_job(deps, r)
    assert job.kind == "scheduled" and await next_run(deps, r) == local(23, 18)
    assert r.requests == 1


async def test_a_job_text_that_is_a_kind_word_is_the_persons(
    runtime: AgentKit, deps: HomarDeps
) -> None:
    """Seen with a 1.5B model: the `type` copied into the text ("once")."""
    made = ToolCallPart(
        "schedule_action",
        {"description": "once", "type": "once", "schedule": "every weekday at 18:00"},
    )
    r = await ask(runtime, deps, "turn on the heating at 6pm", made)
    job = await _only_job(deps, r)
    assert job.command == "turn on the heating" and await next_run(deps, r) == local(23, 18)
    made = ToolCallPart("schedule_reminder", {"reminder_time": "17:00", "message": "message"})
    r = await ask(runtime, deps, "remind me at 5pm to call the bank", made)
    job = await _only_job(deps, r)
    assert job.command == "call the bank" and await next_run(deps, r) == local(23, 17)


async def test_a_repetition_given_the_wrong_type_is_the_words(
    runtime: AgentKit, deps: HomarDeps
) -> None:
    """Seen with a 1.5B model: "every weekday at 9" as an interval, the time as the text."""
    made = ToolCallPart(
        "schedule_action",
        {"description": "every weekday at 9", "type": "interval", "schedule": "every weekday at 9"},
    )
    r = await ask(runtime, deps, "every weekday at 9 post standup time here", made, TextPart("x"))
    assert r.approval is not None and r.requests == 1, r.text
    done = await resume_approval(runtime, r.approval, True, deps)
    job = await deps.engine.get(done.job_ids[0])
    from tools.jobs.model import schedule_of

    got = schedule_of(job).next_runs(FIXED_NOW, 2)
    assert [t.astimezone(BERLIN) for t in got] == [local(24, 9), local(25, 9)]
    assert "standup" in job.command and "weekday" not in job.command


# An occasion's date said without a time ("mom's birthday is on December 12"): the model
# copied the reference time of day (10:30:20) or picked its own; the words' reading of
# that day (its usual 09:00) wins, as any other time the person didn't say.
@pytest.mark.parametrize(
    ("text", "model_time", "expected"),
    [
        ("Ana's birthday is on March 3rd", "2027-03-03T10:30:20", datetime(2027, 3, 3, 9)),
        (
            "our anniversary is on january 20th, remind me",
            "2027-01-20T10:30",
            datetime(2027, 1, 20, 9),
        ),
        ("dad's birthday is on the 2nd of december", "2026-12-02T00:00", datetime(2026, 12, 2, 9)),
        ("Ana's birthday is on March 3rd at 8am", "2027-03-03T10:30", datetime(2027, 3, 3, 8)),
    ],
)
async def test_an_occasion_date_without_a_time_keeps_the_words_time(
    runtime: AgentKit, deps: HomarDeps, text: str, model_time: str, expected: datetime
) -> None:
    call = ToolCallPart("schedule_reminder", {"reminder_time": model_time, "message": "birthday"})
    r = await ask(runtime, deps, text, call)
    assert await next_run(deps, r) == expected.replace(tzinfo=BERLIN)


async def test_a_day_before_an_occasion_is_not_moved_onto_it(
    runtime: AgentKit, deps: HomarDeps
) -> None:
    text = "mom's birthday is on December 12, remind me a week before"
    call = ToolCallPart(
        "schedule_reminder", {"reminder_time": "2026-12-05T09:00", "message": "gift"}
    )
    r = await ask(runtime, deps, text, call)
    assert await next_run(deps, r) == datetime(2026, 12, 5, 9, tzinfo=BERLIN)


# A time and nothing to be reminded of: the model's text ("Don't let me forget") is made
# up, so the person is asked what, and no job is made. The answer to an earlier question
# ("what should I remind you of?" → "remind me tomorrow") is another matter.
@pytest.mark.parametrize(
    "text", ["remind me tomorrow", "ping me in 10 minutes", "remind me at 5pm pls"]
)
async def test_a_reminder_of_nothing_said_asks_what(
    runtime: AgentKit, deps: HomarDeps, text: str
) -> None:
    call = ToolCallPart(
        "schedule_reminder",
        {"reminder_time": "2026-11-24T09:00", "message": "Don't let me forget"},
    )
    r = await ask(runtime, deps, text, call)
    assert not r.job_ids
    assert "What should I remind you about" in r.text


async def test_a_reminder_with_its_what_is_made(runtime: AgentKit, deps: HomarDeps) -> None:
    call = ToolCallPart(
        "schedule_reminder", {"reminder_time": "2026-11-24T09:00", "message": "call the bank"}
    )
    r = await ask(runtime, deps, "remind me tomorrow to call the bank", call)
    assert r.job_ids


# A change to a job named by its words goes to that job: a small model that picked the
# wrong number ("cancel the standup" → the stretch reminder) doesn't decide which job.
# ("cancel the standup" itself is read by code, `offline.reads_command`; these say it so
# that only a model reads it.)


@pytest.mark.parametrize("wrong", ["another job's", "no job's"])
@pytest.mark.parametrize(
    ("text", "tool", "extra", "changed"),
    [
        ("could you cancel the standup", "delete_scheduled_action", {}, "status"),
        ("can you pause the standup please", "stop_interval_action", {}, "status"),
        (
            "could you move the standup to 8pm",
            "update_scheduled_action",
            {"new_time": "20:00"},
            "next",
        ),
    ],
)
async def test_a_job_named_by_its_words_is_the_one_changed(
    runtime: AgentKit,
    deps: HomarDeps,
    text: str,
    tool: str,
    extra: dict[str, Any],
    changed: str,
    wrong: str,
) -> None:
    standup = await seed_job(deps, "join the standup")
    stretch = await seed_job(deps, "stretch")
    before = {j: await deps.engine.get(j) for j in (standup, stretch)}
    number = stretch if wrong == "another job's" else 999
    r = await ask(
        runtime, deps, text, ToolCallPart(tool, {"task_id": number} | extra), TextPart("ok")
    )
    assert "nothing was changed" not in r.text, r.text
    assert await deps.engine.get(stretch) == before[stretch]  # not cancelled, paused or moved
    after = await deps.engine.get(standup)
    if changed == "status":
        assert after.status != before[standup].status
    else:
        assert after.next_run_at != before[standup].next_run_at


async def test_a_job_named_by_words_that_fit_several_is_asked_about(
    runtime: AgentKit, deps: HomarDeps
) -> None:
    first = await seed_job(deps, "join the standup")
    second = await seed_job(deps, "prepare the standup notes")
    stretch = await seed_job(deps, "stretch")
    wrong = ToolCallPart("delete_scheduled_action", {"task_id": stretch})
    # (with a time after it the code reads a command for later, so the model is asked)
    r = await ask(runtime, deps, "could you cancel the standup for tomorrow", wrong, TextPart("ok"))
    assert f"#{first}" in r.text and f"#{second}" in r.text and "Say which" in r.text
    for job in (first, second, stretch):
        assert (await deps.engine.get(job)).status == "active"


async def test_a_job_named_by_words_that_fit_none_is_not_guessed(
    runtime: AgentKit, deps: HomarDeps
) -> None:
    stretch = await seed_job(deps, "stretch")
    wrong = ToolCallPart("delete_scheduled_action", {"task_id": stretch})
    r = await ask(runtime, deps, "could you cancel the dentist for tomorrow", wrong, TextPart("ok"))
    assert "no open job of yours about “dentist”" in r.text
    assert (await deps.engine.get(stretch)).status == "active"


@pytest.mark.parametrize(
    ("text", "when"),
    [
        ("remind me of Tom's birthday on the 2nd of december", "2026-12-02T09:00"),
        ("remind me about christmas", "2026-12-25T09:00"),
    ],
)
async def test_a_reminder_of_an_occasion_needs_no_other_what(
    runtime: AgentKit, deps: HomarDeps, text: str, when: str
) -> None:
    call = ToolCallPart("schedule_reminder", {"reminder_time": when, "message": "birthday"})
    r = await ask(runtime, deps, text, call)
    assert r.job_ids, r.text


async def test_a_change_to_a_named_job_makes_no_new_job(runtime: AgentKit, deps: HomarDeps) -> None:
    pizza = await seed_job(deps, "order the pizza")
    made = ToolCallPart(
        "schedule_reminder", {"reminder_time": "2026-11-23T20:00", "message": "move"}
    )
    # the change is read fully in code: the model's new job is never asked for
    r = await ask(runtime, deps, "could you move the pizza reminder to 8pm", made, TextPart("ok"))
    assert not r.job_ids and r.model_requests == 0, r.text
    job = await deps.engine.get(pizza)
    assert (
        job.next_run_at is not None and job.next_run_at.isoformat() == "2026-11-23T19:00:00+00:00"
    )


async def test_a_command_for_later_naming_no_job_is_made(
    runtime: AgentKit, deps: HomarDeps
) -> None:
    await seed_job(deps, "order the pizza")
    cmd = ToolCallPart("send_delayed_message", {"message": "cancel the gym membership", "hours": 2})
    r = await ask(runtime, deps, "cancel the gym membership in 2 hours", cmd, TextPart("ok"))
    assert r.job_ids, r.text


async def test_a_change_to_a_job_by_number_makes_no_new_job(
    runtime: AgentKit, deps: HomarDeps
) -> None:
    plants = await seed_job(deps, "water the plants")
    made = ToolCallPart(
        "schedule_reminder", {"reminder_time": "2026-11-27T10:00", "message": "stretch"}
    )
    r = await ask(runtime, deps, f"could you move {plants} to friday 10am", made, TextPart("ok"))
    assert not r.job_ids and r.model_requests == 0, r.text
    job = await deps.engine.get(plants)
    assert (
        job.next_run_at is not None and job.next_run_at.isoformat() == "2026-11-27T09:00:00+00:00"
    )


async def test_the_answer_to_our_question_completes_the_request_in_a_text_call(
    runtime: AgentKit, deps: HomarDeps
) -> None:
    """The 1.5B answered "in 20 minutes to stretch" (after "set a reminder" and our "when?")
    with a fenced JSON send_delayed_message: the job is the reminder asked for. Text calls
    and native calls are read the same way (`tools.agent.reading.said_call`)."""
    first = ToolCallPart(
        "schedule_reminder", {"reminder_time": "today 16:00", "message": "set a reminder"}
    )
    r = await ask(runtime, deps, "set a reminder", first)
    assert not r.job_ids and r.text.rstrip().endswith("?"), r.text
    text = (
        '```\n{"name": "send_delayed_message", "arguments": {"message": "stretch your legs", '
        '"hours": 0, "minutes": 20}}\n```'
    )
    r = await ask(runtime, deps, "in 20 minutes to stretch", TextPart(text))
    job = await _only_job(deps, r)
    assert job.kind == "reminder" and await next_run(deps, r) == local(23, 16, 20)


async def test_an_answer_that_is_only_the_time_keeps_the_text_asked_for_earlier(
    runtime: AgentKit, deps: HomarDeps
) -> None:
    """ "remind me to renew my passport" → "when?" → "next monday at 9": the 1.5B made the
    reminder's text "next monday at 9"; the text is what the first message asked."""
    first = ToolCallPart(
        "schedule_reminder", {"reminder_time": "today 16:00", "message": "renew my passport"}
    )
    r = await ask(runtime, deps, "remind me to renew my passport", first)
    assert not r.job_ids, r.text
    made = ToolCallPart(
        "schedule_reminder", {"reminder_time": "next monday at 9", "message": "next monday at 9"}
    )
    r = await ask(runtime, deps, "next monday at 9", made)
    job = await _only_job(deps, r)
    assert job.kind == "reminder" and job.command == "renew my passport"
    assert await next_run(deps, r) == local(30, 9)


def test_only_a_bare_time_of_day_asks_about_tomorrow() -> None:
    from tools.agent.scheduling import resolve_time

    now = local(23, 10, 30)
    for bare in ("8am", "08:00", "at 8 in the morning"):
        assert resolve_time(bare, now, "Europe/Berlin").rolled == local(23, 8), bare
    for dated in ("2026-12-02 00:00:00", "2026-11-24 08:00", "Nov 24 8am"):
        assert resolve_time(dated, now, "Europe/Berlin").rolled is None, dated


async def test_an_occasion_at_a_midnight_the_model_wrote_is_that_day(
    runtime: AgentKit, deps: HomarDeps
) -> None:
    """The 1.5B wrote "2026-12-02 00:00:00" for Tom's birthday; it was read as "00:00 has
    passed today, tomorrow?". It is the day of the occasion, at the day's usual hour."""
    made = ToolCallPart(
        "schedule_reminder",
        {"reminder_time": "2026-12-02 00:00:00", "message": "Tom's birthday is on December 2nd."},
    )
    r = await ask(runtime, deps, "remind me of Tom's birthday on the 2nd of december", made)
    job = await _only_job(deps, r)
    assert await next_run(deps, r) == datetime(2026, 12, 2, 9, tzinfo=BERLIN), r.text
    assert "Tom" in job.command


@pytest.mark.parametrize(
    ("text", "made", "expected"),
    [
        # examples copied from the instructions, texts of other requests (a 0.5B model)
        ("my call with Sam is tomorrow at 3pm", "I need to water the basil", "Sam"),
        ("remind me in an hour to check the laundry", "Check the mailbox", "laundry"),
        ("remind me tomorrow at 10 to call the landlord", "water the basil", "landlord"),
        # a text of its own making that also repeats the time: still made up without it
        (
            "my dentist appointment is tomorrow at 10:30",
            "I have an appointment tomorrow at 10:30",
            "dentist appointment",
        ),
        (
            "the interview is tomorrow at 9:30, remind me",
            "I'm going to meet with Alice",
            "interview",
        ),
        # seen with the 0.5B (the fifth prompt set): a text with no word of its own
        ("ping me at 7 to start dinner", "I'm", "start dinner"),
        # the tenth (the 1.5B): a text that is only a time, of the person's words but not
        # the one asked for
        ("remind me on friday at 9 to update the board", "friday at 8", "update the board"),
        ("on friday at 9 remind me to water the plants", "at 9 on friday", "water the plants"),
    ],
)
async def test_a_made_up_job_text_is_the_persons_words(
    runtime: AgentKit, deps: HomarDeps, text: str, made: str, expected: str
) -> None:
    when = "friday at 9" if "friday" in text else "in 1 hour"
    call = ToolCallPart("schedule_reminder", {"reminder_time": when, "message": made})
    r = await ask(runtime, deps, text, call)
    job = await _only_job(deps, r)
    assert expected in job.command and made not in job.command, job.command


async def test_a_job_text_in_the_persons_words_is_kept(runtime: AgentKit, deps: HomarDeps) -> None:
    call = ToolCallPart(
        "send_delayed_message", {"message": "turn off the porch light", "minutes": 30}
    )
    r = await ask(runtime, deps, "turn the porch light off in 30 minutes", call)
    job = await _only_job(deps, r)
    assert job.command == "turn off the porch light"


@pytest.mark.parametrize(
    ("text", "call", "expected"),
    [
        # a small model wrote the request's time into the text (the 0.5B, issue 15 bench)
        (
            "remind me at 3pm Tokyo time to call Ken",
            ToolCallPart(
                "schedule_reminder",
                {"reminder_time": "3pm Tokyo time", "message": "Call Ken at 3 PM Tokyo time"},
            ),
            "Call Ken",
        ),
        (
            "team call at 5pm today, remind me please",
            ToolCallPart(
                "schedule_reminder",
                {"reminder_time": "5pm today", "message": "Please remind me at 5 PM today."},
            ),
            "team call",
        ),
        # a command that fired still saying "in 30 minutes" would read as a new request
        (
            "turn the porch light off in 30 minutes",
            ToolCallPart(
                "send_delayed_message",
                {"message": "turn off the porch light in 30 minutes", "minutes": 30},
            ),
            "turn off the porch light",
        ),
    ],
)
async def test_a_job_text_loses_the_time_it_is_scheduled_for(
    runtime: AgentKit, deps: HomarDeps, text: str, call: ToolCallPart, expected: str
) -> None:
    r = await ask(runtime, deps, text, call)
    job = await _only_job(deps, r)
    assert job.command == expected, job.command


async def test_a_repeating_job_text_loses_its_repetition(
    runtime: AgentKit, deps: HomarDeps
) -> None:
    call = ToolCallPart(
        "schedule_reminder",
        {"reminder_time": "every day at 8", "message": "take my vitamins every day at 8"},
    )
    r = await ask(runtime, deps, "remind me every day at 8 to take my vitamins", call)
    assert r.approval is not None, r.text  # a repeating job waits for the owner's approval
    [proposed] = r.approval.calls
    said = {k: v for k, v in proposed.args.items() if k in ("message", "description")}
    assert list(said.values()) == ["take my vitamins"], proposed.args


async def test_a_job_text_keeps_a_time_of_its_own(runtime: AgentKit, deps: HomarDeps) -> None:
    call = ToolCallPart(
        "schedule_reminder",
        {"reminder_time": "5pm", "message": "tell Bob the meeting is at 3"},
    )
    r = await ask(runtime, deps, "remind me at 5pm to tell Bob the meeting is at 3", call)
    job = await _only_job(deps, r)
    assert job.command == "tell Bob the meeting is at 3"
    assert await next_run(deps, r) == local(23, 17)


@pytest.mark.parametrize(
    "text",
    [
        "remind me yesterday at 9 to call mom",
        "remind me last friday at 10 to call mom",
        "remind me today at 9am to call mom",  # said at 16:00
    ],
)
@pytest.mark.parametrize("when", ["tomorrow at 9", "2026-11-24T09:00:00", "in 1 hour"])
async def test_a_time_the_person_put_in_the_past_makes_no_job(
    runtime: AgentKit, deps: HomarDeps, text: str, when: str
) -> None:
    """Seen with the 0.5B: "yesterday at 9" became tomorrow's reminder (the model's own
    time), because the words' past day was taken for a bare time rolled to tomorrow."""
    call = ToolCallPart("schedule_reminder", {"reminder_time": when, "message": "call mom"})
    r = await ask(runtime, deps, text, call, TextPart("ok"))
    assert not r.job_ids, r.text
    assert "past" in r.text, r.text


@pytest.mark.parametrize(
    ("text", "when", "made"),
    [
        # the 1.5B: "lunch" is a time of day too, but here it is what to do
        ("remind me at noon to eat lunch", "noon", "eat lunch"),
        ("remind me at 12 to have lunch with Ana", "12:00", "have lunch with Ana"),
    ],
)
async def test_a_text_word_that_is_also_a_time_stays(
    runtime: AgentKit, deps: HomarDeps, text: str, when: str, made: str
) -> None:
    morning = FIXED_NOW - timedelta(hours=5, minutes=30)  # 10:30 in Berlin: noon is ahead
    engine = Engine(deps.engine.store, clock=lambda: morning)
    deps = replace(deps, engine=engine)
    call = ToolCallPart("schedule_reminder", {"reminder_time": when, "message": made})
    r = await ask(runtime, deps, text, call)
    job = await _only_job(deps, r)
    assert job.command == made, job.command
    assert job.next_run_at == datetime(2026, 11, 23, 11, tzinfo=ZoneInfo("UTC"))


@pytest.mark.parametrize(
    ("text", "words"),
    [
        # a span in the job's name is its rhythm, not a job's number ("the 45")
        ("cancel the 45-minute build check", ["build"]),
        ("pause the 30 min stretch reminder", ["stretch"]),
        # "the reminder for X": X names it
        ("cancel the reminder for water the plants", ["water", "plants"]),
    ],
)
def test_a_job_named_by_words_around_a_span_or_after_for(text: str, words: list[str]) -> None:
    from tools.agent.words import named_job

    assert named_job(text) == (None, words)


@pytest.mark.parametrize(
    ("text", "words"),
    [
        # "that <name> reminder" names the job where it stands, not one told before
        ("I'm feeling better, so please switch that stretching reminder back on", ["stretching"]),
        # an emoji ends a clause as a stop does
        ("finals done 🥳 turn my evening walk reminder back on", ["evening", "walk"]),
        # "that reminder" after three words of a verb: the thing told before
        (
            "the soup came early, so we won't order the pizza. please get rid of that reminder",
            ["pizza"],
        ),
        # "shift" is a verb before a job, a noun before where or when
        ("shift the watering to friday", ["watering"]),
        ("shift at the bakery sun 6-2, ping me at 5 that morning", []),
        # its old time said after "instead of"
        ("from now on post the standup at 9:15 instead of 9", ["post", "standup"]),
        ("the meeting is at 3 instead of 2", []),
        # a job named by quoted words and "thing" in an earlier clause, "for good"
        (
            "my flatmate set up that 'check the boiler' thing every 30 minutes and it's "
            "driving me mad. please get rid of it for good",
            ["boiler"],
        ),
    ],
)
def test_a_job_named_in_a_clause_of_a_longer_message(text: str, words: list[str]) -> None:
    from tools.agent.words import named_job

    assert named_job(text) == (None, words)


@pytest.mark.parametrize(
    ("text", "at"),
    [
        # the day before the date told, at the clock said after it
        (
            "my niece's recital is on the 9th of december. remind me the day "
            "before at noon to buy flowers",
            datetime(2026, 12, 8, 12),
        ),
        (
            "dissertation due dec 17, remind me the sunday before at 4pm to print it",
            datetime(2026, 12, 13, 16),
        ),
        (
            "exam on monday at 10 in the morning, remind me the day before at 8 in "
            "the evening to pack",
            datetime(2026, 11, 29, 20),
        ),
        # that morning, with its clock before or after, in words or digits
        (
            "the vet is on friday the 4th of december at 3:15, remind me that "
            "morning at 8 to fast the dog",
            datetime(2026, 12, 4, 8),
        ),
        (
            "flight leaves saturday at 2, remind me at 10 that morning to pack",
            datetime(2026, 11, 28, 10),
        ),
        (
            "jab on tuesday at half past nine, remind me about it at quarter to nine that morning",
            datetime(2026, 11, 24, 8, 45),
        ),
        # the clock told for the part of the day the request names
        (
            "the bins go out at nine at night. remind me about the bins tonight",
            datetime(2026, 11, 23, 21),
        ),
        # a clock told in another sentence of its own day is not tonight's
        (
            "dinner with Sam at 7pm friday, remind me tonight to book a table",
            datetime(2026, 11, 23, 18),
        ),
        # "friday afternoon" is its usual hour though lunch is told in another sentence
        (
            "some time on thursday afternoon remind me to pick up the "
            "prescription. the pharmacist said it'd be ready after lunch",
            datetime(2026, 11, 26, 14),
        ),
    ],
)
def test_a_time_read_from_the_day_or_clock_told_around_the_request(text: str, at: datetime) -> None:
    w = read_words(text, FIXED_NOW, "Europe/Berlin")
    assert w.instant == at.replace(tzinfo=BERLIN) and w.recurrence is None, w


@pytest.mark.parametrize(
    ("text", "expr"),
    [
        # a repeat's clock told before the request that names only its part of the day
        (
            "I have to take the antibiotics at half past seven every morning. "
            "please remind me to take them each morning",
            "30 7 * * *",
        ),
        # "beforehand" is a lead, taken off the repeat's own time
        (
            "book club meets every wednesday at 7pm, remind me about it every week "
            "two hours beforehand",
            "0 17 * * 3",
        ),
    ],
)
def test_a_repeat_read_from_the_clock_told_around_the_request(text: str, expr: str) -> None:
    from tools.schedule import Cron

    w = read_words(text, FIXED_NOW, "Europe/Berlin")
    assert w.recurrence is not None and w.recurrence.spec == Cron(expr), w


@pytest.mark.parametrize(
    "text",
    [
        "lol the landlord cancelled the 9am viewing tmrw, best news all week",
        "submitted the grant application at 4:55, five minutes before the deadline 😅",
        "coach moved practice to thursday 6pm",
        # a past tense of its own
        "hit a new squat PR today, 120kg for 5 reps!!",
        "Jansen finally paid the March invoice, all 1,800 euros of it",
        "ran 10k this morning in 52 minutes",
    ],
)
def test_a_report_of_something_done_is_a_statement(text: str) -> None:
    assert read_words(text, FIXED_NOW, "Europe/Berlin").statement


@pytest.mark.parametrize(
    "text",
    [
        "post updated notes at 5",
        "finished the draft, remind me at 5 to send it",
        "moved the standup to 10, update my reminder please",
        "hit the gym at 6 tomorrow",
    ],
)
def test_a_command_or_a_request_after_a_report_is_no_statement(text: str) -> None:
    assert not read_words(text, FIXED_NOW, "Europe/Berlin").statement


def test_a_whole_time_before_the_request_is_read_however_long_the_task() -> None:
    """The time language gives up on a long message with many time-like words (its work
    budget); the time said whole before "remind me" is read on its own."""
    from tools.schedule import Cron

    text = "every tuesday, thursday and saturday at 7:15am remind me to go for a run"
    w = read_words(text, FIXED_NOW, "Europe/Berlin")
    assert w.recurrence is not None and w.recurrence.spec == Cron("15 7 * * 2,4,6"), w
    assert "go for a run" in w.rest
