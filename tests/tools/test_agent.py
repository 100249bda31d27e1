"""FunctionModel scenarios for the agent: every tool, the prompt rules, request counts."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta
from typing import Any

import pytest
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from tests.tools.conftest import FIXED_NOW
from tools.agent import AgentKit, resume_approval, run_agent
from tools.agent.scheduling import HomarDeps
from tools.jobs.model import Target, schedule_of
from tools.schedule import Once, Schedule

Part = ToolCallPart | TextPart


class Scripted:
    """A FunctionModel body answering with scripted parts in order (the last one repeats)."""

    def __init__(self, *responses: Part | list[Part]) -> None:
        self.responses = responses
        self.infos: list[AgentInfo] = []
        self.messages: list[list[ModelMessage]] = []

    def __call__(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        self.infos.append(info)
        self.messages.append(list(messages))
        r = self.responses[min(len(self.infos) - 1, len(self.responses) - 1)]
        return ModelResponse(parts=r if isinstance(r, list) else [r])


def call(name: str, **args: Any) -> ToolCallPart:
    return ToolCallPart(name, args)


async def ask(runtime: AgentKit, deps: HomarDeps, text: str, *responses: Part | list[Part]) -> Any:
    script = Scripted(*responses)
    with runtime.agent.override(model=FunctionModel(script)):
        reply = await run_agent(runtime, text, deps)
        reply.script = script
        return reply


async def approved(runtime: AgentKit, deps: HomarDeps, text: str, *responses: Part) -> Any:
    """Ask, check the run stopped for approval after one request, then approve (issue 7)."""
    r = await ask(runtime, deps, text, *responses, TextPart("Done."))
    assert r.approval is not None and not r.job_ids and r.requests == 1, r.text
    return await resume_approval(runtime, r.approval, True, deps)


# ---------------------------------------------------------------- the terminal tools: 1 request


async def test_delayed_message_one_request(runtime: AgentKit, deps: HomarDeps) -> None:
    r = await ask(
        runtime,
        deps,
        "turn the porch light off in 30 minutes",
        call("send_delayed_message", message="turn the porch light off", minutes=30),
    )
    assert r.requests == 1 and r.error is None and not r.offline
    job = await deps.engine.get(r.job_ids[0])
    assert (job.kind, job.command) == ("delayed", "turn the porch light off")
    assert job.next_run_at == FIXED_NOW + timedelta(minutes=30)
    unix = int(job.next_run_at.timestamp())
    assert f"<t:{unix}:F>" in r.text and f"<t:{unix}:R>" in r.text and f"#{job.id}" in r.text


async def test_delayed_message_bounds(runtime: AgentKit, deps: HomarDeps) -> None:
    r = await ask(runtime, deps, "x", call("send_delayed_message", message="x", seconds=0))
    assert not r.job_ids and "between 1 second" in r.text
    r = await ask(runtime, deps, "x", call("send_delayed_message", message="x", hours=24 * 365 * 6))
    assert not r.job_ids


async def test_scheduled_message_naive_iso_is_user_zone(runtime: AgentKit, deps: HomarDeps) -> None:
    r = await ask(
        runtime,
        deps,
        "lights off at 22:00",
        call("send_scheduled_message", message="lights off", scheduled_datetime="2026-11-23T22:00"),
    )
    job = await deps.engine.get(r.job_ids[0])
    assert r.requests == 1 and job.kind == "scheduled"
    assert (
        job.next_run_at is not None and job.next_run_at.isoformat() == "2026-11-23T21:00:00+00:00"
    )


async def test_scheduled_message_natural_phrase(runtime: AgentKit, deps: HomarDeps) -> None:
    r = await ask(
        runtime,
        deps,
        "x",
        call("send_scheduled_message", message="post agenda", scheduled_datetime="tomorrow at 9"),
    )
    job = await deps.engine.get(r.job_ids[0])
    assert (
        job.next_run_at is not None and job.next_run_at.isoformat() == "2026-11-24T08:00:00+00:00"
    )


async def test_reminder_with_follow_up_config(runtime: AgentKit, deps: HomarDeps) -> None:
    r = await ask(
        runtime,
        deps,
        "don't let me forget the report at 17:00",
        call(
            "schedule_reminder",
            reminder_time="17:00",
            message="submit the report",
            follow_up=True,
            follow_up_interval="1 hour",
            max_follow_ups=3,
        ),
    )
    job = await deps.engine.get(r.job_ids[0])
    assert r.requests == 1 and job.kind == "reminder"
    assert job.follow_up == {"interval_s": 3600, "max": 3}
    assert "follow up every 1 hour" in r.text


async def test_meeting_lead_time(runtime: AgentKit, deps: HomarDeps) -> None:
    r = await ask(
        runtime,
        deps,
        "remind me of my meeting at 17:00",
        call("schedule_reminder", reminder_time="17:00", message="meeting", minutes_before=5),
    )
    job = await deps.engine.get(r.job_ids[0])
    assert (
        job.next_run_at is not None and job.next_run_at.isoformat() == "2026-11-23T15:55:00+00:00"
    )


async def test_call_in_four_minutes_reminds_now(runtime: AgentKit, deps: HomarDeps) -> None:
    r = await ask(
        runtime,
        deps,
        "my call is in 4 minutes",
        call(
            "schedule_reminder", reminder_time="in 4 minutes", message="your call", minutes_before=5
        ),
    )
    assert not r.job_ids and r.remind_now == "your call" and r.requests == 1


async def test_remind_me_now(runtime: AgentKit, deps: HomarDeps) -> None:
    r = await ask(
        runtime,
        deps,
        "remind me now to drink water",
        call("schedule_reminder", reminder_time="now", message="drink water"),
    )
    assert not r.job_ids and r.remind_now == "drink water" and "drink water" in r.text


async def test_birthday_date_only_is_nine(runtime: AgentKit, deps: HomarDeps) -> None:
    r = await ask(
        runtime,
        deps,
        "mom's birthday is on Dec 5",
        call("schedule_reminder", reminder_time="2026-12-05", message="Mom's birthday"),
    )
    job = await deps.engine.get(r.job_ids[0])
    assert (
        job.next_run_at is not None and job.next_run_at.isoformat() == "2026-12-05T08:00:00+00:00"
    )


async def test_an_occasions_day_is_the_one_the_person_named(
    runtime: AgentKit, deps: HomarDeps
) -> None:
    """The 0.5B model answered "Ana's birthday is on March 3rd" with December 3rd. The day the
    person named wins; a day computed from it ("a week before") stays the model's."""
    wrong = call("schedule_reminder", reminder_time="december 3rd", message="Ana's birthday")
    r = await ask(runtime, deps, "Ana's birthday is on March 3rd", wrong)
    job = await deps.engine.get(r.job_ids[0])
    assert job.next_run_at is not None and job.next_run_at.isoformat().startswith("2027-03-03")
    before = call("schedule_reminder", reminder_time="2027-02-24", message="Ana's birthday gift")
    r = await ask(runtime, deps, "a week before Ana's birthday on March 3rd remind me", before)
    job = await deps.engine.get(r.job_ids[0])
    assert job.next_run_at is not None and job.next_run_at.isoformat().startswith("2027-02-24")


async def test_past_time_today_asks_tomorrow(runtime: AgentKit, deps: HomarDeps) -> None:
    for when in ("2026-11-23T15:00", "3pm", "at 15:00"):
        r = await ask(
            runtime,
            deps,
            "remind me at 3pm",
            call("schedule_reminder", reminder_time=when, message="call mom"),
        )
        assert r.clarifier and not r.job_ids, when
        assert "tomorrow" in r.text.lower() or "Did you mean" in r.text
    assert await deps.engine.list_jobs(owner_id=1) == []


async def test_past_date_offers_next_occurrence(runtime: AgentKit, deps: HomarDeps) -> None:
    r = await ask(
        runtime,
        deps,
        "x",
        call("send_scheduled_message", message="x", scheduled_datetime="2026-03-01T10:00"),
    )
    assert r.clarifier and not r.job_ids and "Did you mean" in r.text and "<t:" in r.text


async def test_clarifier_schedules_nothing(runtime: AgentKit, deps: HomarDeps) -> None:
    r = await ask(
        runtime,
        deps,
        "remind me about the dentist",
        TextPart("When should I remind you about the dentist?"),
    )
    assert r.clarifier and not r.job_ids and r.requests == 1
    assert r.text == "When should I remind you about the dentist?"


async def test_recurring_cron_and_natural(runtime: AgentKit, deps: HomarDeps) -> None:
    r = await approved(
        runtime,
        deps,
        "x",
        call("schedule_action", description="standup", type="recurring", schedule="0 9 * * 1-5"),
    )
    job = await deps.engine.get(r.job_ids[0])
    assert job.kind == "recurring" and job.schedule == {"type": "cron", "expr": "0 9 * * 1-5"}
    assert "weekday" in r.text and r.requests == 0  # the approved tool confirms (issue 15)
    r = await approved(
        runtime,
        deps,
        "x",
        call(
            "schedule_action",
            description="stretch",
            type="recurring",
            schedule="every weekday at 8",
            max_runs=5,
        ),
    )
    job = await deps.engine.get(r.job_ids[0])
    assert job.kind == "recurring" and job.max_runs == 5
    assert (
        job.next_run_at is not None and job.next_run_at.isoformat() == "2026-11-24T07:00:00+00:00"
    )


async def test_interval_forms(runtime: AgentKit, deps: HomarDeps) -> None:
    for text, secs in (("30", 1800), ("30 minutes", 1800), ("2h", 7200)):
        r = await approved(
            runtime,
            deps,
            "x",
            call(
                "schedule_action",
                description=f"check {text}",
                type="interval",
                schedule=text,
                until="2026-12-01",
            ),
        )
        job = await deps.engine.get(r.job_ids[0])
        assert job.kind == "interval" and job.schedule["seconds"] == secs and job.until is not None


async def test_schedule_action_once(runtime: AgentKit, deps: HomarDeps) -> None:
    r = await ask(
        runtime,
        deps,
        "x",
        call("schedule_action", description="deploy", type="once", schedule="in 2 hours"),
    )
    job = await deps.engine.get(r.job_ids[0])
    assert job.kind == "scheduled" and job.next_run_at == FIXED_NOW + timedelta(hours=2)


async def test_future_callback(runtime: AgentKit, deps: HomarDeps) -> None:
    r = await ask(
        runtime,
        deps,
        "check the download in an hour",
        call("schedule_future_callback", callback_time="in 1 hour", context="check the download"),
    )
    job = await deps.engine.get(r.job_ids[0])
    assert job.kind == "callback" and r.requests == 1


async def test_bad_time_retries_then_succeeds(runtime: AgentKit, deps: HomarDeps) -> None:
    r = await ask(
        runtime,
        deps,
        "x",
        call("schedule_reminder", reminder_time="whenever", message="x"),
        call("schedule_reminder", reminder_time="in 2 hours", message="x"),
    )
    assert len(r.job_ids) == 1 and r.requests == 2


# ---------------------------------------------------------------- management


async def _job(deps: HomarDeps, owner: int = 1, text: str = "water plants") -> int:
    job = await deps.engine.create(
        target=Target(owner, 100, 10),
        command=text,
        schedule=Schedule(Once(FIXED_NOW + timedelta(hours=3)), "Europe/Berlin"),
        kind="scheduled",
    )
    return job.id


async def test_list_then_answer(runtime: AgentKit, deps: HomarDeps) -> None:
    jid = await _job(deps)
    r = await ask(
        runtime,
        deps,
        "what do I have?",
        call("list_scheduled_actions"),
        TextPart("You have one job."),
    )
    assert r.requests == 2 and r.text == "You have one job."
    tool_return = r.script.messages[1][-1].parts[0]
    assert f"#{jid}" in tool_return.content and "2026-11-23T19:00:00+01:00" in tool_return.content
    assert "<t:" in tool_return.content and "water plants" in tool_return.content


async def test_delete_pause_resume_update(runtime: AgentKit, deps: HomarDeps) -> None:
    jid = await _job(deps)
    r = await ask(runtime, deps, "pause", call("stop_interval_action", task_id=jid))
    assert "Paused" in r.text and r.requests == 1
    r = await ask(runtime, deps, "resume", call("resume_scheduled_action", task_id=jid))
    assert "Resumed" in r.text
    r = await ask(
        runtime,
        deps,
        "move it",
        call(
            "update_scheduled_action",
            task_id=jid,
            new_time="tomorrow at 10",
            new_message="water all plants",
        ),
        TextPart("Moved."),
    )
    job = await deps.engine.get(jid)
    assert job.command == "water all plants" and job.next_run_at is not None
    assert job.next_run_at.isoformat() == "2026-11-24T09:00:00+00:00"
    assert r.text.startswith("Updated") and r.requests == 2
    # Making it repeat is the same decision as creating a repeating job: approval first.
    r = await approved(
        runtime,
        deps,
        "make it daily",
        call("update_scheduled_action", task_id=jid, new_time="every day at 7"),
    )
    assert (await deps.engine.get(jid)).kind == "recurring" and "Updated" in r.text
    r = await ask(runtime, deps, "cancel", call("delete_scheduled_action", task_id=jid))
    assert "Cancelled" in r.text and (await deps.engine.get(jid)).status == "cancelled"


@pytest.mark.parametrize("model_time", ["21:30", "2026-11-23T21:30:00+01:00", "9:30pm"])
async def test_a_repeat_moved_to_a_time_of_day_keeps_its_days_whatever_the_model_wrote(
    runtime: AgentKit, deps: HomarDeps, model_time: str
) -> None:
    """The model read "9:30" as tonight's (what the person said wins, and a repeat stays a
    repeat): weekdays at 09:30, not a one-off at 21:30."""
    from tools.schedule import Cron

    job = await deps.engine.create(
        target=Target(1, 100, 10),
        command="post standup",
        schedule=Schedule(Cron("0 9 * * 1-5"), "Europe/Berlin"),
        kind="recurring",
    )
    update = call("update_scheduled_action", task_id=job.id, new_time=model_time)
    r = await ask(runtime, deps, "push the standup to 9:30", update, TextPart("Done."))
    assert r.approval is not None and "changing when it repeats" in r.text, r.text
    r = await resume_approval(runtime, r.approval, True, deps)
    after = await deps.engine.get(job.id)
    assert schedule_of(after).spec == Cron("30 9 * * 1-5") and "Updated" in r.text


async def test_a_job_named_by_its_time_of_day_wins_over_the_models_number(
    runtime: AgentKit, deps: HomarDeps
) -> None:
    first = await _job(deps, text="water plants")  # 19:00 Berlin
    other = await deps.engine.create(
        target=Target(1, 100, 10),
        command="call mom",
        schedule=Schedule(Once(FIXED_NOW + timedelta(hours=5)), "Europe/Berlin"),
        kind="reminder",
    )
    r = await ask(
        runtime,
        deps,
        "cancel my 7pm reminder",
        call("delete_scheduled_action", task_id=other.id),
        TextPart("Done."),
    )
    assert (await deps.engine.get(first)).status == "cancelled", r.text
    assert (await deps.engine.get(other.id)).status == "active"


async def test_only_own_jobs(runtime: AgentKit, deps: HomarDeps) -> None:
    other = await _job(deps, owner=2)
    r = await ask(runtime, deps, "cancel it", call("delete_scheduled_action", task_id=other))
    assert "isn't yours" in r.text and (await deps.engine.get(other)).status == "active"
    await _job(deps, owner=1, text="feed the cat")
    r = await ask(runtime, deps, "list", call("list_scheduled_actions"), TextPart("done"))
    assert "feed the cat" in r.text and "water plants" not in r.text


# ---------------------------------------------------------------- fired runs


async def test_fired_run_asks_before_recurring(runtime: AgentKit, deps: HomarDeps) -> None:
    deps = replace(deps, fired=True, fired_job_id=7)
    r = await ask(
        runtime,
        deps,
        "stretch",
        call("schedule_action", description="stretch", type="recurring", schedule="0 8 * * *"),
    )
    assert not r.job_ids and r.approval is not None  # issue 7: approval, never a silent chain
    assert "job #7" in (r.script.infos[0].instructions or "")
    prompt = r.script.messages[0][-1].parts[-1].content
    assert prompt.startswith("[Scheduled job #7")


async def test_fired_run_at_most_three_jobs(runtime: AgentKit, deps: HomarDeps) -> None:
    deps = replace(deps, fired=True)
    calls = [call("send_delayed_message", message=f"step {i}", minutes=i + 1) for i in range(5)]
    r = await ask(runtime, deps, "do steps", calls, TextPart("Done."))
    assert r.approval is not None and len(r.approval.calls) == 3 and "at most 3" in r.text
    r = await resume_approval(runtime, r.approval, True, deps)
    assert len(r.job_ids) == 3


async def test_several_schedules_when_asked(runtime: AgentKit, deps: HomarDeps) -> None:
    r = await ask(
        runtime,
        deps,
        "remind me at 17 and 18",
        [
            call("schedule_reminder", reminder_time="17:00", message="a"),
            call("schedule_reminder", reminder_time="18:00", message="b"),
        ],
    )
    assert len(r.job_ids) == 2 and r.requests == 1 and r.text.count("⏰") == 2


# ---------------------------------------------------------------- text tool calls and tags


async def test_json_text_tool_call(runtime: AgentKit, deps: HomarDeps) -> None:
    args = '{"reminder_time": "in 2 hours", "message": "tea"}'
    text = '```json\n{"name": "schedule_reminder", "arguments": ' + args + "}\n```"
    r = await ask(runtime, deps, "remind me in 2 hours about tea", TextPart(text))
    assert r.requests == 1 and len(r.job_ids) == 1
    job = await deps.engine.get(r.job_ids[0])
    assert job.command == "tea" and job.next_run_at == FIXED_NOW + timedelta(hours=2)


async def test_json_text_bad_args_retry(runtime: AgentKit, deps: HomarDeps) -> None:
    r = await ask(
        runtime,
        deps,
        "x",
        TextPart(
            '{"tool": "send_delayed_message", "parameters": {"message": "x", "minutes": "lots"}}'
        ),
        TextPart('{"tool": "send_delayed_message", "parameters": {"message": "x", "minutes": 5}}'),
    )
    assert len(r.job_ids) == 1 and r.requests == 2


async def test_cron_tag_recurring_and_one_time(runtime: AgentKit, deps: HomarDeps) -> None:
    r = await ask(
        runtime,
        deps,
        "every day at 8 stretch",
        TextPart("Sure! [CRON: '0 8 * * *' / MSG: 'stretch']"),
        TextPart("Done."),
    )
    # seed 000: the repeating tag is the proposed job, through the same approval (1 request)
    assert r.approval is not None and not r.job_ids and r.requests == 1
    assert r.approval.calls[0].args["schedule"] == "0 8 * * *"
    r = await resume_approval(runtime, r.approval, True, deps)
    job = await deps.engine.get(r.job_ids[0])
    assert job.kind == "recurring" and f"#{job.id}" in r.text
    r = await ask(
        runtime, deps, "on dec 24 at 10", TextPart('Ok. [CRON: "0 10 24 12 *" / MSG: "gifts"]')
    )
    job = await deps.engine.get(r.job_ids[0])
    assert job.kind == "reminder" and job.next_run_at is not None
    assert job.next_run_at.isoformat() == "2026-12-24T09:00:00+00:00"


async def test_execute_now_and_conflicting_tags(runtime: AgentKit, deps: HomarDeps) -> None:
    r = await ask(
        runtime, deps, "remind me now", TextPart("Here you go! [EXECUTE_NOW: 'drink water']")
    )
    assert r.remind_now == "drink water" and not r.job_ids
    r = await ask(runtime, deps, "x", TextPart("[CRON: '0 8 * * *' / MSG: 'a'] [EXECUTE_NOW: 'b']"))
    assert r.clarifier and not r.job_ids


# ---------------------------------------------------------------- errors and fallback


async def test_model_error_falls_back_to_offline(runtime: AgentKit, deps: HomarDeps) -> None:
    def broken(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        raise RuntimeError("provider down")

    with runtime.agent.override(model=FunctionModel(broken)):
        r = await run_agent(runtime, "remind me tomorrow at 9 to call mom", deps)
        assert r.offline and len(r.job_ids) == 1 and r.error and "provider down" in r.error


async def test_usage_limit_falls_back_to_offline(runtime: AgentKit, deps: HomarDeps) -> None:
    r = await ask(runtime, deps, "in 30 minutes check the oven", call("list_scheduled_actions"))
    assert r.offline and len(r.job_ids) == 1 and "UsageLimitExceeded" in (r.error or "")


async def test_engine_failure_is_friendly(runtime: AgentKit, deps: HomarDeps) -> None:
    async def boom(**kwargs: Any) -> None:
        raise OSError("disk full")

    deps.engine.create = boom  # type: ignore[method-assign]
    r = await ask(runtime, deps, "x", call("send_delayed_message", message="x", minutes=5))
    assert not r.job_ids and "something went wrong" in r.text


async def test_everything_failing_is_still_a_reply(runtime: AgentKit, deps: HomarDeps) -> None:
    def broken(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        raise RuntimeError("down")

    failing = replace(runtime, offline=FunctionModel(broken))
    with runtime.agent.override(model=FunctionModel(broken)):
        r = await run_agent(failing, "hi", deps)
        assert r.error and "nothing was scheduled" in r.text


async def test_reference_time_in_instructions(runtime: AgentKit, deps: HomarDeps) -> None:
    r = await ask(runtime, deps, "hi", TextPart("Hello."))
    # The model reads the reference time last, at the end of the message (issue 15: the static
    # instructions and tool schemas stay a prefix a local server's prompt cache reuses).
    said = str(r.script.messages[0][-1].parts[-1].content)
    assert said.startswith("hi\n\n(Now: ")
    assert "Mon 23 Nov 2026 16:00:00 Europe/Berlin" in said
    assert "Reference time" not in (r.script.infos[0].instructions or "")
    assert r.text == "Hello." and not r.clarifier
    # Another person, another time: the same instructions, byte for byte.
    deps = replace(deps, user_id=2, now=deps.reference_now() + timedelta(hours=3))
    again = await ask(runtime, deps, "hi", TextPart("Hello."))
    assert again.script.infos[0].instructions == r.script.infos[0].instructions
    # The thread's history keeps the person's message, not the reference line.
    assert runtime.memory is None or all(
        "Reference time" not in str(getattr(p, "content", ""))
        for m in await runtime.memory.load(deps.channel_id)
        for p in m.parts
    )


async def test_a_zone_set_during_a_run_is_read_by_the_rest_of_it(
    runtime: AgentKit, deps: HomarDeps
) -> None:
    """`set_timezone` changes the run's state, not its frozen origin: a later tool of the
    same run keeps the job in the new zone, and the caller's deps are as they were."""
    r = await ask(
        runtime,
        deps,
        "set my timezone to Tokyo and call Ken in 30 minutes",
        call("set_timezone", zone="Tokyo"),
        call("send_delayed_message", message="call Ken", minutes=30),
        TextPart("Done."),
    )
    (job_id,) = r.job_ids
    job = await deps.engine.get(job_id)
    assert job.tz == "Asia/Tokyo"
    assert deps.tz == "Europe/Berlin" and deps.state.tz is None


async def test_a_repeats_bare_afternoon_clock_is_asked_whatever_the_model_wrote(
    runtime: AgentKit, deps: HomarDeps
) -> None:
    """ "every Tuesday at 4:30 …" is 04:30 or 16:30: the person is asked, not the model's
    guess kept (the 1.5B wrote "every tuesday at 4:30", read as 04:30)."""
    r = await ask(
        runtime,
        deps,
        "every Tuesday and Thursday at 4:30 remind me to take Max to football",
        call(
            "schedule_action",
            description="remind me to take Max to football",
            type="recurring",
            schedule="every tuesday and thursday at 4:30",
        ),
        TextPart("Done."),
    )
    assert not r.job_ids and r.approval is None
    assert "Is 4:30 in the morning or in the afternoon?" in r.text
